// The vector half of the Redis engine's semantic search: embeds the query (one request, one
// further attempt, a small cache of recent queries), and finds the room's nearest vectors, in the
// room's vector set when the server has them (VSIM) or else in process from the vectors the node
// holds (follower.ts). Either way the node scores the vectors itself, from the same Q8 bytes with
// the same arithmetic (follower.ts nearest()), so a record has the same similarity and place both
// ways. What can differ is which vectors VSIM finds: its graph search (HNSW) is approximate. On
// vectors with the structure of embeddings it finds the true nearest (the tests; bench/search.ts
// counts the answers that differ on a room at the bound); on structureless data (uniformly random
// vectors in hundreds of dimensions) it misses some, where ranking in process never does.
// Vectors are checked against the room as the search sees it: a record that is gone, or whose
// text changed since its vector was made, is left out.
import type { SearchSettings } from '../settings.js'
import { AppError } from '../../shared/errors.js'
import type { RoomRef } from '../../store/keys.js'
import type { VectorStore } from '../../store/vectors.js'
import { EmbedderError, type Embedder } from '../embed/embedder.js'
import type { SearchKind } from '../engine.js'
import { fp32, quantize, unpack, type Quantized } from './codec.js'
import { RoomVectors, type Nearest } from './follower.js'

/** Recent query vectors kept per node (agents repeat queries). */
const QUERY_CACHE = 256
/** VSIM's exploration factor (its default). */
const EF = 100
/** Vectors asked of VSIM past the ones wanted, for records a search leaves out. */
const SPARE = 10

/** Whether a record counts: the search sees it, with the text its vector was made from (hash). */
export type Accept = (key: string, hash: string) => boolean

export interface NearestAnswer {
  hits: Nearest[]
  /** The room's vectors were made by another model (being made again): none were used. */
  otherModel: boolean
}

export class Semantic {
  /** Vector sets in use (SEARCH_VECTOR_SETS auto and every master has them). */
  sets = false
  /** Nearest-vector lookups answered by VSIM, and ranked in process (metrics, tests). */
  readonly counts = { sets: 0, process: 0 }
  private readonly cache = new Map<string, Quantized>()
  private readonly remirroring = new Set<string>()
  private readonly bound: number

  constructor(
    readonly vectors: VectorStore,
    readonly embedder: Embedder,
    private readonly settings: Pick<SearchSettings, 'searchVectorSets' | 'searchVectorsPerRoom'>,
    /** What the vectors searched must have been made with (sink.ts generationOf). */
    private readonly generation: string,
  ) {
    this.bound = settings.searchVectorsPerRoom
  }

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
      throw new AppError('unavailable', `semantic search: ${err.message}; ${fix}, or search without semantic: true (lexical search works)`, { field: 'semantic', ...(err.setting ? { setting: err.setting } : {}) })
    }
    const v = quantize(made[0]!)
    if (!v) throw new AppError('unavailable', 'semantic search: the embedder gave the query a zero vector; search without semantic: true', { field: 'semantic' })
    this.cache.set(query, v)
    if (this.cache.size > QUERY_CACHE) this.cache.delete(this.cache.keys().next().value!)
    return v
  }

  /**
   * Fetches the room's candidates for the `n` nearest vectors to `query` among `kinds`: from its
   * vector set when the server has them, else from the vectors the node holds (`held`, brought up
   * to date), so this can run while the room's lexical index is brought up to date. The function
   * it resolves to picks the nearest, best first, among the records `accept` takes (the ones the
   * search sees, with the text their vector was made from), synchronously.
   */
  async candidates(ref: RoomRef, held: () => RoomVectors, query: Quantized, n: number, kinds: readonly SearchKind[] | undefined): Promise<(accept: Accept) => NearestAnswer> {
    const model = this.generation
    const none = () => ({ hits: [], otherModel: true })
    if (this.sets) {
      const filter = kinds ? kinds.map((k) => `.k == "${k}"`).join(' || ') : ''
      // A few more than n: records left out by `accept` (deleted, rewritten) must not shorten the answer.
      const r = await this.vectors.similar(ref, fp32(query), n + SPARE, filter, Math.max(EF, n + SPARE))
      if (r.gen !== '' && r.gen !== model) return none
      if (!r.mirrored) this.remirrorSoon(ref)
      if (r.mirrored) {
        this.counts.sets++
        // Scored here as in process, from the same bytes: the same similarities and order.
        const found = new RoomVectors()
        found.apply({ ver: 0, epoch: '', gen: r.gen, full: true, upto: 0, puts: r.hits, dels: [] })
        return (accept) => ({ hits: found.nearest(query, n, accept), otherModel: false })
      }
    }
    const room = held()
    await room.sync(this.vectors, ref)
    this.counts.process++
    if (room.gen !== '' && room.gen !== model) return none
    return (accept) => ({ hits: room.nearest(query, n, accept, kinds), otherModel: false })
  }

  /**
   * Writes a room's vectors into its vector set again, in the background, when the set does not
   * hold them all (Redis upgraded to 8 under rooms embedded before, or a set lost): until then
   * searches rank in process (exactly). One at a time per room.
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
    for (;;) {
      const c = await this.vectors.changes(ref, since, epoch, 256)
      if (c.gen !== '' && c.gen !== this.generation) return // another model's: the indexer makes them again
      const put = c.puts.map((p) => {
        const v = unpack(p.packed)
        return { key: p.key, packed: p.packed, fp32: fp32(v), attrs: JSON.stringify({ k: p.key.slice(0, p.key.indexOf(':')) }) }
      })
      if (put.length > 0) await this.vectors.write(ref, { put, del: [], gen: c.gen }, this.bound, true)
      if (c.upto >= c.ver) return
      since = c.upto
      epoch = c.epoch
    }
  }
}
