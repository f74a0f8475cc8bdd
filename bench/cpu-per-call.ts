// Node CPU per MCP tools/call, measured as the node process's CPU time (user + system, from
// /proc) over a fixed request rate: unlike calls/s under saturation, this figure hardly moves
// when other work shares the machine, so optimisations can be compared one by one.
//   npx tsx bench/cpu-per-call.ts [--tool heartbeat] [--rate 1500] [--duration 6]
import autocannon from 'autocannon'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { defaultKey, startChild, startRedis } from './lib.js'

const { values } = parseArgs({
  options: {
    tool: { type: 'string', default: 'heartbeat' },
    rate: { type: 'string', default: '1500' },
    duration: { type: 'string', default: '6' },
  },
})
const ticks = 100 // USER_HZ on Linux

function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(f[11]) + Number(f[12])) * 1000) / ticks
}

const redis = await startRedis()
const node = await startChild('src/main.ts', {
  REDIS_URL: `redis://127.0.0.1:${redis.port}`,
  RATE_LIMIT_PER_MIN: '10000000',
  RATE_LIMIT_PER_CREDENTIAL_PER_MIN: '5000000',
})
const key = await defaultKey(node)
const headers = {
  Authorization: `Bearer ${key}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
}
await fetch(`http://127.0.0.1:${node.port}/admin/rooms`, {
  method: 'POST',
  headers,
  body: JSON.stringify({ roomId: 'bench' }),
})
const args: Record<string, unknown> = {
  room_id: 'bench',
  agent_id: 'a',
  ...(values.tool === 'post_event' ? { type: 'status', text: 'x' } : {}),
}
const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: values.tool, arguments: args },
})
const opts = {
  url: `http://127.0.0.1:${node.port}/mcp`,
  method: 'POST' as const,
  headers,
  body,
  connections: 20,
  overallRate: Number(values.rate),
}
await autocannon({ ...opts, duration: 2 }) // warm-up: JIT, script cache, lazy code
const redisCli = (...a: string[]) => execFileSync('redis-cli', ['-p', String(redis.port), ...a], { encoding: 'utf8' })
redisCli('CONFIG', 'RESETSTAT')
const before = cpuMs(node.proc.pid!)
const r = await autocannon({ ...opts, duration: Number(values.duration) })
const used = cpuMs(node.proc.pid!) - before
// Redis time per call: every script run by EVALSHA (the tool's own, the rate check batched per team).
const evalsha = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(redisCli('INFO', 'commandstats'))
const redisUs = evalsha ? Math.round(Number(evalsha[2]) / r.requests.total) : NaN
console.log(
  `${values.tool}: ${r.requests.total} calls, node CPU ${Math.round((used * 1000) / r.requests.total)} ` +
    `us/call, Redis ${redisUs} us/call, p50 ${r.latency.p50} ms p99 ${r.latency.p99} ms, non2xx ${r.non2xx}`,
)
await node.stop()
await redis.stop()
