// Search quality on the labelled room of test/fixtures/search-quality.ts: nDCG@10 and MRR@10 of
// the lexical ranking, the vector ranking and the hybrid one (redis/hybrid.ts at the default
// SEARCH_SEMANTIC_RATIO), overall and per slice, with the deterministic embedder of
// test/helpers/quality-embedder.ts. Nothing here is timed: the figures are the same on any machine.
//   npx tsx bench/search-quality.ts
import { SLICES } from '../test/fixtures/search-quality.js'
import { evaluate, RANKERS } from '../test/helpers/search-quality.js'

const report = evaluate(RANKERS)
const f = (x: number) => x.toFixed(3)
for (const slice of ['all', ...SLICES] as const)
  for (const [name, r] of Object.entries(report)) {
    const { ndcg, mrr, queries } = r[slice]
    console.log(`${slice.padEnd(10)} ${name.padEnd(8)} nDCG@10 ${f(ndcg)}  MRR@10 ${f(mrr)}  (${queries} queries)`)
  }
