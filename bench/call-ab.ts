// The node's own CPU per MCP tools/call, this work tree against another commit, paired in one
// process: a node of each tree (compiled the same way, tsconfig.bench.json), each on a Redis of its
// own, is served requests through its whole edge (src/http/exchange.ts onwards: headers, the
// chain, authentication, the rate charge, the MCP pipeline, the tool, the store, the reply) by an
// in-process stand-in for uWebSockets.js, so what is timed is the node's JavaScript and its garbage
// plus the Redis write, without the HTTP socket's system calls or a load generator sharing the
// cores. `--inflight` calls run at once (as many connections would), so the store's writes of a
// loop turn leave together as they do under load. CPU time of this process (process.cpuUsage) over
// a batch of calls, rounds alternating which tree goes first (ABBA), ratio taken per round; also
// the time V8 spent collecting garbage per call (PerformanceObserver 'gc': the pauses' wall time,
// so on a loaded machine it counts preemption too). --base HEAD against the work tree with nothing
// changed is the A/A control.
//   npx tsx bench/call-ab.ts --base <commit> [--tools heartbeat,post_event,get_unread_events,update_task]
//   [--rounds 10] [--batch 3000] [--inflight 50] [--heap [--top 25]]
// --heap then samples where the work tree's calls allocate (V8's sampling heap profiler, objects
// already collected included) over one batch per tool: bytes per call by allocating function, and
// the base's total per call.
import { Session } from 'node:inspector/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { PerformanceObserver } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import type * as ConfigModule from '../src/config.js'
import type * as NodeModule from '../src/node.js'
import type * as LoggerModule from '../src/shared/logger.js'
import {
  BENCH_CALLS,
  callBody,
  checkout,
  compiled,
  fmt,
  inProcessSettings,
  percentile,
  startRedis,
  toolCall,
} from './lib.js'

const { values } = parseArgs({
  options: {
    base: { type: 'string', default: 'HEAD' },
    tools: { type: 'string', default: 'heartbeat,post_event,get_unread_events,update_task' },
    rounds: { type: 'string', default: '10' },
    batch: { type: 'string', default: '3000' },
    inflight: { type: 'string', default: '50' },
    heap: { type: 'boolean', default: false },
    top: { type: 'string', default: '25' },
  },
})
const ROUNDS = Number(values.rounds)
const BATCH = Number(values.batch)
const INFLIGHT = Number(values.inflight)
const TOOLS = values.tools!.split(',')
/** Lines of the --heap listing per tool. */
const TOP = Number(values.top)
for (const t of TOOLS) if (!BENCH_CALLS[t]) throw new Error(`--tools: unknown bench tool ${t}`)

type Handler = (res: FakeResponse, req: FakeRequest) => void
/** The handler of the last app made through the stand-in (each node makes one as it starts). */
let lastHandler: Handler | undefined

/** A stand-in for uWS.HttpRequest: what exchange.ts reads while the handler runs. */
class FakeRequest {
  constructor(
    private readonly method: string,
    private readonly url: string,
    private readonly headers: readonly (readonly [string, string])[],
  ) {}
  forEach(fn: (k: string, v: string) => void): void {
    for (const [k, v] of this.headers) fn(k, v)
  }
  getCaseSensitiveMethod(): string {
    return this.method
  }
  getUrl(): string {
    return this.url
  }
  getQuery(): string | undefined {
    return undefined
  }
}

const PEER = new TextEncoder().encode('127.0.0.1').buffer

/** A stand-in for uWS.HttpResponse: keeps the status and body, and tells when the response ended. */
class FakeResponse {
  status = ''
  body = ''
  private data: ((chunk: ArrayBuffer, last: boolean) => void) | undefined
  constructor(private readonly done: (res: FakeResponse) => void) {}
  onAborted(): this {
    return this
  }
  onData(fn: (chunk: ArrayBuffer, last: boolean) => void): this {
    this.data = fn
    return this
  }
  /** Delivers the body (uWS copies it into a buffer it reuses, hence a fresh one each time). */
  deliver(body: ArrayBuffer): void {
    this.data?.(body.slice(0), true)
  }
  cork(fn: () => void): this {
    fn()
    return this
  }
  writeStatus(s: string): this {
    this.status = s
    return this
  }
  writeHeader(): this {
    return this
  }
  write(): boolean {
    return true
  }
  end(body?: string | ArrayBuffer): this {
    this.body = typeof body === 'string' ? body : ''
    this.done(this)
    return this
  }
  endWithoutBody(): this {
    this.done(this)
    return this
  }
  close(): this {
    return this
  }
  onWritable(): this {
    return this
  }
  getRemoteAddressAsText(): ArrayBuffer {
    return PEER
  }
}

// uWebSockets.js as both trees load it (createRequire(...)('uWebSockets.js') in exchange.ts, one
// node_modules): its App made by the stand-in, its functions shown as native ones (exchange.ts
// refuses a JavaScript fallback by looking for "[native code]").
const require = createRequire(import.meta.url)
const uwsPath = require.resolve('uWebSockets.js')
const native = <F extends (...a: never[]) => unknown>(f: F): F => f.bind(null) as F
const fakeUws = {
  App: native(() => {
    const app = {
      any: (_: string, h: Handler) => ((lastHandler = h), app),
      listen: (_h: string, _p: number, cb: (s: object) => void) => (cb({}), app),
    }
    return app
  }),
  us_socket_local_port: native(() => 1),
  us_listen_socket_close: native(() => undefined),
}
require.cache[uwsPath] = { id: uwsPath, filename: uwsPath, loaded: true, exports: fakeUws } as NodeJS.Module

interface Tree {
  label: string
  /** `n` calls of `tool`, INFLIGHT at a time; throws on an answer that is not a success. */
  run(tool: string, n: number): Promise<void>
  stop(): Promise<void>
}

async function load(label: string, dist: string): Promise<Tree> {
  const { ServiceNode } = (await import(join(dist, 'node.js'))) as typeof NodeModule
  const { defaultSettings } = (await import(join(dist, 'config.js'))) as typeof ConfigModule
  const { createLogger } = (await import(join(dist, 'shared', 'logger.js'))) as typeof LoggerModule
  const redis = await startRedis()
  const node = new ServiceNode(defaultSettings(inProcessSettings(redis.port)), {
    log: createLogger('silent'),
    defaultMetrics: false,
  })
  lastHandler = undefined
  await node.start()
  const handler = lastHandler as Handler | undefined
  if (!handler) throw new Error(`${label}: the node made no app through the uWebSockets.js stand-in`)
  const key = (await node.teams.create({ name: 'bench', teamId: 'tm-bench' })).key!
  const headers: [string, string][] = [
    ['host', '127.0.0.1:1'],
    ['authorization', `Bearer ${key}`],
    ['content-type', 'application/json'],
    ['accept', 'application/json, text/event-stream'],
  ]
  const call = (method: string, url: string, body: ArrayBuffer): Promise<FakeResponse> =>
    new Promise((resolve) => {
      const res = new FakeResponse(resolve)
      handler(res, new FakeRequest(method, url, [...headers, ['content-length', String(body.byteLength)]]))
      res.deliver(body)
    })
  const bytes = (s: string) => new TextEncoder().encode(s).buffer
  const expect = async (p: Promise<FakeResponse>, what: string, ok = '200 OK') => {
    const r = await p
    if (r.status !== ok || r.body.includes('"isError":true')) throw new Error(`${label} ${what}: ${r.status} ${r.body}`)
  }
  await expect(call('POST', '/admin/rooms', bytes(JSON.stringify({ roomId: 'bench' }))), 'room', '201 Created')
  const addTask = bytes(toolCall('add_task', { room_id: 'bench', agent_id: 'bench-agent', title: 'bench task' }))
  await expect(call('POST', '/mcp', addTask), 'add_task')
  const bodies = new Map(TOOLS.map((t) => [t, bytes(callBody(t))]))
  return {
    label,
    async run(tool, n) {
      const body = bodies.get(tool)!
      let left = n
      const worker = async () => {
        while (left > 0) {
          left--
          await expect(call('POST', '/mcp', body), tool)
        }
      }
      await Promise.all(Array.from({ length: Math.min(INFLIGHT, n) }, worker))
    },
    stop: async () => (await node.stop(2000), await redis.stop()),
  }
}

let gcMs = 0
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration
}).observe({ entryTypes: ['gc'] })

/** CPU µs and GC µs per call over a batch. */
async function batch(tree: Tree, tool: string): Promise<{ cpu: number; gc: number }> {
  const gcBefore = gcMs
  const started = process.cpuUsage()
  await tree.run(tool, BATCH)
  const d = process.cpuUsage(started)
  // The observer hears of collections a moment after them: let it catch up.
  await new Promise((r) => setImmediate(r))
  return { cpu: (d.user + d.system) / BATCH, gc: ((gcMs - gcBefore) * 1000) / BATCH }
}

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number }
  selfSize: number
  children: HeapNode[]
}

/** Bytes per call allocated by each function over one batch of `tool` on `tree` (top 25 lines). */
async function heapProfile(tree: Tree, tool: string): Promise<string[]> {
  const session = new Session()
  session.connect()
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  })
  await tree.run(tool, BATCH)
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: HeapNode } }
  session.disconnect()
  const by = new Map<string, number>()
  let total = 0
  const walk = (n: HeapNode) => {
    const f = n.callFrame
    const where = f.url.replace(/.*\/(dist-bench|node_modules)\//, '')
    const k = `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`
    by.set(k, (by.get(k) ?? 0) + n.selfSize)
    total += n.selfSize
    n.children.forEach(walk)
  }
  walk(profile.head)
  const rows = [...by].sort((x, y) => y[1] - x[1]).slice(0, TOP)
  return [
    `${tool}: ${fmt(total / BATCH / 1024, 2)} KB allocated per call (sampled)`,
    ...rows.map(([k, b]) => `  ${String(Math.round(b / BATCH)).padStart(6)} B  ${k}`),
  ]
}

const base = await checkout(values.base!)
const trees: Tree[] = []
try {
  const work = await compiled('src/main.ts')
  trees.push(await load('work', join(work, '..')))
  trees.push(await load(base.sha, join(base.main, '..')))
  const [a, b] = trees as [Tree, Tree]
  const sorted = (xs: number[]) => [...xs].sort((x, y) => x - y)
  const med = (xs: number[]) => percentile(sorted(xs), 50)
  console.log(
    `# ${new Date().toISOString()} call-ab: ${ROUNDS} rounds (ABBA) of ${BATCH} calls, ${INFLIGHT} in flight; ` +
      `work tree against ${base.sha}`,
  )
  for (const tool of ROUNDS > 0 ? TOOLS : []) {
    await batch(a, tool) // warm-up: JIT, caches, connections
    await batch(b, tool)
    const seen = { a: [] as { cpu: number; gc: number }[], b: [] as { cpu: number; gc: number }[] }
    for (let r = 0; r < ROUNDS; r++) {
      if (r % 2 === 0) {
        seen.a.push(await batch(a, tool))
        seen.b.push(await batch(b, tool))
      } else {
        seen.b.push(await batch(b, tool))
        seen.a.push(await batch(a, tool))
      }
    }
    const ratios = sorted(seen.a.map((x, i) => x.cpu / seen.b[i]!.cpu))
    console.log(
      `${tool}: work ${fmt(med(seen.a.map((x) => x.cpu)))} µs CPU (GC ${fmt(med(seen.a.map((x) => x.gc)))}), ` +
        `${base.sha} ${fmt(med(seen.b.map((x) => x.cpu)))} µs (GC ${fmt(med(seen.b.map((x) => x.gc)))}) per call; ` +
        `work/${base.sha} per round: median ${fmt(percentile(ratios, 50), 3)} ` +
        `(p10 ${fmt(percentile(ratios, 10), 3)}, p90 ${fmt(percentile(ratios, 90), 3)})`,
    )
  }
  if (values.heap)
    for (const tool of TOOLS) {
      const [work, other] = [await heapProfile(a, tool), await heapProfile(b, tool)]
      console.log([...work, `  ${base.sha}: ${other[0]!}`].join('\n'))
    }
} finally {
  for (const t of trees) await t.stop().catch(() => undefined)
  base.remove()
}
