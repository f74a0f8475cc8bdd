// The pure parts of semantic search: Q8 quantisation as Redis vector sets do it, the packed form,
// the embedded text, the events a bounded room embeds, and the fusion of scores with identifiers
// first.
import t from 'tap'
import { fuse, identifierLike, IDENTIFIER_RATIO_SHARE } from '../../src/search/fuse.js'
import type { RoomListing } from '../../src/search/records.js'
import { cosine, fp32, pack, quantize, textHash, unpack } from '../../src/search/vectors/codec.js'
import { nearestOrder } from '../../src/search/vectors/follower.js'
import { embedText, eventCut } from '../../src/search/vectors/sink.js'

t.test('Q8: the largest component becomes ±127, halves round away from zero, the cosine survives', async (t) => {
  const v = quantize([0.5, -1, 0.25, 0.0039370078740157])!
  t.same([...v.q], [64, -127, 32, 0], '0.5*127 = 63.5 rounds to 64, as C roundf does')
  t.equal(quantize([0, 0, 0]), undefined, 'a zero vector has no direction')
  const a = Array.from({ length: 384 }, (_, i) => Math.sin(i * 1.3))
  const b = Array.from({ length: 384 }, (_, i) => Math.sin(i * 1.3) + 0.5 * Math.cos(i * 0.7))
  const exact = a.reduce((s, x, i) => s + x * b[i]!, 0) / Math.hypot(...a) / Math.hypot(...b)
  t.ok(Math.abs(cosine(quantize(a)!, quantize(b)!) - exact) < 0.01, 'within 0.01 of the float cosine')
  t.ok(Math.abs(cosine(quantize(a)!, quantize(a)!) - 1) < 1e-6, 'a vector is its own nearest')
})

t.test(
  'the float32 form of a quantised vector is unit length and quantises back to the same bytes (what VADD does)',
  async (t) => {
    const v = quantize(Array.from({ length: 64 }, (_, i) => Math.cos(i)))!
    const f = fp32(v)
    const floats = Array.from({ length: 64 }, (_, i) => f.readFloatLE(i * 4))
    t.ok(Math.abs(Math.hypot(...floats) - 1) < 1e-5, 'unit length')
    const again = quantize(floats)!
    t.same([...again.q], [...v.q])
    t.ok(Math.abs(again.range - v.range) < 1e-5, 'and the same range')
  },
)

t.test('packed: the text hash, the range and the values come back', async (t) => {
  const v = quantize([1, 2, 3])!
  const h = textHash('hello')
  t.equal(h.length, 16)
  const back = unpack(pack(h, v))
  t.equal(back.hash, h)
  t.same([...back.q], [...v.q])
  t.ok(Math.abs(back.range - v.range) < 1e-6)
})

t.test('the embedded text: what the record is about first, cut without halving a character', async (t) => {
  t.equal(embedText({ kind: 'task', fields: { title: 'Deploy', notes: 'canary first' } }, 100), 'Deploy\ncanary first')
  t.equal(
    embedText({ kind: 'context', fields: { type: 'spec', key: 'api', body: 'the body' } }, 100),
    'spec/api\nthe body',
  )
  t.equal(embedText({ kind: 'event', fields: { text: 'hello' } }, 100), 'hello')
  t.equal(embedText({ kind: 'event', fields: { text: 'ab😀' } }, 3), 'ab', 'the emoji would be cut in half: left out')
})

t.test('a bounded room embeds its records first, then only its newest events', async (t) => {
  const listing = (tasks: number, ctx: number, eseq: number, trim = 0) =>
    ({
      tasks: new Map(Array.from({ length: tasks }, (_, i) => [`t${i}`, 0])),
      context: new Map(Array.from({ length: ctx }, (_, i) => [`c${i}`, 0])),
      eseq,
      trim,
    }) as unknown as RoomListing
  t.equal(eventCut(listing(2, 1, 6), 5), 4, 'two slots left: events 5 and 6')
  t.equal(eventCut(listing(2, 1, 6), 100), 0, 'room for all')
  t.equal(eventCut(listing(2, 1, 600, 550), 100), 550, 'never below the trim point')
  t.equal(eventCut(listing(4, 1, 6), 5), Infinity, 'no slot left: no event')
})

t.test('identifiers are told from prose', async (t) => {
  for (const q of ['t42', 'ERR_CONN_RESET', 'spec/api', 'getUserName', 'PAY-1234', 'CORS error', 'fix v2 login'])
    t.ok(identifierLike(q), q)
  for (const q of ['payment retries fail', 'migrating postgresql', 'a', 'Deploy']) t.notOk(identifierLike(q), q)
})

t.test('fusion of normalised scores: both signals add up, identifiers first, ties in lexical order', async (t) => {
  const lexical = [
    { key: 'a', score: 8, coverage: 1, exact: true },
    { key: 'b', score: 4, coverage: 0.5, exact: false },
  ]
  const vectors = [
    { key: 'c', cosine: 0.9 },
    { key: 'b', cosine: 0.8 },
  ]
  const f = fuse(lexical, vectors, { ratio: 0.5, identifier: false })
  t.same(
    f.map((x) => [x.key, x.match, x.score]),
    [
      ['b', 'both', 0.5 * ((4 / 8) * 0.5) + 0.5 * 0.8],
      ['a', 'lexical', 0.5],
      ['c', 'semantic', 0.45],
    ],
    'lexical: score over the best, times coverage; meaning: the cosine; weighted by the ratio',
  )
  t.equal(f.find((x) => x.key === 'b')!.similarity, 0.8)
  const tie = fuse(
    [
      { key: 'x', score: 1, coverage: 1, exact: false },
      { key: 'y', score: 1, coverage: 1, exact: false },
    ],
    [],
    { ratio: 0.5, identifier: false },
  )
  t.same(
    tie.map((x) => x.key),
    ['x', 'y'],
    'ties in lexical order',
  )
  const id = fuse(lexical, vectors, { ratio: 0.5, identifier: true })
  t.equal(id[0]!.key, 'a', 'an identifier query: the exact match first')
  t.equal(id.find((x) => x.key === 'c')!.score, 0.5 * IDENTIFIER_RATIO_SHARE * 0.9, 'and the vectors weigh less')
  t.same(
    fuse(lexical, vectors, { ratio: 1, identifier: false })
      .map((x) => x.key)
      .slice(0, 2),
    ['c', 'b'],
    'ratio 1: the vectors decide',
  )
  t.same(
    fuse(lexical, vectors, { ratio: 0, identifier: false })
      .map((x) => x.key)
      .slice(0, 2),
    ['a', 'b'],
    'ratio 0: the words decide',
  )
  t.equal(
    fuse([], [{ key: 'n', cosine: -0.4 }], { ratio: 0.5, identifier: false })[0]!.score,
    0,
    'a negative cosine counts 0',
  )
})

t.test('nearest vectors are ordered by cosine, exactly, then by key', async (t) => {
  const list = [
    { key: 'a', cosine: 0.5 },
    { key: 'b', cosine: 0.5000000001 },
    { key: 'd', cosine: 0.7 },
    { key: 'c', cosine: 0.7 },
  ]
  t.same(
    list.sort(nearestOrder).map((x) => x.key),
    ['c', 'd', 'b', 'a'],
  )
})
