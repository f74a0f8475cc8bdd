// Cluster failover on a cluster of its own (3 masters with a replica each): kill -9 the master
// that owns a room's slot, wait for its replica's promotion, and check that the room's notices
// reach the hub's listener again (after a rebuild and resync) and that a feed follower loses
// nothing that Redis kept.
import t from 'tap'
import { Redis } from 'ioredis'
import { defaultSettings } from '../../src/config.js'
import type { Notice, RoomEvent } from '../../src/core/events.js'
import { Core } from '../../src/core/index.js'
import { Feeds } from '../../src/realtime/feed.js'
import { Store } from '../../src/store/store.js'
import { startCluster } from '../helpers/redis.js'
import { eventually, FAST, sleep, startHub } from '../helpers/realtime.js'
import { uid } from '../helpers/shared.js'

type SlotRange = [number, number, [string, number, string], ...[string, number, string][]]

/** The port of the master serving `slot`, as the node on `port` sees it (undefined: none / unreachable). */
async function ownerOf(port: number, slot: number): Promise<number | undefined> {
  const r = new Redis(port, '127.0.0.1', { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 })
  r.on('error', () => {})
  try {
    await r.connect()
    const info = (await r.call('CLUSTER', 'INFO')) as string
    if (!/cluster_state:ok/.test(info)) return undefined
    const ranges = (await r.call('CLUSTER', 'SLOTS')) as SlotRange[]
    const range = ranges.find(([from, to]) => slot >= from && slot <= to)
    return range ? Number(range[2][1]) : undefined
  } catch {
    return undefined
  } finally {
    r.disconnect()
  }
}

/** Whether every replica of the master on `port` has all of its writes. */
async function replicated(port: number): Promise<boolean> {
  const r = new Redis(port, '127.0.0.1')
  try {
    const info = (await r.call('INFO', 'replication')) as string
    const master = Number(/master_repl_offset:(\d+)/.exec(info)?.[1])
    const offsets = [...info.matchAll(/slave\d+:.*offset=(\d+)/g)].map((m) => Number(m[1]))
    return offsets.length > 0 && offsets.every((o) => o === master)
  } finally {
    r.disconnect()
  }
}

t.test('cluster failover: the room master dies, its replica takes over, notices flow again', async (t) => {
  const cluster = await startCluster(3, 1)
  t.teardown(() => cluster.stop())
  const settings = defaultSettings({ redisClusterNodes: cluster.seeds, redisUrl: undefined })
  const store = new Store(settings)
  store.client.on('error', () => {})
  t.teardown(() => store.close())
  const core = new Core(store, settings)
  const teamId = uid('tm')
  const { room } = await core.rooms.create(teamId, { template: 'blank' }, 'test')
  const ref = { teamId, roomId: room.room_id }
  const as = { room: ref, agent: 'alice' }

  const hub = await startHub(t, store, FAST)
  let resyncs = 0
  hub.onResync(() => resyncs++)
  const notices: Notice[] = []
  hub.listen(ref, (n) => notices.push(n))
  const feeds = new Feeds(hub, store, { lingerMs: 0, retryMs: 200 })
  t.teardown(() => feeds.close())
  const followed: RoomEvent[] = []
  const stopFollowing = await feeds.follow(ref, {}, (ev) => followed.push(ev))
  t.teardown(stopFollowing)

  for (let i = 0; i < 5; i++) await core.events.post(as, { type: 'message', text: `before ${i}` })
  t.ok(await eventually(() => followed.length === 5), 'the follower has the events posted before the failover')

  const slot = Number(await store.client.cluster('KEYSLOT', store.keys.room(ref).channel))
  const victimPort = (await ownerOf(cluster.nodes[0]!.port, slot))!
  const victim = cluster.nodes.find((n) => n.port === victimPort)!
  t.ok(await eventually(() => replicated(victimPort), 10_000), 'the replica has every write')
  victim.proc.kill('SIGKILL')
  const killedAt = Date.now()
  const survivor = cluster.nodes.find((n) => n !== victim)!
  const promoted = await eventually(async () => {
    const owner = await ownerOf(survivor.port, slot)
    return owner !== undefined && owner !== victimPort
  }, 30_000)
  t.ok(promoted, "the replica was promoted for the room's slot")
  t.ok(await eventually(() => resyncs >= 1, 30_000), 'the hub rebuilt its subscription and resynced')
  t.comment(
    `promoted and resynced ${Date.now() - killedAt} ms after the kill; ${hub.stats().rebuilds} rebuild attempts`,
  )

  // The store's own client finds the new master by itself; retry the post until it does.
  let after: RoomEvent | undefined
  const deadline = Date.now() + 30_000
  while (!after && Date.now() < deadline) {
    try {
      after = (await core.events.post(as, { type: 'message', text: 'after' })).event
    } catch {
      await sleep(200)
    }
  }
  t.ok(after, 'posting works again')
  t.ok(
    await eventually(() => notices.some((n) => n.event_id === after!.id), 10_000),
    "the room's notices reach the listener again",
  )

  for (let i = 0; i < 5; i++) await core.events.post(as, { type: 'message', text: `later ${i}` })
  const page = await core.events.read(as, { limit: 100 })
  t.ok(await eventually(() => followed.length >= page.events.length, 10_000))
  t.same(
    followed.map((e) => e.id),
    page.events.map((e) => e.id),
    'the follower got every event Redis kept, in order, once',
  )
})
