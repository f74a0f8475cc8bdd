// The Redis engine's text handling and ranking, without Redis: folding, word splitting, snippets,
// BM25F field weights, exact over prefix, removal and compaction, bounded prefix expansion.
import { runInNewContext } from 'node:vm'
import v8 from 'node:v8'
import t from 'tap'
import {
  FIELD_WEIGHTS,
  LexicalIndex,
  MAX_EXPANSIONS,
  MIN_PREFIX,
  prefixable,
  type IndexDoc,
} from '../../src/search/lexical.js'
import { cutBytes, fold, snippet, words } from '../../src/search/text.js'

t.test('folding: case, accents, ligatures and full-width forms', async (t) => {
  t.equal(fold('Crème BRÛLÉE'), 'creme brulee')
  t.equal(fold('ﬁle'), 'file')
  t.equal(fold('ＡＢＣ'), 'abc')
  t.same(words('Ünïcödé naïve café'), ['unicode', 'naive', 'cafe'])
})

t.test('words: letters and digits; everything else separates', async (t) => {
  t.same(words('spec/api snake_case t7: re-deploy, v2.1'), [
    'spec',
    'api',
    'snake',
    'case',
    't7',
    're',
    'deploy',
    'v2',
    '1',
  ])
  t.same(words('日本語 テキスト'), ['日本語', 'テキスト'])
  t.same(words('x'.repeat(65) + ' ok'), ['ok'], 'a run longer than 64 characters is not a word')
  t.same(words('emoji 🚀 rocket'), ['emoji', 'rocket'])
})

t.test('cutBytes never splits a character', async (t) => {
  t.equal(cutBytes('héllo', 2), 'h', 'é is two bytes: cut before it')
  t.equal(cutBytes('héllo', 3), 'hé')
  t.equal(cutBytes('abc', 10), 'abc')
})

t.test('snippets: around the first match, matches marked, cut at word boundaries', async (t) => {
  const text =
    `${'filler words here '.repeat(20)}the deploy step failed twice\n\nthen the deploy worked ` +
    `${'tail text '.repeat(30)}`
  const s = snippet(text, new Set(['deploy']), 80)
  t.match(s, /^…/, 'starts with an ellipsis: text before was cut')
  t.match(s, /…$/, 'ends with one')
  t.match(s, /the \*\*deploy\*\* step failed/)
  t.notMatch(s, /\n/, 'whitespace runs become one space')
  t.equal(
    snippet('Fix the Login page', new Set(['login'])),
    'Fix the **Login** page',
    'a short text whole, the original case kept',
  )
  t.equal(snippet('Crème brûlée', new Set(['creme'])), '**Crème** brûlée', 'folded words match accented text')
})

type Meta = { n: number }
const doc = (key: string, fields: IndexDoc<Meta>['fields'], kind = 'task', at = 0): IndexDoc<Meta> => ({
  key,
  kind,
  at,
  fields,
  meta: { n: 0 },
})
const order = (idx: LexicalIndex<Meta>, q: string, kinds?: string[]) =>
  idx.search(q, 10, kinds ? new Set(kinds) : undefined).hits.map((h) => h.doc.key)

t.test('ranking: title over notes, key over body, exact over prefix', async (t) => {
  t.ok(FIELD_WEIGHTS.title > FIELD_WEIGHTS.notes && FIELD_WEIGHTS.key > FIELD_WEIGHTS.body)
  const idx = new LexicalIndex<Meta>()
  idx.upsert(doc('task:t1', { title: 'Unrelated chore', notes: 'remember the rollout before friday' }))
  idx.upsert(doc('task:t2', { title: 'Rollout plan', notes: 'steps to follow' }))
  idx.upsert(doc('task:t3', { title: 'Something else', notes: 'rollouts are risky on friday' }))
  idx.upsert(doc('task:t4', { title: 'Nothing here', notes: 'no match at all' }))
  t.same(order(idx, 'rollout'), ['task:t2', 'task:t1', 'task:t3'], 'title, then exact in notes, then the prefix match')
  t.same(order(idx, 'rollout '), ['task:t2', 'task:t1'], 'a trailing space ends the word: no prefix match')
  const ctx = new LexicalIndex<Meta>()
  ctx.upsert(doc('context:spec/billing', { type: 'spec', key: 'billing', body: 'how invoices are made' }, 'context'))
  ctx.upsert(doc('context:spec/api', { type: 'spec', key: 'api', body: 'the billing endpoints and more' }, 'context'))
  t.same(order(ctx, 'billing'), ['context:spec/billing', 'context:spec/api'], 'key over body')
})

t.test('an exact match ranks above many completions of the prefix word', async (t) => {
  const idx = new LexicalIndex<Meta>()
  idx.upsert(doc('task:many', { notes: 'deployment deployments deployed' }))
  idx.upsert(doc('task:exact', { notes: 'we deploy' }))
  idx.upsert(doc('task:other', { notes: 'nothing to see' }))
  t.same(
    order(idx, 'deploy'),
    ['task:exact', 'task:many'],
    'completions are not summed: the best one counts, below an exact hit',
  )
  idx.upsert(doc('task:repeat', { notes: 'deployments deployments deployments deployments' }))
  t.equal(order(idx, 'deploy')[0], 'task:exact', 'nor does one completion repeated outweigh it')
  t.same(
    idx.search('deploy', 10).matched,
    new Set(['deploy', 'deployment', 'deployments', 'deployed']),
    'every completion is highlighted',
  )
})

t.test('index terms do not keep the text they came from alive', async (t) => {
  v8.setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  const idx = new LexicalIndex<Meta>()
  const heap = () => {
    gc()
    gc()
    return process.memoryUsage().heapUsed
  }
  idx.upsert(doc('task:small', { notes: 'termnumber000001 is also here' }))
  const before = heap()
  // One 16 MB text whose words are all long enough (13+ characters) for V8 to make slices of,
  // and few enough that removing it does not compact the index: its terms stay, as a term shared
  // with a live document stays for good.
  const add = () => {
    const parts: string[] = []
    for (let i = 0; i < 500; i++) parts.push(`termnumber${String(i).padStart(6, '0')}`)
    const text = `${parts.join(' ')} ${'fillerfillerfiller '.repeat((16 * 1024 * 1024) / 19)}`
    idx.upsert(doc('context:big', { body: text }, 'context'))
  }
  add()
  t.ok(heap() - before > 12 * 1024 * 1024, 'the text is held while its document is indexed')
  idx.remove('context:big')
  const held = heap() - before
  t.ok(held < 4 * 1024 * 1024, `after removal the index holds ${(held / 1048576).toFixed(1)} MiB, not the 16 MB text`)
  t.same(order(idx, 'termnumber000001'), ['task:small'])
})

t.test('every query word counts; documents matching all come first', async (t) => {
  const idx = new LexicalIndex<Meta>()
  idx.upsert(doc('a', { notes: 'login page broken' }))
  idx.upsert(doc('b', { notes: 'login works fine, checkout broken page' }))
  idx.upsert(doc('c', { notes: 'login only' }))
  const keys = order(idx, 'login broken page')
  t.same(keys.slice(0, 2).sort(), ['a', 'b'])
  t.equal(keys[2], 'c')
})

t.test('kinds filter, removal, replacement, and compaction keep results right', async (t) => {
  const idx = new LexicalIndex<Meta>()
  idx.upsert(doc('task:t1', { title: 'alpha' }, 'task'))
  idx.upsert(doc('event:1-1', { text: 'alpha' }, 'event'))
  t.same(order(idx, 'alpha', ['event']), ['event:1-1'])
  idx.upsert(doc('task:t1', { title: 'beta' }, 'task'))
  t.same(order(idx, 'alpha'), ['event:1-1'], 'the old text of a replaced document is gone')
  t.same(order(idx, 'beta'), ['task:t1'])
  t.ok(idx.remove('event:1-1'))
  t.same(order(idx, 'alpha'), [])
  for (let i = 0; i < 3000; i++) idx.upsert(doc(`e${i}`, { text: `word${i % 7} common` }, 'event'))
  for (let i = 0; i < 3000; i += 2) idx.remove(`e${i}`)
  t.equal(idx.size, 1501)
  const hits = order(idx, 'common').length
  t.equal(hits, 10, 'limited to 10')
  t.equal(idx.search('common', 5000).hits.length, 1500, 'removed documents never come back after compaction')
  t.same(order(idx, 'beta'), ['task:t1'], 'renumbered slots keep their documents')
})

t.test('a prefix expands to at most MAX_EXPANSIONS words, the most frequent first', async (t) => {
  const idx = new LexicalIndex<Meta>()
  for (let i = 0; i < 200; i++)
    idx.upsert(doc(`d${i}`, { notes: `pre${String(i).padStart(3, '0')} ${i < 5 ? 'prefrequent '.repeat(1) : ''}` }))
  for (let i = 0; i < 100; i++) idx.upsert(doc(`f${i}`, { notes: 'prefrequent' }))
  const { matched } = idx.search('pre', 500)
  t.ok(matched.size <= MAX_EXPANSIONS, `${matched.size} words matched`)
  t.ok(matched.has('prefrequent'), 'the most frequent completion is kept')
})

t.test('an empty index and a query without words answer nothing', async (t) => {
  const idx = new LexicalIndex<Meta>()
  t.same(idx.search('anything', 10).hits, [])
  idx.upsert(doc('a', { notes: 'text' }))
  t.same(idx.search('!!!', 10).hits, [])
})

t.test('the last word is a prefix only from MIN_PREFIX characters and never a stop word', async (t) => {
  const idx = new LexicalIndex<Meta>()
  idx.upsert(doc('inv', { title: 'Migrate invoices to a new Postgres schema' }))
  idx.upsert(doc('theme', { title: 'Dark theme for dashboards' }))
  idx.upsert(doc('when', { title: 'Whenever queues stall, page someone' }))
  t.equal(MIN_PREFIX, 3)
  t.same(order(idx, 'signing in'), [], '"in" is too short and a stop word: not a prefix of "invoices"')
  t.same(order(idx, 'in'), [], 'alone too')
  t.same(order(idx, 'inv'), ['inv'], 'three characters complete')
  t.same(order(idx, 'colour the'), [], '"the" is a stop word: it does not complete to "theme"')
  t.same(order(idx, 'dashboards for'), ['theme'], 'matched whole, "for" still counts as a word')
  t.same(order(idx, 'when'), [], '"when" is a stop word: it does not complete to "whenever"')
  t.same(order(idx, 'whene'), ['when'])
  t.ok(prefixable('dep') && !prefixable('de') && !prefixable('for') && prefixable('日本語'), 'by code points')
  t.notOk(prefixable('日本'))
})
