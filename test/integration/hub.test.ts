// The realtime hub on real Redis, standalone and cluster: notices between two nodes, the control
// channel, subscription refcounting (PUBSUB SHARDNUMSUB), one connection for many listeners, and
// recovery: a killed connection, a silently dead one (probe), Redis restarting. The cluster
// failover case is in hub-failover.test.ts.
import t from 'tap'
import { encode } from '@msgpack/msgpack'
import { Redis } from 'ioredis'
import { defaultSettings } from '../../src/config.js'
import type { Notice } from '../../src/core/events.js'
import { Hub } from '../../src/realtime/hub.js'
import type { RoomRef } from '../../src/store/keys.js'
import { createClient, Store } from '../../src/store/store.js'
import { newRoom, until } from '../helpers/core.js'
import { startRedis } from '../helpers/redis.js'
import { FAST, proxiedStore, shardNumSub, startHub } from '../helpers/realtime.js'
import { BACKENDS, rawClient, storeFor, uid } from '../helpers/shared.js'
import { eventually, sleep, waitFor } from '../helpers/wait.js'

const refOf = (room: { teamId: string; roomId: string }): RoomRef => ({ teamId: room.teamId, roomId: room.roomId })

/** Waits until each hub has had two more probe rounds come back whole (through its subscription). */
async function probedTwice(...hubs: Hub[]): Promise<void> {
  const from = hubs.map((h) => h.stats().probesBack)
  await waitFor(
    () => hubs.every((h, i) => h.stats().probesBack >= from[i]! + 2),
    20 * FAST.probeIntervalMs!,
    'two more probe rounds to come back',
  )
}

/** Waits until the hub has no SSUBSCRIBE or SUNSUBSCRIBE in flight: Redis then has what it wants. */
async function settled(hub: Hub): Promise<void> {
  await waitFor(() => hub.stats().settling === 0, 5000, "the hub's subscription commands to settle")
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('two nodes: a listener on node B gets the notices of mutations made through node A', async (t) => {
      const room = await newRoom(t, backend)
      const ref = refOf(room)
      const storeB = storeFor(backend)
      t.teardown(() => storeB.close())
      const [hubA, hubB] = [await startHub(t, room.core.store), await startHub(t, storeB)]
      const onA: Notice[] = []
      const onB: Notice[] = []
      hubA.listen(ref, (n) => onA.push(n))
      hubB.listen(ref, (n) => onB.push(n))
      t.ok(await hubB.whenSubscribed(ref, 3000), 'B subscribed the room')
      t.ok(await hubA.whenSubscribed(ref, 3000), 'A subscribed the room')
      await room.core.plan.addTask(room.as('alice'), { title: 'ship it' })
      const posted = await room.core.events.post(room.as('alice'), { type: 'status', text: 'on it', data: { pct: 5 } })
      t.ok(await eventually(() => onB.length >= 2 && onA.length >= 2), 'both nodes got both notices')
      t.match(onB[0], { k: 'task', op: 'added', id: 't1' })
      t.match(onB[1], {
        k: 'event',
        op: 'posted',
        event_id: posted.event.id,
        event: { id: posted.event.id, text: 'on it' },
      })
      await probedTwice(hubA, hubB)
      t.notOk(
        [...onA, ...onB].some((n) => n.k === 'probe'),
        'probes (both hubs probe this room) never reach listeners',
      )
      t.equal(onB.length, 2, 'nothing else arrived')
      t.match(hubB.stats(), { channels: 1, listeners: 1, rebuilds: 0, settling: 0 })
      t.equal(hubA.stats().rebuilds, 0, 'healthy probes cause no rebuild')
    })

    t.test('control notices reach every node; probes do not', async (t) => {
      const storeA = storeFor(backend)
      const storeB = storeFor(backend)
      t.teardown(() => Promise.all([storeA.close(), storeB.close()]))
      const [, hubB] = [await startHub(t, storeA), await startHub(t, storeB)]
      const got: { k: string }[] = []
      const off = hubB.onControl((n) => got.push(n))
      const hash = uid('h')
      await storeA.client.spublish(storeA.keys.controlChannel(), Buffer.from(encode({ k: 'revoked', hash })))
      t.ok(await eventually(() => got.some((n) => n.k === 'revoked' && (n as { hash?: string }).hash === hash)))
      await probedTwice(hubB)
      t.notOk(
        got.some((n) => n.k === 'probe'),
        'probes are not control notices',
      )
      off()
      // A listener that stays: once it has heard 'again', the removed one would have too.
      const fence: { hash?: string }[] = []
      const offFence = hubB.onControl((n) => fence.push(n as { hash?: string }))
      await storeA.client.spublish(storeA.keys.controlChannel(), Buffer.from(encode({ k: 'revoked', hash: 'again' })))
      t.ok(await eventually(() => fence.some((n) => n.hash === 'again')), 'the listener that stayed heard it')
      offFence()
      t.notOk(
        got.some((n) => (n as { hash?: string }).hash === 'again'),
        'a removed control listener hears nothing',
      )
    })

    t.test('refcounting: subscribed while a local listener is there, unsubscribed after the last leaves', async (t) => {
      const store = storeFor(backend)
      t.teardown(() => store.close())
      const hub = await startHub(t, store)
      const raw = rawClient(backend)
      t.teardown(() => raw.disconnect())
      const ref = { teamId: uid('tm'), roomId: uid('r') }
      const channel = store.keys.room(ref).channel
      const count = () => shardNumSub(raw, channel)
      const offs = [0, 1, 2].map(() => hub.listen(ref, () => {}))
      t.ok(await hub.whenSubscribed(ref, 3000))
      t.equal(await count(), 1, 'three listeners, one subscription')
      offs[0]!()
      offs[1]!()
      offs[1]!() // a remover called twice removes once
      await settled(hub)
      t.equal(await count(), 1, 'one listener left: still subscribed')
      t.equal(hub.stats().listeners, 1)
      offs[2]!()
      t.ok(await eventually(async () => (await count()) === 0), 'the last listener left: unsubscribed')
      t.ok(await eventually(() => hub.stats().channels === 0), 'and the hub knows it')
      t.equal(hub.stats().listeners, 0)

      // Races: listen and leave in the same tick, many times, ending with and without a listener.
      for (let i = 0; i < 50; i++) hub.listen(ref, () => {})()
      await settled(hub)
      t.equal(await count(), 0, 'listen+leave races settle unsubscribed')
      let keep: () => void = () => {}
      for (let i = 0; i < 50; i++) {
        keep()
        keep = hub.listen(ref, () => {})
        if (i % 7 === 0) await sleep(1) // let some commands go out between the races
      }
      t.ok(await hub.whenSubscribed(ref, 3000))
      await settled(hub)
      t.equal(await count(), 1, 'races ending with one listener settle subscribed')
      t.equal(hub.stats().listeners, 1)
      keep()
      t.ok(await eventually(async () => (await count()) === 0))
      const got: Notice[] = []
      const off = hub.listen(ref, (n) => got.push(n))
      t.ok(await hub.whenSubscribed(ref, 3000))
      t.equal(await count(), 1)
      await store.client.spublish(channel, Buffer.from(encode({ k: 'task', op: 'added', at: 1, id: 't1' })))
      t.ok(await eventually(() => got.length === 1), 'the settled subscription delivers')
      off()
      t.equal(await hub.whenSubscribed(ref, 10), false, 'whenSubscribed is false for a room nobody listens to')
    })

    t.test('many listeners on many rooms share the node connection(s)', async (t) => {
      const store = storeFor(backend)
      t.teardown(() => store.close())
      const hub = await startHub(t, store)
      const refs = Array.from({ length: 200 }, () => ({ teamId: uid('tm'), roomId: uid('r') }))
      for (const ref of refs) for (let i = 0; i < 5; i++) hub.listen(ref, () => {})
      const all = await Promise.all(refs.map((ref) => hub.whenSubscribed(ref, 5000)))
      t.ok(all.every(Boolean), 'every room subscribed')
      const s = hub.stats()
      t.equal(s.channels, 200)
      t.equal(s.listeners, 1000)
      if (backend === 'standalone') t.equal(s.connections, 1)
      else t.ok(s.connections >= 1 && s.connections <= 3, `at most one connection per master (got ${s.connections})`)
    })
  })
}

t.test('standalone, own server: 1,000 listeners on 200 rooms use as many connections as 1 listener', async (t) => {
  const redis = await startRedis()
  t.teardown(() => redis.stop())
  const store = new Store(
    defaultSettings({ redisUrl: `redis://127.0.0.1:${redis.port}`, redisClusterNodes: undefined }),
  )
  t.teardown(() => store.close())
  const raw = new Redis(redis.port, '127.0.0.1')
  t.teardown(() => raw.disconnect())
  const clients = async () => ((await raw.call('CLIENT', 'LIST')) as string).trim().split('\n').length
  const hub = await startHub(t, store)
  const refs = Array.from({ length: 200 }, () => ({ teamId: uid('tm'), roomId: uid('r') }))
  hub.listen(refs[0]!, () => {})
  t.ok(await hub.whenSubscribed(refs[0]!, 3000))
  await store.ping()
  const withOne = await clients()
  for (const ref of refs) for (let i = 0; i < 5; i++) if (ref !== refs[0] || i > 0) hub.listen(ref, () => {})
  t.ok((await Promise.all(refs.map((ref) => hub.whenSubscribed(ref, 5000)))).every(Boolean))
  t.equal(hub.stats().listeners, 1000)
  t.equal(await clients(), withOne, `${withOne} connections (store, hub, this test) with 1 listener and with 1,000`)
  const channels = (await raw.call('PUBSUB', 'SHARDCHANNELS')) as string[]
  t.equal(channels.length, 201, '200 room channels and the control channel')
})

t.test('standalone, own server: recovery', async (t) => {
  t.test('a killed subscriber connection is rebuilt, resync is emitted and notices flow again', async (t) => {
    const redis = await startRedis()
    t.teardown(() => redis.stop())
    const store = new Store(
      defaultSettings({ redisUrl: `redis://127.0.0.1:${redis.port}`, redisClusterNodes: undefined }),
    )
    t.teardown(() => store.close())
    const warned: string[] = []
    const hub = await startHub(t, store, { ...FAST, log: { warn: (_o, msg) => warned.push(msg), info: () => {} } })
    const ref = { teamId: uid('tm'), roomId: uid('r') }
    const got: Notice[] = []
    hub.listen(ref, (n) => got.push(n))
    let resyncs = 0
    hub.onResync(() => resyncs++)
    t.ok(await hub.whenSubscribed(ref, 3000))
    const raw = new Redis(redis.port, '127.0.0.1')
    t.teardown(() => raw.disconnect())
    const started = Date.now()
    t.ok(Number(await raw.call('CLIENT', 'KILL', 'TYPE', 'pubsub')) >= 1, 'killed the subscriber')
    t.ok(await eventually(() => resyncs === 1, 10 * FAST.probeIntervalMs!), 'resync within a few probe intervals')
    t.ok(Date.now() - started < 10 * FAST.probeIntervalMs!)
    t.equal(hub.stats().rebuilds, 1)
    t.ok(
      warned.some((m) => /rebuilding/.test(m)),
      'the rebuild is logged',
    )
    await store.client.spublish(
      store.keys.room(ref).channel,
      Buffer.from(encode({ k: 'var', op: 'set', at: 1, name: 'x' })),
    )
    t.ok(await eventually(() => got.length === 1), 'notices flow again')
    t.equal(await shardNumSub(raw, store.keys.room(ref).channel), 1, 'one subscription, on the new connection')
    await probedTwice(hub)
    t.equal(hub.stats().rebuilds, 1, 'no further rebuilds once healthy: two probe rounds came back')
  })

  t.test('a silently dead subscription (no socket event) is found by the probe and rebuilt', async (t) => {
    // The hub subscribes through the proxy; reads, posts and probes go straight to Redis.
    const { proxy, store } = await proxiedStore(t)
    const hub = await startHub(t, store)
    const ref = { teamId: uid('tm'), roomId: uid('r') }
    const got: Notice[] = []
    hub.listen(ref, (n) => got.push(n))
    let resyncs = 0
    hub.onResync(() => resyncs++)
    t.ok(await hub.whenSubscribed(ref, 3000))
    const notice = (name: string) => Buffer.from(encode({ k: 'var', op: 'set', at: 1, name }))
    const channel = store.keys.room(ref).channel
    await store.client.spublish(channel, notice('before'))
    t.ok(await eventually(() => got.length === 1))
    proxy.silenceOpen()
    await store.client.spublish(channel, notice('lost'))
    t.ok(
      await eventually(() => resyncs === 1, 15 * FAST.probeIntervalMs!),
      'the lost probe led to a rebuild and resync',
    )
    t.equal(hub.stats().rebuilds, 1)
    t.same(
      got.map((n) => n.name),
      ['before'],
      'the notice published while silent was lost (resync tells listeners to re-read)',
    )
    await store.client.spublish(channel, notice('after'))
    t.ok(await eventually(() => got.length === 2), 'notices flow on the new connection')
    t.equal(got[1]!.name, 'after')
    await probedTwice(hub)
    t.equal(hub.stats().rebuilds, 1, 'no rebuild loop: two probe rounds came back')
  })

  t.test('Redis down then back: rebuilds no faster than the probe interval, then resyncs', async (t) => {
    const redis = await startRedis()
    const port = redis.port
    let current = redis
    t.teardown(() => current.stop())
    const store = new Store(defaultSettings({ redisUrl: `redis://127.0.0.1:${port}`, redisClusterNodes: undefined }))
    store.client.on('error', () => {}) // the store's client reconnects by itself; its errors are expected here
    t.teardown(() => store.close())
    const attempts: number[] = []
    const hub = await startHub(t, store, {
      ...FAST,
      log: { warn: (_o, msg) => (/rebuilding/.test(msg) ? attempts.push(Date.now()) : undefined), info: () => {} },
    })
    const ref = { teamId: uid('tm'), roomId: uid('r') }
    const got: Notice[] = []
    hub.listen(ref, (n) => got.push(n))
    let resyncs = 0
    hub.onResync(() => resyncs++)
    t.ok(await hub.whenSubscribed(ref, 3000))
    await redis.stop('SIGKILL')
    t.ok(await eventually(() => attempts.length >= 2, 10_000), `it keeps trying (${attempts.length} attempts)`)
    t.equal(resyncs, 0, 'no resync while Redis is down')
    for (let i = 1; i < attempts.length; i++)
      t.ok(attempts[i]! - attempts[i - 1]! >= FAST.probeIntervalMs! - 5, 'attempts at least a probe interval apart')
    current = await startRedis([], port)
    t.ok(await eventually(() => resyncs === 1, 5000), 'resync once Redis is back')
    await until(() => store.client.status === 'ready', 3000)
    await store.client.spublish(
      store.keys.room(ref).channel,
      Buffer.from(encode({ k: 'var', op: 'set', at: 1, name: 'x' })),
    )
    t.ok(await eventually(() => got.length === 1), 'notices flow again')
  })
})

t.test('start fails when Redis is unreachable; stop is idempotent', async (t) => {
  const redis = await startRedis()
  const port = redis.port
  await redis.stop()
  const settings = defaultSettings({ redisUrl: `redis://127.0.0.1:${port}`, redisClusterNodes: undefined })
  const store = new Store(settings, createClient(settings, { lazyConnect: true }))
  t.teardown(() => store.client.disconnect())
  const hub = new Hub(store, FAST)
  await t.rejects(hub.start())
  await hub.stop()
  await hub.stop()
})
