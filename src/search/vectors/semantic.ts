// The vector half of the Redis engine's semantic search: embeds the query (one request, one
// further attempt, a small cache of recent queries), and finds the room's nearest vectors, in the
// room's vector set when the server has them (VSIM in its exact mode, TRUTH) or else in process
// from the vectors the node holds (follower.ts). Both ways give the same answer: the node scores
// the vectors itself either way, from the same Q8 bytes with the same arithmetic (follower.ts
// nearest()), and an answer from the vector set is taken only once proven to be the room's exact
// nearest (exact.ts), else asked again for more. VSIM's graph search (HNSW, without TRUTH) is not
// used: it is approximate, and missed most answers on the bench's room.
// Vectors are checked against the room as the search sees it: a record that is gone, or whose
// text changed since its vector was made, is left out.
import type { SearchSettings } from '../settings.js'
import { AppError } from '../../shared/errors.js'
import type { RoomRef } from '../../store/keys.js'
import type { VectorStore } from '../../store/vectors.js'
import { EmbedderError, type Embedder } from '../embed/embedder.js'
import type { SearchKind } from '../engine.js'
import { cosine, fp32, quantize, unpack, type Quantized } from './codec.js'
import { proven } from './exact.js'
import { RoomVectors, type Nearest } from './follower.js'

/** Recent query vectors kept per node (agents repeat queries). */
const QUERY_CACHE = 256
/**
 * Vectors asked of VSIM past the ones wanted: for records a search leaves out, and room for the
 * proof at the edge (exact.ts).
 */
const SPARE = 10
/** How many times more is asked of VSIM when its answer did not prove exact. */
const MORE = 4
/** Vectors written into a vector set again per call (a VADD costs Redis 0.5-1.4 ms of its one thread). */
const MIRROR_PAGE = 32

/** Whether a record counts: the search sees it, with the text its vector was made from (hash). */
export type Accept = (key: string, hash: string) => boolean

export interface NearestAnswer {
  hits: Nearest[]
  /** The room's vectors were made by another model (being made again): none were used. */
  otherModel: boolean
}

/** The nearest, best first, among the records `accept` takes (Semantic.candidates). */
export type PickNearest = (accept: Accept) => Promise<NearestAnswer>

const OTHER_MODEL: NearestAnswer = { hits: [], otherModel: true }

export class Semantic {
  /** Vector sets in use (SEARCH_VECTOR_SETS=auto, not the default, and every master has them). */
  sets = false
  /**
   * Nearest-vector lookups answered by VSIM, ranked in process, and VSIM asked again for more
   * (metrics, tests, bench).
   */
  readonly counts = { sets: 0, process: 0, more: 0 }
  private readonly cache = new Map<string, Quantized>()
  private readonly remirroring = new Set<string>()

  constructor(
    readonly vectors: VectorStore,
    readonly embedder: Embedder,
    private readonly settings: Pick<SearchSettings, 'searchVectorSets' | 'searchVectorsPerRoom'>,
    /** What the vectors searched must have been made with (sink.ts generationOf). */
    private readonly generation: string,
  ) {}

  /** Decides once whether vector sets are used. */
  async start(): Promise<void> {
    this.sets = this.settings.searchVectorSets === 'auto' && (await this.vectors.hasVectorSets().catch(() => false))
  }

  /** The query's vector. Throws `unavailable` (naming the setting when the embedder refused the call). */
  async embedQuery(query: string): Promise<Quantized> {
    const hit = this.cache.get(query)
    if (hit) {
      this.cache.delete(query)
      this.cache.set(query, hit)
      return hit
    }
    let made: Float32Array[]
    try {
      made = await this.embedder.embed([query], { retries: 1 })
    } catch (err) {
      if (!(err instanceof EmbedderError)) throw err
      const fix = err.retryable ? 'retry shortly' : `an operator fixes ${err.setting ?? 'the EMBEDDER_* settings'}`
      throw new AppError(
        'unavailable',
        `semantic search: ${err.message}; ${fix}, or search without semantic: true (lexical search works)`,
        { field: 'semantic', ...(err.setting ? { setting: err.setting } : {}) },
      )
    }
    const v = quantize(made[0]!)
    if (!v)
      throw new AppError(
        'unavailable',
        'semantic search: the embedder gave the query a zero vector; search without semantic: true',
        { field: 'semantic' },
      )
    this.cache.set(query, v)
    if (this.cache.size > QUERY_CACHE) this.cache.delete(this.cache.keys().next().value!)
    return v
  }

  /**
   * Fetches the room's candidates for the `n` nearest vectors to `query` among `kinds`: from its
   * vector set when the server has them, else from the vectors the node holds (`held`, brought up
   * to date), so this can run while the room's lexical index is brought up to date. The function
   * it resolves to picks the nearest, best first, among the records `accept` takes (the ones the
   * search sees, with the text their vector was made from): at once, but for an answer from the
   * vector set that did not prove exact, which asks it again for more.
   */
  async candidates(
    ref: RoomRef,
    held: () => RoomVectors,
    query: Quantized,
    n: number,
    kinds: readonly SearchKind[] | undefined,
  ): Promise<PickNearest> {
    return (this.sets && (await this.fromSet(ref, held, query, n, kinds))) || this.inProcess(ref, held, query, n, kinds)
  }

  private async inProcess(
    ref: RoomRef,
    held: () => RoomVectors,
    query: Quantized,
    n: number,
    kinds: readonly SearchKind[] | undefined,
  ): Promise<PickNearest> {
    const room = held()
    await room.sync(this.vectors, ref)
    this.counts.process++
    if (room.gen !== '' && room.gen !== this.generation) return async () => OTHER_MODEL
    return async (accept) => ({ hits: room.nearest(query, n, accept, kinds), otherModel: false })
  }

  /**
   * The candidates from the room's vector set: n + SPARE asked of VSIM TRUTH, scored here, then
   * more (MORE times as many) until the answer is proven the room's (exact.ts). Undefined when the
   * set does not hold the room's vectors: it is written again in the background, and meanwhile
   * the search ranks in process.
   */
  private async fromSet(
    ref: RoomRef,
    held: () => RoomVectors,
    query: Quantized,
    n: number,
    kinds: readonly SearchKind[] | undefined,
  ): Promise<PickNearest | undefined> {
    const values = fp32(query)
    const filter = kinds ? kinds.map((k) => `.k == "${k}"`).join(' || ') : ''
    let count = n + SPARE
    let r = await this.vectors.similar(ref, values, count, filter)
    if (r.gen !== '' && r.gen !== this.generation) return async () => OTHER_MODEL
    if (!r.mirrored) {
      this.remirrorSoon(ref)
      return undefined
    }
    this.counts.sets++
    return async (accept) => {
      for (;;) {
        // Scored here as in process, from the same bytes: the same similarities and order.
        const found = new RoomVectors()
        found.apply({ ver: 0, epoch: '', gen: r.gen, full: true, upto: 0, puts: r.hits, dels: [] })
        const hits = found.nearest(query, n, accept)
        const last = r.hits[r.hits.length - 1]
        const lastCosine = last ? cosine(unpack(last.packed), query) : 0
        if (proven(hits, n, { asked: count, returned: r.hits.length, card: r.card, lastCosine, dims: query.q.length }))
          return { hits, otherModel: false }
        // Ties or near-ties at the edge, or most candidates refused: more, from the room as it is
        // now (`accept` too sees it as it is now: a later view than the lexical half's, never an older one).
        count *= MORE
        this.counts.more++
        r = await this.vectors.similar(ref, values, count, filter)
        if (r.gen !== '' && r.gen !== this.generation) return OTHER_MODEL
        if (!r.mirrored) return (await this.inProcess(ref, held, query, n, kinds))(accept)
      }
    }
  }

  /**
   * Writes a room's vectors into its vector set again, from nothing, in the background, when the
   * set does not hold exactly them (Redis upgraded to 8 under rooms embedded before, a node that
   * does not mirror wrote, a set lost): until then searches rank in process. One at a time per
   * room on a node; MIRROR_PAGE vectors a call, each written only while still its record's
   * (lua/mirrorVectors-3.lua), so a record rewritten or removed meanwhile is never set back.
   */
  private remirrorSoon(ref: RoomRef): void {
    const tag = `${ref.teamId}/${ref.roomId}`
    if (this.remirroring.has(tag)) return
    this.remirroring.add(tag)
    void this.remirror(ref)
      .catch(() => undefined) // the next search that finds the set incomplete tries again
      .finally(() => this.remirroring.delete(tag))
  }

  private async remirror(ref: RoomRef): Promise<void> {
    let since = -1
    let epoch = ''
    let fresh = true
    for (;;) {
      const c = await this.vectors.changes(ref, since, epoch, MIRROR_PAGE)
      if (c.gen !== '' && c.gen !== this.generation) return // another model's: the indexer makes them again
      // The first page starts the set from nothing (whatever it held may not be the room's), and
      // so does a page that starts over (the room's vectors were dropped meanwhile).
      if (c.full) fresh = true
      const vectors = c.puts.map((p) => ({
        key: p.key,
        packed: p.packed,
        fp32: fp32(unpack(p.packed)),
        attrs: JSON.stringify({ k: p.key.slice(0, p.key.indexOf(':')) }),
      }))
      if (vectors.length > 0 || fresh) await this.vectors.mirror(ref, fresh, vectors)
      fresh = false
      if (c.upto >= c.ver) return
      since = c.upto
      epoch = c.epoch
    }
  }
}
