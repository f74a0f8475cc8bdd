// wait_for_events across nodes and at scale, on both backends: a wait parked on node B returns
// promptly after post_event on node A, and 1,000 parked waits on one node (1,000 HTTP requests
// at once over 50 rooms) hold no Redis connection of their own: CLIENT LIST on a Redis of the
// test's own (each master of a cluster of its own) counts no more connections than with none.
// Nothing here races a wait's own timeout: every post comes once the node reports the waits
// parked (the parked-waiters gauge), and every long wait ends on an event, not on the clock. A
// few short waits are meant to time out: they must end empty, not before their timeout, and while
// every long wait is still parked, which holds however slow the machine is.
import type { Test } from 'tap'
import t from 'tap'
import { Redis } from 'ioredis'
import type { Settings } from '../../src/config.js'
import { WAIT_MAX_S } from '../../src/mcp/tools/events.js'
import {
  legacyCall,
  parkedWaiters,
  post,
  sseMessages,
  streamedPost,
  toolReplyOf,
  type StreamedCall,
} from '../helpers/mcp.js'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { startCluster, startRedis } from '../helpers/redis.js'
import { BACKENDS, type Backend } from '../helpers/shared.js'
import { waitFor } from '../helpers/wait.js'

const ACCEPT = { Accept: 'application/json, text/event-stream' }
const FAST_LIMITS = { rateLimitPerMin: 1_000_000, rateLimitPerCredentialPerMin: 500_000 }

interface Events {
  events: { text: string }[]
}

/** The tool result of a finished streamed (or plain JSON) wait. */
function resultOf(body: string): Events {
  const message =
    body.startsWith('event:') || body.startsWith(':')
      ? sseMessages(body).at(-1)
      : (JSON.parse(body) as Record<string, unknown>)
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
    const args = (agent: string, extra: Record<string, unknown> = {}) => ({
      room_id: room.room_id,
      agent_id: agent,
      ...extra,
    })
    const figures: number[] = []
    for (let i = 0; i < 3; i++) {
      const wait = streamedPost(b, legacyCall('wait_for_events', args('listener', { timeout_s: 10 })), {
        Authorization: `Bearer ${key}`,
        ...ACCEPT,
      })
      await waitFor(async () => (await parkedWaiters(b)) === 1, 5000, `wait ${i + 1} to park on B`)
      const started = performance.now()
      const posted = await post(
        a,
        legacyCall('post_event', args('speaker', { type: 'status', text: `ping ${i}` })),
        ACCEPT,
        { key },
      )
      t.notOk(toolReplyOf(posted.json).isError, 'post_event on A')
      const got = resultOf(await wait.done)
      const ms = performance.now() - started
      figures.push(ms)
      t.same(
        got.events.map((e) => e.text),
        [`ping ${i}`],
        `the wait on B returned the event posted on A`,
      )
      t.ok(ms < 1000, `within a second of the post (${ms.toFixed(1)} ms)`)
    }
    t.comment(
      `${backend}: post_event on A → wait_for_events returns on B in ${figures.map((f) => f.toFixed(1)).join(', ')} ms`,
    )
  })

  t.test(`1,000 parked waiters use no Redis connection of their own (${backend})`, async (t) => {
    const redis = await ownRedis(t, backend)
    const admins = redis.ports.map((p) => new Redis(p, '127.0.0.1'))
    t.teardown(() => admins.forEach((x) => x.disconnect()))
    const n: TestNode = await startNode(t, backend, { ...FAST_LIMITS, ...redis.settings })
    const { key, teamId } = await newTeam(n)
    const rooms: string[] = []
    for (let i = 0; i < 50; i++)
      rooms.push((await n.node.core.rooms.create(teamId, { template: 'blank' }, 'test')).room.room_id)
    const headers = { Authorization: `Bearer ${key}`, ...ACCEPT }
    const wait = (i: number, timeoutS: number): StreamedCall =>
      streamedPost(
        n,
        legacyCall('wait_for_events', { room_id: rooms[i % 50], agent_id: `agent-${i}`, timeout_s: timeoutS }),
        headers,
      )

    // Warm up every code path once (one short wait per room), so the baseline has every
    // connection the node opens for any room: on a cluster, the hub's sharded subscriber of each
    // master that owns a room channel appears with its first listener.
    await Promise.all(rooms.map((_, i) => wait(i, 1).done))
    const idle = await clientsPerServer(admins)
    t.equal(await parkedWaiters(n), 0, 'no waiter parked for the baseline')

    // Every wait gets the longest timeout (30 s) and ends on an event of its room, posted once all
    // 1,000 are parked: the gauge reaching 1,000 also says that none has timed out yet. Parking
    // may take half the timeout (it takes 1-2 s on a loaded 2-core machine), which leaves the
    // other half for the posts. (With 5 s waits and posts that did not wait for parking, a loaded
    // machine once woke 460 of 500.)
    const calls = Array.from({ length: 1000 }, (_, i) => wait(i, WAIT_MAX_S))
    await waitFor(
      async () => (await parkedWaiters(n)) === 1000,
      (WAIT_MAX_S * 1000) / 2,
      '1,000 waiters to park within half their timeout',
    )
    const busy = await clientsPerServer(admins)
    t.comment(
      `${backend}: Redis clients per server with 0 waiters ${idle.join('/')}, with 1,000 parked ${busy.join('/')}`,
    )
    busy.forEach((count, i) =>
      t.ok(count <= idle[i]!, `server ${i + 1}: ${count} connections with 1,000 waiters, ${idle[i]} with none`),
    )
    t.equal(n.node.feeds.stats().waiters, 1000, "the waits are parked on the node's feeds")

    // Five waits of 1 s in rooms still quiet (those woken last), beside the 1,000 of 30 s: each must
    // end empty at its own timeout, and no other wait may end with it.
    let ended = 0
    for (const c of calls)
      void c.done.then(
        () => ended++,
        () => ended++,
      )
    const shortS = 1
    const sent = performance.now()
    const shorts = await Promise.all(
      Array.from({ length: 5 }, (_, k) =>
        streamedPost(
          n,
          legacyCall('wait_for_events', { room_id: rooms[25 + k], agent_id: `short-${k}`, timeout_s: shortS }),
          headers,
        ).done.then((body) => ({ events: resultOf(body).events, ms: performance.now() - sent })),
      ),
    )
    for (const [k, r] of shorts.entries()) {
      t.same(r.events, [], `short wait ${k}: timed out empty`)
      // Less 10 ms: the node's timer and this clock read milliseconds differently.
      t.ok(r.ms >= shortS * 1000 - 10, `short wait ${k}: not before its ${shortS} s timeout (${Math.round(r.ms)} ms)`)
    }
    t.equal(ended, 0, 'none of the 1,000 long waits ended with them')
    t.equal(await parkedWaiters(n), 1000, 'all 1,000 are still parked')

    // Wake half the rooms with one event each; the other half's waiters stay parked. Then the
    // other half, each room with an event of its own. A waiter must get its own room's event only.
    const postIn = (room: number, text: string) =>
      n.node.core.events.post({ room: { teamId, roomId: rooms[room]! }, agent: 'poster' }, { type: 'status', text })
    const answered = (firstHalf: boolean, prefix: string) =>
      Promise.all(
        calls.flatMap((c, i) =>
          i % 50 < 25 === firstHalf
            ? [c.done.then(resultOf).then((r) => r.events.map((e) => e.text).join() === `${prefix} ${i % 50}`)]
            : [],
        ),
      ).then((ok) => ok.filter(Boolean).length)
    const started = performance.now()
    for (let r = 0; r < 25; r++) await postIn(r, `wake ${r}`)
    t.equal(await answered(true, 'wake'), 500, 'every waiter of a woken room got its event, and only it')
    t.comment(`${backend}: 500 waits woken and answered in ${Math.round(performance.now() - started)} ms`)
    t.equal(
      await parkedWaiters(n),
      500,
      "the other rooms' waiters are still parked: events of other rooms do not end them",
    )
    for (let r = 25; r < 50; r++) await postIn(r, `late ${r}`)
    t.equal(
      await answered(false, 'late'),
      500,
      "every waiter of the rooms woken last got its own room's event, and only it",
    )
    t.equal(await parkedWaiters(n), 0, 'no waiter left parked')
    const after = await clientsPerServer(admins)
    after.forEach((count, i) => t.ok(count <= idle[i]!, `server ${i + 1}: ${count} connections afterwards`))
  })
}
