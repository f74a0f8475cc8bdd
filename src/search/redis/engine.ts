// The Redis search engine, the default: no server besides Redis. Each node keeps an index per
// room it was asked to search (room.ts), built from one read of the room and then kept in step
// by the room's notices, so a search costs one small script call plus ranking in memory. The
// indexes share a memory budget (SEARCH_CACHE_MB of indexed text), full reads under way
// included; at most MAX_LOADS rooms are read in full at once, so concurrent first searches of
// big rooms cannot build many indexes past it. When over budget the rooms searched least recently
// go first (never one with a search in progress), checked after every search and whenever an
// index grows; a room not searched for SEARCH_CACHE_IDLE_S is dropped (and its channel released).
//
// With an embedder (EMBEDDER_URL), the node also runs the vector indexer (src/search/indexer.ts
// with vectors/sink.ts), which embeds what changed in the background, and `semantic: true` fuses
// the lexical ranking with the room's nearest vectors (hybrid.ts).
import type { SearchSettings } from '../settings.js'
import { AppError } from '../../shared/errors.js'
import type { Caller } from '../../core/fields.js'
import { callOptions } from '../../core/records.js'
import type { Hub } from '../../realtime/hub.js'
import type { Store } from '../../store/store.js'
import { VectorStore } from '../../store/vectors.js'
import type { Embedder } from '../embed/embedder.js'
import {
  parseSearch,
  semanticDisabled,
  type SearchAnswer,
  type SearchEngine,
  type SearchHit,
  type SearchStatus,
} from '../engine.js'
import { Indexer, type IndexerOptions } from '../indexer.js'
import { SearchReader } from '../records.js'
import { RoomVectors } from '../vectors/follower.js'
import { Semantic } from '../vectors/semantic.js'
import { generationOf, VectorSink } from '../vectors/sink.js'
import { hitOf, partialWords } from './hits.js'
import { CANDIDATES, hybrid } from './hybrid.js'
import { RoomIndex, type RoomCache } from './room.js'

export { hitOf } from './hits.js'

export interface RedisEngineOptions {
  /** Turns semantic search on: the vector indexer runs on this node, and `semantic: true` is served. */
  embedder?: Embedder
  /** The vector indexer's options (tests). */
  indexer?: IndexerOptions
}

/** Why an answer may miss recent changes in its semantic half. */
const NOTE_BEHIND =
  'recent changes of this room are still being embedded: the semantic half of this answer may miss them (its ' +
  'lexical half does not)'
const NOTE_MODEL =
  "this room's vectors are being made again with the configured embedding model: this answer is lexical only " +
  'until they are'

/** Rooms read in full at once on a node; more wait their turn. */
const MAX_LOADS = 2

export class RedisSearchEngine implements SearchEngine {
  readonly name = 'redis'
  readonly semanticEnabled: boolean
  readonly reader: SearchReader
  /** Semantic search: the query's vectors and the room's nearest (undefined without an embedder). */
  readonly semantic: Semantic | undefined
  /** Keeps every room's vectors in step (undefined without an embedder). */
  readonly vectorIndexer: Indexer | undefined
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
    private readonly settings: SearchSettings,
    opts: RedisEngineOptions = {},
  ) {
    this.semanticEnabled = opts.embedder !== undefined
    if (opts.embedder) {
      const vectors = new VectorStore(store, settings.roomTtlMs)
      const generation = generationOf(opts.embedder.model, settings.embedderDimensions)
      const semantic = new Semantic(vectors, opts.embedder, settings, generation)
      const sink = new VectorSink(vectors, opts.embedder, {
        bound: settings.searchVectorsPerRoom,
        textChars: settings.embedderTextChars,
        batch: settings.embedderBatch,
        mirror: () => semantic.sets,
        generation,
      })
      this.semantic = semantic
      this.vectorIndexer = new Indexer(store, sink, settings, {
        keys: { manifest: (ref) => store.keys.vectors(ref).manifest, shared: store.keys.vectorIndex() },
        fieldBytes: settings.embedderTextChars * 3,
        ...opts.indexer,
      })
    }
    // Every search reads the vector indexer's position in the room: its answer says when the room's vectors are behind.
    this.reader = new SearchReader(
      store,
      settings,
      this.semantic ? (ref) => store.keys.vectors(ref).manifest : undefined,
    )
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
    const idleMs = this.settings.searchCacheIdleMs
    this.timer = setInterval(() => this.dropIdle(idleMs), Math.min(60_000, Math.max(1000, idleMs / 2)))
    this.timer.unref()
    if (this.semantic && this.vectorIndexer) {
      await this.semantic.start()
      const indexer = this.vectorIndexer
      this.store.onCommitted((c) => indexer.onCommitted(c))
      indexer.start()
    }
  }

  /** Whether semantic search is on, and how its vectors are searched (GET /admin/me, get_room_info). */
  status(): SearchStatus {
    if (!this.semantic) return { engine: 'redis', semantic: false }
    return {
      engine: 'redis',
      semantic: true,
      model: this.semantic.embedder.model,
      vectors: this.semantic.sets ? 'vector sets' : 'in process',
    }
  }

  async stop(): Promise<void> {
    await this.vectorIndexer?.stop()
    if (this.timer) clearInterval(this.timer)
    this.unresync?.()
    for (const room of this.rooms.values()) room.close()
    this.rooms.clear()
  }

  async search(caller: Caller, input: unknown): Promise<SearchAnswer> {
    const q = parseSearch(input)
    if (q.semantic && !this.semantic) throw semanticDisabled('redis')
    const opts = callOptions(caller)
    const room = this.roomFor(caller)
    // The query is embedded and its nearest vectors fetched while the room's lexical index is
    // brought up to date (the records they name are checked against it afterwards: hybrid.ts).
    const semantic = this.semantic
    const nearest =
      q.semantic && semantic
        ? semantic
            .embedQuery(q.query)
            .then((v) =>
              semantic.candidates(caller.room, () => (room.vectors ??= new RoomVectors()), v, CANDIDATES, q.kinds),
            )
        : undefined
    nearest?.catch(() => undefined) // awaited below; not an unhandled rejection when the lexical half fails first
    const { unread, lexical, behind } = await room.serial(async () => {
      let unread: number | undefined
      try {
        unread = await room.refresh(opts)
      } catch (err) {
        if (err instanceof AppError && err.code === 'not_found') this.drop(room)
        throw err
      }
      const lexical = room.index.search(
        q.query,
        q.semantic ? Math.max(q.limit, CANDIDATES) : q.limit,
        q.kinds ? new Set(q.kinds) : undefined,
      )
      return { unread, lexical, behind: room.vectorsBehind }
    })
    let results: SearchHit[]
    let note: string | undefined
    if (q.semantic) {
      const r = await hybrid(room, q, lexical, await nearest!, {
        ratio: this.settings.searchSemanticRatio,
        textChars: this.settings.embedderTextChars,
      })
      // Vectors behind the room or of another model: marked, so some node's indexer catches up now.
      if (behind || r.otherModel)
        void this.vectorIndexer!.mark(caller.room).then(
          () => this.vectorIndexer!.kick(),
          () => undefined,
        )
      results = r.results
      if (r.otherModel) note = NOTE_MODEL
      else if (behind) note = NOTE_BEHIND
    } else {
      const top = lexical.hits[0]?.score ?? 1
      results = lexical.hits.map((h) => {
        const hit = hitOf(h.doc, h.score / top, h.fields, lexical.matched)
        const words = partialWords(h, lexical)
        if (words) hit.words = words
        return hit
      })
    }
    this.fitBudget(room)
    const answer: SearchAnswer = { results, engine: 'redis', semantic: q.semantic }
    if (note) answer.note = note
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
    return {
      rooms: this.rooms.size,
      textLength,
      loads: this.loads,
      loading: this.loading,
      waiting,
      lateNotices: this.lateNotices,
    }
  }

  private roomFor(caller: Caller): RoomIndex {
    const tag = this.store.keys.roomTag(caller.room)
    let room = this.rooms.get(tag)
    if (room)
      this.rooms.delete(tag) // re-inserted last: Map order is least recently used first
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
