// The leased-work primitive on its own (lua/includes/lease.lua, lua/renewLeases-1.lua,
// src/store/leases.ts), on standalone Redis and a Cluster: renewal moves a held lease's token on
// and leaves a lease its holder lost alone; a LeaseKeeper renews what it holds before it runs out,
// says when one was lost, and stops renewing on release or stop. Each kind of leased work pins
// its own use of the rule: webhook-queue (deliveries, teams), search-indexer (rooms).
import t from 'tap'
import { LeaseKeeper, type Lease } from '../../src/store/leases.js'
import { BACKENDS, storeFor, uid } from '../helpers/shared.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const store = storeFor(backend)
    t.teardown(() => store.close())
    const score = async (set: string, member: string) => {
      const s = await store.client.zscore(set, member)
      return s === null ? null : Number(s)
    }

    t.test('renewLeases renews what its token holds, and nothing else', async (t) => {
      const set = `ar-test:{${uid('ls')}}:leases`
      const now = Date.now()
      await store.client.zadd(set, now + 10_000, 'held', now + 10_000, 'other', now - 5, 'ran-out')
      const r = await store.run('renewLeases', [set], [60_000, 'held', now + 10_000, 'other', now + 9_999, 'ran-out', now - 5, 'absent', now])
      const [held, other, ranOut, absent] = r.tokens
      t.ok(held! >= now + 60_000, 'the holder\'s lease moves on, under a new token')
      t.equal(await score(set, 'held'), held, 'its end is the new token')
      t.same([other, absent], [0, 0], 'another holder\'s token, or no lease at all: not held')
      t.ok(ranOut! >= now + 60_000, 'a lease that ran out and was not taken over is still its holder\'s')
      t.equal(await score(set, 'other'), now + 10_000, 'another holder\'s lease stays as it was')
      t.equal(await score(set, 'absent'), null, 'no lease is made by renewing')
      const again = (await store.run('renewLeases', [set], [1, 'held', held!])).tokens
      t.equal(again[0], held! + 1, 'a renewal never moves the end back: the token still grows')
    })

    t.test('a LeaseKeeper keeps a lease past its end, and tells when it is lost', async (t) => {
      const set = `ar-test:{${uid('ls')}}:leases`
      const ms = 300
      const first = Date.now() + ms
      await store.client.zadd(set, first, 'job')
      const keeper = new LeaseKeeper(store, ms)
      t.teardown(() => keeper.stop())
      const lease: Lease = { member: 'job', token: first }
      keeper.hold(set, lease)
      await sleep(ms * 2)
      t.ok(lease.token > first, 'renewed before it ran out: the token moved on')
      t.equal(await score(set, 'job'), lease.token, 'the token held is the lease\'s end')
      t.equal(await keeper.check(lease), true, 'still held')
      // Another holder takes it (as after a stall past the end).
      await store.client.zadd(set, lease.token + 60_000, 'job')
      t.equal(await keeper.check(lease), false, 'lost: the holder must stop')
      t.equal(await score(set, 'job'), lease.token + 60_000, 'the other holder\'s lease is left alone')
      await keeper.release(lease)
    })

    t.test('released and stopped leases are no longer renewed: they run out', async (t) => {
      const set = `ar-test:{${uid('ls')}}:leases`
      const ms = 200
      const keeper = new LeaseKeeper(store, ms)
      const at = Date.now() + ms
      await store.client.zadd(set, at, 'a', at, 'b')
      const a: Lease = { member: 'a', token: at }
      const b: Lease = { member: 'b', token: at }
      keeper.hold(set, a)
      keeper.hold(set, b)
      await keeper.release(a)
      const released = await score(set, 'a')
      t.equal(released, a.token, 'after release, the token read is the lease\'s end')
      await sleep(ms * 2)
      t.equal(await score(set, 'a'), released, 'a released lease is not renewed')
      t.ok(b.token > at, 'the other one is')
      keeper.stop()
      const stopped = await score(set, 'b')
      await sleep(ms * 2)
      t.equal(await score(set, 'b'), stopped, 'nothing is renewed after stop')
      t.ok(stopped! < Date.now(), 'so it ran out, for another holder to take over')
    })
  })
}
