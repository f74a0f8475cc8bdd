// The indexer: keeps an index outside the room's own keys in step with every room, and cannot
// silently fall behind. Two sinks use it: Meilisearch (meili/sink.ts) and the vectors of the
// Redis engine's semantic search (vectors/sink.ts), each with keys of its own (IndexKeys), so a
// deployment that moves from one to the other never takes one's position for the other's.
//
// Durable state, all in Redis:
// - A room's position: its manifest (IndexKeys.manifest; manifest.ts has its fields) names the
//   room incarnation, the content seq it is synced to (the room's meta.cseq, bumped by every
//   notice that changes tasks, context or events), and what is in the index.
// - Rooms to sync: a sorted set of marks (IndexKeys.shared.dirty), +1 each time a node changes a
//   room's content; leases (IndexKeys.shared.leases, the rule of lua/includes/lease.lua) so one
//   node syncs a room at a time. The node's LeaseKeeper renews a lease while it syncs (every third
//   of the lease, and before and after every write: it stops writing when it finds the lease
//   gone to another node, and leaves what it wrote last for the next sync to write again), and
//   its ack changes nothing unless its token still holds the lease, so a node that stalled past
//   its lease cannot clear another's.
//
// A sync diffs what exists (one listing: ids and stamps, no bodies) against the manifest, sends the
// changed records to Meilisearch, deletes what is gone, and saves the manifest after every batch
// Meilisearch applied, then `pos`. A crash anywhere leaves the room marked with its manifest
// behind or partial: the next sync (any node, once the lease runs out) resumes from there; nothing
// is lost and no write is applied twice in a way that matters (upserts and deletes are
// idempotent). A mark itself can be lost (the node dies between the write and the mark): the
// sweep compares every room's cseq with its `pos` and marks the rooms behind, and deletes the
// documents of rooms that expired. `reconcile(room)` runs a sync now, on demand.
//
// One concern in one file: claiming, syncing and sweeping are one
// protocol over the durable state above, whose contract this header is. What is not the protocol
// is apart: the manifest's diff (manifest.ts), the sinks (meili/sink.ts, vectors/sink.ts), the
// reads of a room (records.ts), the index keys and leases (src/store/search.ts,
// src/store/leases.ts).
import { randomBytes } from 'node:crypto'
import { encode } from '../shared/msgpack.js'
import type { SearchSettings } from './settings.js'
import { AppError } from '../shared/errors.js'
import type { RoomRef } from '../store/keys.js'
import { LeaseKeeper, type Lease } from '../store/leases.js'
import { IndexState, type IndexKeys } from '../store/search.js'
import type { Committed, Store } from '../store/store.js'
import { diffManifest, fieldOf, fieldOfKey, redoChange } from './manifest.js'
import { SearchReader, docKey, seqOfId, type RoomListing, type SourceDoc } from './records.js'

/** Writes documents durably: a call resolves once the index has applied the change (or throws). */
export interface IndexSink {
  /**
   * Upserts `docs` and deletes the documents of `deleteKeys` (doc keys "<kind>:<id>") of the room.
   * `listing` is what the sync started from (a sink that keeps only part of a room chooses with it).
   */
  apply(ref: RoomRef, docs: SourceDoc[], deleteKeys: string[], listing?: RoomListing): Promise<void>
  /** Deletes every document of the room. */
  dropRoom(ref: RoomRef): Promise<void>
  /**
   * What the documents are made with (e.g. the embedding model): when it differs from the one a
   * room's position was saved with, the room starts over. Undefined: documents never go stale so.
   */
  readonly generation?: string
  /** Gives the room's documents `ttlMs` to live, when they live in Redis beside the room (the sweep). */
  keepAlive?(ref: RoomRef, ttlMs: number): Promise<void>
}

export interface IndexerOptions {
  /**
   * A node holds a claimed room this long (ms), renewed while it syncs; a room of a node that died
   * is free after it.
   */
  leaseMs?: number
  /** How often an idle node looks for marked rooms (ms); a node that marks a room looks at once. */
  pollMs?: number
  /** How often one node sweeps every room (ms); 0: never (tests). */
  sweepMs?: number
  /** Wait before a failed room is tried again (ms). */
  retryMs?: number
  /** Records of each kind fetched per read of a room (default: SearchReader.pageCount). */
  pageSize?: number
  /** Leading bytes of task notes and context bodies the sink gets (default: whole texts). */
  fieldBytes?: number
  /** Where this index keeps its state (default: the Meilisearch index's keys). */
  keys?: IndexKeys
  log?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void }
}

export interface SyncResult {
  upserted: number
  deleted: number
  /** The room was gone (expired or removed): its documents were deleted. */
  dropped: boolean
  /** The manifest was started over (a new room, or a room created again with the same id). */
  fresh: boolean
  pos: number
}

/** A claimed room: what ack compares, and the lease held (member = the room). */
interface Claim {
  room: string
  mark: number
  lease: Lease
}

const member = (ref: RoomRef) => `${ref.teamId}/${ref.roomId}`
function refOf(m: string): RoomRef {
  const i = m.indexOf('/')
  return { teamId: m.slice(0, i), roomId: m.slice(i + 1) }
}

export class Indexer {
  readonly nodeId = randomBytes(6).toString('hex')
  private readonly reader: SearchReader
  private readonly opts: Required<Omit<IndexerOptions, 'log' | 'pageSize' | 'fieldBytes' | 'keys'>> &
    Pick<IndexerOptions, 'log' | 'pageSize'>
  private readonly state: IndexState
  private readonly leases: LeaseKeeper
  private readonly pending = new Set<string>()
  private flushing = false
  private running = false
  private again = false
  private started = false
  private stopped = false
  private pollTimer: NodeJS.Timeout | undefined
  private sweepTimer: NodeJS.Timeout | undefined

  constructor(
    private readonly store: Store,
    private readonly sink: IndexSink,
    private readonly settings: SearchSettings,
    opts: IndexerOptions = {},
  ) {
    // Meilisearch gets whole texts: the reader's cap is the largest a record can hold.
    this.reader = new SearchReader(store, {
      ...settings,
      searchFieldBytes: opts.fieldBytes ?? Math.max(settings.contextBodyBytes, settings.taskNotesBytes),
    })
    const { fieldBytes: _f, keys, ...rest } = opts
    this.state = new IndexState(
      store,
      keys ?? { manifest: (ref) => store.keys.searchManifest(ref), shared: store.keys.search() },
    )
    this.opts = { leaseMs: 30_000, pollMs: 1000, sweepMs: settings.searchSweepMs, retryMs: 5000, ...rest }
    this.leases = new LeaseKeeper(store, this.opts.leaseMs, this.opts.log, 'search indexing')
  }

  start(): void {
    if (this.started) return
    this.started = true
    this.pollTimer = setInterval(() => this.kick(), this.opts.pollMs)
    this.pollTimer.unref()
    if (this.opts.sweepMs > 0) {
      this.sweepTimer = setInterval(
        () => void this.sweep().catch((err: unknown) => this.warn(err, 'search sweep failed')),
        this.opts.sweepMs,
      )
      this.sweepTimer.unref()
      void this.sweep().catch((err: unknown) => this.warn(err, 'search sweep failed'))
    }
    this.kick()
  }

  /** Stops claiming; waits up to `waitMs` for the syncs in flight (a room left mid-sync is resumed by another node). */
  async stop(waitMs = 2000): Promise<void> {
    this.stopped = true
    if (this.pollTimer) clearInterval(this.pollTimer)
    if (this.sweepTimer) clearInterval(this.sweepTimer)
    await this.flush().catch(() => undefined)
    const end = Date.now() + waitMs
    while (this.running && Date.now() < end) await new Promise((r) => setTimeout(r, 20))
  }

  /**
   * Called after every script that committed (Store.onCommitted): marks the room of one whose
   * Effects name content (tasks, context, events), one mark per room per tick.
   */
  onCommitted(c: Committed): void {
    if (!c.effects.content || !c.ref) return
    this.pending.add(member(c.ref))
    if (this.pending.size === 1)
      setImmediate(
        () =>
          void this.flush().then(
            () => this.kick(),
            (err: unknown) => this.warn(err, 'search mark failed'),
          ),
      )
  }

  /** Marks a room as changed (durably), so some node syncs it. */
  mark(ref: RoomRef): Promise<void> {
    return this.state.mark(ref)
  }

  /** Syncs a room now (on demand), waiting for a node that holds it to finish first. */
  async reconcile(ref: RoomRef, waitMs = 60_000): Promise<SyncResult> {
    await this.mark(ref)
    const end = Date.now() + waitMs
    for (;;) {
      const [claim] = await this.claim(member(ref))
      if (claim) return this.syncClaimed(claim)
      if (Date.now() > end)
        throw new AppError('unavailable', `search: room ${ref.roomId} is being indexed by another node; try again`)
      await new Promise((r) => setTimeout(r, 50))
      // The node that held the room may have synced it and cleared the mark (ours with it):
      // mark again, so the room stays claimable for this call.
      await this.mark(ref)
    }
  }

  /** Claims marked rooms and syncs them until none is left to claim. Resolves when idle. */
  async runOnce(): Promise<number> {
    let synced = 0
    for (;;) {
      const claims = await this.claim('')
      if (claims.length === 0) return synced
      await Promise.all(
        claims.map((c) =>
          this.syncClaimed(c).then(
            () => synced++,
            () => undefined,
          ),
        ),
      )
      if (this.stopped) return synced
    }
  }

  /**
   * Brings the room's documents to the room's current state and saves the position. Throws when
   * Redis or Meilisearch fails: the manifest then holds what was applied so far. `held`, when
   * given, runs before and after every write to the sink: it renews the lease, and throws once
   * the lease is lost (or Redis does not answer).
   */
  async sync(ref: RoomRef, held: () => Promise<void> = async () => {}): Promise<SyncResult> {
    let listing
    try {
      listing = await this.reader.listing(ref, this.state.keys.manifest(ref))
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'not_found') throw err
      await this.sink.dropRoom(ref)
      await this.state.forget(ref)
      return { upserted: 0, deleted: 0, dropped: true, fresh: false, pos: 0 }
    }
    const stored = listing.stored
    const gen = this.sink.generation
    const fresh = stored.get('room') !== String(listing.createdAt) || (gen !== undefined && stored.get('gen') !== gen)
    if (fresh) {
      // A room created again under the same id, or documents made another way (another embedding
      // model), start from nothing.
      await held()
      await this.sink.dropRoom(ref)
      stored.clear()
      await this.save(ref, {
        fresh: true,
        set: { room: String(listing.createdAt), ...(gen !== undefined ? { gen } : {}) },
      })
      // Dropped by a node that may have lost the room meanwhile: its manifest starts over too, and
      // the sync the mark brings writes the whole room again.
      await held().catch(async (err: unknown) => {
        await this.mark(ref).catch(() => undefined)
        throw err
      })
    }
    // Every write to the sink is fenced by the lease, checked before it and after it. A node that
    // stalled between the check and the write, past its lease, may have overwritten what the node
    // that took the room over wrote since (whose manifest calls those documents current): the
    // check after finds the lease gone, and what this node wrote is left for the next sync to
    // write again (redoChange), the room marked for it. The fields first, so the sync the mark
    // brings reads them; a sync that read the manifest before them keeps them (and the mark).
    const write = async (docs: SourceDoc[], deleteKeys: string[]) => {
      await held()
      // A write that failed may have been applied in part: it is checked after the same way.
      const failed = await this.sink.apply(ref, docs, deleteKeys, listing).then(
        () => undefined,
        (err: unknown) => ({ err }),
      )
      try {
        await held()
      } catch (err) {
        await this.save(ref, redoChange([...docs.map((d) => d.key), ...deleteKeys]))
          .then(() => this.mark(ref))
          .catch((e: unknown) =>
            this.warn(e, `search: cannot leave room ${member(ref)} for the next sync to write again`),
          )
        throw err
      }
      if (failed) throw failed.err
    }
    const { tasks, context, deleteKeys, delFields } = diffManifest(listing)
    let upserted = 0
    let after = stored.get('elast') ?? ''
    if (after !== '' && seqOfId(after) <= listing.trim) after = ''
    // Pages sized so that one read never holds Redis long (SearchReader.pageCount).
    const [tn, cn, en] = (['tasks', 'context', 'events'] as const).map(
      (sec) => this.opts.pageSize ?? this.reader.pageCount(sec),
    ) as [number, number, number]
    for (let i = 0; ; i++) {
      const t = tasks.slice(i * tn, (i + 1) * tn)
      const c = context.slice(i * cn, (i + 1) * cn)
      const r = await this.reader.chunk(ref, listing, t, c, after, en)
      if (r.createdAt !== listing.createdAt) throw new Error(`room ${member(ref)} was created again during its sync`)
      const docs = [...r.tasks, ...r.context, ...r.events.filter((e) => seqOfId(e.id) > listing.trim)]
      // Asked for and not returned: deleted since the listing. Changed since: left as they are
      // (the change moved the room's content seq past this sync's position; the next sync has it).
      const got = new Set([...docs.map((d) => d.key), ...r.changed])
      const vanished = [...t.map((id) => docKey('task', id)), ...c.map((f) => docKey('context', f))].filter(
        (k) => !got.has(k),
      )
      await write(docs, vanished)
      const set: Record<string, string> = {}
      for (const d of docs) set[fieldOf(d)] = d.kind === 'event' ? d.id : d.stamp
      if (r.events.length > 0) after = set.elast = r.events[r.events.length - 1]!.id
      await this.save(ref, { set, del: vanished.map(fieldOfKey) })
      upserted += docs.length
      if ((i + 1) * tn >= tasks.length && (i + 1) * cn >= context.length && r.events.length < en) break
    }
    await write([], deleteKeys)
    await this.save(ref, { set: { pos: String(listing.cseq) }, del: delFields })
    await this.state.indexed(ref)
    return { upserted, deleted: deleteKeys.length, dropped: false, fresh, pos: listing.cseq }
  }

  /**
   * One sweep (at most one node at a time): marks every room whose content seq or incarnation
   * differs from its indexed position, and every room with documents that no longer exists. And
   * a room in step whose manifest would expire before the room gets the room's TTL: tool calls
   * refresh the room's keys, not its manifest, and a room only read (not changed, not searched)
   * would lose its position and be indexed again from nothing.
   */
  async sweep(): Promise<number> {
    if (!(await this.state.takeSweep(this.nodeId, Math.max(1000, this.opts.sweepMs - 500)))) return 0
    const withDocs = new Set<string>(await this.state.roomsWithDocs())
    const rooms = new Set<string>(withDocs)
    for (const teamId of await this.store.auth.ids()) {
      for (const roomId of await this.store.rooms.allIds(teamId)) rooms.add(member({ teamId, roomId }))
    }
    let marked = 0
    const list = [...rooms]
    for (let i = 0; i < list.length; i += 200) {
      const checks = list.slice(i, i + 200).map(async (m) => {
        const ref = refOf(m)
        const { cseq, created, pos, room, gen, roomTtl, manifestTtl } = await this.state.position(ref)
        // Gone with documents left, or there and not at its position (or made another way).
        const made = this.sink.generation === undefined || room === null || gen === this.sink.generation
        const stale =
          created === null ? withDocs.has(m) || room !== null : room !== created || pos !== (cseq ?? '0') || !made
        if (!stale) {
          if (created !== null && manifestTtl >= 0 && roomTtl > manifestTtl) {
            await this.save(ref, {}, roomTtl)
            await this.sink.keepAlive?.(ref, roomTtl)
          }
          return
        }
        await this.mark(ref)
        marked++
      })
      await Promise.all(checks)
    }
    if (marked > 0) this.kick()
    return marked
  }

  /** Starts a run of claims now, unless one is running (it then runs once more). */
  kick(): void {
    if (!this.started || this.stopped) return
    if (this.running) {
      this.again = true
      return
    }
    this.running = true
    void this.runOnce()
      .catch((err: unknown) => this.warn(err, 'search indexer run failed'))
      .finally(() => {
        this.running = false
        if (this.again && !this.stopped) {
          this.again = false
          this.kick()
        }
      })
  }

  private async flush(): Promise<void> {
    if (this.flushing || this.pending.size === 0) return
    this.flushing = true
    const rooms = [...this.pending]
    this.pending.clear()
    try {
      await Promise.all(rooms.map((m) => this.mark(refOf(m))))
    } finally {
      this.flushing = false
    }
  }

  private async claim(only: string): Promise<Claim[]> {
    const rooms = await this.state.claim(this.opts.leaseMs, 8, only)
    return rooms.map(({ room, mark, token }) => ({ room, mark, lease: { member: room, token } }))
  }

  /**
   * Syncs a claimed room while the keeper renews its lease: every third of the lease, and after
   * every batch (`held`, which throws once the lease is lost: another node may be syncing the
   * room, this one must stop writing). A hung Meilisearch cannot keep a room here for good: every
   * call of the sink has a timeout (sink.ts), after which the sync fails and acks.
   */
  private async syncClaimed(claim: Claim): Promise<SyncResult> {
    const { room, mark, lease } = claim
    this.leases.hold(this.state.leaseSet, lease)
    const held = async () => {
      if (!(await this.leases.check(lease)))
        throw new AppError(
          'conflict',
          `search: the lease of room ${room} ran out and another node took it; this node stops syncing it`,
        )
    }
    try {
      const result = await this.sync(refOf(room), held)
      this.leases.release(lease)
      await this.state.ack(room, mark, 0, lease.token)
      return result
    } catch (err) {
      this.leases.release(lease)
      this.warn(err, `search: syncing room ${room} failed; retrying in ${this.opts.retryMs} ms`)
      await this.state.ack(room, mark, this.opts.retryMs, lease.token).catch(() => undefined)
      throw err
    }
  }

  private save(
    ref: RoomRef,
    change: { fresh?: boolean; set?: Record<string, string>; del?: string[] },
    ttlMs = this.settings.roomTtlMs,
  ): Promise<unknown> {
    return this.state.save(ref, Buffer.from(encode(change)), ttlMs)
  }

  private warn(err: unknown, msg: string): void {
    this.opts.log?.warn({ err: err instanceof Error ? err.message : String(err) }, msg)
  }
}
