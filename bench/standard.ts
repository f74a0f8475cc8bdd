// The standard set (`npm run bench`): the benchmarks behind the "Current figures" table of
// BENCHMARKS.md, one after another, each with the arguments its row names, each in its own
// process (each starts and stops its own Redis and nodes). Takes 10-15 minutes.
//   npm run bench [-- --only mcp-throughput,search]
// Prints a header line per benchmark, then its own lines; exits non-zero when one failed (the
// others still run).
import { spawnSync } from 'node:child_process'
import { parseArgs } from 'node:util'

/** name → arguments after `node`; BENCHMARKS.md shows each as the command to run it alone. */
export const STANDARD: Record<string, string[]> = {
  'mcp-throughput': ['--import', 'tsx', 'bench/mcp-throughput.ts', '--rounds', '3'],
  'mcp-floor': ['--import', 'tsx', 'bench/mcp-throughput.ts', '--floor', '--rounds', '3', '--duration', '5'],
  'script-cost': ['--import', 'tsx', 'bench/script-cost.ts'],
  'sse-latency': ['--import', 'tsx', 'bench/sse-latency.ts'],
  'sse-floor': ['--import', 'tsx', 'bench/sse-latency.ts', '--floor'],
  'sse-idle': ['--import', 'tsx', 'bench/sse-idle.ts'],
  search: ['--expose-gc', '--import', 'tsx', 'bench/search.ts', '--queries', '500'],
  'webhook-throughput': ['--import', 'tsx', 'bench/webhook-throughput.ts'],
}

const { values } = parseArgs({ options: { only: { type: 'string' } } })
const names = values.only ? values.only.split(',') : Object.keys(STANDARD)
const unknown = names.filter((n) => !(n in STANDARD))
if (unknown.length) {
  console.error(`--only: no benchmark named ${unknown.join(', ')}; the set is ${Object.keys(STANDARD).join(', ')}`)
  process.exit(2)
}
const failed: string[] = []
for (const name of names) {
  console.log(`# ${name}: node ${STANDARD[name]!.join(' ')} (${new Date().toISOString()})`)
  const r = spawnSync(process.execPath, STANDARD[name]!, { stdio: 'inherit' })
  if (r.status !== 0) failed.push(`${name} (exit ${r.status ?? r.signal})`)
}
if (failed.length) {
  console.error(`failed: ${failed.join(', ')}`)
  process.exit(1)
}
