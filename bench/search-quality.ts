// Search quality on the labelled room of test/fixtures/search-quality.ts: nDCG@10 and MRR@10 of
// the lexical ranking, the vector ranking and the hybrid one (redis/hybrid.ts, the engine's fusion
// of normalised scores), overall and per slice, with the deterministic embedder of
// test/helpers/quality-embedder.ts; and, for comparison, reciprocal rank fusion (RRF, k = 60, the
// engine's fusion before) of the same two rankings. Nothing here is timed: the figures are the
// same on any machine.
//   npx tsx bench/search-quality.ts [--ratio 0.5]     (the share of the vectors, SEARCH_SEMANTIC_RATIO)
import { parseArgs } from 'node:util'
import { identifierLike } from '../src/search/fuse.js'
import { rankHybrid } from '../src/search/redis/hybrid.js'
import { SLICES } from '../test/fixtures/search-quality.js'
import { DEFAULT_RATIO, evaluate, RANKERS, type Ranker } from '../test/helpers/search-quality.js'

const { values } = parseArgs({ options: { ratio: { type: 'string', default: String(DEFAULT_RATIO) } } })
const ratio = Number(values.ratio)
if (!(ratio >= 0 && ratio <= 1)) throw new Error(`--ratio: must be 0-1, got ${values.ratio}`)

/** RRF: w / (60 + rank) from each list, weights 2 × (1 − ratio) and 2 × ratio; identifiers first. */
const rrf: Ranker = (query, lexical, near) => {
  const identifier = identifierLike(query)
  const score = new Map<string, { s: number; band: number; order: number }>()
  lexical.hits.forEach((h, i) =>
    score.set(h.doc.key, {
      s: (2 * (1 - ratio)) / (61 + i),
      band: identifier && h.exact >= lexical.words ? 1 : 0,
      order: i,
    }),
  )
  near.forEach((n, i) => {
    const had = score.get(n.key)
    if (had) had.s += (2 * ratio) / (61 + i)
    else score.set(n.key, { s: (2 * ratio) / (61 + i), band: 0, order: lexical.hits.length + i })
  })
  return [...score].sort(([, a], [, b]) => b.band - a.band || b.s - a.s || a.order - b.order).map(([key]) => key)
}

const report = evaluate({
  lexical: RANKERS.lexical,
  semantic: RANKERS.semantic,
  hybrid: (query, lexical, near) => rankHybrid(query, lexical, near, ratio).map((f) => f.key),
  'hybrid-rrf': rrf,
})
const f = (x: number) => x.toFixed(3)
console.log(`ratio ${ratio}`)
for (const slice of ['all', ...SLICES] as const)
  for (const [name, r] of Object.entries(report)) {
    const { ndcg, mrr, queries } = r[slice]
    console.log(`${slice.padEnd(10)} ${name.padEnd(10)} nDCG@10 ${f(ndcg)}  MRR@10 ${f(mrr)}  (${queries} queries)`)
  }
