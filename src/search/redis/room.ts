// One room's index on this node, kept in step with the room through its notices.
//
// The room is read in full once (in chunks that never hold Redis long: records.ts), then followed:
// every notice that changes content carries the room's content seq (cseq, lua/includes/notify.lua).
// Event notices carry the event, which is indexed at once; task and context notices mark the record
// dirty, and so do review notices their task. Each search first runs one script that returns the
// dirty records and the room's current cseq (and counts as activity, and gives the caller's unread
// count). When that cseq is ahead of the notices heard, their notices are in flight: the search
// waits for them (bounded), fetches what they marked, and only then ranks. So a search reflects
// every change acknowledged before it started, on any node. A gap in the cseqs (a lost notice), a
// hub resync or a re-created room makes the next search read the room in full again; a notice that
// is only late (a loaded node or Redis) does not: a full read costs seconds on a big room, so the
// search waits a second time, longer, and reads the room again only when the same notices are still
// missing then.
//
// Memory: events that notices add between searches are capped at the retention (the stream
// holds no more), and the node's budget is checked as the index grows, during a full read too
// (engine.ts). A closed index (dropped by the node) never follows the room again: a search
// still in progress on it answers from a read of its own.
import type { Notice } from '../../core/events.js'
import type { Hub } from '../../realtime/hub.js'
import type { RoomRef } from '../../store/keys.js'
import type { CallOptions } from '../../store/store.js'
import { LexicalIndex } from '../lexical.js'
import { AppError } from '../../shared/errors.js'
import type { RoomVectors } from '../vectors/follower.js'
import {
  docKey,
  eventDoc,
  seqOfId,
  type HitBase,
  type Pick,
  type RoomRead,
  type SearchReader,
  type SourceDoc,
} from '../records.js'

/** How long a search waits for notices that its read showed were published (ms). */
const NOTICE_WAIT_MS = 250
/** The second, last wait for notices still missing after the first: then the room is read again in full (ms). */
const LATE_NOTICE_WAIT_MS = 750
/** Rounds of fetch-then-wait before a search answers with what it has (a room written without pause). */
const MAX_ROUNDS = 5
/** Longest stretch of index building between two yields to the event loop (ms): other requests go on. */
const BUILD_SLICE_MS = 10

/** What a room's index needs of the node that keeps it (engine.ts). */
export interface RoomCache {
  /** Runs a full read of a room when the node's limit on full reads at once allows. */
  loadSlot<T>(fn: () => Promise<T>): Promise<T>
  /** The room's index grew outside a search's end (a full read under way, a notice): check the budget. */
  grew(room: RoomIndex): void
  /** Events a room retains (EVENTS_RETAINED): the index never keeps more. */
  readonly eventsRetained: number
  /** A search's first wait for notices ran out (a late notice, or a lost one): counted for metrics. */
  noticeLate(): void
}

export class RoomIndex {
  index = new LexicalIndex<HitBase>()
  lastUsed = Date.now()
  /** Set when the notices can no longer be trusted to follow the room: the next search reloads. */
  stale = false
  /** The room's vectors, held for ranking in process (semantic search without vector sets). */
  vectors: RoomVectors | undefined
  /** After a refresh: whether the room's vectors were behind its content then (their indexer's position). */
  vectorsBehind = false
  /** Set by close(): the room is no longer followed, and never will be again. */
  private closed = false
  private loaded = false
  /** The index a full read is building, until it replaces `index`. */
  private building: LexicalIndex<HitBase> | undefined
  /** Calls queued or running in serial(). */
  private pending = 0
  /** Events in the index (eventIds also holds the ids of events removed since). */
  private liveEvents = 0
  /** The highest cseq of the notices received in order (or of the last full read). */
  private heard = 0
  private createdAt = 0
  /** Doc key -> cseq of the latest notice that changed it, until fetched. */
  private readonly dirty = new Map<string, number>()
  /** Notices received while a full read is being indexed; replayed after it. */
  private buffered: Notice[] | undefined
  /** Event ids in the index, oldest first, from `head` on (trimmed ones are removed from the front). */
  private eventIds: string[] = []
  private head = 0
  private unlisten: (() => void) | undefined
  private subscribed = false
  private readonly waiters = new Set<() => void>()
  private queue: Promise<unknown> = Promise.resolve()

  constructor(
    readonly ref: RoomRef,
    private readonly hub: Hub,
    private readonly reader: SearchReader,
    private readonly cache: RoomCache,
  ) {}

  /** Indexed text (UTF-16 units), a full read under way included: what the node's cache budget counts. */
  get textLength(): number {
    return this.index.textLength + (this.building?.textLength ?? 0) + Math.ceil((this.vectors?.bytes ?? 0) / 2)
  }

  /** A search is queued or running: the node does not drop the room meanwhile. */
  get busy(): boolean {
    return this.pending > 0
  }

  /** Searches waiting for notices now. */
  get waiting(): number {
    return this.waiters.size
  }

  /** Runs `fn` after every earlier call of this room has finished (one refresh at a time). */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    this.pending++
    const run = this.queue.then(fn, fn).finally(() => this.pending--)
    this.queue = run.catch(() => undefined)
    return run
  }

  /** Brings the index up to the room's state at the time of the call. Returns the caller's unread count. */
  async refresh(opts: CallOptions): Promise<number | undefined> {
    let unread: number | undefined
    /** The cseq a first wait did not hear up to (0: none yet). */
    let missed = 0
    for (let round = 0; round < MAX_ROUNDS; round++) {
      let fresh = false
      if (this.stale || !this.loaded) {
        await this.load()
        fresh = true
      }
      // Every search runs this one script: it counts as activity, gives the unread count, the
      // room's content position, and the records marked dirty.
      const want = this.wanted()
      const r = await this.reader.pick(this.ref, opts, want)
      unread = r.unread
      this.vectorsBehind = r.indexedRoom !== String(r.createdAt) || r.indexedPos !== String(r.cseq)
      if (r.createdAt !== this.createdAt) {
        this.stale = true // the room expired and was created again
        continue
      }
      this.apply(want, r)
      if (!this.subscribed) {
        // Nothing follows the room (no confirmed subscription, or closed meanwhile): only a full
        // read made for this search can answer it.
        if (fresh) return unread
        this.stale = true
        continue
      }
      if (this.settled(r.cseq)) return unread
      if (this.heard >= r.cseq) continue
      const heard = await this.heardUpTo(r.cseq, missed > 0 ? LATE_NOTICE_WAIT_MS : NOTICE_WAIT_MS)
      if (heard || this.stale) continue
      // A late notice is not a lost one (a lost one shows as a gap once the next one comes):
      // read the whole room again only when the notices a first wait missed are still missing.
      if (missed > 0 && this.heard < missed) this.stale = true
      else {
        missed = r.cseq
        this.cache.noticeLate()
      }
    }
    return unread
  }

  /** Stops following the room, for good: a search still in progress answers from a read of its own. */
  close(): void {
    this.closed = true
    this.unlisten?.()
    this.unlisten = undefined
    this.subscribed = false
    this.stale = true
    for (const wake of [...this.waiters]) wake()
  }

  onNotice(n: Notice): void {
    if (this.buffered) {
      this.buffered.push(n)
      return
    }
    if (n.k === 'room' && n.op === 'created') this.stale = true
    const c = n.cseq
    if (typeof c !== 'number' || c <= this.heard) return
    if (c !== this.heard + 1) this.stale = true // a notice was lost: its change is unknown
    this.heard = c
    const ev = n.event as (Record<string, unknown> & { id?: string }) | undefined
    if (ev && typeof ev.id === 'string') {
      this.addEvent(eventDoc(ev.id, ev as never))
      // The stream keeps no more than the retention: neither does the index, searched or not.
      this.dropOldestWhile(() => this.liveEvents > this.cache.eventsRetained)
      this.cache.grew(this)
    }
    if (n.k === 'task' && typeof n.id === 'string') this.dirty.set(docKey('task', n.id), c)
    // A review requested or decided may move its task (in_review, done, in_progress).
    if (n.k === 'review' && typeof n.task === 'string') this.dirty.set(docKey('task', n.task), c)
    if (n.k === 'context' && typeof n.type === 'string' && typeof n.key === 'string')
      this.dirty.set(docKey('context', `${n.type}/${n.key}`), c)
    if (n.k === 'event' && n.op === 'deleted' && typeof n.id === 'string' && this.index.remove(docKey('event', n.id)))
      this.liveEvents--
    for (const wake of [...this.waiters]) wake()
  }

  private settled(at: number): boolean {
    if (this.stale || this.heard < at) return false
    for (const c of this.dirty.values()) if (c <= at) return false
    return true
  }

  /** Waits until the notices up to `cseq` arrived; false after `waitMs`, a gap or close(). */
  private heardUpTo(cseq: number, waitMs: number): Promise<boolean> {
    if (this.heard >= cseq) return Promise.resolve(true)
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer)
        this.waiters.delete(check)
        resolve(ok)
      }
      const check = () => {
        if (this.heard >= cseq || this.stale || !this.unlisten) done(this.heard >= cseq && !this.stale)
      }
      const timer = setTimeout(() => done(false), waitMs)
      this.waiters.add(check)
    })
  }

  private wanted(): Pick {
    const t: string[] = []
    const c: string[] = []
    for (const key of this.dirty.keys()) {
      if (key.startsWith('task:')) t.push(key.slice(5))
      else c.push(key.slice(8))
    }
    return { t, c }
  }

  /** Applies a pick: fetched records replace theirs, records asked for and not returned are gone. */
  private apply(want: Pick, r: RoomRead): void {
    const got = new Set<string>()
    for (const d of [...r.tasks, ...r.context]) {
      this.index.upsert(d)
      got.add(d.key)
    }
    const asked = [
      ...(want.t ?? []).map((id) => docKey('task', id)),
      ...(want.c ?? []).map((id) => docKey('context', id)),
    ]
    for (const key of asked) {
      if (!got.has(key)) this.index.remove(key)
      if ((this.dirty.get(key) ?? Infinity) <= r.cseq) this.dirty.delete(key)
    }
    this.trimTo(r.trim)
  }

  /**
   * Reads the room in full, a chunk at a time (no call holds Redis long), and indexes it, yielding
   * to the event loop every BUILD_SLICE_MS. Chunks are read at different moments: the notices of
   * changes made meanwhile (after the listing that starts the read) are buffered and replayed on
   * top, and what they name is fetched again by the next pick, so the index ends up as the room is.
   */
  private load(): Promise<void> {
    return this.cache.loadSlot(() => this.loadNow())
  }

  private async loadNow(): Promise<void> {
    if (!this.closed) {
      this.unlisten ??= this.hub.listen(this.ref, (n) => this.onNotice(n))
      if (!this.subscribed) {
        const ok = await this.hub.whenSubscribed(this.ref)
        this.subscribed = ok && !this.closed
      }
    }
    this.buffered = []
    try {
      const index = new LexicalIndex<HitBase>()
      this.building = index
      const eventIds: string[] = []
      let slice = performance.now()
      let listing
      try {
        listing = await this.reader.readAll(this.ref, async (chunk) => {
          for (const doc of [...chunk.tasks, ...chunk.context, ...chunk.events]) {
            index.upsert(doc)
            if (doc.kind === 'event') eventIds.push(doc.id)
            if (performance.now() - slice < BUILD_SLICE_MS) continue
            await new Promise((resolve) => setImmediate(resolve))
            slice = performance.now()
          }
          this.cache.grew(this)
        })
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'conflict') throw err
        this.stale = true // created again while read: read it again
        return
      }
      this.index = index
      this.eventIds = eventIds
      this.liveEvents = eventIds.length
      this.head = 0
      this.heard = listing.cseq
      this.createdAt = listing.createdAt
      this.dirty.clear()
      this.loaded = true
      // Without a confirmed subscription nothing follows the room: read it again next time.
      this.stale = !this.subscribed
    } finally {
      this.building = undefined
      const replay = this.buffered
      this.buffered = undefined
      for (const n of replay) this.onNotice(n)
    }
  }

  private addEvent(doc: SourceDoc): void {
    const known = this.index.has(doc.key) // a notice replayed after the full read that had the event
    this.index.upsert(doc)
    if (known) return
    this.eventIds.push(doc.id)
    this.liveEvents++
  }

  /** Drops the events trimmed away (seq at or below `trim`) from the front of the index. */
  private trimTo(trim: number): void {
    this.dropOldestWhile(() => seqOfId(this.eventIds[this.head]!) <= trim)
  }

  /** Removes the oldest events from the index while `more()` says so (it sees eventIds[head]). */
  private dropOldestWhile(more: () => boolean): void {
    while (this.head < this.eventIds.length && more()) {
      if (this.index.remove(docKey('event', this.eventIds[this.head]!))) this.liveEvents--
      this.head++
    }
    if (this.head > 1024 && this.head * 2 > this.eventIds.length) {
      this.eventIds = this.eventIds.slice(this.head)
      this.head = 0
    }
  }
}
