// Shared pieces of the benchmarks: a Redis of their own, service nodes as child processes (so the
// load generator never shares their event loop), and percentile helpers.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process'
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { freePort, redisArgs, startRedis, waitForPing, type RedisProcess } from '../test/helpers/redis.js'

export { freePort, startRedis, waitForPing, type RedisProcess }

export interface ChildNode {
  port: number
  proc: ChildProcess
  /** Output printed so far (the default team key is printed once at first start). */
  output(): string
  stop(): Promise<void>
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
let build: Promise<unknown> | undefined

/**
 * The compiled JavaScript of a TypeScript file of this repository (`src/main.ts` ->
 * `dist-bench/src/main.js`), built with tsc once per bench run (tsconfig.bench.json, incremental),
 * with the dashboard's assets the compiled node serves (dist-bench/assets).
 * Servers under measurement run compiled, as `npm start` and the container run them: under tsx
 * the same node made 8-20% fewer calls/s (bench/HISTORY.md).
 */
export async function compiled(script: string): Promise<string> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  build ??= promisify(execFile)(process.execPath, [tsc, '-p', join(root, 'tsconfig.bench.json')], { cwd: root })
    .catch((err: { stdout?: string }) => {
      throw new Error(`tsc -p tsconfig.bench.json failed:\n${err.stdout ?? String(err)}`)
    })
    .then(() => buildAssets(root))
  await build
  return join(root, 'dist-bench', script.replace(/\.ts$/, '.js'))
}

/**
 * Writes the dashboard's assets of the tree at `tree` into its dist-bench/assets, where its compiled
 * node reads them (a compiled node refuses to start without them), with the tree's own compiled
 * bundler. A tree whose sources have no bundler needs none and is left as it is.
 */
async function buildAssets(tree: string): Promise<void> {
  const bundler = join(tree, 'dist-bench', 'src', 'dashboard', 'bundle.js')
  if (!existsSync(bundler)) return
  const { writeAssets } = (await import(pathToFileURL(bundler).href)) as {
    writeAssets?: (root: string, dir: string) => Promise<unknown>
  }
  if (writeAssets) await writeAssets(tree, join(tree, 'dist-bench', 'assets'))
}

/**
 * Starts a server of this repository (`src/main.ts`, `bench/reference-server.ts`, ...) as a child
 * process running its compiled JavaScript (see compiled()) with `env`, on the Node binary `node`
 * (this one by default); waits until `GET /health` answers.
 */
export async function startChild(
  script: string,
  env: Record<string, string>,
  port?: number,
  nodeArgs: string[] = [],
  node = process.execPath,
): Promise<ChildNode> {
  const p = port ?? (await freePort())
  let out = ''
  const proc = spawn(node, [...nodeArgs, script.endsWith('.ts') ? await compiled(script) : script], {
    env: { ...process.env, LOG_LEVEL: 'warn', PORT: String(p), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  const until = Date.now() + 30_000
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${p}/health`)
      if (r.ok) break
    } catch {
      // not up yet
    }
    if (proc.exitCode !== null) throw new Error(`${script} exited: ${out}`)
    if (Date.now() > until) throw new Error(`${script} did not start: ${out}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    port: p,
    proc,
    output: () => out,
    async stop() {
      if (proc.exitCode !== null) return
      const done = new Promise<void>((r) => proc.once('exit', () => r()))
      proc.kill('SIGTERM')
      await done
    },
  }
}

/**
 * Another commit of this repository, checked out as a git worktree in a temporary folder (sharing
 * this tree's node_modules) and built like this one: `main` is its compiled src/main.ts. `remove()`
 * deletes the checkout.
 */
export async function checkout(commit: string): Promise<{ sha: string; tree: string; main: string; remove(): void }> {
  const git = (...a: string[]) => execFileSync('git', a, { cwd: root, encoding: 'utf8' }).trim()
  const sha = git('rev-parse', '--short', commit)
  const tree = mkdtempSync(join(tmpdir(), 'ar-base-'))
  git('worktree', 'add', '--detach', tree, sha)
  const remove = () => {
    rmSync(tree, { recursive: true, force: true })
    git('worktree', 'prune')
  }
  try {
    symlinkSync(join(root, 'node_modules'), join(tree, 'node_modules'))
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
    await promisify(execFile)(process.execPath, [tsc, '-p', join(tree, 'tsconfig.bench.json')], { cwd: tree })
    await buildAssets(tree)
  } catch (err) {
    remove()
    throw err
  }
  return { sha, tree, main: join(tree, 'dist-bench', 'src', 'main.js'), remove }
}

/**
 * The default team's key, printed once by a node that created it (src/main.ts). The node prints
 * it after it starts listening, so it may come a moment after GET /health answers.
 */
export async function defaultKey(node: ChildNode, timeoutMs = 10_000): Promise<string> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const key = /ar_team_default\.[A-Za-z0-9_-]{32}/.exec(node.output())?.[0]
    if (key) return key
    if (Date.now() > until) throw new Error(`no key printed: ${node.output()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

export const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a')

/** Twenty task titles of 40-50 characters, as a planner writes them. */
export const STANDARD_TITLES = [
  'Add rate limiting to the public payments API',
  'Write integration tests for the refund flow',
  'Migrate the orders table to the new schema',
  'Add retry with backoff to the webhook sender',
  'Document the error codes of the checkout API',
  'Split the invoice service into two modules',
  'Add an index on customers(email) for lookups',
  'Replace the cron job with a queue consumer',
  'Validate currency codes on every POST body',
  'Add tracing spans around the database calls',
  'Fix the flaky test in payments/settle.test',
  'Expose refund status on the dashboard page',
  'Move secrets from env files to the vault',
  'Add pagination to the transactions endpoint',
  'Handle partial captures in the card adapter',
  'Cache exchange rates for five minutes each',
  'Log a warning when a webhook retry gives up',
  'Reject negative amounts in the payout API',
  'Add a health check for the ledger database',
  'Write the runbook for a stuck settlement job',
]

/** The tools/call arguments the MCP benches send, by tool, in the room "bench" each bench creates. */
/** A bench node's rate limits: high enough that its load from one key is never limited. */
export const NO_RATE_LIMIT = { RATE_LIMIT_PER_MIN: '10000000', RATE_LIMIT_PER_CREDENTIAL_PER_MIN: '5000000' }

/** The settings of a node started in the bench's own process on the Redis at `redisPort`: port 0, NO_RATE_LIMIT. */
export const inProcessSettings = (redisPort: number) => ({
  redisUrl: `redis://127.0.0.1:${redisPort}`,
  port: 0,
  host: '127.0.0.1',
  rateLimitPerMin: 10_000_000,
  rateLimitPerCredentialPerMin: 5_000_000,
})

/** The headers of an MCP call (and an admin call) with `key`. */
export const mcpHeaders = (key: string): Record<string, string> => ({
  Authorization: `Bearer ${key}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
})

/** CPU time (user + system) a process has used so far, in ms, from /proc (USER_HZ 100 on Linux). */
export function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(f[11]) + Number(f[12])) * 10
}

/**
 * A node of this tree (`src/main.ts`, NO_RATE_LIMIT, `nodeArgs` given to Node) on a Redis of its
 * own, with its first team's key and the room "bench" (benchRoom).
 */
export async function startBenchNode(nodeArgs: string[] = []) {
  const redis = await startRedis()
  const node = await startChild(
    'src/main.ts',
    { REDIS_URL: `redis://127.0.0.1:${redis.port}`, ...NO_RATE_LIMIT },
    undefined,
    nodeArgs,
  )
  const key = await defaultKey(node)
  await benchRoom(node.port, key)
  return { redis, node, key, headers: mcpHeaders(key) }
}

export const BENCH_CALLS: Record<string, Record<string, unknown>> = {
  heartbeat: { room_id: 'bench', agent_id: 'bench-agent' },
  post_event: { room_id: 'bench', agent_id: 'bench-agent', type: 'status', text: 'working on t1' },
  get_unread_events: { room_id: 'bench', agent_id: 'reader', limit: 10 },
  // A claim of t1 (benchRoom adds it), repeated by its holder: the claim path of update_task.
  update_task: { room_id: 'bench', agent_id: 'bench-agent', task_id: 't1', status: 'in_progress' },
}

/**
 * Creates the room "bench" the MCP benches call on :port with `key`, and its task t1 (the
 * update_task claim's). Throws with the answer when either is refused.
 */
export async function benchRoom(port: number, key: string): Promise<void> {
  const headers = mcpHeaders(key)
  const r = await fetch(`http://127.0.0.1:${port}/admin/rooms`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ roomId: 'bench' }),
  })
  if (r.status !== 201) throw new Error(`room creation: ${r.status} ${await r.text()}`)
  const body = toolCall('add_task', { room_id: 'bench', agent_id: 'bench-agent', title: 'bench task' })
  const t = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers, body })
  const text = await t.text()
  if (t.status !== 200 || !text.includes('t1')) throw new Error(`add_task: ${t.status} ${text.slice(0, 300)}`)
}

/** The JSON-RPC body of a tools/call of `tool` with `args`. */
export const toolCall = (tool: string, args: Record<string, unknown>): string =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } })

/** The JSON-RPC body of a tools/call of `tool` with its BENCH_CALLS arguments. */
export function callBody(tool: string): string {
  const args = BENCH_CALLS[tool]
  if (!args) throw new Error(`unknown bench tool ${tool}: one of ${Object.keys(BENCH_CALLS).join(', ')}`)
  return toolCall(tool, args)
}

/** Writes a wrk Lua script (in the temp folder, as `name`.lua) that POSTs `body` with `headers`; returns its path. */
export function wrkScript(name: string, body: string, headers: Record<string, string>): string {
  const path = join(tmpdir(), `${name}.lua`)
  const lines = [
    `wrk.method = "POST"`,
    `wrk.body = ${JSON.stringify(body)}`,
    ...Object.entries(headers).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`),
  ]
  writeFileSync(path, lines.join('\n') + '\n')
  return path
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[]
  samples: number[]
  timeDeltas: number[]
}

/**
 * The largest .cpuprofile of `dir` (written by a node started with --cpu-prof), summed by self
 * time: where the busy time went by package or source file (idle left out), then the `top`
 * functions. Lines to print.
 */
export function profileSummary(dir: string, top = 25): string[] {
  const file = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).size - statSync(a).size)[0]
  if (!file) return [`no .cpuprofile in ${dir}`]
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  const byId = new Map(p.nodes.map((n) => [n.id, n]))
  const fns = new Map<string, number>()
  const parts = new Map<string, number>()
  let busy = 0
  const add = (m: Map<string, number>, k: string, dt: number) => m.set(k, (m.get(k) ?? 0) + dt)
  p.samples.forEach((id, i) => {
    const cf = byId.get(id)!.callFrame
    const dt = p.timeDeltas[i] ?? 0
    if (cf.functionName === '(idle)') return
    busy += dt
    const where = cf.url.replace(/.*node_modules\//, '').replace(/.*\/src\//, 'src/')
    add(fns, `${cf.functionName || '(anonymous)'} ${where}:${cf.lineNumber}`, dt)
    const part = cf.url.includes('node_modules/')
      ? where
          .split('/')
          .slice(0, where.startsWith('@') ? 2 : 1)
          .join('/')
      : where.startsWith('src/')
        ? where
        : where.startsWith('node:')
          ? 'node: built-ins'
          : cf.functionName || '(native)'
    add(parts, part, dt)
  })
  const pct = (v: number) => `${((100 * v) / busy).toFixed(1).padStart(5)}%`
  const rows = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${pct(v)} ${k}`)
  return [
    `busy ${(busy / 1000).toFixed(0)} ms of ${file}, by part:`,
    ...rows(parts, 15),
    'by function (self time):',
    ...rows(fns, top),
  ]
}

/**
 * redis-server under valgrind's callgrind: `instructions(run)` zeroes the count, runs, dumps, and
 * gives the instructions Redis executed meanwhile (a count the machine's load does not move).
 * Outside `run` Redis runs uninstrumented (several times faster), so filling a room costs less.
 * `keep` leaves the dumps for callgrind_annotate.
 */
export async function startRedisUnderCallgrind(
  keep = false,
): Promise<RedisProcess & { instructions(run: () => Promise<void>): Promise<number> }> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'ar-callgrind-'))
  const proc = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${join(dir, 'cg.out')}`,
      'redis-server',
      ...redisArgs(port, dir),
    ],
    { stdio: 'ignore' },
  )
  // valgrind slows the start down a lot: allow a minute.
  await waitForPing(port, 60_000).catch((err: Error) => {
    proc.kill()
    throw new Error(`${err.message} (is valgrind installed?)`)
  })
  const control = (flag: string) => execFileSync('callgrind_control', [flag, String(proc.pid)], { encoding: 'utf8' })
  return {
    port,
    dir,
    proc,
    async instructions(run) {
      control('--instr=on')
      control('--zero')
      await run()
      const before = new Set(readdirSync(dir))
      control('--dump')
      control('--instr=off')
      const dump = readdirSync(dir).find((f) => f.startsWith('cg.out.') && !before.has(f))!
      return Number(/^summary: (\d+)/m.exec(readFileSync(join(dir, dump), 'utf8'))![1])
    },
    async stop() {
      const done = new Promise((r) => proc.once('exit', r))
      proc.kill('SIGTERM')
      await done
      if (keep) console.log(`callgrind dumps kept in ${dir}`)
      else rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** What a V8 heap snapshot holds, by kind of object: `count` objects taking `bytes` (self size). */
export type HeapCensus = Map<string, { count: number; bytes: number }>

/**
 * The objects of a `.heapsnapshot` file summed by self size and grouped by kind: objects by
 * constructor, closures by function name, strings, code and V8's internal kinds by type and name.
 * (Code objects named `(script line ends)` are made by the snapshot itself, for its locations.)
 */
export function heapCensus(file: string): HeapCensus {
  const s = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }
    nodes: number[]
    strings: string[]
  }
  const fields = s.snapshot.meta.node_fields
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number,
  ]
  const types = s.snapshot.meta.node_types[0]
  const out: HeapCensus = new Map()
  for (let i = 0; i < s.nodes.length; i += fields.length) {
    const type = types[s.nodes[i + typeAt]!]!
    const name = s.strings[s.nodes[i + nameAt]!]!
    const kind = /string/.test(type)
      ? '(strings)'
      : type === 'object'
        ? name
        : `(${type}) ${name.length > 60 ? name.slice(0, 57) + '...' : name}`
    const at = out.get(kind) ?? { count: 0, bytes: 0 }
    at.count++
    at.bytes += s.nodes[i + sizeAt]!
    out.set(kind, at)
  }
  return out
}

/** The growth from `before` to `after` per one of `n` units (streams), largest first: lines to print. */
export function censusGrowth(before: HeapCensus, after: HeapCensus, n: number, top = 25): string[] {
  const rows = [...after].map(([k, a]) => {
    const b = before.get(k) ?? { count: 0, bytes: 0 }
    return { k, count: (a.count - b.count) / n, bytes: (a.bytes - b.bytes) / n }
  })
  const total = rows.reduce((x, r) => x + r.bytes, 0)
  return [
    `${fmt(total, 0)} bytes of heap per unit, by kind (objects per unit, bytes per unit):`,
    ...rows
      .sort((x, y) => y.bytes - x.bytes)
      .slice(0, top)
      .map((r) => `${fmt(r.bytes, 0).padStart(6)} B ${fmt(r.count, 2).padStart(6)} x ${r.k}`),
  ]
}

/** The MCP protocol version of `subscriptions/listen`. */
export const LISTEN_VERSION = '2026-07-28'

/**
 * The JSON-RPC body of a `subscriptions/listen` request (2026-07-28) subscribing to `uris` and the
 * list changes of their rooms; the stream it opens starts with
 * `notifications/subscriptions/acknowledged`.
 */
export function listenBody(uris: string[], id: number | string = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: {
      notifications: { resourceSubscriptions: uris, resourcesListChanged: true },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': LISTEN_VERSION,
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  })
}

/** The headers of a `subscriptions/listen` POST /mcp with `key` (besides Host and Content-Length). */
export function listenHeaders(key: string): Record<string, string> {
  return {
    Authorization: `Bearer ${key}`,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': LISTEN_VERSION,
    'Mcp-Method': 'subscriptions/listen',
  }
}

/** A raw HTTP/1.1 `subscriptions/listen` request on POST /mcp (listenBody, listenHeaders). */
export function listenRequest(key: string, uris: string[], id: number | string = 1): string {
  const body = listenBody(uris, id)
  const headers = Object.entries(listenHeaders(key)).map(([k, v]) => `${k}: ${v}\r\n`)
  return (
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers.join('')}Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `\r\n${body}`
  )
}
