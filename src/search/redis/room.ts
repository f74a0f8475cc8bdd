// One room's index on this node, kept in step with the room through its notices.
//
// The room is read in full once (in chunks that never hold Redis long: records.ts), then
// followed: every notice that changes content carries the room's content seq (cseq,
// lua/includes/notify.lua). Event notices carry the event, which is indexed at once; task and
// context notices mark the record dirty. Each search first runs one script that returns the
// dirty records and the room's current cseq (and counts as activity, and gives the caller's
// unread count). When that cseq is ahead of the notices heard, their notices are in flight: the
// search waits for them (bounded), fetches what they marked, and only then ranks. So a search
// reflects every change acknowledged before it started, on any node. A gap in the cseqs (a lost
// notice), a hub resync or a re-created room makes the next search read the room in full again.
import type { Notice } from '../../core/events.js'
import type { Hub } from '../../realtime/hub.js'
import type { RoomRef } from '../../store/keys.js'
import type { CallOptions } from '../../store/store.js'
import { LexicalIndex } from '../lexical.js'
import { AppError } from '../../core/errors.js'
import { docKey, eventDoc, seqOfId, type HitBase, type Pick, type RoomRead, type SearchReader, type SourceDoc } from '../records.js'

/** How long a search waits for notices that its read showed were published (ms). */
const NOTICE_WAIT_MS = 250
/** Rounds of fetch-then-wait before a search answers with what it has (a room written without pause). */
const MAX_ROUNDS = 5
/** Longest stretch of index building between two yields to the event loop (ms): other requests go on. */
const BUILD_SLICE_MS = 10

export class RoomIndex {
  index = new LexicalIndex<HitBase>()
  lastUsed = Date.now()
  /** Set when the notices can no longer be trusted to follow the room: the next search reloads. */
  stale = false
  private loaded = false
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
  ) {}

  /** Indexed text (UTF-16 units): what the node's cache budget counts. */
  get textLength(): number {
    return this.index.textLength
  }

  /** Runs `fn` after every earlier call of this room has finished (one refresh at a time). */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn)
    this.queue = run.catch(() => undefined)
    return run
  }

  /** Brings the index up to the room's state at the time of the call. Returns the caller's unread count. */
  async refresh(opts: CallOptions): Promise<number | undefined> {
    let unread: number | undefined
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (this.stale || !this.loaded) await this.load()
      // Every search runs this one script: it counts as activity, gives the unread count, the
      // room's content position, and the records marked dirty.
      const want = this.wanted()
      const r = await this.reader.pick(this.ref, opts, want)
      unread = r.unread
      if (r.createdAt !== this.createdAt) {
        this.stale = true // the room expired and was created again
        continue
      }
      this.apply(want, r)
      if (!this.subscribed) return unread // nothing follows the room: this read serves this search only
      if (this.settled(r.cseq)) return unread
      if (this.heard < r.cseq && !(await this.heardUpTo(r.cseq))) this.stale = true
    }
    return unread
  }

  /** Stops following the room. */
  close(): void {
    this.unlisten?.()
    this.unlisten = undefined
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
    if (ev && typeof ev.id === 'string') this.addEvent(eventDoc(ev.id, ev as never))
    if (n.k === 'task' && typeof n.id === 'string') this.dirty.set(docKey('task', n.id), c)
    if (n.k === 'context' && typeof n.type === 'string' && typeof n.key === 'string') this.dirty.set(docKey('context', `${n.type}/${n.key}`), c)
    if (n.k === 'event' && n.op === 'deleted' && typeof n.id === 'string') this.index.remove(docKey('event', n.id))
    for (const wake of [...this.waiters]) wake()
  }

  private settled(at: number): boolean {
    if (this.stale || this.heard < at) return false
    for (const c of this.dirty.values()) if (c <= at) return false
    return true
  }

  /** Waits until the notices up to `cseq` arrived; false after NOTICE_WAIT_MS. */
  private heardUpTo(cseq: number): Promise<boolean> {
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
      const timer = setTimeout(() => done(false), NOTICE_WAIT_MS)
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
    const asked = [...(want.t ?? []).map((id) => docKey('task', id)), ...(want.c ?? []).map((id) => docKey('context', id))]
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
  private async load(): Promise<void> {
    this.unlisten ??= this.hub.listen(this.ref, (n) => this.onNotice(n))
    if (!this.subscribed) this.subscribed = await this.hub.whenSubscribed(this.ref)
    this.buffered = []
    try {
      const index = new LexicalIndex<HitBase>()
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
        })
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'conflict') throw err
        this.stale = true // created again while read: read it again
        return
      }
      this.index = index
      this.eventIds = eventIds
      this.head = 0
      this.heard = listing.cseq
      this.createdAt = listing.createdAt
      this.dirty.clear()
      this.loaded = true
      // Without a confirmed subscription nothing follows the room: read it again next time.
      this.stale = !this.subscribed
    } finally {
      const replay = this.buffered
      this.buffered = undefined
      for (const n of replay) this.onNotice(n)
    }
  }

  private addEvent(doc: SourceDoc): void {
    this.index.upsert(doc)
    this.eventIds.push(doc.id)
  }

  /** Drops the events trimmed away (seq at or below `trim`) from the front of the index. */
  private trimTo(trim: number): void {
    while (this.head < this.eventIds.length && seqOfId(this.eventIds[this.head]!) <= trim) {
      this.index.remove(docKey('event', this.eventIds[this.head]!))
      this.head++
    }
    if (this.head > 1024 && this.head * 2 > this.eventIds.length) {
      this.eventIds = this.eventIds.slice(this.head)
      this.head = 0
    }
  }
}
