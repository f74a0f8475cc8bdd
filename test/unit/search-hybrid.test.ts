// Hybrid ranking of the Redis engine without Redis: the lexical index and a vector ranking fused
// as a semantic search fuses them (redis/hybrid.ts rankHybrid).
import t from 'tap'
import { LexicalIndex, type IndexDoc } from '../../src/search/lexical.js'
import type { HitBase } from '../../src/search/records.js'
import { partialWords } from '../../src/search/redis/hits.js'
import { rankHybrid } from '../../src/search/redis/hybrid.js'
import { fuse } from '../../src/search/fuse.js'

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

t.test('a shared common word and no meaning in common never outrank a record close in meaning', async (t) => {
  // "in" is a whole word of the Postgres task here: a weak lexical match, not a prefix one.
  const idx = new LexicalIndex<HitBase>()
  idx.upsert(task('t1', 'Fix the login page crash on Safari'))
  idx.upsert(task('t2', 'Migrate invoices in the new Postgres schema'))
  idx.upsert(task('t3', 'Write the onboarding guide'))
  const query = 'browser bug when signing in'
  const lexical = idx.search(query, 50)
  t.same(
    lexical.hits.map((h) => h.doc.key),
    ['task:t2'],
    'the Postgres task matches one word of five',
  )
  t.ok(lexical.hits[0]!.coverage < 0.2, `a weak match: coverage ${lexical.hits[0]!.coverage}`)
  const near = [
    { key: 'task:t1', cosine: 0.995 },
    { key: 'task:t3', cosine: 0.02 },
    { key: 'task:t2', cosine: 0.001 },
  ]
  t.same(
    rankHybrid(query, lexical, near, RATIO).map((f) => f.key),
    ['task:t1', 'task:t2', 'task:t3'],
  )
})

t.test('over many rooms: coverage under 0.3 and a cosine under 0.05 stay below a cosine of 0.5', async (t) => {
  // The bound at the default ratio: such a record scores at most 0.5 × 0.3 + 0.5 × 0.05 = 0.175, a
  // record found by its meaning alone at least 0.5 × 0.5 = 0.25, whatever the other records.
  let seed = 7
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32
  for (let room = 0; room < 200; room++) {
    const hits = Array.from({ length: 1 + Math.floor(rnd() * 10) }, (_, i) => ({
      key: `w${i}`,
      score: rnd() * 10,
      coverage: rnd(),
      exact: false,
    }))
    const weak = { key: 'weak', score: 10 + rnd() * 10, coverage: rnd() * 0.3, exact: false }
    const lexical = [weak, ...hits].sort((a, b) => b.score - a.score)
    const near = [
      { key: 'meant', cosine: 0.5 + rnd() * 0.5 },
      { key: 'weak', cosine: rnd() * 0.05 },
      ...hits.map((h) => ({ key: h.key, cosine: rnd() })),
    ].sort((a, b) => b.cosine - a.cosine)
    const order = fuse(lexical, near, { ratio: RATIO, identifier: false }).map((f) => f.key)
    if (order.indexOf('weak') < order.indexOf('meant')) {
      t.fail(`room ${room}: ${JSON.stringify({ lexical, near })}`)
      return
    }
  }
  t.pass('the record close in meaning first in every room, the weak one the best lexical score of its room')
})

t.test('a partial match names the query words it has, a prefix included; a full one names none', async (t) => {
  const idx = new LexicalIndex<HitBase>()
  idx.upsert(task('t1', 'Retry webhook deliveries'))
  idx.upsert(task('t2', 'Webhook signatures'))
  idx.upsert(task('t3', 'Deliveries by mail'))
  const answer = idx.search('Retry WEBHOOK deliv', 10)
  t.same(answer.terms, ['retry', 'webhook', 'deliv'])
  t.same(
    answer.hits.map((h) => [h.doc.key, partialWords(h, answer)]),
    [
      ['task:t1', undefined],
      ['task:t2', ['webhook']],
      ['task:t3', ['deliv']],
    ],
  )
})
