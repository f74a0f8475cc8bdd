// When the nearest vectors VSIM's exact mode found prove the room's answer: the rule that makes a
// search on vector sets give exactly the answer of ranking in process (follower.ts).
//
// VSIM TRUTH (Redis 8.0.2, modules/vector-sets/hnsw.c hnsw_ground_truth_with_filter) scans every
// vector of the set (of the FILTER's kinds) and keeps the COUNT smallest float32 distances
// d = 1 - fl(dot × (ra/127) × (rq/127)), clamped to [0, 2], in a queue that refuses a distance
// equal to its worst: so every vector it leaves out has d >= the d of the last one it returns. The
// node scores what it returns from the same int8 bytes (the float32 values a node sends quantise
// back to exactly them: tested with VEMB RAW), in double, and orders equal cosines by record;
// VSIM's float32 order can differ from that only where cosines differ by less than its rounding,
// and among exact ties it keeps whichever it met first. So the node asks for a few more than it
// needs and checks: with c = the node's cosine of a vector and |(1 - d) - c| <= SLACK for every
// vector, a vector left out has c <= c(last) + 2 × SLACK. When the n-th best the search takes is
// above that, nothing left out could take its place: the answer is exact. Otherwise (ties or
// near-ties at the edge, most candidates refused) it asks again for more (semantic.ts).
//
// SLACK: Redis's d differs from the node's cosine by float32 rounding alone: ra and rq are its
// own scales after normalising the float32 values in float (a sum of dims squares: relative error
// at most ~(dims/4 + 6) units of 2^-24 in the sum, half that in its square root, for each of
// the two vectors), then five roundings of the product and one of 1 - x. That is below
// (dims/4 + 18) × 2^-24; SLACK takes (dims + 64) × 2^-24, four times more: 2.7e-5 at 384
// dimensions, where 3e-7 was the largest difference measured (search-vector-sets.test.ts asserts
// it stays within SLACK).
import type { Nearest } from './follower.js'

/** Largest |(1 - VSIM's float32 distance) - the node's cosine| for vectors of `dims` values. */
export function slack(dims: number): number {
  return (dims + 64) * 2 ** -24
}

export interface SetAnswer {
  /** Vectors asked for (COUNT). */
  asked: number
  /** Vectors VSIM returned. */
  returned: number
  /** Vectors the room has. */
  card: number
  /** The node's cosine of the last vector VSIM returned (its farthest). */
  lastCosine: number
  dims: number
}

/**
 * Whether `hits`, the `n` nearest the search takes among what VSIM returned (scored and ordered
 * by the node: RoomVectors.nearest), are the room's `n` nearest: VSIM returned every vector of
 * those kinds, or no vector it left out could rank with them.
 */
export function proven(hits: readonly Nearest[], n: number, a: SetAnswer): boolean {
  if (n <= 0 || a.returned < a.asked || a.returned >= a.card) return true
  const bound = a.lastCosine + 2 * slack(a.dims)
  // Vectors left out have cosines <= bound: none of them counts (cosine <= 0 is left out) ...
  if (bound <= 0) return true
  // ... or none of them reaches the n-th taken (strictly: an equal one might come first by record).
  return hits.length === n && hits[n - 1]!.cosine > bound
}
