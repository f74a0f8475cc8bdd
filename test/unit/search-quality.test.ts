// The search evaluation (test/fixtures/search-quality.ts, test/helpers/search-quality.ts): the
// fixture is what docs/search.md says it is, its metrics are right, the embedder cannot see the
// labels, and hybrid ranking meets its goal on every slice.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { QUERIES, SLICES } from '../fixtures/search-quality.js'
import { evaluate, ndcg, qualityDocs, RANKERS, reciprocalRank } from '../helpers/search-quality.js'

t.test('the fixture: at least 60 queries in four slices, every label a record of the room', async (t) => {
  t.ok(QUERIES.length >= 60, `${QUERIES.length} queries`)
  const keys = new Set(qualityDocs().map((d) => d.key))
  const kinds = new Set(qualityDocs().map((d) => d.kind))
  t.same([...kinds].sort(), ['context', 'event', 'task'], 'tasks, context documents and events')
  for (const slice of SLICES) {
    const n = QUERIES.filter((q) => q.slice === slice).length
    t.ok(n >= 12, `${slice}: ${n} queries`)
  }
  t.equal(new Set(QUERIES.map((q) => q.query)).size, QUERIES.length, 'no query twice')
  for (const q of QUERIES) {
    const grades = Object.entries(q.relevant)
    t.ok(
      grades.every(([k, g]) => keys.has(k) && [1, 2, 3].includes(g)),
      `${q.query}: graded 1-3, records of the room`,
    )
    t.ok(
      grades.some(([, g]) => g === 3),
      `${q.query}: names the record meant`,
    )
  }
})

t.test('nDCG@10 and MRR@10', async (t) => {
  const rel = { a: 3, b: 1 }
  t.equal(ndcg(['a', 'b', 'x'], rel), 1, 'the ideal order')
  const swapped = ndcg(['b', 'a'], rel)
  t.ok(swapped < 1 && swapped > 0.5, `swapped: ${swapped}`)
  t.equal(ndcg(['x', 'y'], rel), 0)
  t.equal(ndcg([...'cdefghijkl', 'a'], rel), 0, 'past the tenth result counts nothing')
  t.equal(reciprocalRank(['x', 'b', 'a'], rel), 0.5, 'the first relevant record, of any grade')
  t.equal(reciprocalRank(['x'], rel), 0)
})

t.test('the embedder reads words only: it imports nothing that holds the labels', async (t) => {
  const src = readFileSync('test/helpers/quality-embedder.ts', 'utf8')
  t.notMatch(src, /\bimport\b/, 'no imports at all')
  t.notMatch(src, /fixtures|relevant|QUERIES/)
})

t.test('the goal: hybrid at least as good as the better of lexical and semantic on every slice', async (t) => {
  const report = evaluate(RANKERS)
  for (const slice of ['all', ...SLICES] as const) {
    const { lexical, semantic, hybrid } = {
      lexical: report.lexical[slice],
      semantic: report.semantic[slice],
      hybrid: report.hybrid[slice],
    }
    t.ok(
      hybrid.ndcg >= Math.max(lexical.ndcg, semantic.ndcg),
      `${slice} nDCG@10: hybrid ${hybrid.ndcg}, lexical ${lexical.ndcg}, semantic ${semantic.ndcg}`,
    )
    t.ok(
      hybrid.mrr >= Math.max(lexical.mrr, semantic.mrr),
      `${slice} MRR@10: hybrid ${hybrid.mrr}, lexical ${lexical.mrr}, semantic ${semantic.mrr}`,
    )
  }
})
