// Who a request acts as, once its key is verified, and what that may reach.
import type { RoomRef } from '../store/keys.js'

/** A team key: the team's rooms and the admin API. A room invite key: its one room over MCP/SSE/snapshot. */
export type Principal =
  { kind: 'team'; teamId: string; keyId: string } | { kind: 'room'; teamId: string; roomId: string; tokenId: string }

/**
 * The room a principal may open, or undefined. A room the key cannot reach is reported exactly
 * like a room that does not exist (not_found), so a key learns nothing about other rooms.
 */
export function roomFor(p: Principal, roomId: string): RoomRef | undefined {
  if (p.kind === 'team') return { teamId: p.teamId, roomId }
  return p.roomId === roomId ? { teamId: p.teamId, roomId } : undefined
}
