// The room page parts a node keeps for a page until its stream joins (src/dashboard/live-room.ts):
// taken once, never past SEED_MS, and bounded in bytes whatever the number of pages in flight.
import t from 'tap'
import { SEED_MS, Seeds } from '../../src/dashboard/live-room.js'

const parts = (bytes: number) => new Map([['plan', 'x'.repeat(bytes)]])

t.test('a page takes its parts once', async (t) => {
  const seeds = new Seeds(1000)
  seeds.put('a', parts(10), 0)
  t.equal(seeds.take('a', 1)?.get('plan')?.length, 10)
  t.equal(seeds.take('a', 2), undefined, 'gone once taken')
  t.equal(seeds.bytes, 0)
})

t.test('parts older than SEED_MS are not given and are dropped on the next put', async (t) => {
  const seeds = new Seeds(1000)
  seeds.put('old', parts(100), 0)
  t.equal(seeds.take('old', SEED_MS + 1), undefined, 'too old to be a base')
  seeds.put('old', parts(100), 0)
  seeds.put('new', parts(100), SEED_MS + 1)
  t.equal(seeds.bytes, 100, 'the stale one left when another came')
  t.ok(seeds.take('new', SEED_MS + 2))
})

t.test('the bytes held stay under the cap, the oldest dropped first', async (t) => {
  const seeds = new Seeds(1000)
  for (let i = 0; i < 50; i++) seeds.put(`p${i}`, parts(300), i)
  t.ok(seeds.bytes <= 1000, `held ${seeds.bytes} bytes`)
  t.equal(seeds.take('p49', 60)?.size, 1, 'the newest is kept')
  t.equal(seeds.take('p0', 60), undefined, 'the oldest went')
  seeds.put('huge', parts(1001), 61)
  t.equal(seeds.take('huge', 62), undefined, 'a page larger than the cap is not kept')
})

t.test('the same page again replaces its parts, counted once', async (t) => {
  const seeds = new Seeds(1000)
  seeds.put('a', parts(400), 0)
  seeds.put('a', parts(500), 1)
  t.equal(seeds.bytes, 500)
})
