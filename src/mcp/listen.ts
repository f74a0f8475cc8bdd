// subscriptions/listen (2026-07-28): a long-lived reply stream that carries
// notifications/resources/updated for the room resources a client subscribed to, and
// notifications/resources/list_changed for the rooms it watches. Every stream of every room on
// this node shares one hub listener per room (the same hub as the SSE streams): a change made on
// any node reaches every listener through the room's pub/sub notice, with no Redis connection or
// command of a stream's own. A notice is a wake-up: the stream says which URIs changed and the
// client reads them again. After a hub resync (notices may have been lost) every subscribed URI
// is announced once. The stream ends with the listen request's result when the node drains, and
// with an error when its key is revoked.
import type { Principal } from '../auth/principal.js'
import { revokedError, type Keyring } from '../auth/keyring.js'
import { holderOf, type OpenCaps } from '../auth/open-caps.js'
import type { Notice } from '../core/events.js'
import type { Core } from '../core/index.js'
import type { Hub } from '../realtime/hub.js'
import type { Lifecycle } from '../shared/lifecycle.js'
import type { RoomRef } from '../store/keys.js'
import type { WaitBudget } from '../shared/wait-budget.js'
import type { ReplySink } from './transport.js'
import { ERROR, isObject, type JsonObject, type RequestId } from './wire.js'
import { parseResourceUri, notFound, resourceUri, roomOfUri, rpcError, type ResourceRef } from './resources.js'

/** What the listen streams use: the hub they share, the room check, the key holds, the drain. */
export interface ListenDeps {
  hub: Pick<Hub, 'listen' | 'onResync' | 'whenSubscribed'>
  core: Pick<Core, 'rooms'>
  keyring: Pick<Keyring, 'hold'>
  lifecycle: Pick<Lifecycle, 'onDrain'>
  openCaps: Pick<OpenCaps, 'take'>
}

/** URIs one listen request may subscribe to at most. */
export const MAX_SUBSCRIPTIONS = 100

export const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId'

/** The part of the request's filter this server honours (the acknowledgement's `notifications`). */
export interface Honoured {
  resourcesListChanged?: true
  resourceSubscriptions?: string[]
}

/**
 * Where a stream writes: notifications, then one final message (`reply`) that ends it. The MCP
 * reply channel of the listen request is one as it is: no adapter object per stream.
 */
export type ListenSink = ReplySink

/** What a room notice changed, in terms of the resources. */
export interface RoomChange {
  plan?: true
  presence?: true
  context?: { type: string; key: string }
  /** Whose unread events changed: one agent, or every agent but the author of a new event. */
  unread?: { agent: string } | { allBut: string | undefined }
  /** The room's resources/list changed (a context entry created or deleted, the room created). */
  listChanged?: true
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

/**
 * What a room notice announces, by its kind (`k`, published by the script that made the change,
 * in the same call): tasks and reviews change the plan, context notices one entry, presence the
 * presence, and every notice with a new event (`event_id`) the unread events of every agent but
 * its author; a read moves one agent's cursor, a deleted event may have been unread by anyone.
 */
export function changeOf(n: Notice): RoomChange {
  const c: RoomChange = {}
  const event = isObject(n.event) ? n.event : undefined
  if (typeof n.event_id === 'string') c.unread = { allBut: str(event?.agent_id) }
  switch (n.k) {
    case 'room':
      c.plan = c.presence = c.listChanged = true
      break
    case 'task':
      c.plan = true
      break
    case 'review':
      if (n.task !== undefined) c.plan = true
      break
    case 'presence':
      c.presence = true
      break
    case 'context': {
      const type = str(n.type)
      const key = str(n.key)
      if (type !== undefined && key !== undefined) c.context = { type, key }
      if (n.op === 'deleted' || (n.op === 'written' && n.version === 1)) c.listChanged = true
      break
    }
    case 'event':
      if (n.op === 'read' && typeof n.agent === 'string') c.unread = { agent: n.agent }
      else if (n.op === 'deleted') c.unread = { allBut: undefined }
      break
  }
  return c
}

/**
 * The subscribed URIs of one room, by what changes them (the maps made on first use: thousands of
 * idle streams each hold one of these per room).
 */
interface RoomWatch {
  readonly ref: RoomRef
  /** The room's key in the maps of this file. */
  readonly tag: string
  plan?: string
  presence?: string
  context?: Map<string, string>
  /** The first agent whose unread events are subscribed, and that URI: most streams have one, and no Map for it. */
  agent?: string
  agentUri?: string
  /** Further agents' unread URIs, by agent. */
  moreUnread?: Map<string, string>
  listChanged: boolean
}

const contextKeyOf = (type: string, key: string) => `${type}\n${key}`
/** A room's key in the maps of this file (ids never hold a newline). */
const tagOf = (ref: RoomRef) => `${ref.teamId}\n${ref.roomId}`

function watchOf(ref: RoomRef): RoomWatch {
  return {
    ref,
    tag: tagOf(ref),
    plan: undefined,
    presence: undefined,
    agent: undefined,
    agentUri: undefined,
    listChanged: false,
  }
}

/** The URI of `agent`'s unread events in `w`, if subscribed. */
function unreadUri(w: RoomWatch, agent: string): string | undefined {
  return w.agent === agent ? w.agentUri : w.moreUnread?.get(agent)
}

/** The URIs of `w` that `c` changed, in a fixed order. */
function changedUris(w: RoomWatch, c: RoomChange): string[] {
  const out: string[] = []
  if (c.plan && w.plan) out.push(w.plan)
  if (c.presence && w.presence) out.push(w.presence)
  if (c.context) {
    const uri = w.context?.get(contextKeyOf(c.context.type, c.context.key))
    if (uri) out.push(uri)
  }
  const u = c.unread
  if (u && 'agent' in u) {
    const uri = unreadUri(w, u.agent)
    if (uri) out.push(uri)
  } else if (u) {
    if (w.agentUri && w.agent !== u.allBut) out.push(w.agentUri)
    if (w.moreUnread) for (const [agent, uri] of w.moreUnread) if (agent !== u.allBut) out.push(uri)
  }
  return out
}

function allUris(w: RoomWatch): string[] {
  return [w.plan, w.presence, ...(w.context?.values() ?? []), w.agentUri, ...(w.moreUnread?.values() ?? [])].filter(
    (u): u is string => !!u,
  )
}

/** One open stream: its id, the rooms it watches, where it writes. */
class Stream {
  live = false
  closed = false
  /** Lets go of the key's hold (made once the stream is registered). */
  unhold: (() => void) | undefined = undefined
  /** Lets go of the stream's open-use count. */
  release: (() => void) | undefined = undefined
  constructor(
    readonly id: RequestId,
    readonly rooms: readonly RoomWatch[],
    readonly sink: ListenSink,
  ) {}

  tag(params: JsonObject): JsonObject {
    return { ...params, _meta: { [SUBSCRIPTION_ID]: this.id } }
  }

  updated(uris: string[], listChanged: boolean): void {
    if (!this.live) return
    for (const uri of uris)
      this.sink.notify({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: this.tag({ uri }) })
    if (listChanged)
      this.sink.notify({ jsonrpc: '2.0', method: 'notifications/resources/list_changed', params: this.tag({}) })
  }
}

/** Validates a listen request's filter: what is honoured, and the rooms it watches (by tag). */
function filterOf(p: Principal, params: unknown): { honoured: Honoured; rooms: RoomWatch[] } {
  const notifications = isObject(params) ? params.notifications : undefined
  if (!isObject(notifications))
    throw rpcError(ERROR.invalidParams, 'Invalid params: params.notifications is required: an object (the filter)')
  for (const f of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const) {
    const v = notifications[f]
    if (v !== undefined && typeof v !== 'boolean')
      throw rpcError(ERROR.invalidParams, `Invalid params: notifications.${f} must be a boolean`)
  }
  const subs = notifications.resourceSubscriptions ?? []
  if (!Array.isArray(subs) || subs.some((u) => typeof u !== 'string'))
    throw rpcError(ERROR.invalidParams, 'Invalid params: notifications.resourceSubscriptions must be an array of URIs')
  const uris = [...new Set(subs as string[])]
  if (uris.length > MAX_SUBSCRIPTIONS)
    throw rpcError(
      ERROR.invalidParams,
      `Invalid params: notifications.resourceSubscriptions: ${uris.length} URIs; the limit is ${MAX_SUBSCRIPTIONS}`,
      { limit: MAX_SUBSCRIPTIONS, size: uris.length },
    )
  const rooms = new Map<string, RoomWatch>()
  const watch = (ref: RoomRef) => {
    const tag = tagOf(ref)
    let w = rooms.get(tag)
    if (!w) rooms.set(tag, (w = watchOf(ref)))
    return w
  }
  for (const uri of uris) {
    const ref = parseResourceUri(uri)
    if (!ref) throw notFound(uri)
    add(watch(roomOfUri(p, uri, ref)), ref, uri)
  }
  const honoured: Honoured = {}
  // The list of the rooms the stream watches: an invite key's room, or the rooms of its URIs.
  const one = (p as { roomId?: unknown }).roomId
  if (notifications.resourcesListChanged === true) {
    if (typeof one === 'string') watch({ teamId: p.teamId, roomId: one })
    for (const w of rooms.values()) w.listChanged = true
    if (rooms.size > 0) honoured.resourcesListChanged = true
  }
  if (uris.length > 0) honoured.resourceSubscriptions = uris
  return { honoured, rooms: [...rooms.values()] }
}

function add(w: RoomWatch, ref: ResourceRef, uri: string): void {
  if (ref.kind === 'plan') w.plan = uri
  else if (ref.kind === 'presence') w.presence = uri
  else if (ref.kind === 'context') (w.context ??= new Map()).set(contextKeyOf(ref.type, ref.key), uri)
  else if (w.agent === undefined || w.agent === ref.agent) {
    w.agent = ref.agent
    w.agentUri = uri
  } else (w.moreUnread ??= new Map()).set(ref.agent, uri)
}

interface SharedRoom {
  /** The room's streams, each with what it watches of the room. */
  readonly streams: Map<Stream, RoomWatch>
  readonly unlisten: () => void
}

export class Listens {
  private readonly rooms = new Map<string, SharedRoom>()
  private readonly streams = new Set<Stream>()
  private draining = false

  constructor(private readonly deps: ListenDeps) {
    deps.hub.onResync(() => {
      for (const s of this.streams) for (const w of s.rooms) s.updated(allUris(w), w.listChanged)
    })
    // One drain hook for every stream of the node: each ends with the listen request's result.
    deps.lifecycle.onDrain(() => {
      this.draining = true
      for (const s of [...this.streams]) this.drained(s)
    })
  }

  stats(): { streams: number; rooms: number } {
    return { streams: this.streams.size, rooms: this.rooms.size }
  }

  /**
   * Opens one stream: checks the filter and that every room it names exists for this key
   * (otherwise throws the -32602 naming the first URI that does not), waits until the rooms'
   * channels are subscribed, then acknowledges. From the acknowledgement on, every change reaches
   * the sink until `close` is called, the key is revoked or the node drains. Returns `close`.
   * `budget`: the request's time waiting for Redis (src/shared/wait-budget.ts), for those checks.
   */
  async open(p: Principal, id: RequestId, params: unknown, sink: ListenSink, budget?: WaitBudget): Promise<() => void> {
    const { honoured, rooms } = filterOf(p, params)
    for (const w of rooms) {
      if (!(await this.deps.core.rooms.exists(w.ref, budget)))
        throw notFound(firstUri(w) ?? resourceUri({ kind: 'plan', roomId: w.ref.roomId }))
    }
    const stream = new Stream(id, rooms, sink)
    stream.release = this.deps.openCaps.take(holderOf(p))
    const { close, revoked } = this.endsOf(stream)
    if (this.draining) {
      this.drained(stream)
      return close
    }
    this.streams.add(stream)
    for (const w of rooms) this.join(w, stream)
    stream.unhold = this.deps.keyring.hold(p, revoked)
    await Promise.all(rooms.map((w) => this.deps.hub.whenSubscribed(w.ref)))
    if (stream.closed) return close
    sink.notify({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: stream.tag({ notifications: honoured }),
    })
    stream.live = true
    return close
  }

  /**
   * The stream's close (returned by open) and the end its key's hold calls on revocation (the
   * stream ends with the unauthorized error): what an idle stream keeps of open(), two closures
   * over the stream alone.
   */
  private endsOf(stream: Stream): { close: () => void; revoked: () => void } {
    return {
      close: () => this.close(stream),
      revoked: () => {
        this.close(stream)
        const error = revokedError().toJSON()
        stream.sink.reply({
          jsonrpc: '2.0',
          id: stream.id,
          error: { code: ERROR.transport, message: error.message, data: { error } },
        })
      },
    }
  }

  /** Stops the stream's notifications and lets go of what it holds; once. */
  private close(stream: Stream): void {
    if (stream.closed) return
    stream.closed = true
    stream.live = false
    if (this.streams.delete(stream)) for (const w of stream.rooms) this.leave(w.tag, stream)
    stream.unhold?.()
    stream.release?.()
    stream.unhold = stream.release = undefined
  }

  /** The node drains: the stream ends with the listen request's result. */
  private drained(stream: Stream): void {
    if (stream.closed) return
    this.close(stream)
    stream.sink.reply({ jsonrpc: '2.0', id: stream.id, result: { _meta: { [SUBSCRIPTION_ID]: stream.id } } })
  }

  private join(watch: RoomWatch, stream: Stream): void {
    let room = this.rooms.get(watch.tag)
    if (!room) {
      const streams = new Map<Stream, RoomWatch>()
      const unlisten = this.deps.hub.listen(watch.ref, (n) => {
        const c = changeOf(n)
        for (const [s, w] of streams) s.updated(changedUris(w, c), c.listChanged === true && w.listChanged)
      })
      this.rooms.set(watch.tag, (room = { streams, unlisten }))
    }
    room.streams.set(stream, watch)
  }

  private leave(tag: string, stream: Stream): void {
    const room = this.rooms.get(tag)
    if (!room) return
    room.streams.delete(stream)
    if (room.streams.size > 0) return
    this.rooms.delete(tag)
    room.unlisten()
  }
}

function firstUri(w: RoomWatch): string | undefined {
  return allUris(w)[0]
}
