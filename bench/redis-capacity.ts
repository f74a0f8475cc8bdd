// What one Redis can carry: for each tool of the typical turn (the replies of bench/tokens.ts, in a
// room of 20 tasks), --calls tools/call through one node (a child process) with --concurrency in
// flight, and Redis's cost of them: scripts per call (EVALSHA, INFO commandstats), time inside
// scripts per call (their usec), and the Redis main thread's CPU per call (INFO cpu: scripts,
// networking and parsing; what saturates a Redis). The node's own CPU per call too, so the
// capacity on paper follows: calls/s of one Redis core at the typical turn's mix, how many node
// cores feed it, and the same for a Cluster of --masters masters (rooms spread over the slots).
// Then the cost of streams to Redis: post_event again with K connections subscribed to the room's
// channel (--fanout; each stands for a node with streams of the room: a node subscribes a room
// once, however many of its streams follow it), Redis CPU per post and per subscribed node, and
// where adding nodes that follow a busy room stops adding posts per second.
//   npx tsx bench/redis-capacity.ts [--calls 3000] [--concurrency 16] [--masters 3] [--fanout 0,1,4,16]
import { execFileSync } from 'node:child_process'
import { Agent, request } from 'node:http'
import { parseArgs } from 'node:util'
import { Redis } from 'ioredis'
import { Keys } from '../src/store/keys.js'
import { cpuMs, defaultKey, fmt, mcpHeaders, NO_RATE_LIMIT, STANDARD_TITLES, startChild, startRedis } from './lib.js'

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '16' },
    masters: { type: 'string', default: '3' },
    fanout: { type: 'string', default: '0,1,4,16' },
  },
})
const calls = Number(values.calls)
const concurrency = Number(values.concurrency)
const masters = Number(values.masters)
const fanouts = values.fanout.split(',').map(Number)
const ROOM = 'capacity'
const PREFIX = 'bench'

/** The typical turn (src/mcp/host.ts INSTRUCTIONS, as bench/tokens.ts runs it): tool, arguments. */
const TURN: [string, Record<string, unknown>][] = [
  ['heartbeat', {}],
  ['get_my_summary', {}],
  ['get_unblocked_tasks', {}],
  // The holder's repeated claim: the claim path without exhausting the plan.
  ['update_task', { task_id: 't1', status: 'in_progress' }],
  ['acquire_lock', { name: 'file:src/api/rate-limit.ts' }],
  ['post_event', { type: 'status', text: 'Claimed t1; working on src/api/rate-limit.ts' }],
  ['release_lock', { name: 'file:src/api/rate-limit.ts' }],
]

const redis = await startRedis()
const node = await startChild('src/main.ts', {
  REDIS_URL: `redis://127.0.0.1:${redis.port}`,
  KEY_PREFIX: PREFIX,
  ...NO_RATE_LIMIT,
})
const key = await defaultKey(node)
const headers = mcpHeaders(key)
const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
const cli = (...a: string[]) => execFileSync('redis-cli', ['-p', String(redis.port), ...a], { encoding: 'utf8' })

/** One tools/call as `who` in the room; rejects unless it succeeds. */
function call(name: string, args: Record<string, unknown>, who = 'backend'): Promise<void> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: { room_id: ROOM, agent_id: who, ...args } },
  })
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: node.port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: { ...headers, 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => (text += d))
        res.on('end', () =>
          res.statusCode === 200 && !text.includes('"isError":true')
            ? resolve()
            : reject(new Error(`${name}: ${res.statusCode} ${text.slice(0, 300)}`)),
        )
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

/** `n` calls of `name`, `concurrency` in flight. */
async function run(name: string, args: Record<string, unknown>, n: number): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next++
        await call(name, args)
      }
    }),
  )
}

/** Redis's figures since the last CONFIG RESETSTAT: EVALSHA calls and usec, main-thread CPU (ms). */
function redisStats(): { scripts: number; scriptUs: number; cpuMs: number } {
  const stats = cli('INFO', 'commandstats')
  let scripts = 0
  let scriptUs = 0
  for (const m of stats.matchAll(/cmdstat_(evalsha|evalsha_ro|fcall|fcall_ro):calls=(\d+),usec=(\d+)/g)) {
    scripts += Number(m[2])
    scriptUs += Number(m[3])
  }
  const info = cli('INFO', 'cpu')
  const field = (f: string) => Number(new RegExp(`${f}:([\\d.]+)`).exec(info)?.[1] ?? NaN)
  return { scripts, scriptUs, cpuMs: (field('used_cpu_user_main_thread') + field('used_cpu_sys_main_thread')) * 1000 }
}

try {
  const created = await fetch(`http://127.0.0.1:${node.port}/admin/rooms`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ roomId: ROOM }),
  })
  if (created.status !== 201) throw new Error(`room creation: ${created.status} ${await created.text()}`)
  for (const [i, title] of STANDARD_TITLES.entries())
    await call('add_task', { title, notes: `Acceptance: covered by a test (step ${i + 1}).` }, 'planner')
  for (const [name, args] of TURN) await run(name, args, 200) // warm-up: JIT, script cache

  console.log(
    `# ${new Date().toISOString()} node ${process.version}; one node, one Redis; ${calls} calls per tool, ` +
      `${concurrency} in flight; room of ${STANDARD_TITLES.length} tasks`,
  )
  let turnRedisUs = 0
  let turnNodeUs = 0
  for (const [name, args] of TURN) {
    cli('CONFIG', 'RESETSTAT')
    const r0 = redisStats()
    const n0 = cpuMs(node.proc.pid!)
    await run(name, args, calls)
    const n1 = cpuMs(node.proc.pid!)
    const r1 = redisStats()
    const redisUs = ((r1.cpuMs - r0.cpuMs) * 1000) / calls
    const nodeUs = ((n1 - n0) * 1000) / calls
    turnRedisUs += redisUs
    turnNodeUs += nodeUs
    console.log(
      `redis-capacity ${name}: ${fmt(r1.scripts / calls, 2)} scripts per call, ${fmt(r1.scriptUs / calls, 1)} us in ` +
        `scripts, Redis main thread ${fmt(redisUs, 1)} us CPU per call, node ${fmt(nodeUs, 0)} us CPU per call`,
    )
  }
  const perCall = turnRedisUs / TURN.length
  const redisCalls = 1e6 / perCall
  const nodeCalls = (1e6 * TURN.length) / turnNodeUs
  console.log(
    `redis-capacity typical turn (${TURN.length} calls): Redis ${fmt(turnRedisUs, 0)} us, node ${fmt(turnNodeUs, 0)} ` +
      `us of CPU`,
  )
  console.log(
    `redis-capacity one Redis: ${fmt(redisCalls, 0)} calls/s (${fmt(redisCalls / TURN.length, 0)} turns/s) at ` +
      `its main thread's full core; one node core: ${fmt(nodeCalls, 0)} calls/s; node cores to saturate one ` +
      `Redis: ${fmt(redisCalls / nodeCalls, 1)}`,
  )
  console.log(
    `redis-capacity Cluster of ${masters} masters: ${fmt(masters * redisCalls, 0)} calls/s with rooms spread over ` +
      `the slots (one room stays on one master: at most ${fmt(redisCalls, 0)} calls/s a room); node cores to ` +
      `saturate it: ${fmt((masters * redisCalls) / nodeCalls, 1)}`,
  )

  // Streams: each post's notice goes to every connection subscribed to the room's channel.
  const channel = new Keys(PREFIX).room({ teamId: 'default', roomId: ROOM }).channel
  const post = TURN.find(([name]) => name === 'post_event')!
  const perPost = new Map<number, number>()
  for (const k of fanouts) {
    const subs = Array.from({ length: k }, () => new Redis(redis.port, '127.0.0.1'))
    let got = 0
    for (const s of subs) s.on('smessageBuffer', () => got++)
    await Promise.all(subs.map((s) => s.ssubscribe(channel)))
    cli('CONFIG', 'RESETSTAT')
    const r0 = redisStats()
    await run(post[0], post[1], calls)
    const r1 = redisStats()
    const deadline = Date.now() + 10_000
    while (got < k * calls && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    for (const s of subs) s.disconnect()
    const us = ((r1.cpuMs - r0.cpuMs) * 1000) / calls
    perPost.set(k, us)
    console.log(
      `redis-capacity post_event with ${k} subscribed connections: Redis main thread ${fmt(us, 1)} us CPU per post; ` +
        `notices received ${got} of ${k * calls}`,
    )
  }
  // Least squares over the runs: Redis CPU per post = base + each x subscribed connections.
  const pts = [...perPost]
  if (pts.length >= 2) {
    const mk = pts.reduce((x, [k]) => x + k, 0) / pts.length
    const mu = pts.reduce((x, [, us]) => x + us, 0) / pts.length
    const each = pts.reduce((x, [k, us]) => x + (k - mk) * (us - mu), 0) / pts.reduce((x, [k]) => x + (k - mk) ** 2, 0)
    const base = mu - each * mk
    const posts = (n: number) => 1e6 / (base + each * n)
    console.log(
      `redis-capacity streams: each node following a room adds ${fmt(each, 1)} us of Redis CPU to each post of ` +
        `it (fit: ${fmt(base, 1)} us with none); posts/s one Redis carries in a room followed from 1, 3, 10, 30 ` +
        `nodes: ${[1, 3, 10, 30].map((n) => fmt(posts(n), 0)).join(', ')}`,
    )
  }
} finally {
  agent.destroy()
  await node.stop()
  await redis.stop()
}
