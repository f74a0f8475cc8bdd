// The leased-work primitive on its own (lua/includes/lease.lua, lua/renewLeases-2.lua,
// src/store/leases.ts), on standalone Redis and a Cluster: a lease's token is fixed for the life
// of its claim, so renewing is safe to repeat (a renewal whose first run's reply never came,
// repeated by the keeper or by a client that sends commands again after a reconnect, renews again
// instead of losing the lease); renewal leaves a
// lease its holder lost alone; a LeaseKeeper renews what it holds before it runs out, says when
// one was lost, and stops renewing on release or stop. Leases are claimed and released here with
// the search rooms' scripts (claimSearchRooms, ackSearchRoom), the plainest users of the rule;
// each kind of leased work pins its own use of it: webhook-queue (deliveries, teams),
// search-indexer (rooms).
import t from 'tap'
import { LeaseKeeper, type Lease } from '../../src/store/leases.js'
import { Store, createClient } from '../../src/store/store.js'
import { killConnections, silencingProxy } from '../helpers/realtime.js'
import { BACKENDS, rawClient, settingsFor, sharedRedis, storeFor, uid } from '../helpers/shared.js'
import { eventually, sleep, waitFor } from '../helpers/wait.js'

/** A lease set of the test's own (with the marks its claims need), and its rule's scripts. */
function leaseSetOn(store: Store) {
  const base = `ar-test:{${uid('ls')}}`
  const [dirty, ends] = [`${base}:dirty`, `${base}:leases`]
  const tokens = store.keys.leaseTokens(ends)
  return {
    ends,
    async claim(member: string, ms = 60_000): Promise<Lease | undefined> {
      await store.client.zincrby(dirty, 1, member)
      const [room] = (await store.run('claimSearchRooms', [dirty, ends, tokens], [ms, 1, member])).rooms
      return room && { member, token: room.token }
    },
    async renew(ms: number, ...leases: Lease[]): Promise<number[]> {
      return (await store.run('renewLeases', [ends, tokens], [ms, ...leases.flatMap((l) => [l.member, l.token])])).ends
    },
    /** Releases `lease`; whether its token still held it. */
    async release(lease: Lease): Promise<boolean> {
      return (await store.run('ackSearchRoom', [dirty, ends, tokens], [lease.member, 1e9, 0, lease.token])).held
    },
    async end(member: string): Promise<number | null> {
      const s = await store.client.zscore(ends, member)
      return s === null ? null : Number(s)
    },
  }
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const store = storeFor(backend)
    t.teardown(() => store.close())

    t.test('renewLeases renews what its token holds, and nothing else', async (t) => {
      const s = leaseSetOn(store)
      const now = Date.now()
      const held = (await s.claim('held'))!
      const other = (await s.claim('other'))!
      const ranOut = (await s.claim('ran-out', 1))!
      const moved = (await s.claim('moved'))!
      await store.client.zadd(s.ends, now + 3_600_000, 'moved') // something else moved its end
      await sleep(5) // past ran-out's 1 ms lease
      const [h, wrong, r, m, absent] = await s.renew(
        120_000,
        held,
        { member: 'other', token: other.token - 1 },
        ranOut,
        moved,
        { member: 'absent', token: now },
      )
      t.ok(h! >= now + 120_000, "the holder's lease gets a later end")
      t.equal(await s.end('held'), h, 'its new end is its score')
      t.same(
        [wrong, m, absent],
        [0, 0, 0],
        "another holder's token, a score moved by something else, no lease at all: not held",
      )
      t.ok(r! >= now + 120_000, "a lease that ran out and was not taken over is still its holder's")
      t.equal(await s.end('other'), other.token, "another holder's lease stays as it was")
      t.equal(await s.end('moved'), now + 3_600_000, 'so does a lease whose end something else moved')
      t.equal(await s.end('absent'), null, 'no lease is made by renewing')
      t.same(await s.renew(1, held), [h], 'a renewal never moves the end back')
      t.equal(await s.release(held), true, "the claim's token still releases it after renewals")
      t.equal(await s.release(moved), false, "a lease whose end something else moved is not its holder's to release")
    })

    t.test('the same renewal sent twice (again after a reconnect) renews twice: the lease stays held', async (t) => {
      const s = leaseSetOn(store)
      const lease = (await s.claim('job'))!
      const first = await s.renew(60_000, lease)
      await sleep(2)
      const again = await s.renew(60_000, lease)
      t.ok(first[0]! > 0 && again[0]! >= first[0]!, `renewed both times (${first[0]}, then ${again[0]})`)
      t.equal(await s.release(lease), true, "and released by the claim's token")
      t.equal(await s.end('job'), null)
    })

    t.test('a LeaseKeeper keeps a lease past its end, and tells when it is lost', async (t) => {
      const s = leaseSetOn(store)
      const ms = 300
      const lease = (await s.claim('job', ms))!
      const keeper = new LeaseKeeper(store, ms)
      t.teardown(() => keeper.stop())
      keeper.hold(s.ends, lease)
      await sleep(ms * 2)
      t.ok((await s.end('job'))! > lease.token, 'renewed before it ran out: its end moved on, its token did not')
      t.equal(await keeper.check(lease), true, 'still held')
      // Something else moves its end (as a takeover after a stall past the end would).
      const other = Date.now() + 60_000
      await store.client.zadd(s.ends, other, 'job')
      t.equal(await keeper.check(lease), false, 'lost: the holder must stop')
      t.equal(await s.end('job'), other, 'the other end is left alone')
      keeper.release(lease)
    })

    t.test('released and stopped leases are no longer renewed: they run out', async (t) => {
      const s = leaseSetOn(store)
      const ms = 200
      const keeper = new LeaseKeeper(store, ms)
      const a = (await s.claim('a', ms))!
      const b = (await s.claim('b', ms))!
      keeper.hold(s.ends, a)
      keeper.hold(s.ends, b)
      keeper.release(a)
      await sleep(ms * 2)
      t.equal(await s.end('a'), a.token, 'a released lease is not renewed')
      t.ok((await s.end('b'))! > b.token, 'the other one is')
      keeper.stop()
      const stopped = await s.end('b')
      await sleep(ms * 2)
      t.equal(await s.end('b'), stopped, 'nothing is renewed after stop')
      t.ok(stopped! < Date.now(), 'so it ran out, for another holder to take over')
    })
  })
}

// ioredis does not send a command again after a reconnect when the node has a command deadline
// (REDIS_COMMAND_TIMEOUT_MS, on by default: its caller may have been told it failed already), so
// a renewal whose reply was lost fails; renewals are safe to repeat, and the next one finds the
// lease still held.
t.test(
  'standalone: a renewal whose reply never came fails as unavailable, and the next one keeps the lease',
  async (t) => {
    // The node talks to Redis through a proxy that can swallow replies; the test looks under it.
    const proxy = await silencingProxy(sharedRedis().standalone.port)
    t.teardown(() => proxy.close())
    const name = uid('lease-node')
    const settings = settingsFor('standalone', {
      redisUrl: `redis://127.0.0.1:${proxy.port}`,
      redisCommandTimeoutMs: 2000,
    })
    const store = new Store(settings, createClient(settings, { connectionName: name }))
    t.teardown(() => store.close())
    const direct = rawClient('standalone')
    t.teardown(() => direct.quit())
    const s = leaseSetOn(store)
    const lease = (await s.claim('job'))!
    const keeper = new LeaseKeeper(store, 60_000)
    t.teardown(() => keeper.stop())
    keeper.hold(s.ends, lease)
    await sleep(2) // a later millisecond: the renewal moves the end
    proxy.silenceOpen()
    const checked = keeper.check(lease)
    await waitFor(
      async () => Number(await direct.zscore(s.ends, 'job')) > lease.token,
      5000,
      'Redis to run the renewal',
    )
    t.ok((await killConnections(direct, name)) >= 1, 'the connection whose reply was lost is cut')
    await t.rejects(checked, { code: 'unavailable' }, 'the renewal whose reply was lost fails, and is not sent again')
    t.ok(
      await eventually(() => store.health.state().reachable && store.client.status === 'ready', 10_000),
      'the connection is back',
    )
    t.equal(await keeper.check(lease), true, 'the next renewal finds the lease still held')
    t.equal(await s.release(lease), true, 'its holder releases it (a delivery it settles, a room it acks)')
  },
)
