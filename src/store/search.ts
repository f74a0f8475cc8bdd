// The Redis side of search outside the room scripts (src/search holds the rest): plain reads of a
// room's records for indexing (MULTI of plain reads: a script would copy every stored body into
// Lua strings, and decoding thousands of records in Lua held Redis for tens of ms, measured), and
// an index's shared state (marks, leases, rooms with documents, the sweep) with its scripts.
import type { RoomRef, SearchKeys } from './keys.js'
import { execResults } from './rooms.js'
import type { Store } from './store.js'

/** A room's records as stored, by id (tasks) or "<type>/<key>" (context entries), with the index's manifest. */
export interface StoredListing {
  cseq: string | null
  createdAt: string | null
  trim: string | null
  eseq: string | null
  tasks: Record<string, Buffer>
  context: Record<string, Buffer>
  /** Seqs of deleted events. */
  evdel: string[]
  /** The index's manifest of the room (position, and what it holds). */
  manifest: Record<string, string>
}

/** Named records as stored (null: gone), and events after a position as [id, fields]. */
export interface StoredChunk {
  createdAt: string | null
  tasks: (Buffer | null)[]
  notes: (Buffer | null)[]
  context: (Buffer | null)[]
  /** The version records {body, by, at} asked for, in the order of the context entries. */
  versions: (Buffer | null)[]
  events: [Buffer, Buffer[]][]
}

/** Where an index keeps its state: each room's position, and the marks, leases and sweep shared by every room. */
export interface IndexKeys {
  manifest(ref: RoomRef): string
  readonly shared: SearchKeys
}

/** What the sweep compares: the room's content seq and incarnation, the manifest's, and both TTLs (ms; -2: no key). */
export interface IndexPosition {
  cseq: string | null
  created: string | null
  pos: string | null
  room: string | null
  gen: string | null
  roomTtl: number
  manifestTtl: number
}

const member = (ref: RoomRef) => `${ref.teamId}/${ref.roomId}`

/** The whole room at one instant, without the records' bodies: what exists, and the manifest. Not room activity. */
export async function readListing(store: Store, ref: RoomRef, manifest: string): Promise<StoredListing> {
  const k = store.keys.room(ref)
  const res = await store.client
    .multi()
    .hmget(k.meta, 'cseq', 'created_at', 'trim', 'eseq')
    .hgetallBuffer(k.tasks)
    .hgetallBuffer(k.ctx)
    .zrange(k.evdel, 0, -1)
    .hgetall(manifest)
    .exec()
  const [meta, tasks, context, evdel, stored] = execResults(res, 'search listing') as [
    (string | null)[],
    Record<string, Buffer>,
    Record<string, Buffer>,
    string[],
    Record<string, string>,
  ]
  const [cseq = null, createdAt = null, trim = null, eseq = null] = meta
  return { cseq, createdAt, trim, eseq, tasks, context, evdel, manifest: stored }
}

/**
 * The named tasks (with notes) and context entries (with the version records `versionFields`
 * names, "<type>/<key>#<version>"), and up to `count` events after the event id `after` ('' from
 * the start), in one MULTI of plain reads. Not room activity.
 */
export async function readChunk(
  store: Store,
  ref: RoomRef,
  taskIds: string[],
  fields: string[],
  versionFields: string[],
  after: string,
  count: number,
): Promise<StoredChunk> {
  const k = store.keys.room(ref)
  const p = store.client.multi()
  p.hget(k.meta, 'created_at')
  if (taskIds.length > 0) p.hmgetBuffer(k.tasks, ...taskIds).hmgetBuffer(k.notes, ...taskIds)
  if (fields.length > 0) p.hmgetBuffer(k.ctx, ...fields).hmgetBuffer(k.ctxv, ...versionFields)
  if (count > 0) p.xrangeBuffer(k.events, after === '' ? '-' : `(${after}`, '+', 'COUNT', count)
  const results = execResults(await p.exec(), 'search chunk')
  let at = 0
  const next = () => results[at++]
  const out: StoredChunk = {
    createdAt: (next() as string | null) ?? null,
    tasks: [],
    notes: [],
    context: [],
    versions: [],
    events: [],
  }
  if (taskIds.length > 0) [out.tasks, out.notes] = [next() as (Buffer | null)[], next() as (Buffer | null)[]]
  if (fields.length > 0) [out.context, out.versions] = [next() as (Buffer | null)[], next() as (Buffer | null)[]]
  if (count > 0) out.events = next() as [Buffer, Buffer[]][]
  return out
}

/** An index's shared state in Redis (IndexKeys): one per index (Meilisearch's, the vectors'). */
export class IndexState {
  constructor(
    private readonly store: Store,
    readonly keys: IndexKeys,
  ) {}

  /** The lease set of the rooms being indexed (lua/includes/lease.lua). */
  get leaseSet(): string {
    return this.keys.shared.leases
  }

  /** Marks a room as changed (durably): +1 on its mark counter. */
  async mark(ref: RoomRef): Promise<void> {
    await this.store.client.zincrby(this.keys.shared.dirty, 1, member(ref))
  }

  /** Forgets a room that is gone: its manifest, and its entry among the rooms with documents. */
  async forget(ref: RoomRef): Promise<void> {
    await this.store.client.del(this.keys.manifest(ref))
    await this.store.client.zrem(this.keys.shared.rooms, member(ref))
  }

  /** Notes that a room has documents (written now). */
  async indexed(ref: RoomRef): Promise<void> {
    await this.store.client.zadd(this.keys.shared.rooms, Date.now(), member(ref))
  }

  /** Takes the sweep for `ms` unless another node holds it; true when taken. */
  async takeSweep(nodeId: string, ms: number): Promise<boolean> {
    return (await this.store.client.set(this.keys.shared.sweep, nodeId, 'PX', ms, 'NX')) === 'OK'
  }

  /** Rooms with documents ("<teamId>/<roomId>"). */
  roomsWithDocs(): Promise<string[]> {
    return this.store.client.zrange(this.keys.shared.rooms, 0, -1)
  }

  /** What the sweep compares of a room and its manifest, read at once. */
  async position(ref: RoomRef): Promise<IndexPosition> {
    const c = this.store.client
    const [meta, manifest] = [this.store.keys.room(ref).meta, this.keys.manifest(ref)]
    const [[cseq = null, created = null], [pos = null, room = null, gen = null], roomTtl, manifestTtl] =
      await Promise.all([
        c.hmget(meta, 'cseq', 'created_at'),
        c.hmget(manifest, 'pos', 'room', 'gen'),
        c.pttl(meta),
        c.pttl(manifest),
      ])
    return { cseq, created, pos, room, gen, roomTtl, manifestTtl }
  }

  /** Claims up to `max` marked rooms (or only `only`, '' = any) under leases of `leaseMs`. */
  async claim(leaseMs: number, max: number, only: string): Promise<{ room: string; mark: number; token: number }[]> {
    const k = this.keys.shared
    const r = await this.store.run(
      'claimSearchRooms',
      [k.dirty, k.leases, this.store.keys.leaseTokens(k.leases)],
      [leaseMs, max, only],
    )
    return r.rooms
  }

  /** Releases a room's lease after a sync: clears its mark (success, `retryMs` 0) or keeps it and waits `retryMs`. */
  ack(room: string, mark: number, retryMs: number, token: number): Promise<unknown> {
    const k = this.keys.shared
    return this.store.run(
      'ackSearchRoom',
      [k.dirty, k.leases, this.store.keys.leaseTokens(k.leases)],
      [room, mark, retryMs, token],
    )
  }

  /** Changes a room's manifest (lua/saveSearchManifest-1.lua), giving it `ttlMs` to live. */
  save(ref: RoomRef, change: Buffer, ttlMs: number): Promise<unknown> {
    return this.store.run('saveSearchManifest', [this.keys.manifest(ref)], [ttlMs, change])
  }
}
