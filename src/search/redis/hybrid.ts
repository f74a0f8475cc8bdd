// Semantic (hybrid) search on the Redis engine: the room's lexical ranking and its nearest vectors
// (vectors/semantic.ts), fused by their normalised scores (fuse.ts). A vector counts only for a record the
// search sees, with the text the vector was made from: the lexical index is exactly the room at
// the time of the search (room.ts), so a deleted record never comes back through a vector not yet
// removed, and a rewritten one is not found by its old meaning while it is embedded again.
import { roundScore, type SearchHit, type ValidSearch } from '../engine.js'
import { fuse, identifierLike, type Fused } from '../fuse.js'
import type { Answer, IndexDoc } from '../lexical.js'
import type { HitBase } from '../records.js'
import { textHash } from '../vectors/codec.js'
import type { Accept, PickNearest } from '../vectors/semantic.js'
import { embedText } from '../vectors/sink.js'
import { hitOf, partialWords } from './hits.js'
import type { RoomIndex } from './room.js'

/** Candidates taken from each ranking before fusion. */
export const CANDIDATES = 50

export interface HybridOptions {
  ratio: number
  textChars: number
}

/** The text hash of each indexed document, computed once (documents are replaced, never changed). */
const hashes = new WeakMap<IndexDoc<HitBase>, string>()

function hashOf(doc: IndexDoc<HitBase>, chars: number): string {
  let h = hashes.get(doc)
  if (h === undefined) {
    h = textHash(embedText(doc, chars))
    hashes.set(doc, h)
  }
  return h
}

/**
 * The hybrid order of a query's lexical answer and its nearest vectors (best first), without
 * Redis: what `hybrid` ranks by, and what the unit tests and bench/search-quality.ts measure.
 */
export function rankHybrid(
  query: string,
  lexical: Answer<HitBase>,
  near: readonly { key: string; cosine: number }[],
  ratio: number,
): Fused[] {
  return fuse(
    lexical.hits.map((h) => ({
      key: h.doc.key,
      score: h.score,
      coverage: h.coverage,
      exact: h.exact >= lexical.words,
    })),
    near.map((h) => ({ key: h.key, cosine: h.cosine })),
    { ratio, identifier: identifierLike(query) },
  )
}

/**
 * Fuses the room's lexical hits with its nearest vectors (`pick`: Semantic.candidates), once the
 * lexical index is up to date.
 */
export async function hybrid(
  room: RoomIndex,
  q: ValidSearch,
  lexical: Answer<HitBase>,
  pick: PickNearest,
  opts: HybridOptions,
): Promise<{ results: SearchHit[]; otherModel: boolean }> {
  const accept: Accept = (key, hash) => {
    const doc = room.index.doc(key)
    return doc !== undefined && hashOf(doc, opts.textChars) === hash
  }
  const near = await pick(accept)
  const fused = rankHybrid(q.query, lexical, near.hits, opts.ratio)
  const lex = new Map(lexical.hits.map((h) => [h.doc.key, h]))
  const max = Math.max(...fused.map((f) => f.score), Number.MIN_VALUE)
  const results: SearchHit[] = []
  let last = 1
  for (const f of fused) {
    if (results.length === q.limit) break
    const doc = lex.get(f.key)?.doc ?? room.index.doc(f.key)
    if (!doc) continue
    // Scores follow the order (identifier matches come first whatever their fused score).
    last = Math.min(last, f.score / max)
    const found = lex.get(f.key)
    const hit = hitOf(doc, last, found?.fields ?? 0, lexical.matched)
    const words = found && partialWords(found, lexical)
    if (words) hit.words = words
    hit.match = f.match
    if (f.similarity !== undefined) hit.similarity = roundScore(f.similarity)
    results.push(hit)
  }
  return { results, otherModel: near.otherModel }
}
