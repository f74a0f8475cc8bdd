// The rooms as MCP resources, read-only: a room's plan, its presence, each context entry, and an
// agent's unread events, under stable URIs (resourceUri). resources/list pages through every
// room the key reaches (its one room for an invite key) in a fixed order; resources/templates/list
// names the four URI shapes; resources/read answers one URI. A URI the key cannot reach is
// answered exactly like one that does not exist (-32602 naming it), so a key learns nothing of
// other rooms or teams.
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js'
import { roomFor, type Principal } from '../auth/principal.js'
import type { Core } from '../core/index.js'
import { contextKey, contextType } from '../core/fields.js'
import { agentId, roomId as roomIdField } from '../shared/fields.js'
import type { RoomRef } from '../store/keys.js'
import type { WaitBudget } from '../shared/wait-budget.js'
import { AppError } from '../shared/errors.js'

/** What the resources read: the room model, through the same core as the tools. */
export interface ResourceDeps {
  core: Pick<Core, 'plan' | 'context' | 'events' | 'presence' | 'rooms' | 'settings'>
}

export const URI_PREFIX = 'agentrooms://rooms/'

/** What one resource URI names. */
export type ResourceRef =
  | { kind: 'plan'; roomId: string }
  | { kind: 'presence'; roomId: string }
  | { kind: 'context'; roomId: string; type: string; key: string }
  | { kind: 'unread'; roomId: string; agent: string }

/** Resources one resources/list page gives at most. */
export const LIST_PAGE = 100
/** Unread events the unread resource carries at most (its `unread` counts them all). */
export const UNREAD_LIMIT = 100
/** Rooms one page of a team's room index gives while listing. */
const ROOMS_BATCH = 20

const JSON_TYPE = 'application/json'
const seg = encodeURIComponent

/** The one URI of a resource: every segment percent-encoded, so ids with "/" stay one segment. */
export function resourceUri(r: ResourceRef): string {
  const room = URI_PREFIX + seg(r.roomId)
  switch (r.kind) {
    case 'plan':
      return `${room}/plan`
    case 'presence':
      return `${room}/presence`
    case 'context':
      return `${room}/context/${seg(r.type)}/${seg(r.key)}`
    case 'unread':
      return `${room}/agents/${seg(r.agent)}/unread`
  }
}

function decoded(part: string): string | undefined {
  try {
    return decodeURIComponent(part)
  } catch {
    return undefined
  }
}

/**
 * What a URI names, or undefined when it is not one of ours: the wrong shape, an id that no room,
 * context entry or agent can have, or a spelling other than resourceUri's (a URI has one form, so
 * two spellings never make two subscriptions of one resource).
 */
export function parseResourceUri(uri: string): ResourceRef | undefined {
  if (!uri.startsWith(URI_PREFIX)) return undefined
  const parts = uri.slice(URI_PREFIX.length).split('/').map(decoded)
  if (parts.some((p) => p === undefined || p === '')) return undefined
  const [room, what, a, b, ...rest] = parts as string[]
  if (room === undefined || !roomIdField.safeParse(room).success || rest.length > 0) return undefined
  let ref: ResourceRef | undefined
  if (what === 'plan' && a === undefined) ref = { kind: 'plan', roomId: room }
  else if (what === 'presence' && a === undefined) ref = { kind: 'presence', roomId: room }
  else if (what === 'context' && a !== undefined && b !== undefined) {
    if (contextType.safeParse(a).success && contextKey.safeParse(b).success)
      ref = { kind: 'context', roomId: room, type: a, key: b }
  } else if (what === 'agents' && a !== undefined && b === 'unread') {
    if (agentId.safeParse(a).success) ref = { kind: 'unread', roomId: room, agent: a }
  }
  return ref && resourceUri(ref) === uri ? ref : undefined
}

/**
 * A JSON-RPC error for the SDK to send as it is (code and message; data when given). McpError
 * would prefix its message with "MCP error -32602: ", and the SDK's client prefixes it again on
 * the other side.
 */
export function rpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data !== undefined ? { data } : {}) })
}

/** The -32602 of a URI that is not a resource the key reaches (unknown, malformed, or elsewhere). */
export const notFound = (uri: string) => rpcError(ErrorCode.InvalidParams, `Resource not found: ${uri}`, { uri })

/** The room a URI's room id names for this key, or the -32602 naming the URI. */
export function roomOfUri(p: Principal, uri: string, ref: ResourceRef): RoomRef {
  const room = roomFor(p, ref.roomId)
  if (!room) throw notFound(uri)
  return room
}

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: `${URI_PREFIX}{room}/plan`,
    name: 'plan',
    title: "A room's plan",
    description: 'Every task, best first (compact, as read_plan gives them), with counts per status.',
    mimeType: JSON_TYPE,
  },
  {
    uriTemplate: `${URI_PREFIX}{room}/context/{type}/{key}`,
    name: 'context',
    title: 'A context entry',
    description: "The entry's current body; _meta carries its version, when and by whom it was written.",
    mimeType: 'text/plain',
  },
  {
    uriTemplate: `${URI_PREFIX}{room}/agents/{agent}/unread`,
    name: 'unread',
    title: "An agent's unread events",
    description:
      'The events the agent has not read, oldest first, consuming nothing (read them with get_unread_events).',
    mimeType: JSON_TYPE,
  },
  {
    uriTemplate: `${URI_PREFIX}{room}/presence`,
    name: 'presence',
    title: "A room's presence",
    description: 'The agents online, newest heartbeat first.',
    mimeType: JSON_TYPE,
  },
] as const

export interface ListedResource {
  uri: string
  name: string
  title: string
  mimeType: string
  size?: number
  annotations?: { lastModified: string }
}

export interface ResourceContents {
  uri: string
  mimeType: string
  text: string
  _meta?: Record<string, unknown>
}

interface ListCursor {
  /** The room index continues after this room ('' = from the first). */
  after: string
  /** Resources of the first room after `after` already given. */
  skip: number
}

function encodeCursor(c: ListCursor): string {
  return Buffer.from(JSON.stringify([c.after, c.skip])).toString('base64url')
}

function decodeCursor(cursor: string): ListCursor {
  let v: unknown
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    v = undefined
  }
  if (
    !Array.isArray(v) ||
    v.length !== 2 ||
    typeof v[0] !== 'string' ||
    !Number.isSafeInteger(v[1]) ||
    (v[1] as number) < 0
  )
    throw rpcError(ErrorCode.InvalidParams, 'Invalid params: cursor: not a cursor of this server (pass nextCursor)')
  return { after: v[0], skip: v[1] as number }
}

const isNotFound = (err: unknown) => err instanceof AppError && err.code === 'not_found'

export class RoomResources {
  constructor(private readonly deps: ResourceDeps) {}

  /**
   * One page of the resources the key reaches, in a fixed order: rooms oldest first, and in each
   * room its plan, its presence, then its context entries by type and key. `nextCursor` when more
   * may follow. Agents' unread events are not listed (one per agent): resources/templates/list
   * gives their URI.
   */
  async list(
    p: Principal,
    cursor: string | undefined,
    budget?: WaitBudget,
  ): Promise<{ resources: ListedResource[]; nextCursor?: string }> {
    const pos = cursor === undefined ? { after: '', skip: 0 } : decodeCursor(cursor)
    const out: ListedResource[] = []
    let { after, skip } = pos
    for (;;) {
      const { ids, more } = await this.roomsAfter(p, after, budget)
      for (const id of ids) {
        const items = await this.roomResources(p.teamId, id, budget)
        const take = items.slice(skip, skip + LIST_PAGE - out.length)
        out.push(...take)
        if (out.length === LIST_PAGE) {
          const given = skip + take.length
          const next = given < items.length ? { after, skip: given } : { after: id, skip: 0 }
          const last = given >= items.length && id === ids[ids.length - 1] && !more
          return last ? { resources: out } : { resources: out, nextCursor: encodeCursor(next) }
        }
        after = id
        skip = 0
      }
      if (!more) return { resources: out }
    }
  }

  /**
   * resources/read of one URI: its contents, or -32602 naming it. `budget` (here and in list()):
   * the request's time waiting for Redis (src/shared/wait-budget.ts).
   */
  async read(p: Principal, uri: string, budget?: WaitBudget): Promise<{ contents: ResourceContents[] }> {
    const ref = parseResourceUri(uri)
    if (!ref) throw notFound(uri)
    const room = roomOfUri(p, uri, ref)
    try {
      return { contents: [await this.contents(ref, room, uri, budget)] }
    } catch (err) {
      if (isNotFound(err)) throw notFound(uri)
      throw err
    }
  }

  private async contents(
    ref: ResourceRef,
    room: RoomRef,
    uri: string,
    budget: WaitBudget | undefined,
  ): Promise<ResourceContents> {
    const { core } = this.deps
    const json = (v: object): ResourceContents => ({ uri, mimeType: JSON_TYPE, text: JSON.stringify(v) })
    switch (ref.kind) {
      case 'plan': {
        const { unread: _u, ...plan } = await core.plan.readPlan(
          { room, budget },
          { limit: core.settings.tasksPerRoom },
        )
        return json({ room_id: ref.roomId, ...plan })
      }
      case 'presence': {
        const { unread: _u, ...presence } = await core.presence.list({ room, budget })
        return json({ room_id: ref.roomId, ...presence })
      }
      case 'context': {
        const r = await core.context.read({ room, budget }, { type: ref.type, key: ref.key })
        const { version, updated_at, updated_by } = r.entry
        return {
          uri,
          mimeType: 'text/plain',
          text: r.body,
          _meta: { version, updated_at, ...(updated_by !== undefined ? { updated_by } : {}) },
        }
      }
      case 'unread': {
        const r = await core.events.peekUnreadEvents({ room, agent: ref.agent, budget }, UNREAD_LIMIT)
        const more = r.unread - r.events.length
        return json({
          room_id: ref.roomId,
          agent_id: ref.agent,
          events: r.events,
          unread: r.unread,
          ...(more > 0 ? { more: `${more} more: consume with get_unread_events` } : {}),
        })
      }
    }
  }

  /** Room ids after `after` in the key's reach, oldest first; `more` when the index goes on. */
  private async roomsAfter(
    p: Principal,
    after: string,
    budget: WaitBudget | undefined,
  ): Promise<{ ids: string[]; more: boolean }> {
    // The one room of a room invite key, a grant for one room or a connection bound to one.
    const one = p.roomId
    if (one !== undefined) return { ids: after === '' ? [one] : [], more: false }
    const page = await this.deps.core.rooms.list(
      p.teamId,
      { limit: ROOMS_BATCH, ...(after !== '' ? { after } : {}) },
      budget,
    )
    return { ids: page.rooms.map((r) => r.room_id), more: page.next !== undefined }
  }

  /** A room's listed resources, in their order; none for a room that expired meanwhile. */
  private async roomResources(
    teamId: string,
    roomId: string,
    budget: WaitBudget | undefined,
  ): Promise<ListedResource[]> {
    const room = { teamId, roomId }
    let entries
    try {
      entries = (await this.deps.core.context.list({ room, budget }, { limit: this.deps.core.settings.contextPerRoom }))
        .entries
    } catch (err) {
      if (isNotFound(err)) return []
      throw err
    }
    const out: ListedResource[] = [
      {
        uri: resourceUri({ kind: 'plan', roomId }),
        name: `${roomId}/plan`,
        title: `Plan of ${roomId}`,
        mimeType: JSON_TYPE,
      },
      {
        uri: resourceUri({ kind: 'presence', roomId }),
        name: `${roomId}/presence`,
        title: `Presence in ${roomId}`,
        mimeType: JSON_TYPE,
      },
    ]
    for (const e of entries) {
      out.push({
        uri: resourceUri({ kind: 'context', roomId, type: e.type, key: e.key }),
        name: `${roomId}/context/${e.type}/${e.key}`,
        title: `${e.type} ${e.key} (v${e.version})`,
        mimeType: 'text/plain',
        size: e.size,
        annotations: { lastModified: e.updated_at },
      })
    }
    return out
  }
}
