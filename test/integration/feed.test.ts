// Room event feeds on real Redis, standalone and cluster: resuming after an id then following
// live, with two nodes posting concurrently; trimmed history (onGap); deleted events; a forced
// rebuild; a silently dead subscription (standalone, through a proxy); waitForNotice.
import t, { type Test } from 'tap'
import { type Settings } from '../../src/config.js'
import type { RoomEvent } from '../../src/core/events.js'
import { Core } from '../../src/core/index.js'
import { Feeds, type FeedsOptions, type GapInfo } from '../../src/realtime/feed.js'
import type { Hub } from '../../src/realtime/hub.js'
import type { RoomRef } from '../../src/store/keys.js'
import type { Store } from '../../src/store/store.js'
import { RoomNotFound } from '../../src/shared/errors.js'
import { newRoom, type TestRoom } from '../helpers/core.js'
import { killConnections, proxiedStore, startHub } from '../helpers/realtime.js'
import { BACKENDS, rawClient, storeFor, type Backend } from '../helpers/shared.js'
import { eventually, waitFor } from '../helpers/wait.js'

const refOf = (room: TestRoom): RoomRef => ({ teamId: room.teamId, roomId: room.roomId })

/** A node: a store, a Core, a started hub and its feeds, all closed when the test ends. */
async function nodeOn(t: Test, store: Store, opts: FeedsOptions = {}): Promise<{ core: Core; hub: Hub; feeds: Feeds }> {
  const hub = await startHub(t, store)
  const feeds = new Feeds(hub, store, { lingerMs: 0, retryMs: 200, ...opts })
  t.teardown(() => feeds.close())
  // Every store of these tests is made from a whole Settings (helpers/shared.ts settingsFor).
  return { core: new Core(store, store.settings as Settings), hub, feeds }
}

async function secondNode(t: Test, backend: Backend, settings: Partial<Settings> = {}) {
  const store = storeFor(backend, settings)
  t.teardown(() => store.close())
  return nodeOn(t, store)
}

/** A follower's record: what it got, in order, and the gaps it was told of. */
async function follow(t: Test, feeds: Feeds, ref: RoomRef, after?: string) {
  const got: RoomEvent[] = []
  const gaps: GapInfo[] = []
  const stop = await feeds.follow(
    ref,
    { after },
    (ev) => got.push(ev),
    (g) => gaps.push(g),
  )
  t.teardown(stop)
  return { got, gaps, stop, ids: () => got.map((e) => e.id) }
}

/** Waits until the room's stream holds at least `n` events (a post under way has got that far). */
async function streamReaches(room: TestRoom, n: number): Promise<void> {
  const store = room.core.store
  const key = store.keys.room(refOf(room)).events
  await waitFor(async () => (await store.client.xlen(key)) >= n, 10_000, `${n} events in the room's stream`)
}

/** Every retained event id of the room, oldest first. */
async function streamIds(room: TestRoom): Promise<string[]> {
  const store = room.core.store
  const entries = await store.client.xrange(store.keys.room(refOf(room)).events, '-', '+')
  return entries.map(([id]) => id)
}

/**
 * Posts one more event and waits until every follower has it. A room's events reach its
 * followers in order, so after this nothing posted earlier is still on its way: what they got
 * is final (a sleep would only make that likely). Returns the fence's id.
 */
async function fence(core: Core, room: TestRoom, followers: { ids(): string[] }[]): Promise<string> {
  const id = (await core.events.post(room.as('fence'), { type: 'message', text: 'fence' })).event.id
  await waitFor(
    () => followers.every((f) => f.ids().includes(id)),
    10_000,
    `the fence event ${id} to reach every follower`,
  )
  return id
}

async function postMany(core: Core, room: TestRoom, agent: string, n: number, prefix = 'm'): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < n; i++)
    ids.push((await core.events.post(room.as(agent), { type: 'message', text: `${prefix}${i}` })).event.id)
  return ids
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('resume after an id then live, with 300 events posted concurrently from two nodes', async (t) => {
      const room = await newRoom(t, backend)
      const ref = refOf(room)
      const a = await nodeOn(t, room.core.store)
      const b = await secondNode(t, backend)
      const first = await postMany(room.core, room, 'alice', 20)
      const resumed = await follow(t, b.feeds, ref, first[9])
      t.same(resumed.ids(), first.slice(10), 'resume returns exactly the events after the id')
      const fresh = await follow(t, a.feeds, ref)
      t.same(fresh.ids(), [], 'without after: only new events')

      const posting = Promise.all([postMany(a.core, room, 'alice', 150, 'a'), postMany(b.core, room, 'bob', 150, 'b')])
      await streamReaches(room, 40)
      const midway = await follow(t, a.feeds, ref, first[4]) // joins while events pour in
      await posting
      const all = await streamIds(room)
      t.equal(all.length, 320)
      const last = await fence(a.core, room, [resumed, fresh, midway])
      t.same(resumed.ids(), [...all.slice(10), last], 'node B follower: in order, no duplicates, nothing lost')
      t.same(fresh.ids(), [...all.slice(20), last], 'node A follower: every new event')
      t.same(midway.ids(), [...all.slice(5), last], 'a follower that joined midway: the same')
      t.same(
        resumed.got[0],
        (await room.core.events.read(room.as('x'), { after: first[9], limit: 1 })).events[0],
        'events as read_events returns them',
      )
      t.same([...resumed.gaps, ...fresh.gaps, ...midway.gaps], [])
      t.same(b.hub.stats().listeners, 1, 'followers of a room share one hub listener')
    })

    t.test('a follower behind the trim point gets onGap with the count lost, then the retained events', async (t) => {
      const room = await newRoom(t, backend, { settings: { eventsRetained: 10 } })
      const ref = refOf(room)
      const node = await nodeOn(t, room.core.store)
      const ids = await postMany(room.core, room, 'alice', 30)
      const behind = await follow(t, node.feeds, ref, ids[4]) // seq 5; events 6..20 were trimmed
      t.same(behind.gaps, [{ lost: 15 }])
      t.same(behind.ids(), ids.slice(20))
      const atTrim = await follow(t, node.feeds, ref, ids[19]) // seq 20 is the trim point itself: nothing lost
      t.same(atTrim.gaps, [])
      t.same(atTrim.ids(), ids.slice(20))
      const next = await room.core.events.post(room.as('bob'), { type: 'message', text: 'live' })
      t.ok(await eventually(() => behind.got.length === 11 && atTrim.got.length === 11))
      t.equal(behind.got[10]!.id, next.event.id)
      t.equal(behind.gaps.length, 1, 'the gap is reported once')
    })

    t.test('deleted events are skipped without stalling', async (t) => {
      const room = await newRoom(t, backend)
      const ref = refOf(room)
      const node = await nodeOn(t, room.core.store)
      const ids = await postMany(room.core, room, 'alice', 10)
      for (const i of [2, 3, 9]) await room.core.events.delete(room.as('alice'), { event_id: ids[i] })
      const f = await follow(t, node.feeds, ref, ids[0])
      t.same(f.ids(), [ids[1], ...ids.slice(4, 9)])
      const tail = await follow(t, node.feeds, ref, ids[8]) // only a deleted event after it
      t.same(tail.ids(), [])
      const next = await postMany(room.core, room, 'bob', 3, 'n')
      const doomed = await room.core.events.post(room.as('bob'), { type: 'message', text: 'oops' })
      await room.core.events.delete(room.as('bob'), { event_id: doomed.event.id })
      const last = await room.core.events.post(room.as('bob'), { type: 'message', text: 'last' })
      t.ok(await eventually(() => tail.got.some((e) => e.id === last.event.id)), 'live delivery goes on')
      t.same(
        tail.ids().filter((id) => id !== doomed.event.id),
        [...next, last.event.id],
      )
      t.same(
        f.ids().filter((id) => id !== doomed.event.id),
        [ids[1], ...ids.slice(4, 9), ...next, last.event.id],
      )
    })

    t.test('agent_left from leave_room is delivered like any event', async (t) => {
      const room = await newRoom(t, backend)
      const node = await nodeOn(t, room.core.store)
      const f = await follow(t, node.feeds, refOf(room))
      await room.core.presence.heartbeat(room.as('carol'))
      const left = await room.core.presence.leave(room.as('carol'))
      t.ok(await eventually(() => f.got.length === 1))
      t.match(f.got[0], { type: 'agent_left', agent_id: 'carol' })
      t.same(f.got[0], left.event)
    })

    t.test('a forced rebuild loses nothing', async (t) => {
      const room = await newRoom(t, backend)
      const ref = refOf(room)
      const node = await nodeOn(t, room.core.store)
      let resyncs = 0
      node.hub.onResync(() => resyncs++)
      const f = await follow(t, node.feeds, ref)
      const raw = rawClient(backend)
      t.teardown(() => raw.disconnect())
      const posting = postMany(room.core, room, 'alice', 60)
      await streamReaches(room, 10)
      t.ok((await killConnections(raw, node.hub.connectionName)) >= 1, "killed the hub's connection(s)")
      await posting
      t.ok(await eventually(() => resyncs >= 1, 5000), 'the hub rebuilt and resynced')
      const more = await postMany(room.core, room, 'alice', 5, 'late')
      const last = await fence(room.core, room, [f])
      t.same(f.ids(), await streamIds(room), 'every event, once, in order')
      t.same(f.ids().slice(-2), [more.at(-1), last])
    })

    t.test(
      'waitForNotice: true on a post from another node, false on timeout or abort, one listener for all',
      async (t) => {
        const room = await newRoom(t, backend)
        const ref = refOf(room)
        const a = await nodeOn(t, room.core.store)
        const b = await secondNode(t, backend)
        const never = new AbortController().signal
        // A resync wakes waiters by design (a stall of the loaded machine may cause one): a wake
        // is accepted only then, here and below.
        let early = 0
        const offEarly = a.hub.onResync(() => early++)
        const started = Date.now()
        const quiet = await a.feeds.waitForNotice(ref, never, 200)
        offEarly()
        t.ok(!quiet || early > 0, `nothing happened: false (woke: ${quiet}, resyncs: ${early})`)
        t.ok(quiet || Date.now() - started >= 190, 'false only at the timeout')

        const waits = Array.from({ length: 100 }, () => a.feeds.waitForNotice(ref, never, 5000))
        t.equal(a.hub.stats().listeners, 1, '100 waiters, one hub listener')
        t.ok(await a.hub.whenSubscribed(ref, 5000), 'the room is subscribed')
        t.ok(
          a.hub.stats().connections <= (backend === 'standalone' ? 1 : 3),
          'no connection per waiter: one per node (cluster: per master)',
        )
        await b.core.events.post(room.as('bob'), { type: 'message', text: 'wake up' })
        t.same(new Set(await Promise.all(waits)), new Set([true]), 'every waiter woke')
        t.ok(await eventually(() => a.hub.stats().listeners === 0), 'the room listener is dropped with the last waiter')

        const racing = a.feeds.waitForNotice(ref, never, 3000) // the room is not subscribed on node A now
        await b.core.events.post(room.as('bob'), { type: 'message', text: 'while subscribing' })
        t.equal(await racing, true, 'an event that lands while the subscription is made wakes the waiter')

        const ctl = new AbortController()
        const aborted = a.feeds.waitForNotice(ref, ctl.signal, 5000)
        await waitFor(() => a.feeds.stats().waiters === 1, 5000, 'the waiter to be registered')
        ctl.abort()
        const t0 = Date.now()
        t.equal(await aborted, false, 'aborting resolves false')
        t.ok(Date.now() - t0 < 1000)
        t.equal(await a.feeds.waitForNotice(ref, ctl.signal, 5000), false, 'an aborted signal: false at once')
        // The test hub probes every 200 ms with a 150 ms give-up: a stall may resync it here too.
        let resyncs = 0
        const offResync = a.hub.onResync(() => resyncs++)
        // The wait's own timeout is the window in which the task notice must not wake it.
        const notAnEvent = a.feeds.waitForNotice(ref, never, 400)
        t.ok(await a.hub.whenSubscribed(ref, 5000), "subscribed: the task notice reaches the waiter's room")
        await room.core.plan.addTask(room.as('bob'), { title: 'not an event' })
        const woke = await notAnEvent
        offResync()
        t.ok(!woke || resyncs > 0, `notices of other kinds do not wake waiters (woke: ${woke}, resyncs: ${resyncs})`)
      },
    )

    t.test('follow refuses a bad after and a missing room; a stopped follower gets nothing more', async (t) => {
      const room = await newRoom(t, backend)
      const node = await nodeOn(t, room.core.store)
      await t.rejects(
        node.feeds.follow(refOf(room), { after: 'nope' }, () => {}),
        { code: 'invalid_request', details: { field: 'after' } },
      )
      await t.rejects(
        node.feeds.follow({ teamId: room.teamId, roomId: 'missing' }, {}, () => {}),
        RoomNotFound,
      )
      const f = await follow(t, node.feeds, refOf(room))
      const g = await follow(t, node.feeds, refOf(room)) // still following: the fence
      await postMany(room.core, room, 'alice', 2)
      t.ok(await eventually(() => f.got.length === 2))
      f.stop()
      await postMany(room.core, room, 'alice', 2)
      await fence(room.core, room, [g])
      t.equal(f.got.length, 2)
      g.stop()
      t.same(node.feeds.stats(), { rooms: 0, followers: 0, waiters: 0 })
      t.equal(node.hub.stats().listeners, 0)
    })
  })
}

t.test('standalone, own server: notices lost to a silently dead subscription are read after the resync', async (t) => {
  // The hub subscribes through the proxy; reads, posts and probes go straight to Redis.
  const { proxy, store } = await proxiedStore(t)
  const node = await nodeOn(t, store)
  const got: RoomEvent[] = []
  let resyncs = 0
  let gotAtResync: number | undefined
  node.hub.onResync(() => {
    resyncs++
    gotAtResync ??= got.length
  })
  const teamId = 'tm-silent'
  const { room: created } = await node.core.rooms.create(teamId, { template: 'blank' }, 'test')
  const ref = { teamId, roomId: created.room_id }
  const as = { room: ref, agent: 'alice' }
  const stop = await node.feeds.follow(ref, {}, (ev) => got.push(ev))
  t.teardown(stop)
  const post = async (text: string) => (await node.core.events.post(as, { type: 'message', text })).event.id
  const e0 = await post('e0')
  t.ok(await eventually(() => got.length === 1))
  proxy.silenceOpen()
  const ids = [await post('e1'), await post('e2'), await post('e3'), await post('e4'), await post('e5')]
  for (const id of [ids[1], ids[3]]) await node.core.events.delete(as, { event_id: id })
  t.ok(await eventually(() => resyncs === 1, 5000), 'the probe found it, the hub rebuilt')
  t.equal(gotAtResync, 1, 'until then the notices went nowhere')
  t.ok(await eventually(() => got.length === 4, 2000))
  t.same(
    got.map((e) => e.id),
    [e0, ids[0], ids[2], ids[4]],
    'read after the resync: the lost events, deleted ones skipped',
  )
  const e6 = await post('e6')
  t.ok(await eventually(() => got.length === 5))
  t.equal(got[4]!.id, e6, 'and live again')
})
