// Who a request acts as, once its credential is verified, and what that may reach. What each
// principal may do is decided in src/auth/permissions.ts, from the fields here.
import { AppError } from '../shared/errors.js'
import type { Via } from '../shared/fields.js'
import type { RoomRef } from '../store/keys.js'

/** What a credential reaches: `admin` adds the admin API (/admin) to `agent`'s rooms, stream and snapshot. */
export type Scope = 'admin' | 'agent'
/** `read`: only MCP tools annotated readOnlyHint and HTTP reads; `write`: every call its scope allows. */
export type Access = 'read' | 'write'

/** What every principal carries besides who it is. */
export interface Reach {
  scope: Scope
  access: Access
  /** The agent id the credential is bound to: calls act as it (absent: the caller names itself). */
  agentId?: string
  /** User id of the person whose credential it is (who minted it), when a person did. */
  by?: string
  /** The key's or invite's label, or the connected agent's client name: how records name it. */
  label?: string
}

/**
 * A team key: every room of the team (and the admin API with the admin scope), or the one room an
 * MCP connection bound it to (`roomId`: narrowConnection). A room invite key: its one room over
 * MCP/SSE/snapshot, always the agent scope.
 */
export type Principal =
  | ({ kind: 'team'; teamId: string; keyId: string; roomId?: string } & Reach)
  | ({ kind: 'room'; teamId: string; roomId: string; tokenId: string } & Reach)
  | GrantPrincipal

/**
 * An OAuth access token (over /mcp only): its grant, as a person consented to it on the dashboard:
 * the one room (undefined: every room of the team), the agent id it is bound to, read or write,
 * always the agent scope; `by` is the person who consented.
 */
export type GrantPrincipal = {
  kind: 'grant'
  teamId: string
  roomId: string | undefined
  grantId: string
  agentId: string
} & Reach & { scope: 'agent' }

/** A grant's access (Access): read-only, or read and write. */
export type GrantAccess = Access

/**
 * The room a principal may open, or undefined. A room the key cannot reach is reported exactly
 * like a room that does not exist (not_found), so a key learns nothing about other rooms.
 */
export function roomFor(p: Principal, roomId: string): RoomRef | undefined {
  if (p.roomId === undefined || p.roomId === roomId) return { teamId: p.teamId, roomId }
  return undefined
}

/**
 * Whether the principal reaches the whole team, as the team tools (list_rooms, ...) need: a team
 * key not bound to one room by its connection.
 */
export function reachesTeam(p: Principal): boolean {
  return p.kind === 'team' && p.roomId === undefined
}

/**
 * What the credential (or its connection: narrowConnection) fixes for every room tool call: the
 * agent it acts as, and the one room it reaches (a room invite key; a grant for one room; a
 * connection bound to a room). A call may leave those arguments out, and tools/list leaves them
 * out of every schema; an unbound team key fixes neither.
 */
export function bindingOf(p: Principal): { agentId?: string; roomId?: string } {
  const b: { agentId?: string; roomId?: string } = {}
  if (p.agentId !== undefined) b.agentId = p.agentId
  if (p.roomId !== undefined) b.roomId = p.roomId
  return b
}

/** What an MCP connection binds itself to, each value with the name it was given under (for errors). */
export interface ConnectionBinding {
  agent?: { value: string; field: string }
  room?: { value: string; field: string }
}

/**
 * The principal narrowed to what its connection binds (src/http/mcp.ts reads it from the URL or
 * headers): acting as that agent, reaching only that room, so everything downstream (tools/list,
 * the runner, resources, subscriptions) treats it exactly as a credential bound to them. A binding
 * can only narrow: an agent other than the one the credential is bound to, a `human:` id, or a
 * room outside the credential's reach is forbidden, naming the field. The values must be valid
 * ids already. The credential (its kind, id, scope, rate limits) is unchanged.
 */
export function narrowConnection(p: Principal, b: ConnectionBinding): Principal {
  let out = p
  if (b.agent !== undefined) {
    const { value, field } = b.agent
    if (p.agentId !== undefined && p.agentId !== value)
      throw new AppError(
        'forbidden',
        `${field}: this credential is bound to agent ${JSON.stringify(p.agentId)}; its connection may not ` +
          `bind agent ${JSON.stringify(value)}`,
        { field, bound_agent_id: p.agentId },
      )
    if (value.startsWith('human:'))
      throw new AppError('forbidden', `${field}: human: ids are reserved for people signed in to the dashboard`, {
        field,
      })
    if (p.agentId === undefined) out = { ...out, agentId: value }
  }
  if (b.room !== undefined) {
    const { value, field } = b.room
    if (p.roomId !== undefined && p.roomId !== value)
      throw new AppError(
        'forbidden',
        `${field}: this credential reaches only room ${JSON.stringify(p.roomId)}; its connection may not ` +
          `bind room ${JSON.stringify(value)}`,
        { field, bound_room_id: p.roomId },
      )
    if (p.roomId === undefined) out = { ...out, roomId: value }
  }
  return out
}

/**
 * The credential as the room records it makes keep it (`via`): its kind, id, label and person,
 * never its secret. Made from the verified principal only, so a caller cannot name another.
 */
export function viaFor(p: Principal): Via {
  const via: Via =
    p.kind === 'team'
      ? { kind: 'key', id: p.keyId }
      : p.kind === 'room'
        ? { kind: 'invite', id: p.tokenId }
        : { kind: 'grant', id: p.grantId }
  if (p.label !== undefined && p.label !== '') via.label = p.label
  if (p.by !== undefined) via.person = p.by
  return via
}

/** The credential's name in the records it makes and in the audit trail: its id, never its secret. */
export function credentialOf(p: Principal): string {
  if (p.kind === 'grant') return `grant:${p.grantId}`
  return p.kind === 'team' ? `key:${p.keyId}` : `invite:${p.tokenId}`
}
