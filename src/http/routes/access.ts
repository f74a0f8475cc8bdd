// Who is asking and which room: the checks every route of a room or of a team shares. A room a
// key cannot see answers not_found whether or not it exists, so nothing leaks.
import { z } from 'zod'
import { roomFor, type Principal } from '../../auth/principal.js'
import { roomId as roomIdField } from '../../core/fields.js'
import { parse } from '../../shared/validate.js'
import { AppError } from '../../shared/errors.js'
import type { RoomRef } from '../../store/keys.js'
import type { Ctx } from '../router.js'

/** The one answer for a room a key cannot see, whether or not it exists: nothing leaks. */
export const roomNotFound = (roomId: string) =>
  new AppError('not_found', `room ${roomId} not found`, { field: 'roomId' })

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
    if (err instanceof AppError && err.code === 'not_found' && err.details?.field === 'room_id')
      throw roomNotFound(ref.roomId)
    throw err
  }
}

/** Who mints on a `team`-auth route: its team key (the new key is the person's who minted that one, if any). */
export function minterOf(ctx: Ctx): { key: string } {
  return { key: (ctx.principal as Extract<Principal, { kind: 'team' }>).keyId }
}

/** The team of a request on a `team`-auth route. */
export function teamOf(ctx: Ctx): string {
  return (ctx.principal as Principal).teamId
}

/** The caller's name in records it creates: the key id (never the secret). */
export function actorOf(p: Principal | undefined): string {
  if (!p) return 'anonymous'
  if (p.kind === 'grant') return `grant:${p.grantId}`
  return p.kind === 'team' ? `key:${p.keyId}` : `invite:${p.tokenId}`
}
