// A room's vectors held by a node, for ranking in process (SEARCH_VECTOR_SETS=off, the default, or
// no vector sets): read once, then kept in step by fetching only what changed since the version held
// (lua/readVectorChanges-3.lua), one call per search when nothing changed. An exact top-k: every
// vector is scored (at the bound, 5,000 vectors of 384 dimensions, ~2 M integer multiply-adds, in
// one pass of dots.ts over the vectors laid out end to end), so the answer is the brute-force one.
// The candidates VSIM finds are scored by the same code (semantic.ts). Vectors at a right angle or
// more from the query (cosine <= 0) have no meaning in common with it: left out.
import type { RoomRef } from '../../store/keys.js'
import type { VectorChanges, VectorStore } from '../../store/vectors.js'
import { SEARCH_KINDS, type SearchKind } from '../engine.js'
import { unpack, type Quantized } from './codec.js'
import { dots, strideOf } from './dots.js'

/** Bytes of vectors one read returns at most (the rest come from further reads). */
const READ_BYTES = 1024 * 1024
/** Candidates past the n wanted that nearest() takes before asking which records count. */
const SPARE = 10
/** A record's kind (its doc key's prefix) as one bit; any other prefix shares the last. */
function kindBit(kind: string): number {
  const i = SEARCH_KINDS.indexOf(kind as SearchKind)
  return 1 << (i < 0 ? 7 : i)
}
const ALL_KINDS = 0xff

export interface Nearest {
  key: string
  cosine: number
  hash: string
}

/**
 * The order of nearest vectors: higher cosine first, then doc key. Cosines are compared exactly:
 * both ways of ranking compute them here, from the same bytes with the same operations (the
 * candidates VSIM finds are scored by nearest() too), so equal vectors tie exactly.
 */
export function nearestOrder(a: { key: string; cosine: number }, b: { key: string; cosine: number }): number {
  return orderOf(a.cosine, a.key, b)
}

/** nearestOrder of (cosine, key) against `b`, without making an object of the first. */
function orderOf(cosine: number, key: string, b: { key: string; cosine: number }): number {
  if (cosine !== b.cosine) return cosine > b.cosine ? -1 : 1
  return key < b.key ? -1 : key > b.key ? 1 : 0
}

export class RoomVectors {
  /** The embedding model of the vectors held ('' before any). */
  gen = ''
  private epoch = ''
  private ver = -1
  private dims = 0
  /** Bytes per vector in `data`: dims rounded up to 16, zero padded (dots.ts). */
  private stride = 0
  /** The vectors, slot after slot. */
  private data = new Int8Array(0)
  private ranges = new Float32Array(0)
  /** Each slot's kind (kindBit). */
  private kindBits = new Uint8Array(0)
  /** Each slot's dot product with the query of the last nearest() (scratch). */
  private scores = new Float64Array(0)
  /** Changes with the contents of `data` (dots() copies them again only then). */
  private version = 0
  private keys: (string | undefined)[] = []
  private hashes: string[] = []
  private readonly slots = new Map<string, number>()
  private readonly free: number[] = []
  private queue: Promise<void> = Promise.resolve()

  /** Vectors held. */
  get size(): number {
    return this.slots.size
  }

  /** Memory held, in bytes (what the node's search budget counts). */
  get bytes(): number {
    return this.data.length + this.ranges.length * 13 + this.keys.length * 64
  }

  /** Brings the vectors held up to the room's, one sync at a time. */
  sync(store: VectorStore, ref: RoomRef): Promise<void> {
    const run = this.queue.then(() => this.syncNow(store, ref))
    this.queue = run.catch(() => undefined)
    return run
  }

  /**
   * The `n` nearest to `query` among the records of `kinds` (all when undefined) that `accept`
   * takes, best first (nearestOrder): exactly what sorting every vector would give. The best
   * n + SPARE of those kinds are found first and `accept` is asked of them in order; it refuses
   * few (records deleted or rewritten since their vector was made), so its n best are nearly always
   * among them. When it refused more than SPARE, a second pass asks it of every candidate.
   */
  nearest(
    query: Quantized,
    n: number,
    accept: (key: string, hash: string) => boolean,
    kinds?: readonly string[],
  ): Nearest[] {
    if (this.dims !== query.q.length || n <= 0) return []
    const padded = new Int8Array(this.stride)
    padded.set(query.q)
    dots(this.data, this.keys.length, this.stride, padded, this.scores, this.version)
    const mask = kinds ? kinds.reduce((m, k) => m | kindBit(k), 0) : ALL_KINDS
    const top = this.best(query, n + SPARE, mask)
    const hits: Nearest[] = []
    for (const h of top) {
      if (hits.length === n) break
      if (accept(h.key, h.hash)) hits.push(h)
    }
    // Any vector not in `top` ranks below all of it: the answer is complete unless too few were taken.
    if (hits.length === n || top.length < n + SPARE) return hits
    return this.best(query, n, mask, accept)
  }

  /** The `n` best of the last scores among `mask`'s kinds (and what `accept` takes, when given). */
  private best(query: Quantized, n: number, mask: number, accept?: (key: string, hash: string) => boolean): Nearest[] {
    const { keys, ranges, scores, kindBits } = this
    const scale = query.range / 16129
    const best: Nearest[] = []
    for (let slot = 0; slot < keys.length; slot++) {
      const key = keys[slot]
      // A positive dot product is a positive cosine: ranges and the scale are positive.
      if (key === undefined || scores[slot]! <= 0 || (kindBits[slot]! & mask) === 0) continue
      const cosine = scores[slot]! * ranges[slot]! * scale
      if (best.length === n && orderOf(cosine, key, best[n - 1]!) >= 0) continue
      const hit = { key, cosine, hash: this.hashes[slot]! }
      if (accept && !accept(key, hit.hash)) continue
      let at = best.length < n ? best.length : n - 1
      while (at > 0 && nearestOrder(hit, best[at - 1]!) < 0) at--
      best.splice(at, 0, hit)
      if (best.length > n) best.pop()
    }
    return best
  }

  private async syncNow(store: VectorStore, ref: RoomRef): Promise<void> {
    for (;;) {
      const max = Math.max(16, Math.floor(READ_BYTES / ((this.dims || 1024) + 24)))
      const c = await store.changes(ref, this.ver, this.epoch, max)
      this.apply(c)
      if (c.upto >= c.ver) return
    }
  }

  /** Applies one answer of VectorStore.changes (sync(); tests give their own). */
  apply(c: VectorChanges): void {
    if (c.full) this.clear()
    this.epoch = c.epoch
    this.gen = c.gen
    for (const key of c.dels) this.remove(key)
    for (const p of c.puts) this.put(p.key, unpack(p.packed))
    this.ver = c.upto
  }

  private clear(): void {
    this.dims = 0
    this.stride = 0
    this.data = new Int8Array(0)
    this.ranges = new Float32Array(0)
    this.kindBits = new Uint8Array(0)
    this.scores = new Float64Array(0)
    this.keys = []
    this.hashes = []
    this.slots.clear()
    this.free.length = 0
  }

  private put(key: string, v: Quantized & { hash: string }): void {
    if (this.dims === 0) {
      this.dims = v.q.length
      this.stride = strideOf(this.dims)
    }
    if (v.q.length !== this.dims) return // another model's vector, on its way out
    let slot = this.slots.get(key) ?? this.free.pop()
    if (slot === undefined) {
      slot = this.keys.length
      this.grow(slot + 1)
      this.keys.push(undefined)
      this.hashes.push('')
    }
    this.data.set(v.q, slot * this.stride) // the padding after it stays zero: every vector has `dims` values
    this.version++
    this.ranges[slot] = v.range
    this.kindBits[slot] = kindBit(key.slice(0, key.indexOf(':')))
    this.keys[slot] = key
    this.hashes[slot] = v.hash
    this.slots.set(key, slot)
  }

  private remove(key: string): void {
    const slot = this.slots.get(key)
    if (slot === undefined) return
    this.slots.delete(key)
    this.keys[slot] = undefined
    this.free.push(slot)
  }

  private grow(slots: number): void {
    if (this.ranges.length >= slots) return
    const cap = Math.max(64, slots * 2)
    const data = new Int8Array(cap * this.stride)
    data.set(this.data)
    const ranges = new Float32Array(cap)
    ranges.set(this.ranges)
    this.data = data
    this.ranges = ranges
    const kindBits = new Uint8Array(cap)
    kindBits.set(this.kindBits)
    this.kindBits = kindBits
    this.scores = new Float64Array(cap)
  }
}
