// wait_for_events across nodes and at scale, on both backends: a wait parked on node B returns
// promptly after post_event on node A, and 1,000 parked waits on one node (1,000 HTTP requests
// at once over 50 rooms) hold no Redis connection of their own: CLIENT LIST on a Redis of the
// test's own (each master of a cluster of its own) counts no more connections than with none.
import type { Test } from 'tap'
import t from 'tap'
import { Redis } from 'ioredis'
import type { Settings } from '../../src/config.js'
import { legacyCall, parkedWaiters, post, sseMessages, streamedPost, toolReplyOf, type StreamedCall } from '../helpers/mcp.js'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { eventually } from '../helpers/realtime.js'
import { startCluster, startRedis } from '../helpers/redis.js'
import { BACKENDS, type Backend } from '../helpers/shared.js'

const ACCEPT = { Accept: 'application/json, text/event-stream' }
const FAST_LIMITS = { rateLimitPerMin: 1_000_000 }

interface Events {
  events: { text: string }[]
}

/** The tool result of a finished streamed (or plain JSON) wait. */
function resultOf(body: string): Events {
  const message = body.startsWith('event:') || body.startsWith(':') ? sseMessages(body).at(-1) : (JSON.parse(body) as Record<string, unknown>)
  const r = toolReplyOf(message)
  if (r.isError) throw new Error(`wait failed: ${JSON.stringify(r.body)}`)
  return r.body as unknown as Events
}

/** Redis servers of the test's own, for connection counts no other test disturbs. */
async function ownRedis(t: Test, backend: Backend): Promise<{ ports: number[]; settings: Partial<Settings> }> {
  if (backend === 'standalone') {
    const r = await startRedis()
    t.teardown(() => r.stop())
    return { ports: [r.port], settings: { redisUrl: `redis://127.0.0.1:${r.port}`, redisClusterNodes: undefined } }
  }
  const c = await startCluster(3)
  t.teardown(() => c.stop())
  return { ports: c.nodes.map((x) => x.port), settings: { redisClusterNodes: c.seeds, redisUrl: undefined } }
}

/** Connected clients per server, as CLIENT LIST reports them (the counting connection included). */
async function clientsPerServer(admins: Redis[]): Promise<number[]> {
  return Promise.all(admins.map(async (a) => ((await a.call('CLIENT', 'LIST')) as string).trim().split('\n').length))
}

for (const backend of BACKENDS) {
  t.test(`two nodes: a wait on B wakes on a post on A (${backend})`, async (t) => {
    const a = await startNode(t, backend, FAST_LIMITS)
    const b = await startNode(t, backend, FAST_LIMITS)
    const { key, teamId } = await newTeam(a)
    const { room } = await a.node.core.rooms.create(teamId, { template: 'blank' }, 'test')
    const args = (agent: string, extra: Record<string, unknown> = {}) => ({ room_id: room.room_id, agent_id: agent, ...extra })
    const figures: number[] = []
    for (let i = 0; i < 3; i++) {
      const wait = streamedPost(b, legacyCall('wait_for_events', args('listener', { timeout_s: 10 })), { Authorization: `Bearer ${key}`, ...ACCEPT })
      t.ok(await eventually(async () => (await parkedWaiters(b)) === 1, 5000), `wait ${i + 1} parked on B`)
      const started = performance.now()
      const posted = await post(a, legacyCall('post_event', args('speaker', { type: 'status', text: `ping ${i}` })), ACCEPT, { key })
      t.notOk(toolReplyOf(posted.json).isError, 'post_event on A')
      const got = resultOf(await wait.done)
      const ms = performance.now() - started
      figures.push(ms)
      t.same(got.events.map((e) => e.text), [`ping ${i}`], `the wait on B returned the event posted on A`)
      t.ok(ms < 1000, `within a second of the post (${ms.toFixed(1)} ms)`)
    }
    t.comment(`${backend}: post_event on A → wait_for_events returns on B in ${figures.map((f) => f.toFixed(1)).join(', ')} ms`)
  })

  t.test(`1,000 parked waiters use no Redis connection of their own (${backend})`, async (t) => {
    const redis = await ownRedis(t, backend)
    const admins = redis.ports.map((p) => new Redis(p, '127.0.0.1'))
    t.teardown(() => admins.forEach((x) => x.disconnect()))
    const n: TestNode = await startNode(t, backend, { ...FAST_LIMITS, ...redis.settings })
    const { key, teamId } = await newTeam(n)
    const rooms: string[] = []
    for (let i = 0; i < 50; i++) rooms.push((await n.node.core.rooms.create(teamId, { template: 'blank' }, 'test')).room.room_id)
    const headers = { Authorization: `Bearer ${key}`, ...ACCEPT }
    const wait = (i: number, timeoutS: number): StreamedCall =>
      streamedPost(n, legacyCall('wait_for_events', { room_id: rooms[i % 50], agent_id: `agent-${i}`, timeout_s: timeoutS }), headers)

    // Warm up every code path once (one short wait per room), so the baseline has every
    // connection the node opens for any room: on a cluster, the hub's sharded subscriber of each
    // master that owns a room channel appears with its first listener.
    await Promise.all(rooms.map((_, i) => wait(i, 1).done))
    const idle = await clientsPerServer(admins)
    t.equal(await parkedWaiters(n), 0, 'no waiter parked for the baseline')

    // The waiters of the rooms woken below get the longest wait (30 s), so their events, posted
    // once all 1,000 are parked, always come first: with 5 s, parking and counting took longer
    // than that on a loaded machine and some timed out before their event (460 of 500 woken).
    // The quiet rooms' waiters time out on their own, after 15 s.
    const calls = Array.from({ length: 1000 }, (_, i) => wait(i, i % 50 < 25 ? 30 : 15))
    const parkedAll = await eventually(async () => (await parkedWaiters(n)) === 1000, 20_000)
    t.ok(parkedAll, `1,000 waiters parked (gauge ${await parkedWaiters(n)})`)
    const busy = await clientsPerServer(admins)
    t.comment(`${backend}: Redis clients per server with 0 waiters ${idle.join('/')}, with 1,000 parked ${busy.join('/')}`)
    busy.forEach((count, i) => t.ok(count <= idle[i]!, `server ${i + 1}: ${count} connections with 1,000 waiters, ${idle[i]} with none`))
    t.equal(n.node.feeds.stats().waiters, 1000, 'the waits are parked on the node\'s feeds')

    // Wake half the rooms with one event each; the other half time out empty.
    const started = performance.now()
    for (let r = 0; r < 25; r++) await n.node.core.events.post({ room: { teamId, roomId: rooms[r]! }, agent: 'poster' }, { type: 'status', text: `wake ${r}` })
    const results = await Promise.all(calls.map((c) => c.done.then(resultOf)))
    const woken = results.filter((r, i) => i % 50 < 25 && r.events.length === 1 && r.events[0]!.text === `wake ${i % 50}`).length
    const empty = results.filter((r, i) => i % 50 >= 25 && r.events.length === 0).length
    t.equal(woken, 500, 'every waiter of a woken room got its event')
    t.equal(empty, 500, 'every waiter of a quiet room timed out empty')
    t.comment(`${backend}: all 1,000 waits answered in ${Math.round(performance.now() - started)} ms`)
    t.equal(await parkedWaiters(n), 0, 'no waiter left parked')
    const after = await clientsPerServer(admins)
    after.forEach((count, i) => t.ok(count <= idle[i]!, `server ${i + 1}: ${count} connections afterwards`))
  })
}
