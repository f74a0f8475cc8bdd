// Node CPU per MCP tools/call, measured as the node process's CPU time (user + system, from
// /proc) over a fixed request rate: unlike calls/s under saturation, this figure hardly moves
// when other work shares the machine, so optimisations can be compared one by one.
//   npx tsx bench/cpu-per-call.ts [--tool heartbeat] [--rate 1500] [--duration 6]
import autocannon from 'autocannon'
import { execFileSync } from 'node:child_process'
import { parseArgs } from 'node:util'
import { BENCH_CALLS, cpuMs, startBenchNode, toolCall } from './lib.js'

const { values } = parseArgs({
  options: {
    tool: { type: 'string', default: 'heartbeat' },
    rate: { type: 'string', default: '1500' },
    duration: { type: 'string', default: '6' },
  },
})
const { redis, node, headers } = await startBenchNode()
const body = toolCall(values.tool, BENCH_CALLS[values.tool] ?? { room_id: 'bench', agent_id: 'bench-agent' })
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
