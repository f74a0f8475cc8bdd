// Hybrid ranking of the Redis engine without Redis: the lexical index and a vector ranking fused
// as a semantic search fuses them (redis/hybrid.ts rankHybrid).
import t from 'tap'
import { LexicalIndex, type IndexDoc } from '../../src/search/lexical.js'
import type { HitBase } from '../../src/search/records.js'
import { rankHybrid } from '../../src/search/redis/hybrid.js'

const task = (id: string, title: string, notes?: string): IndexDoc<HitBase> => ({
  key: `task:${id}`,
  kind: 'task',
  at: 0,
  fields: notes ? { title, notes } : { title },
  meta: { ref: `task ${id}`, kind: 'task', id, title, at: '2026-12-01T00:00:00.000Z' },
})

const RATIO = 0.5

t.test('a paraphrase found by meaning ranks above a record that shares only a short word', async (t) => {
  // The room and the similarities measured with an OpenAI-compatible embedder for the query
  // "browser bug when signing in": the Safari task is what was meant.
  const idx = new LexicalIndex<HitBase>()
  idx.upsert(task('t1', 'Fix the login page crash on Safari'))
  idx.upsert(task('t2', 'Migrate invoices to the new Postgres schema'))
  idx.upsert(task('t3', 'Write the onboarding guide'))
  const query = 'browser bug when signing in'
  const lexical = idx.search(query, 50)
  t.same(
    lexical.hits.map((h) => h.doc.key),
    [],
    'no record has a query word; "in" is a stop word, not a prefix of "invoices"',
  )
  const near = [
    { key: 'task:t1', cosine: 0.995 },
    { key: 'task:t3', cosine: 0.02 },
    { key: 'task:t2', cosine: 0.001 },
  ]
  const fused = rankHybrid(query, lexical, near, RATIO)
  t.equal(fused[0]!.key, 'task:t1', 'the Safari task first')
  t.match(fused[0], { match: 'semantic', similarity: 0.995 })
})
