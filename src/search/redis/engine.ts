// The Redis search engine, the default: no server besides Redis. Each node keeps an index per
// room it was asked to search (room.ts), built from one read of the room and then kept in step
// by the room's notices, so a search costs one small script call plus ranking in memory. The
// indexes share a memory budget (SEARCH_CACHE_MB of indexed text), full reads under way
// included; at most MAX_LOADS rooms are read in full at once, so concurrent first searches of
// big rooms cannot build many indexes past it. When over budget the rooms searched least recently
// go first (never one with a search in progress), checked after every search and whenever an
// index grows; a room not searched for SEARCH_CACHE_IDLE_S is dropped (and its channel released).
import type { Settings } from '../../config.js'
import { AppError } from '../../core/errors.js'
import type { Caller } from '../../core/fields.js'
import { callOptions } from '../../core/records.js'
import type { Hub } from '../../realtime/hub.js'
import type { Store } from '../../store/store.js'
import { parseSearch, roundScore, semanticDisabled, type SearchAnswer, type SearchEngine, type SearchHit } from '../engine.js'
import { FIELD_WEIGHTS, FIELDS, LONG_FIELDS, type Field, type IndexDoc } from '../lexical.js'
import { SearchReader, type HitBase } from '../records.js'
import { snippet } from '../text.js'
import { RoomIndex, type RoomCache } from './room.js'

/** Rooms read in full at once on a node; more wait their turn. */
const MAX_LOADS = 2

/** Where a snippet comes from, by preference: a long field that matched, then a short one. */
const SNIPPET_ORDER: Field[] = [...LONG_FIELDS, ...(Object.keys(FIELD_WEIGHTS) as Field[]).filter((f) => !LONG_FIELDS.includes(f)).sort((a, b) => FIELD_WEIGHTS[b] - FIELD_WEIGHTS[a])]

/** A ranked document as an answer shows it; `fields` is the bit mask of the fields that matched. */
export function hitOf(doc: IndexDoc<HitBase>, score: number, fields: number, matched: ReadonlySet<string>): SearchHit {
  const field = SNIPPET_ORDER.find((f) => fields & (1 << FIELDS.indexOf(f)) && doc.fields[f]) ?? SNIPPET_ORDER.find((f) => doc.fields[f]) ?? 'title'
  return { ...doc.meta, field, snippet: snippet(doc.fields[field] ?? '', matched), score: roundScore(score) }
}

export class RedisSearchEngine implements SearchEngine {
  readonly name = 'redis'
  readonly semanticEnabled = false
  readonly reader: SearchReader
  private readonly rooms = new Map<string, RoomIndex>()
  private readonly budget: number
  private readonly cache: RoomCache
  private loading = 0
  private loads = 0
  private lateNotices = 0
  private readonly loadQueue: (() => void)[] = []
  private checkQueued = false
  private timer: NodeJS.Timeout | undefined
  private unresync: (() => void) | undefined

  constructor(
    private readonly store: Store,
    private readonly hub: Hub,
    private readonly settings: Settings,
  ) {
    this.reader = new SearchReader(store, settings)
    this.budget = settings.searchCacheMb * 1024 * 1024
    this.cache = {
      loadSlot: (fn) => this.loadSlot(fn),
      grew: () => this.checkSoon(),
      eventsRetained: settings.eventsRetained,
      noticeLate: () => this.lateNotices++,
    }
  }

  async start(): Promise<void> {
    // A rebuilt subscription may have missed notices: every cached room reads itself again.
    this.unresync = this.hub.onResync(() => {
      for (const room of this.rooms.values()) room.stale = true
    })
    const idleMs = this.settings.searchCacheIdleS * 1000
    this.timer = setInterval(() => this.dropIdle(idleMs), Math.min(60_000, Math.max(1000, idleMs / 2)))
    this.timer.unref()
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.unresync?.()
    for (const room of this.rooms.values()) room.close()
    this.rooms.clear()
  }

  async search(caller: Caller, input: unknown): Promise<SearchAnswer> {
    const q = parseSearch(input)
    if (q.semantic) throw semanticDisabled()
    const opts = callOptions(caller)
    const room = this.roomFor(caller)
    const { unread, results } = await room.serial(async () => {
      let unread: number | undefined
      try {
        unread = await room.refresh(opts)
      } catch (err) {
        if (err instanceof AppError && err.code === 'not_found') this.drop(room)
        throw err
      }
      const { hits, matched } = room.index.search(q.query, q.limit, q.kinds ? new Set(q.kinds) : undefined)
      const top = hits[0]?.score ?? 1
      return { unread, results: hits.map((h) => hitOf(h.doc, h.score / top, h.fields, matched)) }
    })
    this.fitBudget(room)
    const answer: SearchAnswer = { results, engine: 'redis', semantic: false }
    if (unread !== undefined) answer.unread = unread
    return answer
  }

  /**
   * For tests and metrics: rooms cached, their indexed text (UTF-16 units), full reads of rooms
   * since start and under way, searches waiting for notices now, and waits that ran out since
   * start (notices late or lost).
   */
  stats(): { rooms: number; textLength: number; loads: number; loading: number; waiting: number; lateNotices: number } {
    let textLength = 0
    let waiting = 0
    for (const r of this.rooms.values()) {
      textLength += r.textLength
      waiting += r.waiting
    }
    return { rooms: this.rooms.size, textLength, loads: this.loads, loading: this.loading, waiting, lateNotices: this.lateNotices }
  }

  private roomFor(caller: Caller): RoomIndex {
    const tag = this.store.keys.roomTag(caller.room)
    let room = this.rooms.get(tag)
    if (room) this.rooms.delete(tag) // re-inserted last: Map order is least recently used first
    else room = new RoomIndex(caller.room, this.hub, this.reader, this.cache)
    room.lastUsed = Date.now()
    this.rooms.set(tag, room)
    return room
  }

  private drop(room: RoomIndex): void {
    const tag = this.store.keys.roomTag(room.ref)
    if (this.rooms.get(tag) === room) this.rooms.delete(tag)
    room.close()
  }

  /**
   * Drops least recently used rooms until the indexed text fits the budget. The room just used
   * stays, and so does every room with a search in progress: dropping it would leave the search
   * to read the room again on its own.
   */
  private fitBudget(keep?: RoomIndex): void {
    let total = 0
    for (const r of this.rooms.values()) total += r.textLength * 2
    for (const r of [...this.rooms.values()]) {
      if (total <= this.budget) return
      if (r === keep || r.busy) continue
      total -= r.textLength * 2
      this.drop(r)
    }
  }

  /** Checks the budget once the current work is done (an index grew during a read, or from a notice). */
  private checkSoon(): void {
    if (this.checkQueued) return
    this.checkQueued = true
    setImmediate(() => {
      this.checkQueued = false
      this.fitBudget()
    })
  }

  /** Runs a full read of a room once fewer than MAX_LOADS are under way. */
  private async loadSlot<T>(fn: () => Promise<T>): Promise<T> {
    // A slot that frees is handed to the first in line, so `loading` never goes past MAX_LOADS.
    if (this.loading >= MAX_LOADS) await new Promise<void>((resolve) => this.loadQueue.push(resolve))
    else this.loading++
    this.loads++
    try {
      return await fn()
    } finally {
      const next = this.loadQueue.shift()
      if (next) next()
      else this.loading--
    }
  }

  private dropIdle(idleMs: number): void {
    const before = Date.now() - idleMs
    for (const r of [...this.rooms.values()]) if (r.lastUsed < before && !r.busy) this.drop(r)
  }
}
