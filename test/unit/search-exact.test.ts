// The rule that proves an answer from VSIM's exact mode to be the room's (src/search/vectors/exact.ts):
// proven when VSIM returned everything there was, or when nothing it left out could reach the
// n-th taken, allowing for its float32 rounding; not proven at a tie or within the slack, or when
// refusals left fewer than n while vectors with a positive cosine may remain.
import t from 'tap'
import { proven, slack } from '../../src/search/vectors/exact.js'
import type { Nearest } from '../../src/search/vectors/follower.js'

const hits = (...cosines: number[]): Nearest[] =>
  cosines.map((cosine, i) => ({ key: `task:t${i}`, cosine, hash: '0'.repeat(16) }))
const answer = { asked: 60, returned: 60, card: 5000, lastCosine: 0.5, dims: 384 }

t.test('the slack: (dims + 64) units of 2^-24', async (t) => {
  t.equal(slack(384), 448 * 2 ** -24)
  t.ok(slack(384) > 2.6e-5 && slack(384) < 2.7e-5)
  t.ok(slack(8192) > slack(1536) && slack(1536) > slack(384), 'grows with the dimensions (the float32 sums over them)')
})

t.test('proven', async (t) => {
  const above = 0.5 + 2 * slack(384)
  t.ok(
    proven(hits(0.9, 0.8), 2, { ...answer, returned: 59 }),
    'VSIM returned fewer than asked: every vector of those kinds',
  )
  t.ok(proven(hits(0.9), 2, { ...answer, returned: 5000 }), 'VSIM returned every vector of the room')
  t.ok(
    proven(hits(0.9, above + 1e-9), 2, answer),
    'the n-th taken above the last returned by more than twice the slack',
  )
  t.notOk(
    proven(hits(0.9, above), 2, answer),
    'exactly twice the slack above: a vector left out might tie it and come first by record',
  )
  t.notOk(proven(hits(0.9, 0.5), 2, answer), 'a tie with the last returned')
  t.notOk(proven(hits(0.9, 0.5 + 1e-6), 2, answer), "within the slack: VSIM's float32 order may not be the node's")
  t.notOk(proven(hits(0.9), 2, answer), 'refusals left fewer than n, and vectors left out may have a positive cosine')
  t.ok(
    proven(hits(0.9), 2, { ...answer, lastCosine: -2 * slack(384) }),
    'fewer than n, but nothing left out can have a positive cosine',
  )
  t.notOk(
    proven(hits(0.9), 2, { ...answer, lastCosine: -slack(384) }),
    'fewer than n, and the last returned within the slack of a right angle',
  )
  t.ok(proven([], 0, answer), 'nothing asked')
  t.notOk(proven(hits(0.9, 0.9), 2, { ...answer, lastCosine: 0.9, dims: 8192 }), 'ties at any dimension')
})
