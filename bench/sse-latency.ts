// SSE delivery latency across nodes: two nodes (child processes) on one Redis of the bench's own;
// K SSE clients on node B; events posted through node A (MCP post_event) at a steady rate, each
// carrying its send time in `data`; latency = post sent on A -> frame parsed by a client on B.
// Every client must get every event once, in order (lost, dup and out-of-order are counted).
// --floor runs the same load against bench/floor-node.ts instead: the same processes and hops
// with the least work a node can do, which is this machine's floor for the figures.
// --listen adds, in the same run and for the same events, as many MCP subscriptions/listen streams
// on B (2026-07-28; each subscribed to the unread events of an agent of its own, so every post is
// one notifications/resources/updated on each): their latency is post sent on A -> notification
// parsed on B (the n-th notification of a stream is the room's n-th new event, in the order the
// room's channel carried them), with its ratio to the SSE clients' of the same run.
// Each run also gives node B's CPU per event frame delivered (its /proc ticks over the run, divided
// by the frames the clients got). --profile runs B under --cpu-prof and prints where its busy time
// went (the delivery path: pub/sub, the feed, frames, writes).
//   npx tsx bench/sse-latency.ts [--clients 10,100] [--rate 200] [--seconds 10] [--floor | --listen] [--profile]
import { readFileSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { parseArgs } from 'node:util'
import { Redis } from 'ioredis'
import { decodeNotice } from '../src/core/events.js'
import { Keys } from '../src/store/keys.js'
import { resourceUri } from '../src/mcp/resources.js'
import { parseFrames } from '../test/helpers/sse.js'
import {
  defaultKey,
  fmt,
  listenBody,
  listenHeaders,
  percentile,
  profileSummary,
  startChild,
  startRedis,
} from './lib.js'

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '10,100' },
    rate: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '10' },
    floor: { type: 'boolean', default: false },
    listen: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
  },
})
if (values.floor && values.listen) throw new Error('--listen: not with --floor (the floor node has no listen streams)')
const clientCounts = values.clients.split(',').map(Number)
const rate = Number(values.rate)
const seconds = Number(values.seconds)

interface Client {
  ids: string[]
  latencies: number[]
  /** Split of each latency at the moment the notice was published (see `published`). */
  toPublish: number[]
  fromPublish: number[]
  outOfOrder: number
  connected: boolean
  close(): void
}

/**
 * When each event's notice was published, as seen by a subscriber of the room's channel in this
 * process (event index -> performance.now()): splits a latency into the post on A and the
 * delivery by B, at sub-millisecond resolution.
 */
const published = new Map<number, number>()
/** The room's new events in the order its channel carried them: the bench's (index, send time) or another's ({}). */
const eventOrder: { i?: number; t?: number }[] = []

/** A subscriptions/listen stream: when each notifications/resources/updated came. */
interface Listener {
  arrivals: number[]
  connected: boolean
  close(): void
}

/** A listen stream on node:http (its own connection) on the unread events of `agent`. */
function openListener(port: number, roomId: string, key: string, agent: string, id: number): Listener {
  const l: Listener = { arrivals: [], connected: false, close: () => req.destroy() }
  let rest = ''
  const body = listenBody([resourceUri({ kind: 'unread', roomId, agent })], id)
  const req = request(
    {
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method: 'POST',
      agent: false,
      headers: { ...listenHeaders(key), 'Content-Length': Buffer.byteLength(body) },
    },
    (res) => {
      if (res.statusCode !== 200) throw new Error(`listen: HTTP ${res.statusCode}`)
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        const now = performance.now()
        const parsed = parseFrames(rest + chunk)
        rest = parsed.rest
        for (const f of parsed.frames) {
          if (f.data === undefined) continue
          const m = (JSON.parse(f.data) as { method?: string }).method
          if (m === 'notifications/subscriptions/acknowledged') l.connected = true
          else if (m === 'notifications/resources/updated') l.arrivals.push(now)
        }
      })
    },
  )
  req.on('error', () => undefined)
  req.end(body)
  return l
}

/** An SSE client on node:http (its own connection); records the latency of every event frame. */
function openClient(port: number, roomId: string, key: string): Client {
  const c: Client = {
    ids: [],
    latencies: [],
    toPublish: [],
    fromPublish: [],
    outOfOrder: 0,
    connected: false,
    close: () => req.destroy(),
  }
  let rest = ''
  let lastSeq = 0
  const req = request(
    {
      host: '127.0.0.1',
      port,
      path: `/rooms/${roomId}/stream`,
      agent: false,
      headers: { Authorization: `Bearer ${key}`, Accept: 'text/event-stream' },
    },
    (res) => {
      if (res.statusCode !== 200) throw new Error(`stream: HTTP ${res.statusCode}`)
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        const now = performance.now()
        const parsed = parseFrames(rest + chunk)
        rest = parsed.rest
        for (const f of parsed.frames) {
          if (f.comments.some((x) => x.startsWith('connected'))) c.connected = true
          if (f.id === undefined) continue
          const seq = Number(f.id.slice(f.id.indexOf('-') + 1))
          if (seq <= lastSeq) c.outOfOrder++
          lastSeq = seq
          c.ids.push(f.id)
          const ev = JSON.parse(f.data!) as { data?: { i?: number; t?: number } }
          if (typeof ev.data?.t !== 'number') continue
          c.latencies.push(now - ev.data.t)
          const at = published.get(ev.data.i!)
          if (at !== undefined) {
            c.toPublish.push(at - ev.data.t)
            c.fromPublish.push(now - at)
          }
        }
      })
    },
  )
  req.on('error', () => undefined)
  req.end()
  return c
}

/** Subscribes to the room's notices (the service's msgpack notices, or the floor's text) to fill `published`. */
async function watchPublishes(port: number, roomId: string): Promise<() => void> {
  const sub = new Redis(port, '127.0.0.1')
  sub.on('smessageBuffer', (_channel: Buffer, msg: Buffer) => {
    const now = performance.now()
    // The floor publishes "<id>\n<event JSON>"; the service a msgpack notice whose event carries
    // its data as JSON text.
    if (values.floor) {
      const data = (JSON.parse(msg.toString().slice(msg.indexOf(10) + 1)) as { data?: { i?: number } }).data
      if (typeof data?.i === 'number') published.set(data.i, now)
      return
    }
    const notice = decodeNotice(msg)
    const rec = notice?.event as { data?: string } | undefined
    const data = JSON.parse(rec?.data ?? '{}') as { i?: number; t?: number }
    if (typeof data.i === 'number') published.set(data.i, now)
    if (notice?.event_id !== undefined) eventOrder.push(typeof data.i === 'number' ? data : {})
  })
  await sub.ssubscribe(
    values.floor ? `floor:{${roomId}}` : new Keys(env.KEY_PREFIX).room({ teamId: 'default', roomId }).channel,
  )
  return () => sub.disconnect()
}

/** CPU seconds a process used so far (Linux /proc; clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) return false
    await new Promise((r) => setTimeout(r, 20))
  }
  return true
}

const redis = await startRedis()
const env = {
  REDIS_URL: `redis://127.0.0.1:${redis.port}`,
  RATE_LIMIT_PER_MIN: '10000000',
  RATE_LIMIT_PER_CREDENTIAL_PER_MIN: '5000000',
  KEY_PREFIX: 'bench',
}
const nodeScript = values.floor ? 'bench/floor-node.ts' : 'src/main.ts'
const a = await startChild(nodeScript, env)
const key = await defaultKey(a)
const profileDir = '/tmp/agentrooms-sse-prof'
if (values.profile) rmSync(profileDir, { recursive: true, force: true })
const b = await startChild(
  nodeScript,
  env,
  undefined,
  values.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
)
const mcpHeaders = {
  Authorization: `Bearer ${key}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
}

async function createRoom(roomId: string): Promise<void> {
  const r = await fetch(`http://127.0.0.1:${a.port}/admin/rooms`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ roomId }),
  })
  if (r.status !== 201) throw new Error(`room creation: ${r.status} ${await r.text()}`)
}

/** Keep-alive connections for the posts: node:http costs this process far less CPU per request than fetch. */
const postAgent = new Agent({ keepAlive: true, maxSockets: 32 })

/** post_event through node A's MCP endpoint; resolves false on any failure. */
function post(roomId: string, i: number): Promise<boolean> {
  const args = {
    room_id: roomId,
    agent_id: 'bench-poster',
    type: 'status',
    text: `event ${i}`,
    data: { i, t: performance.now() },
  }
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: i,
    method: 'tools/call',
    params: { name: 'post_event', arguments: args },
  })
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: a.port,
        path: '/mcp',
        method: 'POST',
        agent: postAgent,
        headers: { ...mcpHeaders, 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => (text += d))
        res.on('end', () => resolve(res.statusCode === 200 && !text.includes('"isError":true')))
      },
    )
    req.on('error', () => resolve(false))
    req.end(body)
  })
}

/** Posts `n` events at `rate` through A, open loop; resolves with how many succeeded. */
async function postAtRate(roomId: string, n: number): Promise<number> {
  const pending: Promise<boolean>[] = []
  const started = performance.now()
  let sent = 0
  while (sent < n) {
    const due = Math.min(n, Math.floor(((performance.now() - started) / 1000) * rate) + 1)
    while (sent < due) pending.push(post(roomId, sent++))
    await new Promise((r) => setTimeout(r, 2))
  }
  return (await Promise.all(pending)).filter(Boolean).length
}

// Warm-up (not measured): JIT of both nodes' post and stream paths, and of this process.
await createRoom('warmup')
const warm = openClient(b.port, 'warmup', key)
await until(() => warm.connected, 30_000)
await postAtRate('warmup', rate * 2)
warm.close()

const what = values.floor ? 'floor: stand-in nodes A and B (bench/floor-node.ts)' : 'nodes A and B'
console.log(
  `# ${new Date().toISOString()} node ${process.version}; ${what} on one Redis; ${rate} events/s for ` +
    `${seconds} s through A; SSE clients on B${values.listen ? ', and as many listen streams' : ''}`,
)
for (const k of clientCounts) {
  const roomId = `lat-${k}`
  await createRoom(roomId)
  published.clear()
  eventOrder.length = 0
  const unwatch = await watchPublishes(redis.port, roomId)
  const clients = Array.from({ length: k }, () => openClient(b.port, roomId, key))
  const listeners = values.listen
    ? Array.from({ length: k }, (_, j) => openListener(b.port, roomId, key, `listener-${j}`, j + 1))
    : []
  if (!(await until(() => clients.every((c) => c.connected) && listeners.every((l) => l.connected), 30_000)))
    throw new Error(`${k} clients did not connect`)
  await new Promise((r) => setTimeout(r, 500)) // the streams follow the room a moment after "connected"

  // Open loop at a steady rate: every tick sends what is due, without waiting for replies.
  const total = rate * seconds
  const started = performance.now()
  const cpu0 = [cpuSeconds(a.proc.pid!), cpuSeconds(b.proc.pid!), cpuSeconds(process.pid)]
  const ok = await postAtRate(roomId, total)
  const postSeconds = (performance.now() - started) / 1000
  await until(
    () => clients.every((c) => c.ids.length >= ok) && listeners.every((l) => l.arrivals.length >= eventOrder.length),
    10_000,
  )
  const wall = (performance.now() - started) / 1000
  const cpu = [cpuSeconds(a.proc.pid!), cpuSeconds(b.proc.pid!), cpuSeconds(process.pid)].map(
    (x, i) => (100 * (x - cpu0[i]!)) / wall,
  )

  const all = clients.flatMap((c) => c.latencies).sort((x, y) => x - y)
  const received = clients.reduce((n, c) => n + new Set(c.ids).size, 0)
  const dups = clients.reduce((n, c) => n + c.ids.length - new Set(c.ids).size, 0)
  const outOfOrder = clients.reduce((n, c) => n + c.outOfOrder, 0)
  const label = `sse-latency clients=${k} rate=${rate}/s`
  console.log(`${label} posted: ${ok} of ${total} in ${fmt(postSeconds, 1)} s`)
  console.log(`${label} p50: ${fmt(percentile(all, 50), 2)} ms`)
  console.log(`${label} p99: ${fmt(percentile(all, 99), 2)} ms`)
  console.log(`${label} max: ${fmt(all.at(-1) ?? NaN, 2)} ms`)
  const split = (xs: number[]) => {
    xs.sort((x, y) => x - y)
    return `p50 ${fmt(percentile(xs, 50), 2)} ms, p99 ${fmt(percentile(xs, 99), 2)} ms`
  }
  console.log(`${label} sent -> published (post on A): ${split(clients.flatMap((c) => c.toPublish))}`)
  console.log(`${label} published -> frame (delivery by B): ${split(clients.flatMap((c) => c.fromPublish))}`)
  console.log(`${label} frames: ${all.length}`)
  console.log(`${label} lost: ${ok * k - received}`)
  console.log(`${label} duplicates: ${dups}`)
  console.log(`${label} out of order: ${outOfOrder}`)
  console.log(
    `${label} cpu (% of one core): node A ${fmt(cpu[0]!, 0)}, node B ${fmt(cpu[1]!, 0)}, this load generator ` +
      `${fmt(cpu[2]!, 0)}`,
  )
  // % of a core over `wall` seconds -> µs per frame.
  console.log(`${label} node B cpu per frame: ${fmt((cpu[1]! * wall * 1e4) / Math.max(1, all.length), 1)} µs`)
  if (values.listen) {
    // The n-th notification of a stream is the room's n-th new event.
    const lat: number[] = []
    const fromPublish: number[] = []
    for (const l of listeners)
      l.arrivals.forEach((at, n) => {
        const e = eventOrder[n]
        if (e?.t === undefined) return
        lat.push(at - e.t)
        const p = published.get(e.i!)
        if (p !== undefined) fromPublish.push(at - p)
      })
    lat.sort((x, y) => x - y)
    const got = listeners.reduce((n, l) => n + l.arrivals.length, 0)
    const ll = `${label} listen`
    console.log(`${ll} p50: ${fmt(percentile(lat, 50), 2)} ms`)
    console.log(`${ll} p99: ${fmt(percentile(lat, 99), 2)} ms`)
    console.log(`${ll} max: ${fmt(lat.at(-1) ?? NaN, 2)} ms`)
    console.log(`${ll} published -> notification (delivery by B): ${split(fromPublish)}`)
    console.log(`${ll} notifications: ${got} for ${eventOrder.length} events x ${k} streams`)
    console.log(
      `${ll} lost: ${Math.max(0, eventOrder.length * k - got)}, extra: ${Math.max(0, got - eventOrder.length * k)}`,
    )
    const sseDelivery = clients.flatMap((c) => c.fromPublish).sort((x, y) => x - y)
    fromPublish.sort((x, y) => x - y)
    const ratio = (x: number[], y: number[], p: number) => fmt(percentile(x, p) / percentile(y, p), 2)
    console.log(`${ll} / sse: p50 ${ratio(lat, all, 50)}x, p99 ${ratio(lat, all, 99)}x`)
    console.log(
      `${ll} / sse, delivery by B alone: p50 ${ratio(fromPublish, sseDelivery, 50)}x, p99 ` +
        `${ratio(fromPublish, sseDelivery, 99)}x`,
    )
  }
  for (const c of clients) c.close()
  for (const l of listeners) l.close()
  unwatch()
}

postAgent.destroy()
await a.stop()
await b.stop()
await redis.stop()
if (values.profile) for (const line of profileSummary(profileDir, 30)) console.log(`node B ${line}`)
