// The fault bench: each fault on Redis processes and service nodes of its own (nodes as
// child processes, so one can be killed with SIGKILL), under a steady load of post_event calls
// (idempotency keys, retried on another node until acknowledged), with one SSE follower and one
// wait_for_events loop that fail over between nodes. Prints one table:
//   acked lost    acknowledged posts missing from the room afterwards (0 except the AOF window)
//   dup           posts stored twice, plus events a follower or waiter got twice
//   error window  from the fault to the last failed call (ms)
//   statuses      what failed calls answered (HTTP status, tool error code, or network error)
//   recovered     calls succeed afterwards without restarting any node
//   resumed       the SSE follower and the waiter got every acknowledged event, without a gap
// and the revocation row: ms from DELETE to the end of an open stream and of a parked wait.
//
//   npx tsx bench/faults.ts [--only name] [--load-s 9]
import { createRequire } from 'node:module'
import { parseArgs } from 'node:util'
import { Redis } from 'ioredis'
import { killableRedis, type KillableRedis } from '../test/helpers/faults.js'
import { startCluster, type RedisCluster } from '../test/helpers/redis.js'
import { parseFrames } from '../test/helpers/sse.js'
import { defaultKey, startChild, type ChildNode } from './lib.js'

const slotOf = createRequire(import.meta.url)('cluster-key-slot') as (key: string) => number
const { values: opts } = parseArgs({
  options: { only: { type: 'string' }, 'load-s': { type: 'string', default: '9' } },
})
const LOAD_MS = Number(opts['load-s']) * 1000
const WORKERS = 4
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

interface ToolOutcome {
  ok: boolean
  status: string
  body?: Record<string, unknown>
}

async function callTool(
  base: string,
  key: string,
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<ToolOutcome> {
  try {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
      signal,
    })
    const text = await res.text()
    if (res.status !== 200)
      return { ok: false, status: `${res.status} ${/"code":"(\w+)"/.exec(text)?.[1] ?? ''}`.trim() }
    const json = text.startsWith('{')
      ? JSON.parse(text)
      : JSON.parse(
          parseFrames(text)
            .frames.filter((f) => f.data)
            .at(-1)!.data!,
        )
    const result = json.result as { isError?: boolean; content: { text: string }[] }
    const body = JSON.parse(result.content[0]!.text) as Record<string, unknown>
    if (result.isError) return { ok: false, status: `tool ${(body.error as { code: string }).code}` }
    return { ok: true, status: '200', body }
  } catch (err) {
    return { ok: false, status: (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name }
  }
}

/** Round-robin over the nodes, leaving out one that refused a connection (as a load balancer's health check would). */
class Nodes {
  constructor(readonly bases: string[]) {}
  private i = 0
  private readonly downUntil = new Map<string, number>()
  next(): string {
    for (let k = 0; k < this.bases.length; k++) {
      const b = this.bases[this.i++ % this.bases.length]!
      if ((this.downUntil.get(b) ?? 0) <= Date.now()) return b
    }
    return this.bases[this.i++ % this.bases.length]!
  }
  failed(base: string, status: string): void {
    if (/^E[A-Z]+$|UND_ERR|TypeError/.test(status)) this.downUntil.set(base, Date.now() + 60_000)
  }
}

interface Measure {
  acked: Map<string, string>
  failures: { at: number; status: string; ms: number }[]
  streamGot: string[]
  streamGaps: number
  waiterGot: string[]
  stop: boolean
}

/** Posts until `m.stop`, each text retried on the next node (same idempotency key) until acknowledged. */
async function loadWorker(nodes: Nodes, key: string, room: string, w: number, m: Measure): Promise<void> {
  for (let i = 0; !m.stop; i++) {
    const text = `w${w}-${i}`
    for (;;) {
      const base = nodes.next()
      const sent = Date.now()
      const r = await callTool(base, key, 'post_event', {
        room_id: room,
        agent_id: `poster${w}`,
        type: 'status',
        text,
        idempotency_key: text,
      })
      if (r.ok) {
        m.acked.set(text, (r.body!.event as { id: string }).id)
        break
      }
      m.failures.push({ at: Date.now(), status: r.status, ms: Date.now() - sent })
      nodes.failed(base, r.status)
      if (m.stop) return
      await sleep(100)
    }
    await sleep(20)
  }
}

/** An SSE follower that reconnects (next node, Last-Event-ID) whenever its stream ends or fails. */
async function follower(nodes: Nodes, key: string, room: string, m: Measure, done: AbortSignal): Promise<void> {
  let last: string | undefined
  while (!done.aborted) {
    try {
      const headers: Record<string, string> = { Authorization: `Bearer ${key}` }
      if (last) headers['Last-Event-ID'] = last
      const res = await fetch(`${nodes.next()}/rooms/${room}/stream`, { headers, signal: done })
      if (res.status !== 200 || !res.body) throw new Error(String(res.status))
      const reader = res.body.getReader()
      const dec = new TextDecoder()
      let rest = ''
      for (;;) {
        const { done: end, value } = await reader.read()
        if (end) break
        const parsed = parseFrames(rest + dec.decode(value, { stream: true }))
        rest = parsed.rest
        for (const f of parsed.frames) {
          if (f.event === 'gap') m.streamGaps++
          if (f.id === undefined) continue
          last = f.id
          m.streamGot.push((JSON.parse(f.data!) as { text: string }).text)
        }
      }
    } catch {
      // reconnect below
    }
    if (!done.aborted) await sleep(200)
  }
}

/**
 * wait_for_events in a loop; a call that fails is sent again with the same idempotency key on the
 * next node, so events it consumed before its node died come back (docs/mcp.md). Drains what is
 * left at the end.
 */
async function waiter(nodes: Nodes, key: string, room: string, m: Measure, done: AbortSignal): Promise<void> {
  for (let n = 0; !done.aborted; n++) {
    for (;;) {
      const base = nodes.next()
      const r = await callTool(
        base,
        key,
        'wait_for_events',
        { room_id: room, agent_id: 'waiter', timeout_s: 2, limit: 100, idempotency_key: `wait-${n}` },
        done,
      )
      if (r.ok) {
        for (const e of r.body!.events as { text: string }[]) m.waiterGot.push(e.text)
        break
      }
      nodes.failed(base, r.status)
      if (done.aborted) return
      await sleep(200)
    }
  }
}

async function drainWaiter(base: string, key: string, room: string, m: Measure): Promise<void> {
  for (;;) {
    const r = await callTool(base, key, 'get_unread_events', { room_id: room, agent_id: 'waiter', limit: 100 })
    if (!r.ok) return
    const evs = r.body!.events as { text: string }[]
    for (const e of evs) m.waiterGot.push(e.text)
    if (evs.length === 0) return
  }
}

/** Every event text of the room, oldest first (read_events pages). */
async function roomTexts(base: string, key: string, room: string): Promise<string[]> {
  const out: string[] = []
  let after: string | undefined
  for (;;) {
    let r = await callTool(base, key, 'read_events', {
      room_id: room,
      agent_id: 'auditor',
      limit: 100,
      ...(after ? { after } : { after: '0-0' }),
    })
    for (let tries = 0; !r.ok && tries < 100; tries++) {
      await sleep(200)
      r = await callTool(base, key, 'read_events', {
        room_id: room,
        agent_id: 'auditor',
        limit: 100,
        ...(after ? { after } : { after: '0-0' }),
      })
    }
    if (!r.ok) throw new Error(`read_events: ${r.status}`)
    const evs = r.body!.events as { id: string; text: string }[]
    out.push(...evs.map((e) => e.text))
    if (evs.length < 100) return out
    after = evs.at(-1)!.id
  }
}

interface Row {
  fault: string
  acked: number
  lost: number
  dup: number
  windowMs: number
  slowestFailMs: number
  statuses: string
  recovered: boolean
  resumed: string
}

/**
 * Runs load, follower and waiter over `bases`; calls `fault()` after a third of LOAD_MS (it
 * resolves when the fault is over: the node killed, Redis back, ...), keeps the load on for
 * LOAD_MS more, then checks one call goes through and measures.
 */
async function scenario(
  name: string,
  bases: string[],
  key: string,
  room: string,
  fault: () => Promise<void>,
): Promise<Row> {
  const nodes = new Nodes(bases)
  const m: Measure = { acked: new Map(), failures: [], streamGot: [], streamGaps: 0, waiterGot: [], stop: false }
  const done = new AbortController()
  const side = [
    follower(new Nodes([...bases].reverse()), key, room, m, done.signal),
    waiter(new Nodes(bases), key, room, m, done.signal),
  ]
  await sleep(500)
  const workers = Array.from({ length: WORKERS }, (_, w) => loadWorker(nodes, key, room, w, m))
  await sleep(LOAD_MS / 3)
  const faultAt = Date.now()
  await fault()
  await sleep(LOAD_MS)
  m.stop = true
  await Promise.all(workers)
  const recovered = (
    await callTool(nodes.next(), key, 'post_event', {
      room_id: room,
      agent_id: 'check',
      type: 'status',
      text: 'after',
      idempotency_key: 'after',
    })
  ).ok
  await sleep(1500)
  done.abort()
  await Promise.allSettled(side)
  const live = bases.at(-1)!
  await drainWaiter(live, key, room, m)
  const texts = (await roomTexts(live, key, room)).filter((t) => t !== 'after')
  const inRoom = new Set(texts)
  const acked = [...m.acked.keys()]
  const lost = acked.filter((t) => !inRoom.has(t)).length
  const dupOf = (xs: string[]) => xs.length - new Set(xs).size
  const streamMissing = acked.filter((t) => inRoom.has(t) && !m.streamGot.includes(t)).length
  const waiterMissing = acked.filter((t) => inRoom.has(t) && !m.waiterGot.includes(t)).length
  const dup =
    dupOf(texts) + dupOf(m.streamGot.filter((t) => t !== 'after')) + dupOf(m.waiterGot.filter((t) => t !== 'after'))
  const failedAfter = m.failures.filter((f) => f.at >= faultAt)
  const windowMs = failedAfter.length === 0 ? 0 : failedAfter.at(-1)!.at - faultAt
  const counts = new Map<string, number>()
  for (const f of m.failures) counts.set(f.status, (counts.get(f.status) ?? 0) + 1)
  const statuses = ['200', ...[...counts].map(([s, n]) => `${s}×${n}`)].join(', ')
  const resumed =
    streamMissing === 0 && waiterMissing === 0
      ? m.streamGaps === 0
        ? 'yes'
        : `yes, ${m.streamGaps} gap frame(s)`
      : `no: stream missed ${streamMissing}, waiter ${waiterMissing}`
  const slowestFailMs = Math.max(0, ...m.failures.map((f) => f.ms))
  return { fault: name, acked: acked.length, lost, dup, windowMs, slowestFailMs, statuses, recovered, resumed }
}

async function nodesOn(env: Record<string, string>, n = 2): Promise<{ nodes: ChildNode[]; key: string }> {
  const nodes: ChildNode[] = []
  for (let i = 0; i < n; i++)
    nodes.push(
      await startChild('src/main.ts', {
        RATE_LIMIT_PER_MIN: '1000000',
        RATE_LIMIT_PER_CREDENTIAL_PER_MIN: '500000',
        ...env,
      }),
    )
  return { nodes, key: await defaultKey(nodes[0]!) }
}

async function createRoom(base: string, key: string, roomId: string): Promise<string> {
  const res = await fetch(`${base}/admin/rooms`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ roomId }),
  })
  if (res.status !== 201 && res.status !== 200) throw new Error(`create room: ${res.status} ${await res.text()}`)
  return roomId
}

const bases = (nodes: ChildNode[]) => nodes.map((n) => `http://127.0.0.1:${n.port}`)

async function onStandalone(
  name: string,
  fsync: 'always' | 'everysec',
  fault: (r: KillableRedis, nodes: ChildNode[]) => Promise<void>,
): Promise<Row> {
  const redis = await killableRedis([], fsync)
  const { nodes, key } = await nodesOn({ REDIS_URL: `redis://127.0.0.1:${redis.port}` })
  try {
    const room = await createRoom(bases(nodes)[0]!, key, 'fault-room')
    return await scenario(name, bases(nodes), key, room, () => fault(redis, nodes))
  } catch (err) {
    // A node that died is the finding: say what it said.
    for (const n of nodes)
      if (n.proc.exitCode !== null && n.proc.signalCode === null)
        process.stderr.write(`node :${n.port} exited ${n.proc.exitCode}:\n${n.output()}\n`)
    throw err
  } finally {
    await Promise.all(nodes.map((n) => (n.proc.exitCode === null && n.proc.signalCode === null ? n.stop() : undefined)))
    await redis.remove()
  }
}

async function onCluster(name: string, which: 'room' | 'team'): Promise<Row> {
  const cluster: RedisCluster = await startCluster(3, 1)
  const { nodes, key } = await nodesOn({ REDIS_CLUSTER_NODES: cluster.seeds })
  const admin = new Redis(cluster.nodes[0]!.port, '127.0.0.1')
  // With full coverage required (Redis' default) every slot stops while any master is lost, so
  // the team scenario lets the healthy shards serve: what it measures is the service's own part.
  if (which === 'team') {
    await Promise.all(
      cluster.nodes.map(async (n) => {
        const c = new Redis(n.port, '127.0.0.1')
        await c.config('SET', 'cluster-require-full-coverage', 'no')
        c.disconnect()
      }),
    )
  }
  try {
    const slots = (await admin.cluster('SLOTS')) as unknown as [number, number, [string, number]][]
    const portOf = (slot: number) => slots.find(([lo, hi]) => slot >= lo && slot <= hi)![2][1]
    const teamPort = portOf(slotOf('ar:{t:default}:rate'))
    let roomId = ''
    for (let i = 0; ; i++) {
      roomId = `fault-${i}`
      const p = portOf(slotOf(`ar:{r:default/${roomId}}:meta`))
      if (p !== teamPort) break // the room and the team's rate key on different shards: one fault each
    }
    const roomPort = portOf(slotOf(`ar:{r:default/${roomId}}:meta`))
    await createRoom(bases(nodes)[0]!, key, roomId)
    const victim = cluster.nodes.find((n) => n.port === (which === 'room' ? roomPort : teamPort))!
    return await scenario(name, bases(nodes), key, roomId, async () => {
      victim.proc.kill('SIGKILL')
    })
  } finally {
    admin.disconnect()
    await Promise.all(nodes.map((n) => n.stop()))
    await cluster.stop()
  }
}

/** ms from the revoking DELETE to the end of an open stream and of a parked wait of that key, on the other node. */
async function revocation(): Promise<string> {
  const redis = await killableRedis()
  const { nodes, key } = await nodesOn({ REDIS_URL: `redis://127.0.0.1:${redis.port}` })
  try {
    const [a, b] = bases(nodes) as [string, string]
    const room = await createRoom(a, key, 'revoke-room')
    const minted = (await (
      await fetch(`${a}/admin/keys`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: '{}',
      })
    ).json()) as { key: string; keyId: string }
    await callTool(b, minted.key, 'get_unread_events', { room_id: room, agent_id: 'w', limit: 100 })
    const res = await fetch(`${b}/rooms/${room}/stream`, { headers: { Authorization: `Bearer ${minted.key}` } })
    const streamEnd = (async () => {
      const reader = res.body!.getReader()
      let text = ''
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return { at: Date.now(), revoked: text.includes('event: revoked') }
        text += new TextDecoder().decode(value)
      }
    })()
    const waitEnd = callTool(b, minted.key, 'wait_for_events', { room_id: room, agent_id: 'w', timeout_s: 20 }).then(
      (r) => ({ at: Date.now(), status: r.status }),
    )
    await sleep(500)
    const since = Date.now()
    await fetch(`${a}/admin/keys/${minted.keyId}`, { method: 'DELETE', headers: { Authorization: `Bearer ${key}` } })
    const [s, w] = await Promise.all([streamEnd, waitEnd])
    return (
      `stream ended ${s.at - since} ms after (${s.revoked ? 'event: revoked' : 'no revoked frame'}); wait ` +
      `returned ${w.at - since} ms after (${w.status})`
    )
  } finally {
    await Promise.all(nodes.map((n) => n.stop()))
    await redis.remove()
  }
}

const SCENARIOS: Record<string, () => Promise<Row>> = {
  'node kill -9': () =>
    onStandalone('node kill -9', 'always', async (_r, nodes) => {
      nodes[0]!.proc.kill('SIGKILL')
    }),
  'Redis stop (SIGTERM), 2 s, start': () =>
    onStandalone('Redis stop (SIGTERM), 2 s, start', 'everysec', async (r) => {
      await r.kill('SIGTERM')
      await sleep(2000)
      await r.start()
    }),
  'Redis kill -9 (AOF everysec), 2 s, start': () =>
    onStandalone('Redis kill -9 (AOF everysec), 2 s, start', 'everysec', async (r) => {
      await r.kill('SIGKILL')
      await sleep(2000)
      await r.start()
    }),
  'Redis stalled (SIGSTOP) for 3 s, SIGCONT': () =>
    onStandalone('Redis stalled (SIGSTOP) for 3 s, SIGCONT', 'always', async (r) => {
      r.signal('SIGSTOP')
      await sleep(3000)
      r.signal('SIGCONT')
    }),
  'Redis full for 2 s': () =>
    onStandalone('Redis full for 2 s', 'always', async (r) => {
      const admin = new Redis(r.port, '127.0.0.1')
      const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1])
      await admin.config('SET', 'maxmemory', String(used - 1024))
      await sleep(2000)
      await admin.config('SET', 'maxmemory', '0')
      admin.disconnect()
    }),
  "cluster: room's master kill -9 (failover)": () => onCluster("cluster: room's master kill -9 (failover)", 'room'),
  "cluster: team's master kill -9, room on another shard (full coverage off)": () =>
    onCluster("cluster: team's master kill -9, room on another shard (full coverage off)", 'team'),
}

const rows: Row[] = []
for (const [name, run] of Object.entries(SCENARIOS)) {
  if (opts.only && !name.includes(opts.only)) continue
  process.stderr.write(`${name}...\n`)
  rows.push(await run())
}
const header = [
  'fault',
  'acked',
  'acked lost',
  'dup',
  'error window ms',
  'slowest failed call ms',
  'statuses seen',
  'recovered (no restart)',
  'streams/waiters resumed',
]
console.log(`| ${header.join(' | ')} |`)
console.log(`|${header.map(() => '---').join('|')}|`)
for (const r of rows)
  console.log(
    `| ${r.fault} | ${r.acked} | ${r.lost} | ${r.dup} | ${r.windowMs} | ${r.slowestFailMs} | ${r.statuses} | ` +
      `${r.recovered ? 'yes' : 'NO'} | ${r.resumed} |`,
  )
if (!opts.only || 'revocation'.includes(opts.only))
  console.log(
    `| revocation during an open stream and a parked wait (other node) | — | — | — | — | — | 401 | — | ` +
      `${await revocation()} |`,
  )
process.exit(0)
