// Hybrid ranking: reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009) of the lexical
// and the vector ranking. A record's score is Σ w / (K + rank) over the lists it is in, so it
// needs no comparable scores, only ranks; the weights come from SEARCH_SEMANTIC_RATIO (0.5: equal).
//
// Exact identifiers still win: when the query looks like an identifier (t42, ERR_CONN_RESET,
// spec/api, getUserName, PAY-1234), the records that have every query word as a whole word come
// first (among themselves in fused order), whatever their vector ranks; an embedding model knows nothing of
// identifiers and would otherwise rank a paraphrase of the error text above the one record that
// names it.

/** The rank constant of RRF: 60, as in the paper and in most engines since. */
export const RRF_K = 60

export type Signal = 'lexical' | 'semantic' | 'both'

export interface Fused {
  key: string
  /** Fused score, higher is better (not normalised). */
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

/**
 * Fuses a lexical ranking (best first, with whether each record has every query word exactly)
 * and a vector ranking (best first, with the cosine). `ratio` is the share of the vectors (0-1).
 * Returns every record of either list, best first; ties go to the lexical order.
 */
export function fuse(
  lexical: readonly { key: string; exact: boolean }[],
  vectors: readonly { key: string; cosine: number }[],
  opts: { ratio: number; identifier: boolean },
): Fused[] {
  const wl = 2 * (1 - opts.ratio)
  const ws = 2 * opts.ratio
  const out = new Map<string, Fused & { order: number; band: number }>()
  lexical.forEach((h, i) => {
    out.set(h.key, {
      key: h.key,
      score: wl / (RRF_K + i + 1),
      match: 'lexical',
      order: i,
      band: opts.identifier && h.exact ? 1 : 0,
    })
  })
  vectors.forEach((h, i) => {
    const s = ws / (RRF_K + i + 1)
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
