// At-least-once delivery across the crash of a node, with real processes: two service nodes
// (src/main.ts, each its own process) share a Redis and a webhook; 1,000 events are posted through
// both (MCP over HTTP). The receiver answers the first deliveries, then holds every request open,
// so both nodes have attempts in flight; the node holding the oldest held request is killed with
// SIGKILL; the receiver answers again. Every event must arrive, under one delivery id each
// (a delivery the dead node had in flight arrives again, from the other node, with the same id).
import t, { type Test } from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { decode } from '@msgpack/msgpack'
import { Teams } from '../../src/auth/teams.js'
import type { Delivery } from '../../src/store/webhooks.js'
import type { WebhookView } from '../../src/webhooks/registry.js'
import { modernBody, modernHeaders } from '../helpers/mcp.js'
import { freePort } from '../helpers/redis.js'
import { BACKENDS, sharedRedis, storeFor, uid, type Backend } from '../helpers/shared.js'
import { makeTestCa, startReceiver, waitFor, type Received, type TestCa } from '../helpers/webhooks.js'

const EVENTS = 1000
const ROOMS = 4
/** Deliveries answered before the receiver starts holding requests open. */
const ANSWERED_FIRST = 300

interface Child {
  proc: ChildProcess
  base: string
  exited: Promise<void>
}

async function spawnNode(t: Test, backend: Backend, prefix: string, ca: TestCa): Promise<Child> {
  const shared = sharedRedis()
  const port = await freePort()
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ...(backend === 'cluster'
      ? { REDIS_CLUSTER_NODES: shared.cluster.seeds, REDIS_URL: '' }
      : { REDIS_URL: `redis://127.0.0.1:${shared.standalone.port}`, REDIS_CLUSTER_NODES: '' }),
    KEY_PREFIX: prefix,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    RATE_LIMIT_PER_MIN: '1000000',
    RATE_LIMIT_PER_CREDENTIAL_PER_MIN: '500000',
    WEBHOOK_TEST_LOOPBACK_CA: ca.caFile,
    WEBHOOK_LEASE_MS: '2000',
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_SWEEP_S: '2',
    WEBHOOK_CONCURRENCY: '16',
    WEBHOOK_RETRY_SCHEDULE_S: '0.2,0.5,1,1,2,2,5,5',
    WEBHOOK_RETRY_JITTER: '0',
  }
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
  t.teardown(async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL')
      await exited
    }
  })
  const base = `http://127.0.0.1:${port}`
  await waitFor(
    async () => (await fetch(`${base}/health`).catch(() => undefined))?.ok === true,
    60_000,
    `node on :${port} to start`,
  )
  return { proc, base, exited }
}

/** post_event through a node's MCP endpoint (2026-07-28 wire); resolves with the event id. */
async function postEvent(base: string, key: string, roomId: string, text: string): Promise<string> {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${key}`,
      ...modernHeaders('tools/call', 'post_event'),
    },
    body: JSON.stringify(
      modernBody('tools/call', {
        name: 'post_event',
        arguments: { room_id: roomId, agent_id: 'poster', type: 'message', text },
      }),
    ),
  })
  const reply = (await res.json()) as { result?: { isError?: boolean; content: { text: string }[] } }
  if (!reply.result || reply.result.isError)
    throw new Error(`post_event failed: ${res.status} ${JSON.stringify(reply)}`)
  return (JSON.parse(reply.result.content[0]!.text) as { event: { id: string } }).event.id
}

t.test('kill -9 of the node holding deliveries in flight', async (t) => {
  const ca = await makeTestCa(t)
  for (const backend of BACKENDS) {
    t.test(`${backend}: the other node delivers them; nothing is lost over ${EVENTS} events`, async (t) => {
      const prefix = uid('wk').slice(0, 14)
      const store = storeFor(backend, { keyPrefix: prefix })
      t.teardown(() => store.close())
      const rx = await startReceiver(t, ca)
      // Event ids are per room: an event is "<room>/<id>".
      const eventOf = (r: Received) => `${r.body.room_id}/${r.body.event.id}`
      /** Event -> delivery ids answered 200 on a live connection. */
      const answered = new Map<string, Set<string>>()
      let phase: 'answer first' | 'hold' | 'answer' = 'answer first'
      rx.answer = (r) => {
        if (phase === 'answer first' && rx.received.length > ANSWERED_FIRST) phase = 'hold'
        if (phase === 'hold') return 'hang'
        answered.set(eventOf(r), (answered.get(eventOf(r)) ?? new Set()).add(r.body.id))
        return { status: 200 }
      }

      const [a, b] = await Promise.all([spawnNode(t, backend, prefix, ca), spawnNode(t, backend, prefix, ca)])
      const { teamId, key } = await (async () => {
        const r = await new Teams(store).create({ name: 'crash test', teamId: uid('tm') })
        return { teamId: r.team.teamId, key: r.key! }
      })()
      const reg = await fetch(`${a.base}/admin/webhooks`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: rx.url() }),
      })
      t.equal(reg.status, 201, 'webhook registered')
      const rooms = Array.from({ length: ROOMS }, (_, i) => `room-${i}`)
      for (const roomId of rooms) {
        const res = await fetch(`${b.base}/admin/rooms`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ roomId }),
        })
        t.equal(res.status, 201)
      }

      // 1,000 events, half through each node, 16 at a time.
      const posted: string[] = []
      let next = 0
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          for (let i = next++; i < EVENTS; i = next++) {
            const roomId = rooms[i % ROOMS]!
            posted.push(`${roomId}/${await postEvent(i % 2 ? a.base : b.base, key, roomId, `e${i}`)}`)
          }
        }),
      )
      t.equal(posted.length, EVENTS, `${EVENTS} events posted`)

      // Both nodes now hold requests open; find who holds what from the leases in Redis.
      const k = store.keys.webhooks(teamId)
      const holderOf = async (deliveryId: string) => {
        const raw = await store.client.hgetBuffer(k.deliveries, deliveryId)
        return raw ? Number((decode(raw) as Delivery).holder?.split(':')[1]) : undefined
      }
      await waitFor(
        async () => {
          const pids = new Set(await Promise.all(rx.hanging.map((h) => holderOf(h.r.body.id))))
          return pids.has(a.proc.pid) && pids.has(b.proc.pid)
        },
        15_000,
        'both nodes to hold requests open',
      )
      const victimPid = (await holderOf(rx.hanging[0]!.r.body.id))!
      const [victim, survivor] = victimPid === a.proc.pid ? [a, b] : [b, a]
      const held = (
        await Promise.all(
          rx.hanging.map(async (h) => ((await holderOf(h.r.body.id)) === victimPid ? h.r.body.id : undefined)),
        )
      ).filter((x): x is string => x !== undefined)
      t.ok(held.length > 0, `the victim holds ${held.length} deliveries in flight`)

      const killedAt = Date.now()
      victim.proc.kill('SIGKILL')
      await victim.exited
      const victims = rx.hanging.filter((h) => held.includes(h.r.body.id))
      await waitFor(
        () => victims.every((h) => h.res.destroyed),
        5000,
        "the receiver to see the victim's connections close",
      )
      phase = 'answer'
      // Answer what is still held: the survivor's requests (the victim's connections died with it).
      for (const { r, res } of rx.hanging.splice(0)) {
        if (res.destroyed) continue
        res.writeHead(200).end()
        answered.set(eventOf(r), (answered.get(eventOf(r)) ?? new Set()).add(r.body.id))
      }

      await waitFor(() => posted.every((id) => answered.has(id)), 30_000, `all ${EVENTS} events to be answered`)
      t.pass(`all ${EVENTS} events delivered, ${Date.now() - killedAt} ms after the kill (lease 2 s)`)
      const deliveryOf = new Map<string, Set<string>>()
      for (const r of rx.received) deliveryOf.set(eventOf(r), (deliveryOf.get(eventOf(r)) ?? new Set()).add(r.body.id))
      t.ok(
        [...deliveryOf.values()].every((ids) => ids.size === 1),
        'each event has one delivery id, duplicates included',
      )
      const requests = new Map<string, number>()
      for (const r of rx.received) requests.set(r.body.id, (requests.get(r.body.id) ?? 0) + 1)
      t.ok(
        held.every((id) => (requests.get(id) ?? 0) >= 2),
        'every delivery the victim held was sent again, under the same id',
      )
      t.equal(new Set(posted).size, EVENTS)
      t.same(new Set(rx.received.map(eventOf)), new Set(posted), 'the receiver got exactly the events posted')

      const health = async () =>
        (
          (await (
            await fetch(`${survivor.base}/admin/webhooks`, { headers: { Authorization: `Bearer ${key}` } })
          ).json()) as { webhooks: WebhookView[] }
        ).webhooks[0]!.health
      await waitFor(async () => (await health()).pending === 0, 10_000, 'nothing pending')
      const h = await health()
      t.equal(h.delivered, EVENTS, 'each delivery settled once, by the node that finished it')
      t.ok(h.takeovers >= held.length, `taken over after their lease: ${h.takeovers}`)
      t.equal(h.failed, 0)
      const after = rx.received.filter((r) => r.at >= killedAt)
      const again = rx.received.filter((r) => r.at >= killedAt && held.includes(r.body.id))
      const resent = again
        .map((r) => r.at - killedAt)
        .sort((x, y) => x - y)
        .join(', ')
      t.comment(
        `${backend}: after the kill: ${after.length} requests in ${after.at(-1)!.at - killedAt} ms; ` +
          `the victim's deliveries resent ${resent} ms after it`,
      )
      t.comment(
        `${backend}: ${rx.received.length} requests for ${EVENTS} events (${rx.received.length - EVENTS} ` +
          `duplicates); victim held ${held.length}`,
      )
    })
  }
})
