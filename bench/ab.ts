// Saturated calls/s of this work tree against another commit, in alternating runs. On this
// machine the same code moves ±30% between minutes (bench/HISTORY.md), so a change is only seen in
// runs interleaved this closely: A, B, A, B, ... each for a few seconds, one node at a time, each
// node on its own Redis. Needs wrk. The other commit is checked out as a git worktree in a
// temporary folder (sharing this tree's node_modules) and built like this one.
// --base-tree DIR takes an existing checkout with node_modules of its own instead (another
// dependency tree: an older uWebSockets.js build, say), and --base-node PATH runs it on another
// Node binary: together they compare runtimes (BENCHMARKS.md: Node 20 against Node 22).
// --rate N measures CPU instead: node and Redis CPU time per call (from /proc) at a fixed N
// calls/s (autocannon), which moves less with the machine than calls/s at saturation.
// --stream N measures the room stream: N SSE clients follow the room (GET /rooms/bench/stream) on
// each node while post_event runs; the figure is the event frames the clients got per second
// (saturated), or with --rate the node and Redis CPU time per post, its N deliveries included.
//   npx tsx bench/ab.ts [--base HEAD | --base-tree DIR] [--base-node PATH] [--tool post_event]
//   [--runs 6] [--duration 5] [--connections 50] [--rate 1500] [--stream 50]
import autocannon from 'autocannon'
import { execFile, execFileSync } from 'node:child_process'
import { request } from 'node:http'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { parseArgs, promisify } from 'node:util'
import {
  benchRoom,
  callBody,
  checkout,
  cpuMs,
  compiled,
  defaultKey,
  startChild,
  startRedis,
  wrkScript,
  type ChildNode,
} from './lib.js'

const { values } = parseArgs({
  options: {
    base: { type: 'string', default: 'HEAD' },
    'base-tree': { type: 'string' },
    'base-node': { type: 'string' },
    tool: { type: 'string', default: 'post_event' },
    runs: { type: 'string', default: '6' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    rate: { type: 'string' },
    stream: { type: 'string' },
  },
})
const streams = values.stream === undefined ? 0 : Number(values.stream)
if (streams > 0 && values.tool !== 'post_event') throw new Error('--stream: the posting load is post_event')
const tool = values.tool!
const body = callBody(tool)

/** SSE clients of one node's room "bench": the event frames they got so far, and whether one ended. */
interface Followers {
  frames: number
  ended: number
  close(): void
}

/** Opens `n` SSE clients on the room "bench" of :port; resolves once every one has its headers. */
async function follow(port: number, key: string, n: number): Promise<Followers> {
  const f: Followers = { frames: 0, ended: 0, close: () => {} }
  const closers: (() => void)[] = []
  f.close = () => closers.forEach((c) => c())
  await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<void>((resolve, reject) => {
          const req = request(
            {
              host: '127.0.0.1',
              port,
              path: '/rooms/bench/stream',
              agent: false,
              headers: { Authorization: `Bearer ${key}`, Accept: 'text/event-stream' },
            },
            (res) => {
              if (res.statusCode !== 200) return reject(new Error(`stream: ${res.statusCode}`))
              res.setEncoding('utf8')
              // An event frame carries "id: <event id>" on a line of its own; keep-alives do not.
              let tail = ''
              res.on('data', (chunk: string) => {
                const text = tail + chunk
                let at = text.indexOf('\nid: ')
                while (at >= 0) {
                  f.frames++
                  at = text.indexOf('\nid: ', at + 5)
                }
                tail = text.slice(-5)
              })
              res.on('close', () => f.ended++)
              resolve()
            },
          )
          req.on('error', (err) => (closers.length < n ? reject(err) : undefined))
          req.end()
          closers.push(() => req.destroy())
        }),
    ),
  )
  return f
}

const nodeVersion = (path: string) => execFileSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()
const baseNode = values['base-node'] ?? process.execPath
const own = values['base-tree'] === undefined ? await checkout(values.base!) : undefined
const tree = own?.tree ?? values['base-tree']!
const baseSha =
  own?.sha ?? execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: tree, encoding: 'utf8' }).trim()
const sha = `${baseSha}${values['base-node'] ? `@node${nodeVersion(baseNode)}` : ''}`
try {
  if (!own) {
    const tsc = createRequire(join(tree, 'package.json')).resolve('typescript/bin/tsc')
    await promisify(execFile)(baseNode, [tsc, '-p', join(tree, 'tsconfig.bench.json')], { cwd: tree })
  }
  const builds = { work: await compiled('src/main.ts'), [sha]: join(tree, 'dist-bench', 'src', 'main.js') }
  console.log(`work tree on Node ${process.versions.node}; ${sha} in ${tree} on Node ${nodeVersion(baseNode)}`)

  const nodes: {
    label: string
    node: ChildNode
    redisPid: number
    stop: () => Promise<void>
    key: string
    followers?: Followers
  }[] = []
  for (const [label, main] of Object.entries(builds)) {
    const redis = await startRedis()
    const node = await startChild(
      main,
      {
        REDIS_URL: `redis://127.0.0.1:${redis.port}`,
        RATE_LIMIT_PER_MIN: '10000000',
        RATE_LIMIT_PER_CREDENTIAL_PER_MIN: '5000000',
      },
      undefined,
      [],
      label === 'work' ? process.execPath : baseNode,
    )
    const key = await defaultKey(node)
    await benchRoom(node.port, key).catch((err: Error) => {
      throw new Error(`${label}: ${err.message}`)
    })
    const followers = streams > 0 ? await follow(node.port, key, streams) : undefined
    nodes.push({
      label,
      node,
      key,
      redisPid: redis.proc.pid!,
      followers,
      stop: async () => (followers?.close(), await node.stop(), await redis.stop()),
    })
  }

  const wrk = async (n: (typeof nodes)[number]): Promise<number> => {
    const headers = {
      Authorization: `Bearer ${n.key}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    }
    const script = wrkScript(`ar-ab-${n.label}`, body, headers)
    const framesBefore = n.followers?.frames ?? 0
    const { stdout } = await promisify(execFile)('wrk', [
      '-t1',
      `-c${values.connections}`,
      `-d${values.duration}s`,
      '-s',
      script,
      `http://127.0.0.1:${n.node.port}/mcp`,
    ])
    if (/Non-2xx/.test(stdout)) throw new Error(`${n.label}: errors under load:\n${stdout}`)
    if (!n.followers) return Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)![1])
    if (n.followers.ended > 0) throw new Error(`${n.label}: ${n.followers.ended} room streams ended under load`)
    return (n.followers.frames - framesBefore) / Number(values.duration)
  }

  /** Node + Redis CPU µs per call at the fixed rate. */
  const cpu = async (n: (typeof nodes)[number]): Promise<number> => {
    const headers = {
      Authorization: `Bearer ${n.key}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    }
    const before = cpuMs(n.node.proc.pid!) + cpuMs(n.redisPid)
    const r = await autocannon({
      url: `http://127.0.0.1:${n.node.port}/mcp`,
      method: 'POST',
      headers,
      body,
      connections: 20,
      overallRate: Number(values.rate),
      duration: Number(values.duration),
    })
    if (r.non2xx > 0) throw new Error(`${n.label}: ${r.non2xx} errors`)
    if (n.followers?.ended) throw new Error(`${n.label}: ${n.followers.ended} room streams ended under load`)
    return ((cpuMs(n.node.proc.pid!) + cpuMs(n.redisPid) - before) * 1000) / r.requests.total
  }
  const measure = values.rate ? cpu : wrk
  const unit = values.rate
    ? `us CPU per call (node + Redis)${streams ? `, ${streams} room streams following` : ''}`
    : streams
      ? `event frames/s to ${streams} room streams`
      : 'calls/s'

  const seen = new Map<string, number[]>(nodes.map((n) => [n.label, []]))
  await Promise.all(nodes.map((n) => measure({ ...n }).catch(() => 0))) // warm-up: JIT, script caches
  for (let i = 0; i < Number(values.runs); i++) {
    // Alternate which goes first, so neither always follows the other.
    for (const n of i % 2 ? [...nodes].reverse() : nodes) {
      const x = await measure(n)
      seen.get(n.label)!.push(x)
      console.log(`run ${i + 1} ${n.label}: ${Math.round(x)} ${unit}`)
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const [a, b] = [median(seen.get('work')!), median(seen.get(sha)!)]
  const pairs = seen.get('work')!.map((x, i) => x / seen.get(sha)![i]!)
  console.log(
    `${streams ? 'room stream' : tool}: work tree ${Math.round(a)}, ${sha} ${Math.round(b)} ${unit} (medians); ` +
      `work/${sha} per run: ` +
      `${pairs.map((p) => p.toFixed(2)).join(' ')}, median ${median(pairs).toFixed(2)}`,
  )
  for (const n of nodes) await n.stop()
} finally {
  own?.remove()
}
