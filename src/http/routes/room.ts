// Room endpoints reachable with a team key or that room's invite key: the dashboard snapshot and
// the SSE stream of new events.
import { z } from 'zod'
import { roomFor } from '../../auth/principal.js'
import { AppError } from '../../shared/errors.js'
import { roomId as roomIdField } from '../../core/fields.js'
import type { RoomRef } from '../../store/keys.js'
import { parse } from '../../core/validate.js'
import type { ServiceNode } from '../../node.js'
import type { Ctx, Route } from '../router.js'
import { sseRoute } from './sse.js'

/** The one answer for a room a key cannot see, whether or not it exists: nothing leaks. */
export const roomNotFound = (roomId: string) => new AppError('not_found', `room ${roomId} not found`, { field: 'roomId' })

/** The room a request may open: another team's room, or another room than an invite's, is not_found. */
export function roomOf(ctx: Ctx): RoomRef {
  const roomId = ctx.params.roomId!
  parse(z.object({ roomId: roomIdField }), { roomId })
  const ref = ctx.principal && roomFor(ctx.principal, roomId)
  if (!ref) throw roomNotFound(roomId)
  return ref
}

/**
 * Runs a core read of `ref`. The core reports a missing room in MCP terms (field room_id); over
 * HTTP it becomes roomNotFound, so every 404 for a room reads alike whichever check refused it.
 */
export async function inRoom<T>(ref: RoomRef, read: () => Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found' && err.details?.field === 'room_id') throw roomNotFound(ref.roomId)
    throw err
  }
}

export function roomRoutes(node: ServiceNode): Route[] {
  return [
    {
      method: 'GET',
      path: '/room/:roomId',
      auth: 'any',
      tag: 'rooms',
      summary: 'Dashboard snapshot of a room: plan, context metadata, latest 50 events, who has read what (reads), presence, locks, vars, reviews. Not counted as room activity.',
      handle: async (ctx) => {
        const room = roomOf(ctx)
        return inRoom(room, () => node.core.snapshot.room({ room }))
      },
    },
    sseRoute(node),
  ]
}
