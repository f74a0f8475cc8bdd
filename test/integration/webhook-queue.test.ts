// The Redis side of webhook delivery (src/webhooks/queue.ts and its scripts), driven directly on
// standalone Redis and on a 3-master Cluster, with no dispatcher running: nothing is sent. A
// delivery whose lease keeps running out still runs out of attempts; woken teams are taken oldest
// first, not by name; WEBHOOK_PENDING_MAX bounds each webhook's pending deliveries; the deliveries
// of a team's deleted webhooks are deleted in batches before the team leaves the schedule; and a
// registration whose change notice fails still returns its secret; events trimmed before fan-out
// count as lost only for webhooks that existed when they were posted. Every test has its own
// KEY_PREFIX, so the global schedule holds only its teams.
import t, { type Test } from 'tap'
import { decode, encode } from '@msgpack/msgpack'
import { Core } from '../../src/core/index.js'
import type { Settings } from '../../src/config.js'
import type { Store } from '../../src/store/store.js'
import { fanOutRoom } from '../../src/webhooks/fanout.js'
import { WebhookQueue } from '../../src/store/webhooks.js'
import { RECENT_FAILURES, WebhookRegistry } from '../../src/webhooks/registry.js'
import { BACKENDS, storeFor, uid, type Backend } from '../helpers/shared.js'
import { sleep } from '../helpers/wait.js'

/** A loopback URL (allowed by allowLoopback); nothing is ever sent to it here. */
const URL_ = 'https://127.0.0.1:9/hook'

interface Setup {
  store: Store<Settings>
  queue: WebhookQueue
  registry: WebhookRegistry
  teamId: string
}

function setup(
  t: Test,
  backend: Backend,
  announce?: (teamId: string) => Promise<void>,
  settings: Partial<Settings> = {},
): Setup {
  const store = storeFor(backend, { keyPrefix: uid('wq'), ...settings })
  t.teardown(() => store.close())
  const queue = new WebhookQueue(store)
  const registry = new WebhookRegistry(store, {
    limit: 20,
    pendingMax: 1000,
    allowLoopback: true,
    ...(announce ? { announce } : {}),
  })
  return { store, queue, registry, teamId: uid('tm') }
}

/** A setup whose team is due in the webhook schedule (`teams`), and the team's score there. */
async function dueTeam(t: Test, backend: Backend) {
  const s = setup(t, backend)
  const teams = s.store.keys.webhookTeams()
  await s.store.client.zadd(teams, Date.now() - 1000, s.teamId)
  return { s, teams, score: async () => Number(await s.store.client.zscore(teams, s.teamId)) }
}

/** Fans out `count` new events of a room as fan-out does (batches of 100, position compare-and-set). */
async function enqueueEvents(
  s: Setup,
  room: string,
  count: number,
  pendingMax = 1_000_000,
): Promise<{ enqueued: number; dropped: number }> {
  // After the webhook's creation, so every webhook wants them.
  const at = Date.now() + 1000
  let pos = ''
  let enqueued = 0
  let dropped = 0
  for (let i = 0; i < count; i += 100) {
    const events: [string, Buffer][] = []
    for (let j = i; j < Math.min(count, i + 100); j++) {
      events.push([
        `${at}-${j + 1}`,
        Buffer.from(encode({ type: 'message', agent_id: 'a', text: `e${j}`, created_at: at })),
      ])
    }
    const next = events.at(-1)![0]
    const r = await s.queue.enqueue(s.teamId, room, pos, next, '', { count: 0, before: 0 }, pendingMax, events)
    if (r.stale) throw new Error('position moved')
    pos = next
    enqueued += r.enqueued
    dropped += r.dropped
  }
  return { enqueued, dropped }
}

for (const backend of BACKENDS) {
  t.test(
    `${backend}: a delivery whose lease runs out at every attempt still ends, two takeovers past its schedule`,
    async (t) => {
      const s = setup(t, backend)
      await s.registry.create(s.teamId, { url: URL_ })
      await enqueueEvents(s, 'r1', 1)
      // Three attempts allowed, and two more through takeovers (an attempt cut off by a node's
      // shutdown or death is tried again, even the last); each claiming node dies (its 1 ms lease
      // runs out, nothing settled).
      let id = ''
      let token = 0
      for (let n = 1; n <= 5; n++) {
        const c = await s.queue.claimDeliveries(s.teamId, `dead-${n}`, 10, 1, 3, RECENT_FAILURES)
        t.equal(c.claimed.length, 1, `attempt ${n} claimed`)
        t.equal(c.claimed[0]!.n, n)
        t.ok(c.claimed[0]!.lease.token > token, `attempt ${n} holds it under a later token`)
        id = c.claimed[0]!.id
        token = c.claimed[0]!.lease.token
        await sleep(5) // time passes on purpose: past the 1 ms lease
      }
      const sixth = await s.queue.claimDeliveries(s.teamId, 'node-6', 10, 1, 3, RECENT_FAILURES)
      t.same(sixth.claimed, [], 'not claimed a sixth time')
      t.equal(sixth.next, undefined, 'nothing left pending')
      t.same(
        await s.queue.settle(s.teamId, token, id, 'ok', 200, undefined, 0, { failures: RECENT_FAILURES, attempts: 20 }),
        { settled: false },
        'the last node, back late, settles nothing',
      )
      const [hook] = await s.registry.list(s.teamId)
      t.match(hook!.health, {
        pending: 0,
        failed: 1,
        takeovers: 4,
        consecutiveFailures: 1,
        recentFailures: [{ deliveryId: id, roomId: 'r1', attempts: 5, lastError: /lease of its last attempt ran out/ }],
      })
    },
  )

  t.test(
    `${backend}: a node whose delivery lease ran out settles nothing; the node that took it over renews, ` +
      `again, and settles`,
    async (t) => {
      const s = setup(t, backend)
      const k = s.store.keys.webhooks(s.teamId)
      const tokens = s.store.keys.leaseTokens(k.leased)
      const created = await s.registry.create(s.teamId, { url: URL_ })
      await enqueueEvents(s, 'r1', 1)
      const settle = (token: number) =>
        s.queue.settle(s.teamId, token, a.id, 'ok', 200, undefined, 0, { failures: RECENT_FAILURES, attempts: 20 })
      const a = (await s.queue.claimDeliveries(s.teamId, 'node-a', 10, 20, 3, RECENT_FAILURES)).claimed[0]!
      await sleep(30) // A stalls past its 20 ms lease
      const b = (await s.queue.claimDeliveries(s.teamId, 'node-b', 10, 60_000, 3, RECENT_FAILURES)).claimed[0]!
      t.equal(b.id, a.id, 'B took the delivery over')
      t.ok(b.lease.token > a.lease.token, 'under a later token')
      const renew = async () =>
        (await s.store.run('renewLeases', [k.leased, tokens], [60_000, b.id, b.lease.token])).ends[0]
      t.ok((await renew())! > 0, 'B renews its lease')
      await sleep(2) // a later millisecond: the renewal moves the end again
      // The same renewal again: what ioredis sends after a reconnect when the first one's reply was lost.
      t.ok((await renew())! > 0, 'and the same renewal again: still held')
      const leaseOfB = async () => [
        await s.store.client.zscore(k.leased, b.id),
        await s.store.client.hget(tokens, b.id),
      ]
      const held = await leaseOfB()
      t.same(await settle(a.lease.token), { settled: false }, 'A, back late, settles nothing')
      t.same(await leaseOfB(), held, "B's lease is unchanged")
      t.match(
        decode((await s.store.client.hgetBuffer(k.deliveries, a.id))!),
        { n: 2, holder: 'node-b' },
        "and the delivery is still B's attempt",
      )
      t.same(await settle(b.lease.token), { settled: true }, 'B settles with the token it claimed with')
      t.same(await leaseOfB(), [null, null], 'the lease is gone with the delivery')
      const [hook] = await s.registry.list(s.teamId)
      t.equal(hook!.webhookId, created.webhook.webhookId)
      t.match(hook!.health, { pending: 0, delivered: 1, failed: 0, takeovers: 1 }, 'one delivery, counted once')
    },
  )

  t.test(
    `${backend}: a pass whose team lease ran out reschedules nothing of the pass that took the team over`,
    async (t) => {
      const { s, teams, score } = await dueTeam(t, backend)
      const a = await s.queue.claimTeams(8, 20)
      t.same(a.teams, [s.teamId])
      await sleep(30) // A's pass stalls past its 20 ms lease
      const b = await s.queue.claimTeams(8, 60_000)
      t.same(b.teams, [s.teamId], 'B takes the team over')
      t.ok(b.token > a.token, 'under a later token')
      const held = await score()
      t.equal(
        await s.queue.rescheduleTeam(s.teamId, a.token, b.token + 60_000, false, 0),
        'woken',
        'A, back late, does not hold the team',
      )
      t.equal(await score(), held, "B's lease is unchanged (A wanted a later time)")
      t.equal(
        await s.queue.rescheduleTeam(s.teamId, b.token, b.now + 5000, false, 0),
        'rescheduled',
        'B reschedules it',
      )
      t.equal(await score(), b.now + 5000)
      t.equal(await s.store.client.hget(s.store.keys.leaseTokens(teams), s.teamId), null, "B's lease is released")
    },
  )

  t.test(
    `${backend}: a pass cut short by a wake still leaves its team due by the time it wanted, when that is sooner`,
    async (t) => {
      const { s, score } = await dueTeam(t, backend)
      const pass = await s.queue.claimTeams(8, 10_000)
      t.same(pass.teams, [s.teamId])
      // A delivery settled during the pass wakes the team for its retry in 5 s: sooner than the
      // pass's lease ends, so the wake ends the lease.
      await s.queue.wakeTeam(s.teamId, pass.now + 5000)
      t.equal(await score(), pass.now + 5000)
      // The pass left more due: it wants the team looked at again at once.
      t.equal(
        await s.queue.rescheduleTeam(s.teamId, pass.token, pass.now, false, 0),
        'woken',
        'the pass no longer holds the team',
      )
      t.equal(await score(), pass.now, 'due at the time the pass wanted, not at the later wake')
      await sleep(2) // a later millisecond than the first claim: the team is due
      const next = await s.queue.claimTeams(8, 10_000)
      t.same(next.teams, [s.teamId])
      await s.queue.wakeTeam(s.teamId, next.now)
      t.equal(await s.queue.rescheduleTeam(s.teamId, next.token, next.now + 60_000, false, 0), 'woken')
      t.equal(await score(), next.now, 'and a wake sooner than what a pass wants stays')
    },
  )

  t.test(`${backend}: teams woken at once are taken oldest first, not by name`, async (t) => {
    const s = setup(t, backend)
    const teams = s.store.keys.webhookTeams()
    // Names sort the opposite way to the order they were woken in.
    const [a, z] = [`a${uid()}`, `z${uid()}`]
    const later = Date.now() + 3_600_000
    await s.store.client.zadd(teams, later, a, later, z)
    await s.queue.wakeTeam(z)
    await sleep(5) // a later millisecond: woken in this order
    await s.queue.wakeTeam(a)
    t.not(await s.store.client.zscore(teams, a), '0', 'a woken team is due at a time, not at 0')
    const first = await s.queue.claimTeams(1, 10_000)
    t.same(first.teams, [z], 'the team woken first goes first')
    // z's pass leaves it busy (more to claim): due again at the claim's time, which is after a's.
    t.equal(await s.queue.rescheduleTeam(z, first.token, first.now, false, 0), 'rescheduled')
    t.same(
      (await s.queue.claimTeams(1, 10_000)).teams,
      [a],
      'a busy team queues behind the team that was due before it',
    )
  })

  t.test(`${backend}: WEBHOOK_PENDING_MAX bounds the pending deliveries of each webhook`, async (t) => {
    const s = setup(t, backend)
    const one = await s.registry.create(s.teamId, { url: URL_ })
    const two = await s.registry.create(s.teamId, { url: URL_, events: ['blocker'] })
    t.same(await enqueueEvents(s, 'r1', 5, 3), { enqueued: 3, dropped: 2 })
    const health = Object.fromEntries((await s.registry.list(s.teamId)).map((w) => [w.webhookId, w.health]))
    t.match(health[one.webhook.webhookId], { pending: 3, dropped: 2 })
    t.match(
      health[two.webhook.webhookId],
      { pending: 0, dropped: 0 },
      'a webhook that wants none of them is not charged',
    )
    t.equal(await s.store.client.hlen(s.store.keys.webhooks(s.teamId).deliveries), 3)
  })

  t.test(
    `${backend}: the deliveries a team's deleted webhooks left are deleted, in batches, before the team is removed`,
    async (t) => {
      const s = setup(t, backend)
      const k = s.store.keys.webhooks(s.teamId)
      const wh = await s.registry.create(s.teamId, { url: URL_ })
      t.same(await enqueueEvents(s, 'r1', 1100), { enqueued: 1100, dropped: 0 })
      const inFlight = await s.queue.claimDeliveries(s.teamId, 'node', 5, 60_000, 8, RECENT_FAILURES)
      t.equal(inFlight.claimed.length, 5)
      // Pushed hours out, like retries waiting on the schedule.
      await s.store.client.zadd(k.due, 'XX', Date.now() + 36_000_000, (await s.store.client.zrange(k.due, 0, 0))[0]!)
      await s.registry.delete(s.teamId, wh.webhook.webhookId)

      const first = await s.queue.claimDeliveries(s.teamId, 'node', 10, 60_000, 8, RECENT_FAILURES)
      t.match(first, { claimed: [], webhooks: 0, more: true }, 'a batch deleted, more left')
      t.equal(await s.store.client.hlen(k.deliveries), 95)
      const second = await s.queue.claimDeliveries(s.teamId, 'node', 10, 60_000, 8, RECENT_FAILURES)
      t.match(second, { claimed: [], webhooks: 0, more: false })
      t.equal(
        await s.store.client.exists(k.deliveries, k.due, k.leased, s.store.keys.leaseTokens(k.leased)),
        0,
        "nothing of them is left, their leases' tokens neither",
      )

      await sleep(2) // a later millisecond than the claims': the team is due by then
      const pass = await s.queue.claimTeams(8, 10_000)
      t.same(pass.teams, [s.teamId])
      t.equal(
        await s.queue.rescheduleTeam(s.teamId, pass.token, second.now, true, 0),
        'removed',
        'then the team leaves the schedule',
      )
    },
  )

  t.test(`${backend}: a change notice that fails does not fail the registration`, async (t) => {
    const s = setup(t, backend, () => Promise.reject(new Error('pub/sub is down')))
    const created = await s.registry.create(s.teamId, { url: URL_ })
    t.match(created.secret, /^whsec_/, 'the secret is returned')
    t.same(
      (await s.registry.list(s.teamId)).map((w) => w.webhookId),
      [created.webhook.webhookId],
    )
    const deleted = await s.registry.delete(s.teamId, created.webhook.webhookId)
    t.equal(deleted.webhookId, created.webhook.webhookId)
    t.same(await s.registry.list(s.teamId), [])
  })

  t.test(
    `${backend}: events trimmed before fan-out are lost only for webhooks that could have wanted them`,
    async (t) => {
      const s = setup(t, backend, undefined, { eventsRetained: 10 })
      const core = new Core(s.store, s.store.settings)
      const room = { teamId: s.teamId, roomId: 'r1' }
      await core.rooms.create(s.teamId, { room_id: room.roomId }, 'test')
      const before = await s.registry.create(s.teamId, { url: URL_ })
      const floor = Date.parse(before.webhook.createdAt)
      const fanOut = async () => {
        const [pos] = await s.queue.positions(s.teamId, [room.roomId])
        return fanOutRoom(s.queue, s.teamId, { room: room.roomId, hint: '', pos: pos! }, floor, 1_000_000)
      }
      await core.events.post({ room, agent: 'a' }, { type: 'message', text: 'e1' })
      t.equal(await fanOut(), 1)
      // No node fans out while 14 more are posted: 10 are kept, e2..e5 are trimmed unread.
      for (let i = 2; i <= 15; i++) await core.events.post({ room, agent: 'a' }, { type: 'message', text: `e${i}` })
      await sleep(5) // a later millisecond: the new webhook is younger than every trimmed event
      const after = await s.registry.create(s.teamId, { url: URL_ })
      t.equal(await fanOut(), 10, 'the retained events, for the older webhook')
      const health = Object.fromEntries((await s.registry.list(s.teamId)).map((w) => [w.webhookId, w.health]))
      t.match(health[before.webhook.webhookId], { lost: 4, pending: 11 })
      t.match(
        health[after.webhook.webhookId],
        { lost: 0, pending: 0 },
        'created after every trimmed event: none lost for it',
      )
    },
  )
}
