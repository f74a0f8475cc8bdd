// How /mcp answers over HTTP (standalone): a JSON body or an SSE stream for the same call,
// wait_for_events switching to text/event-stream when it parks (with keep-alive comments), and a
// client that disconnects during wait_for_events cancelling it on the node.
import t from 'tap'
import { eventually, sleep } from '../helpers/realtime.js'
import {
  legacyCall,
  modernBody,
  modernHeaders,
  parkedWaiters,
  post,
  sseMessages,
  streamedPost,
  toolReplyOf,
} from '../helpers/mcp.js'
import { newTeam, startNode } from '../helpers/node.js'

const JSON_ONLY = { Accept: 'application/json' }
const SSE_ONLY = { Accept: 'text/event-stream' }
const BOTH = { Accept: 'application/json, text/event-stream' }

/** Timers alive in this process, at the quietest of a few samples (the hub's probe timers come and go). */
async function steadyTimers(): Promise<number> {
  let least = Infinity
  for (let i = 0; i < 15; i++) {
    least = Math.min(least, process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length)
    await sleep(20)
  }
  return least
}

t.test('reply modes (standalone)', async (t) => {
  const n = await startNode(t, 'standalone', { sseKeepaliveMs: 1000 })
  const { key, teamId } = await newTeam(n)
  const { room } = await n.node.core.rooms.create(teamId, { template: 'web-app' }, 'test')
  const roomId = room.room_id
  const args = (agent: string, extra: Record<string, unknown> = {}) => ({ room_id: roomId, agent_id: agent, ...extra })
  const auth = { Authorization: `Bearer ${key}` }

  await t.test('the same call as JSON and as SSE', async (t) => {
    for (const era of ['legacy', 'modern'] as const) {
      const body =
        era === 'legacy'
          ? legacyCall('get_unblocked_tasks', args('reader'))
          : modernBody('tools/call', { name: 'get_unblocked_tasks', arguments: args('reader') })
      const headers = era === 'legacy' ? {} : modernHeaders('tools/call', 'get_unblocked_tasks')
      const asJson = await post(n, body, { ...headers, ...JSON_ONLY }, { key })
      t.equal(asJson.status, 200)
      t.equal(asJson.headers.get('content-type'), 'application/json', `${era}: Accept JSON → a JSON body`)
      const asSse = await post(n, body, { ...headers, ...SSE_ONLY }, { key })
      t.equal(asSse.status, 200)
      t.equal(asSse.headers.get('content-type'), 'text/event-stream', `${era}: Accept SSE only → an event stream`)
      t.match(asSse.text, /^event: message\ndata: \{/, `${era}: one message frame`)
      const frames = sseMessages(asSse.text)
      t.equal(frames.length, 1, `${era}: the stream carries the response and ends`)
      t.same(toolReplyOf(frames[0]), toolReplyOf(asJson.json), `${era}: both modes carry the same result`)
      t.equal(frames[0]!.id, asJson.json?.id)
    }
  })

  await t.test('wait_for_events with unread events answers at once as JSON', async (t) => {
    await n.node.core.events.post({ room: { teamId, roomId }, agent: 'poster' }, { type: 'status', text: 'ready' })
    const r = await post(n, legacyCall('wait_for_events', args('early', { timeout_s: 5 })), BOTH, { key })
    t.equal(r.headers.get('content-type'), 'application/json', 'no park, no stream')
    t.ok((toolReplyOf(r.json).body.events as unknown[]).length >= 1)
  })

  await t.test('a parked wait_for_events switches to SSE and sends keep-alives', async (t) => {
    // nothing left unread
    await post(n, legacyCall('get_unread_events', args('sleeper', { limit: 100 })), BOTH, { key })
    const call = streamedPost(n, legacyCall('wait_for_events', args('sleeper', { timeout_s: 3 })), { ...auth, ...BOTH })
    const res = await call.response
    t.equal(res.status, 200)
    t.equal(res.headers['content-type'], 'text/event-stream', 'the reply became a stream when the call parked')
    t.equal(res.headers['x-accel-buffering'], 'no')
    const text = await call.done
    const keepalives = call.chunks.filter((c) => c.text.includes(': keep-alive'))
    t.ok(
      keepalives.length >= 1,
      `keep-alive comments were sent (${keepalives.length}) with SSE_KEEPALIVE_S=1 over a 3 s wait`,
    )
    t.ok(
      keepalives[0]!.at >= 800,
      `the first keep-alive came after about a second (${Math.round(keepalives[0]!.at)} ms)`,
    )
    const last = call.chunks.at(-1)!
    t.ok(last.at >= 2800 && last.at < 6000, `the result came at the timeout (${Math.round(last.at)} ms)`)
    const frames = sseMessages(text)
    t.equal(frames.length, 1)
    t.same(toolReplyOf(frames[0]).body.events, [], 'nothing arrived: empty result')
    t.equal(await parkedWaiters(n), 0)
  })

  await t.test('an event wakes a parked SSE reply', async (t) => {
    const call = streamedPost(n, legacyCall('wait_for_events', args('sleeper', { timeout_s: 10 })), {
      ...auth,
      ...BOTH,
    })
    t.ok(await eventually(async () => (await parkedWaiters(n)) === 1, 3000), 'parked')
    t.equal((await call.response).headers['content-type'], 'text/event-stream')
    await n.node.core.events.post({ room: { teamId, roomId }, agent: 'poster' }, { type: 'status', text: 'wake up' })
    const frames = sseMessages(await call.done)
    t.same(
      (toolReplyOf(frames.at(-1)).body.events as { text: string }[]).map((e) => e.text),
      ['wake up'],
    )
  })

  await t.test('Accept JSON only: a parked call answers with one JSON body', async (t) => {
    const r = await post(n, legacyCall('wait_for_events', args('sleeper', { timeout_s: 1 })), JSON_ONLY, { key })
    t.equal(r.headers.get('content-type'), 'application/json')
    t.same(toolReplyOf(r.json).body.events, [])
  })

  await t.test('a client disconnect cancels wait_for_events', async (t) => {
    // nothing left unread
    await post(n, legacyCall('get_unread_events', args('quitter', { limit: 100 })), BOTH, { key })
    const before = n.node.mcp.transport.inFlight
    const timers = await steadyTimers()
    const call = streamedPost(n, legacyCall('wait_for_events', args('quitter', { timeout_s: 30 })), {
      ...auth,
      ...BOTH,
    })
    t.ok(await eventually(async () => (await parkedWaiters(n)) === 1, 3000), 'the wait parked')
    t.equal(n.node.feeds.stats().waiters, 1)
    const started = performance.now()
    call.abort()
    t.ok(await eventually(async () => (await parkedWaiters(n)) === 0, 2000), 'the parked-waiters gauge returns to 0')
    const ms = Math.round(performance.now() - started)
    t.ok(ms < 1000, `promptly (${ms} ms)`)
    t.comment(`disconnect → gauge 0 in ${ms} ms`)
    t.ok(
      await eventually(() => n.node.feeds.stats().waiters === 0 && n.node.mcp.transport.inFlight === before, 2000),
      'no waiter or request left on the node',
    )
    t.ok((await steadyTimers()) <= timers, "no timer left behind (the reply's keep-alive stopped with the connection)")
    // The cancelled call consumed nothing: an event posted now is still unread for the quitter.
    await n.node.core.events.post({ room: { teamId, roomId }, agent: 'poster' }, { type: 'status', text: 'after quit' })
    await sleep(50)
    const r = await post(n, legacyCall('get_unread_events', args('quitter', { limit: 100 })), BOTH, { key })
    t.ok(
      (toolReplyOf(r.json).body.events as { text: string }[]).some((e) => e.text === 'after quit'),
      'the quitter still gets later events',
    )
  })
})
