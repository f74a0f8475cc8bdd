// Where the CPU goes when one node is saturated: wrk drives a tools/call at full speed, and this
// reads from /proc how much of a core the node and Redis used (user + kernel, and the kernel
// part alone), how busy the whole machine was, and the node's CPU per call. On this 2-core
// machine it tells which process limits calls/s: a node at 100% of its core is the limit, and
// only less node CPU per call raises calls/s. --gc adds the node's scavenges (--trace-gc-nvp):
// how often, how long, and how much each promoted.
//   npx tsx bench/saturation.ts [--tool post_event] [--connections 50] [--duration 8] [--gc]
//   [--node-args "--max-semi-space-size=32"]
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { parseArgs, promisify } from 'node:util'
import { callBody, defaultKey, startChild, startRedis, wrkScript } from './lib.js'

const { values } = parseArgs({
  options: {
    tool: { type: 'string', default: 'post_event' },
    connections: { type: 'string', default: '50' },
    duration: { type: 'string', default: '8' },
    gc: { type: 'boolean', default: false },
    'node-args': { type: 'string', default: '' },
  },
})
const tool = values.tool!
const body = callBody(tool)
const nodeArgs = [...values['node-args']!.split(' ').filter(Boolean), ...(values.gc ? ['--trace-gc-nvp'] : [])]

const redis = await startRedis()
const node = await startChild(
  'src/main.ts',
  {
    REDIS_URL: `redis://127.0.0.1:${redis.port}`,
    RATE_LIMIT_PER_MIN: '10000000',
    RATE_LIMIT_PER_CREDENTIAL_PER_MIN: '5000000',
  },
  undefined,
  nodeArgs,
)
const key = await defaultKey(node)
const headers = {
  Authorization: `Bearer ${key}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
}
const created = await fetch(`http://127.0.0.1:${node.port}/admin/rooms`, {
  method: 'POST',
  headers,
  body: JSON.stringify({ roomId: 'bench' }),
})
if (created.status !== 201) throw new Error(`room creation: ${created.status}`)
const script = wrkScript(`agentrooms-saturation-${tool}`, body, headers)
const wrk = (seconds: string) =>
  promisify(execFile)('wrk', [
    '-t1',
    `-c${values.connections}`,
    `-d${seconds}s`,
    '-s',
    script,
    `http://127.0.0.1:${node.port}/mcp`,
  ])

/** A process's CPU time so far in ms: user + kernel, and kernel alone (/proc, USER_HZ = 100). */
function cpu(pid: number): { all: number; sys: number } {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return { all: (Number(f[11]) + Number(f[12])) * 10, sys: Number(f[12]) * 10 }
}
/** The machine's busy and total jiffies so far (/proc/stat, all cores). */
function machine(): { busy: number; all: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number)
  const all = f.reduce((a, b) => a + b, 0)
  return { busy: all - f[3]! - f[4]!, all }
}

await wrk('3') // warm-up: JIT, script cache, the feed at its retention limit
const gcBefore = node.output().length
const [n0, r0, m0, t0] = [cpu(node.proc.pid!), cpu(redis.proc.pid!), machine(), Date.now()]
const { stdout } = await wrk(values.duration!)
const [n1, r1, m1, ms] = [cpu(node.proc.pid!), cpu(redis.proc.pid!), machine(), Date.now() - t0]
if (/Non-2xx/.test(stdout)) throw new Error(`errors under load:\n${stdout}`)
const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)![1])
const pct = (x: number) => `${Math.round((100 * x) / ms)}%`
const cores = readFileSync('/proc/cpuinfo', 'utf8')
  .split('\n')
  .filter((l) => l.startsWith('processor')).length
console.log(
  `# ${new Date().toISOString()} ${tool}, wrk ${values.connections} connections, ${values.duration} ` +
    `s${nodeArgs.length ? `, node ${nodeArgs.join(' ')}` : ''}`,
)
console.log(
  `${Math.round(rps)} calls/s; node ${pct(n1.all - n0.all)} of a core (kernel ${pct(n1.sys - n0.sys)}), ` +
    `Redis ${pct(r1.all - r0.all)} (kernel ${pct(r1.sys - r0.sys)}); machine ` +
    `${Math.round((100 * cores * (m1.busy - m0.busy)) / (m1.all - m0.all))}% of ${cores * 100}%`,
)
console.log(
  `per call: node ${(((n1.all - n0.all) * 1000) / (rps * (ms / 1000))).toFixed(1)} us, Redis ` +
    `${(((r1.all - r0.all) * 1000) / (rps * (ms / 1000))).toFixed(1)} us`,
)

if (values.gc) {
  // --trace-gc-nvp prints one line per GC: gc=s for a scavenge, gc=mc / gc=mmc for mark-compact.
  const lines = node.output().slice(gcBefore).split('\n')
  const scavenges = lines.filter((l) => / gc=s /.test(l))
  const field = (l: string, k: string) => Number(new RegExp(` ${k}=([\\d.]+)`).exec(l)?.[1] ?? NaN)
  const mean = (k: string) => scavenges.reduce((a, l) => a + field(l, k), 0) / Math.max(1, scavenges.length)
  const pause = scavenges.reduce((a, l) => a + field(l, 'pause'), 0)
  console.log(
    `scavenges: ${scavenges.length} (${(scavenges.length / (ms / 1000)).toFixed(0)}/s), mean pause ` +
      `${mean('pause').toFixed(2)} ms, ${pct(pause)} of the time; ` +
      (`each: ${(mean('allocated') / 1e6).toFixed(1)} MB allocated, ` +
        `${(mean('new_space_survived') / 1e6).toFixed(2)} MB survived, ${(mean('promoted') / 1e6).toFixed(2)} ` +
        `MB promoted; `) +
      `mark-compacts: ${lines.filter((l) => / gc=mm?c /.test(l)).length}`,
  )
}
await node.stop()
await redis.stop()
