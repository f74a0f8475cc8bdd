// tools/call throughput and latency on one node for heartbeat, post_event, get_unread_events and
// an update_task claim, against a reference server built the SDK's documented way (Express +
// stateless Streamable HTTP, a new server per request) doing the same Redis work, in the same run
// on the same Redis. --floor compares with bench/floor-node.ts instead: the least work a node can
// do for the same request shapes (this machine's floor); then the p99 ratio is printed too.
// Also the size of tools/list in tokens (full set and core profile).
// Load comes from wrk (Debian package `wrk`, C, one thread) when it is installed, else autocannon:
// autocannon is JavaScript and on this 2-core machine takes about as much CPU as the node it
// drives, which caps what any server can show; wrk costs a fraction of that (bench/HISTORY.md).
//   npx tsx bench/mcp-throughput.ts [--duration 10] [--connections 50] [--rounds 3] [--tools
//   heartbeat,post_event] [--loader wrk|autocannon] [--floor]
import autocannon from 'autocannon'
import { countTokens as claudeTokens } from '@anthropic-ai/tokenizer'
import { encode as o200k } from 'gpt-tokenizer'
import { execFile, execFileSync } from 'node:child_process'
import { parseArgs, promisify } from 'node:util'
import {
  BENCH_CALLS,
  benchRoom,
  callBody,
  defaultKey,
  fmt,
  startChild,
  startRedis,
  wrkScript,
  type ChildNode,
} from './lib.js'

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    tools: { type: 'string' },
    loader: { type: 'string' },
    floor: { type: 'boolean', default: false },
  },
})
const hasWrk = (() => {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' })
    return true
  } catch (err) {
    return typeof (err as { status?: number | null }).status === 'number' // wrk --version exits 1 but exists
  }
})()
const loader = values.loader ?? (hasWrk ? 'wrk' : 'autocannon')
if (loader !== 'wrk' && loader !== 'autocannon') throw new Error('--loader: wrk or autocannon')
const duration = Number(values.duration)
const connections = Number(values.connections)
const rounds = Number(values.rounds)

const redis = await startRedis()
const env = {
  REDIS_URL: `redis://127.0.0.1:${redis.port}`,
  RATE_LIMIT_PER_MIN: '10000000',
  RATE_LIMIT_PER_CREDENTIAL_PER_MIN: '5000000',
}
const ours = await startChild('src/main.ts', env)
const key = await defaultKey(ours)
const otherName = values.floor ? 'floor' : 'reference'
const other = await startChild(values.floor ? 'bench/floor-node.ts' : 'bench/reference-server.ts', env)
await benchRoom(ours.port, key)

const headers = {
  Authorization: `Bearer ${key}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
}

async function check(node: ChildNode, name: string): Promise<void> {
  const r = await fetch(`http://127.0.0.1:${node.port}/mcp`, { method: 'POST', headers, body: callBody(name) })
  const text = await r.text()
  if (r.status !== 200 || text.includes('"isError":true') || !text.includes('room_id'))
    throw new Error(`${name} on :${node.port}: ${r.status} ${text.slice(0, 300)}`)
}

/** Runs wrk with a Lua script that sends `body` with `headers`; parses its summary. */
async function wrk(url: string, name: string) {
  const script = wrkScript(`agentrooms-wrk-${name}`, callBody(name), headers)
  const { stdout } = await promisify(execFile)('wrk', [
    '-t1',
    `-c${connections}`,
    `-d${duration}s`,
    '--latency',
    '-s',
    script,
    url,
  ])
  const ms = (label: string) => {
    const m = new RegExp(`^\\s+${label}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(stdout)
    if (!m) return NaN
    return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1)
  }
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1])
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0)
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout)
  const errors = non2xx + (socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0)
  return { rps, p50: ms('50'), p99: ms('99'), errors }
}

async function load(node: ChildNode, name: string) {
  if (loader === 'wrk') return wrk(`http://127.0.0.1:${node.port}/mcp`, name)
  const r = await autocannon({
    url: `http://127.0.0.1:${node.port}/mcp`,
    method: 'POST',
    headers,
    body: callBody(name),
    connections,
    duration,
  })
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx + r.timeouts }
}

console.log(
  `# ${new Date().toISOString()} node ${process.version}, ${loader}, ${connections} connections, ${duration} ` +
    `s per run, ${rounds} rounds, against the ${otherName}`,
)
// Each round runs agentrooms and the other node back to back (which goes first alternates), so a
// slow spell of the (shared) machine hits both; the ratios reported are the medians of the rounds'.
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
const only = values.tools?.split(',')
const names = Object.keys(BENCH_CALLS).filter((n) => !only || only.includes(n))
// The reference server answers the first three tools only.
for (const name of values.floor ? names : names.filter((n) => n !== 'update_task')) {
  await check(ours, name)
  await check(other, name)
  const ratios: number[] = []
  const tails: number[] = []
  for (let round = 1; round <= rounds; round++) {
    const pair = round % 2 ? [ours, other] : [other, ours]
    const first = await load(pair[0]!, name)
    const second = await load(pair[1]!, name)
    const [a, b] = round % 2 ? [first, second] : [second, first]
    ratios.push(a.rps / b.rps)
    tails.push(a.p99 / b.p99)
    for (const [label, x] of [
      ['agentrooms', a],
      [otherName, b],
    ] as const)
      console.log(
        `${name} round ${round} ${label}: ${fmt(x.rps, 0)} calls/s p50 ${x.p50} ms p99 ${x.p99} ms errors ${x.errors}`,
      )
  }
  const list = (xs: number[]) => xs.map((r) => fmt(r, 2)).join(', ')
  console.log(`${name} calls/s ratio: median ${fmt(median(ratios), 2)}x (rounds: ${list(ratios)})`)
  if (values.floor) console.log(`${name} p99 ratio: median ${fmt(median(tails), 2)}x (rounds: ${list(tails)})`)
}

async function toolsList(profile: string): Promise<string> {
  const r = await fetch(`http://127.0.0.1:${ours.port}/mcp${profile}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })
  const j = (await r.json()) as { result: { tools: unknown[] } }
  return JSON.stringify(j.result.tools)
}
for (const [label, profile] of [
  ['full', ''],
  ['core', '?profile=core'],
] as const) {
  const text = await toolsList(profile)
  console.log(
    `tools/list ${label}: ${JSON.parse(text).length} tools, ${text.length} bytes, ${claudeTokens(text)} ` +
      `tokens (Claude tokenizer), ${o200k(text).length} tokens (o200k)`,
  )
}

await ours.stop()
await other.stop()
await redis.stop()
