// Who a request acts as, once its key is verified, and what that may reach.
import type { RoomRef } from '../store/keys.js'

/**
 * A team key: the team's rooms and the admin API. A room invite key: its one room over MCP/SSE/snapshot.
 * A grant (an OAuth access token, over /mcp only): the room a person consented to (undefined: every
 * room of the team), as one agent id, read-only or read and write.
 */
export type Principal =
  | { kind: 'team'; teamId: string; keyId: string }
  | { kind: 'room'; teamId: string; roomId: string; tokenId: string }
  | GrantPrincipal

/** Who an OAuth access token names: its grant, as the person consented to it on the dashboard. */
export interface GrantPrincipal {
  kind: 'grant'
  teamId: string
  /** The one room it reaches, or undefined for every room of the team. */
  roomId: string | undefined
  grantId: string
  /** The agent id the grant acts as. */
  agentId: string
  access: GrantAccess
}

/** read: only tools that change nothing (annotated readOnlyHint). write: every room tool. */
export type GrantAccess = 'read' | 'write'

/**
 * The room a principal may open, or undefined. A room the key cannot reach is reported exactly
 * like a room that does not exist (not_found), so a key learns nothing about other rooms.
 */
export function roomFor(p: Principal, roomId: string): RoomRef | undefined {
  if (p.kind === 'team' || (p.kind === 'grant' && p.roomId === undefined)) return { teamId: p.teamId, roomId }
  return p.roomId === roomId ? { teamId: p.teamId, roomId } : undefined
}
