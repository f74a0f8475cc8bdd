// Hybrid ranking: a convex combination of normalised scores, as Meilisearch's semanticRatio. A
// record scores
//
//   (1 − ratio) × lexical + ratio × meaning
//
// where `lexical` = its BM25F score over the best lexical score of the answer, times its coverage
// of the query (the IDF share of the query words it has, lexical.ts), and `meaning` = the cosine of
// its vector and the query's (0 below 0, and 0 when the vectors did not find it). Both are 0-1.
// Scores, not ranks: a record that shares one common word with the query and nothing of its
// meaning scores at most (1 − ratio) × its coverage plus ratio × its cosine, so it never outranks
// a record close in meaning (bench/search-quality.ts chose this over reciprocal rank fusion, which
// gives the first of each list the same weight however weak it is: docs/search.md).
//
// Exact identifiers still win: when the query looks like an identifier (t42, ERR_CONN_RESET,
// spec/api, getUserName, PAY-1234), the records that have every query word as a whole word come
// first (among themselves in fused order), whatever their vectors, and the vectors weigh half as
// much (IDENTIFIER_RATIO_SHARE); an embedding model knows nothing of identifiers and would otherwise
// rank a paraphrase of the error text above the one record that names it.

/** The share of the ratio the vectors keep for an identifier-like query. */
export const IDENTIFIER_RATIO_SHARE = 0.5

export type Signal = 'lexical' | 'semantic' | 'both'

export interface Fused {
  key: string
  /** Fused score, 0-1, higher is better. */
  score: number
  match: Signal
  /** Cosine similarity of its vector to the query's, when it came through the vectors. */
  similarity?: number
}

/** Whether `query` has a word that looks like an identifier rather than prose. */
export function identifierLike(query: string): boolean {
  for (const token of query.split(/\s+/)) {
    const t = token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')
    if (t.length < 2) continue
    if (/\p{L}/u.test(t) && /\p{N}/u.test(t)) return true // t42, v2, sha256, INV2291
    if (/[\p{L}\p{N}][_./:#-][\p{L}\p{N}]/u.test(t)) return true // ERR_CONN_RESET, spec/api, PAY-1234
    if (/\p{Ll}\p{Lu}/u.test(t)) return true // getUserName, HttpClient
    if (/^\p{Lu}{2,}$/u.test(t)) return true // CORS, OOM
  }
  return false
}

export interface LexicalCandidate {
  key: string
  /** BM25F score (any scale: it is normalised by the best of the list). */
  score: number
  /** Share of the query matched, 0-1 (lexical.ts Hit.coverage). */
  coverage: number
  /** Whether it has every query word as a whole word. */
  exact: boolean
}

/**
 * Fuses a lexical ranking and a vector ranking (best first each). `ratio` is the share of the
 * vectors (0-1). Returns every record of either list, best first; ties go to the lexical order.
 */
export function fuse(
  lexical: readonly LexicalCandidate[],
  vectors: readonly { key: string; cosine: number }[],
  opts: { ratio: number; identifier: boolean },
): Fused[] {
  const ratio = opts.identifier ? opts.ratio * IDENTIFIER_RATIO_SHARE : opts.ratio
  let best = 0
  for (const h of lexical) best = Math.max(best, h.score)
  const out = new Map<string, Fused & { order: number; band: number }>()
  lexical.forEach((h, i) => {
    const words = best > 0 ? (h.score / best) * Math.min(1, Math.max(0, h.coverage)) : 0
    out.set(h.key, {
      key: h.key,
      score: (1 - ratio) * words,
      match: 'lexical',
      order: i,
      band: opts.identifier && h.exact ? 1 : 0,
    })
  })
  vectors.forEach((h, i) => {
    const s = ratio * Math.min(1, Math.max(0, h.cosine))
    const had = out.get(h.key)
    if (had) {
      had.score += s
      had.match = 'both'
      had.similarity = h.cosine
    } else {
      out.set(h.key, {
        key: h.key,
        score: s,
        match: 'semantic',
        similarity: h.cosine,
        order: lexical.length + i,
        band: 0,
      })
    }
  })
  return [...out.values()]
    .sort((a, b) => b.band - a.band || b.score - a.score || a.order - b.order)
    .map(({ key, score, match, similarity }) =>
      similarity === undefined ? { key, score, match } : { key, score, match, similarity },
    )
}
