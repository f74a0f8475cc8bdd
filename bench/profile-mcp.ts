// CPU profile of one node under a tools/call load (heartbeat by default), for finding hot spots:
//   npx tsx bench/profile-mcp.ts [--tool heartbeat] [--duration 6]
// Writes a .cpuprofile to /tmp/agentrooms-prof (open it in Chrome DevTools) and prints the
// functions with the most self time.
import autocannon from 'autocannon'
import { rmSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { BENCH_CALLS, profileSummary, startBenchNode, toolCall } from './lib.js'

const { values } = parseArgs({
  options: { tool: { type: 'string', default: 'heartbeat' }, duration: { type: 'string', default: '6' } },
})
const dir = '/tmp/agentrooms-prof'
rmSync(dir, { recursive: true, force: true })
const { redis, node, headers } = await startBenchNode(['--cpu-prof', `--cpu-prof-dir=${dir}`])
const body = toolCall(values.tool, BENCH_CALLS[values.tool] ?? { room_id: 'bench', agent_id: 'bench-agent' })
const rate = process.env.RATE ? { overallRate: Number(process.env.RATE) } : {}
const r = await autocannon({
  url: `http://127.0.0.1:${node.port}/mcp`,
  method: 'POST',
  headers,
  body,
  connections: 50,
  duration: Number(values.duration),
  ...rate,
})
// (warm-up is part of the profile; use --duration long enough to dwarf it)
console.log(`${values.tool}: ${Math.round(r.requests.average)} calls/s p99 ${r.latency.p99} ms non2xx ${r.non2xx}`)
await node.stop()
await redis.stop()

for (const line of profileSummary(dir, 40)) console.log(line)
