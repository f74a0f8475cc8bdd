// Who is asking and which room: the checks every route of a room or of a team shares. A room a
// key cannot see answers not_found whether or not it exists, so nothing leaks.
import { z } from 'zod'
import { roomFor, type Principal } from '../../auth/principal.js'
import { roomId as roomIdField } from '../../shared/fields.js'
import { parse } from '../../shared/validate.js'
import { RoomNotFound } from '../../shared/errors.js'
import type { RoomRef } from '../../store/keys.js'
import type { Ctx } from '../router.js'
import type { WaitBudget } from '../../shared/wait-budget.js'

/**
 * The room a request may open: another team's room, or another room than an invite's, is
 * RoomNotFound, as a room that does not exist is (nothing leaks; src/http/errors.ts words it).
 */
export function roomOf(ctx: Ctx): RoomRef {
  const roomId = ctx.params.roomId!
  parse(z.object({ roomId: roomIdField }), { roomId })
  const ref = ctx.principal && roomFor(ctx.principal, roomId)
  if (!ref) throw new RoomNotFound(roomId)
  return ref
}

/** Who mints on a `team`-auth route: its team key (the new key is the person's who minted that one, if any). */
export function minterOf(ctx: Ctx): { key: string } {
  return { key: (ctx.principal as Extract<Principal, { kind: 'team' }>).keyId }
}

/** The team of a request on a `team`-auth route. */
export function teamOf(ctx: Ctx): string {
  return (ctx.principal as Principal).teamId
}

/** The request's time waiting for Redis (src/shared/wait-budget.ts), which every store access of it draws on. */
export function budgetOf(ctx: Ctx): WaitBudget | undefined {
  return ctx.ex.req.budget
}

/** The caller's name in records it creates: the key id (never the secret). */
export function actorOf(p: Principal | undefined): string {
  if (!p) return 'anonymous'
  if (p.kind === 'grant') return `grant:${p.grantId}`
  return p.kind === 'team' ? `key:${p.keyId}` : `invite:${p.tokenId}`
}
