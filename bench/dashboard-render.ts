// The dashboard's room page of a room at the default limits, as a person waits for it: the whole
// GET /room from this process to a node running in its own process (compiled, as `npm start`
// runs it), p50/p95 over N requests; the reads and the render apart (the node's Server-Timing
// header); node and Redis CPU per page; the HTML's size, plain and gzipped; the JavaScript the page
// ships. With --base <commit>, the same for a node built from that commit, on its own Redis with
// the same room, requests alternating between the two (the machine's load moves both alike).
// In the same run, alternating too, the page of an empty room on each node: the floor a trivial
// page costs on the machine as loaded at the time, so the ratio shows what the room's size adds.
// With --profile, the work node runs with --cpu-prof (its busy time by part and function is
// printed at the end) and each side's Redis logs every command (SLOWLOG, threshold 0) during the
// measured requests: Redis time per script a page. With --churn, a plan change comes before every
// view (a task's priority, through MCP, not timed), as when agents work while a person watches:
// a page that cached the plan between changes would read it all again each time.
// With --parts, then each part of the room page alone (GET /room/part, what the live script fetches
// when a change touches that part), alternating with the whole page: bytes, node CPU and the node's
// time (Server-Timing app + render) a request, and each as a ratio to the whole page of the same run.
// With --live, what a change costs the pages open on it, per event per open tab: --tabs pages follow
// the room's live stream (GET /live, each acting as the page's script does), and agents' MCP calls
// change the room one at a time (a message of --live-text bytes, a question, a task claimed, an agent
// reading its unread events, a context entry written, an agent coming online then leaving),
// --live-events of each (--live-only: those named). Bytes the node sends the tabs (frames and the
// fetches they lead to) and node CPU, against the same calls with no tab open, per event per tab;
// in the same run, alternating, the same tabs as the whole-page script (every frame: GET /room;
// --live-no-page leaves them out). A tab of live parts first loads the page (not counted) for the
// versions of its parts, applies the patches a frame carries for the version it holds and fetches
// every other part; it counts, by part, the patches applied, the parts said unchanged and those
// fetched, and the bytes of frames apart from those of fetches.
//   npx tsx bench/dashboard-render.ts [--base f6d2b1a] [--runs 60] [--profile] [--churn] [--parts] [--tasks
//   2000] [--context 1000] [--vars 256] [--locks 256] [--reviews 2000] [--events 200]
//   [--event-bytes 4000] [--live] [--tabs 10] [--live-events 30] [--live-text 200]
//   [--live-only 'task claimed,presence'] [--live-no-page]
import { createHash } from 'node:crypto'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import { Redis } from 'ioredis'
import { loadScripts, LUA_DIR } from '../src/store/scripts.js'
import { PARTS } from '../src/dashboard/room.js'
import {
  checkout,
  compiled,
  cpuMs,
  defaultKey,
  fmt,
  percentile,
  profileSummary,
  startChild,
  startRedis,
  type ChildNode,
} from './lib.js'

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    profile: { type: 'boolean', default: false },
    churn: { type: 'boolean', default: false },
    parts: { type: 'boolean', default: false },
    live: { type: 'boolean', default: false },
    tabs: { type: 'string', default: '10' },
    'live-events': { type: 'string', default: '30' },
    'live-text': { type: 'string', default: '200' },
    'live-only': { type: 'string' },
    'live-no-page': { type: 'boolean', default: false },
    'live-wait': { type: 'string', default: '0' },
    runs: { type: 'string', default: '60' },
    tasks: { type: 'string', default: '2000' },
    context: { type: 'string', default: '1000' },
    vars: { type: 'string', default: '256' },
    locks: { type: 'string', default: '256' },
    reviews: { type: 'string', default: '2000' },
    events: { type: 'string', default: '200' },
    'event-bytes': { type: 'string', default: '4000' },
  },
})
const n = (k: keyof typeof values) => Number(values[k])

interface Side {
  label: string
  node: ChildNode
  redis: Redis
  redisPid: number
  cookie: string
  stop(): Promise<void>
  /** The lua/ folder of the side's tree (names the scripts in SLOWLOG). */
  lua: string
  /** A change of the plan through MCP (--churn): the `i`th task's priority. */
  change(i: number): Promise<void>
  /** One MCP tools/call in room "big". */
  call(name: string, args: Record<string, unknown>): Promise<void>
  wall: number[]
  /** GET /room of the empty room. */
  empty: number[]
  session: number[]
  app: number[]
  render: number[]
  nodeCpuMs: number
  redisCpuMs: number
  html: string
}

/** One tools/call in room "big" through MCP, as an agent makes it. */
async function mcp(base: string, key: string, name: string, args: Record<string, unknown>): Promise<void> {
  const headers = {
    Authorization: `Bearer ${key}`,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
  }
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: { room_id: 'big', ...args } },
    }),
  })
  const text = await res.text()
  if (res.status !== 200 || text.includes('"isError":true'))
    throw new Error(`${name}: ${res.status} ${text.slice(0, 300)}`)
}

/** Fills room "big" to the limits through MCP, as agents do: up to 16 calls in flight. */
async function fill(base: string, key: string): Promise<void> {
  const headers = {
    Authorization: `Bearer ${key}`,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
  }
  const r = await fetch(`${base}/admin/rooms`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ roomId: 'big', name: 'A room at the limits' }),
  })
  if (r.status !== 201) throw new Error(`room creation: ${r.status} ${await r.text()}`)
  const e = await fetch(`${base}/admin/rooms`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ roomId: 'empty', name: 'An empty room' }),
  })
  if (e.status !== 201) throw new Error(`room creation: ${e.status} ${await e.text()}`)
  const call = (name: string, args: Record<string, unknown>) => mcp(base, key, name, args)
  const all = async (count: number, one: (i: number) => Promise<void>) => {
    let next = 0
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < count) await one(next++)
      }),
    )
  }
  const agent = (i: number) => `agent-${i % 20}`
  // Tasks in creation order, so that every dependency exists: a third depend on the one before.
  for (let i = 0; i < n('tasks'); i++) {
    await call('add_task', {
      agent_id: agent(i),
      title: `Task ${i}: ${'x'.repeat(60)}`,
      priority: ['urgent', 'high', 'normal', 'low'][i % 4],
      depends_on: i > 0 && i % 3 === 0 ? [`t${i}`] : [],
    })
  }
  // A realistic board: a tenth in progress, a twentieth in review, a fifth done, the rest to do.
  await all(n('tasks'), async (i) => {
    const status = i % 10 === 1 ? 'in_progress' : i % 20 === 2 ? 'in_review' : i % 5 === 3 ? 'done' : undefined
    if (status)
      await call('update_task', { agent_id: agent(i), task_id: `t${i + 1}`, status, assignee: agent(i), force: true })
  })
  await all(n('context'), (i) =>
    call('write_context', {
      agent_id: agent(i),
      type: ['spec', 'brief', 'decision', 'handoff'][i % 4],
      key: `entry-${i}`,
      body: `# Entry ${i}\n${'text '.repeat(200)}`,
    }),
  )
  await all(n('vars'), (i) => call('set_shared_var', { agent_id: agent(i), name: `var-${i}`, value: 'y'.repeat(1000) }))
  await all(n('locks'), (i) => call('acquire_lock', { agent_id: agent(i), name: `lock-${i}`, ttl_s: 3600 }))
  await all(n('reviews'), (i) =>
    call('request_review', {
      agent_id: agent(i),
      target: { kind: 'task', task_id: `t${(i % n('tasks')) + 1}` },
      note: `Please look at this: ${'n'.repeat(100)}`,
    }),
  )
  // Events near the text limit (4 KiB) by default: the page shows the latest 50.
  await all(n('events'), (i) =>
    call('post_event', {
      agent_id: agent(i),
      type: i % 5 === 0 ? 'question' : 'message',
      text: `Event ${i} ${'z'.repeat(n('event-bytes'))}`,
    }),
  )
  await all(20, (i) => call('heartbeat', { agent_id: agent(i) }))
}

const PROFILE_DIR = '/tmp/agentrooms-dashboard-prof'

async function start(label: string, main: string, lua: string, profile = false): Promise<Side> {
  const redis = await startRedis()
  const env = {
    REDIS_URL: `redis://127.0.0.1:${redis.port}`,
    RATE_LIMIT_PER_MIN: '10000000',
    RATE_LIMIT_PER_CREDENTIAL_PER_MIN: '5000000',
    ADMIN_EMAILS: 'bench@example.com',
  }
  let node = await startChild(main, env)
  const key = await defaultKey(node)
  const base = `http://127.0.0.1:${node.port}`
  const token = /\/signin\/link\?token=([A-Za-z0-9_-]+)/.exec(node.output())?.[1]
  if (!token) throw new Error(`${label}: no sign-in link printed`)
  const signed = await fetch(`${base}/signin/link`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin' },
    body: new URLSearchParams({ token }).toString(),
  })
  const cookie = signed.headers.get('set-cookie')?.split(';')[0]
  if (!cookie) throw new Error(`${label}: sign-in refused: ${signed.status}`)
  const t0 = Date.now()
  await fill(base, key)
  console.log(`${label}: filled in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
  if (profile) {
    // A node of its own for the views (the session is in Redis), so that the profile holds them, not the filling.
    await node.stop()
    rmSync(PROFILE_DIR, { recursive: true, force: true })
    node = await startChild(main, env, undefined, ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`])
  }
  const client = new Redis(redis.port, '127.0.0.1', { lazyConnect: true })
  await client.connect()
  return {
    label,
    node,
    redis: client,
    redisPid: redis.proc.pid!,
    cookie,
    lua,
    call: (name, args) => mcp(`http://127.0.0.1:${node.port}`, key, name, args),
    change: (i) =>
      mcp(`http://127.0.0.1:${node.port}`, key, 'set_task_priority', {
        agent_id: 'planner',
        task_id: `t${((i * 37) % n('tasks')) + 1}`,
        priority: ['urgent', 'high', 'normal', 'low'][i % 4],
      }),
    wall: [],
    empty: [],
    session: [],
    app: [],
    render: [],
    nodeCpuMs: 0,
    redisCpuMs: 0,
    html: '',
    stop: async () => {
      client.disconnect()
      await node.stop()
      await redis.stop()
    },
  }
}

/** One GET /room of the empty room, timed. */
async function viewEmpty(s: Side): Promise<void> {
  const t0 = performance.now()
  const res = await fetch(`http://127.0.0.1:${s.node.port}/room?id=empty`, { headers: { Cookie: s.cookie } })
  await res.text()
  if (res.status !== 200) throw new Error(`${s.label}: GET /room?id=empty: ${res.status}`)
  s.empty.push(performance.now() - t0)
}

/**
 * Redis time by script and command over the measured requests (SLOWLOG at threshold 0), in ms a
 * pair of views (the room at the limits and the empty room). Redis 7 logs the commands a script
 * calls as well as the script, whose time includes theirs.
 */
async function redisPerScript(s: Side, runs: number): Promise<string> {
  const names = new Map(loadScripts(s.lua).map((sc) => [createHash('sha1').update(sc.source).digest('hex'), sc.name]))
  const log = (await s.redis.call('SLOWLOG', 'GET', '-1')) as [number, number, number, string[]][]
  const us = new Map<string, number>()
  for (const [, , dur, argv] of log) {
    const cmd = argv[0]!.toLowerCase()
    const name = cmd === 'evalsha' ? (names.get(argv[1]!) ?? argv[1]!.slice(0, 8)) : cmd
    if (name === 'slowlog' || name === 'config') continue
    us.set(name, (us.get(name) ?? 0) + dur)
  }
  return [...us]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${fmt(v / runs / 1000, 2)}`)
    .join(', ')
}

/** One GET /room?id=big; `record` false for warm-up. */
async function view(s: Side, record: boolean): Promise<void> {
  const cpu0 = cpuMs(s.node.proc.pid!)
  const redis0 = cpuMs(s.redisPid)
  const t0 = performance.now()
  const res = await fetch(`http://127.0.0.1:${s.node.port}/room?id=big`, { headers: { Cookie: s.cookie } })
  const body = await res.text()
  const wall = performance.now() - t0
  if (res.status !== 200) throw new Error(`${s.label}: GET /room: ${res.status} ${body.slice(0, 300)}`)
  if (!record) return
  s.wall.push(wall)
  s.nodeCpuMs += cpuMs(s.node.proc.pid!) - cpu0
  s.redisCpuMs += cpuMs(s.redisPid) - redis0
  const timing = res.headers.get('server-timing') ?? ''
  for (const part of ['session', 'app', 'render'] as const) {
    const m = new RegExp(`${part};dur=([\\d.]+)`).exec(timing)
    if (m) s[part].push(Number(m[1]))
  }
  s.html = body
}

/** One GET of `path` on the side's node: bytes, node CPU (ms) and Server-Timing app + render (ms). */
async function timed(s: Side, path: string): Promise<{ bytes: number; cpu: number; node: number }> {
  const cpu0 = cpuMs(s.node.proc.pid!)
  const res = await fetch(`http://127.0.0.1:${s.node.port}${path}`, { headers: { Cookie: s.cookie } })
  const body = await res.text()
  if (res.status !== 200) throw new Error(`${s.label}: GET ${path}: ${res.status} ${body.slice(0, 300)}`)
  const timing = res.headers.get('server-timing') ?? ''
  const dur = (k: string) => Number(new RegExp(`${k};dur=([\\d.]+)`).exec(timing)?.[1] ?? NaN)
  return { bytes: Buffer.byteLength(body), cpu: cpuMs(s.node.proc.pid!) - cpu0, node: dur('app') + dur('render') }
}

/** --parts: each part alone against the whole page, alternating, `runs` of each. */
async function parts(s: Side, runs: number): Promise<void> {
  const sum = new Map<string, { bytes: number; cpu: number; node: number[] }>()
  const add = (k: string, r: { bytes: number; cpu: number; node: number }) => {
    const a = sum.get(k) ?? { bytes: 0, cpu: 0, node: [] }
    a.bytes += r.bytes
    a.cpu += r.cpu
    a.node.push(r.node)
    sum.set(k, a)
  }
  for (let i = 0; i < runs; i++)
    for (const part of PARTS) {
      add('page', await timed(s, '/room?id=big'))
      add(part, await timed(s, `/room/part?id=big&part=${part}`))
    }
  const page = sum.get('page')!
  const med = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    )
  const pageRuns = page.node.length
  console.log(
    `${s.label}: whole page: ${fmt(page.bytes / pageRuns / 1024, 1)} kB, node CPU ${fmt(page.cpu / pageRuns)} ms, ` +
      `app + render p50 ${fmt(med(page.node))} ms`,
  )
  for (const part of PARTS) {
    const a = sum.get(part)!
    const bytes = a.bytes / runs
    const cpu = a.cpu / runs
    console.log(
      `${s.label}: part ${part}: ${fmt(bytes / 1024, 1)} kB (${fmt(bytes / (page.bytes / pageRuns), 3)}×), node CPU ` +
        `${fmt(cpu)} ms (${fmt(cpu / (page.cpu / pageRuns), 2)}×), app + render p50 ${fmt(med(a.node))} ms ` +
        `(${fmt(med(a.node) / med(page.node), 2)}×)`,
    )
  }
}

/**
 * An open room page as the bench plays it: follows GET /live?id=big and, as the page's script does,
 * fetches what each frame asks for ("parts": GET /room/part for the parts named and not sent
 * rendered, the feed's item put in place; "page": the whole page on every frame, as a script that
 * re-reads the page does), gathering frames for 50 ms. Counts the bytes the node sends it.
 */
class Tab {
  bytes = 0
  /** Bytes of the stream's frames, and of the fetches they led to. */
  frameBytes = 0
  fetchBytes = 0
  /** Fetches made (GET /room/part or the whole page). */
  fetches = 0
  /** By part: patches applied, parts the frame said were unchanged, parts fetched. */
  readonly patched = new Map<string, number>()
  readonly unchanged = new Map<string, number>()
  readonly fetched = new Map<string, number>()
  private timer: NodeJS.Timeout | undefined
  private inFlight: Promise<void> | undefined
  private wanted = new Set<string>()
  /** The version (`data-v`) of each part the tab shows, by `data-part`. */
  private readonly versions = new Map<string, string>()
  private whole = false
  private readonly abort = new AbortController()
  private ready!: () => void
  readonly connected = new Promise<void>((ok) => (this.ready = ok))

  constructor(
    private readonly s: Side,
    private readonly mode: 'parts' | 'page',
  ) {}

  /** The versions of the parts in `html` (a page or parts the tab put in place). */
  private learn(html: string): void {
    for (const m of html.matchAll(/ data-v="([^"]+)" data-part="([^"]+)"/g)) this.versions.set(m[2]!, m[1]!)
  }

  async open(): Promise<void> {
    // The page the tab shows first (not counted: what opening it costs is the page's figure).
    if (this.mode === 'parts') {
      const page = await fetch(`http://127.0.0.1:${this.s.node.port}/room?id=big`, {
        headers: { Cookie: this.s.cookie },
      })
      this.learn(await page.text())
    }
    // With the versions of the parts it shows, as the page's script opens its stream.
    const held = [...this.versions].map(([part, v]) => `${part}:${v}`).join(',')
    const res = await fetch(`http://127.0.0.1:${this.s.node.port}/live?id=big&v=${encodeURIComponent(held)}`, {
      headers: { Cookie: this.s.cookie },
      signal: this.abort.signal,
    })
    if (res.status !== 200 || !res.body) throw new Error(`GET /live: ${res.status}`)
    const reader = res.body.getReader()
    const dec = new TextDecoder()
    let buf = ''
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read()
          if (done) return
          this.bytes += value.byteLength
          this.frameBytes += value.byteLength
          buf += dec.decode(value, { stream: true })
          for (let at = buf.indexOf('\n\n'); at >= 0; at = buf.indexOf('\n\n')) {
            this.frame(buf.slice(0, at))
            buf = buf.slice(at + 2)
          }
        }
      } catch {
        // aborted
      }
    })()
  }

  close(): void {
    this.abort.abort()
  }

  private frame(text: string): void {
    if (text.startsWith(':')) return this.ready()
    const event = /^event: (.*)$/m.exec(text)?.[1]
    const data = /^data: (.*)$/m.exec(text)?.[1]
    if (event !== 'room-event' && event !== 'changed') return
    if (this.mode === 'page') this.whole = true
    else {
      const f = JSON.parse(data ?? '{}') as {
        parts?: string[]
        item?: string
        html?: Record<string, string>
        v?: Record<string, [string, string, unknown[]?]>
      }
      if (!f.parts) this.whole = true
      for (const p of f.parts ?? []) if (!(f.item && p === 'events') && !f.html?.[p]) this.wanted.add(p)
      // A patch applies to the version the tab holds; any other part is fetched (client/follow.ts).
      for (const [name, [from, to, ops]] of Object.entries(f.v ?? {})) {
        const held = this.versions.get(name)
        if (held === to) {
          bump(this.unchanged, name)
          continue
        }
        if (held === from && ops) {
          this.versions.set(name, to)
          bump(this.patched, name)
        } else this.wanted.add(name.startsWith('needs-') ? 'needs' : name)
      }
    }
    this.timer ??= setTimeout(() => this.fetchNow(), 50)
  }

  private fetchNow(): void {
    this.timer = undefined
    if (this.inFlight) {
      this.timer = setTimeout(() => this.fetchNow(), 10)
      return
    }
    const parts = [...this.wanted]
    const whole = this.whole
    this.wanted.clear()
    this.whole = false
    if (!whole && parts.length === 0) return
    const path = whole ? '/room?id=big' : `/room/part?id=big${parts.map((p) => `&part=${p}`).join('')}`
    this.fetches++
    for (const p of whole ? ['(page)'] : parts) bump(this.fetched, p)
    this.inFlight = fetch(`http://127.0.0.1:${this.s.node.port}${path}`, { headers: { Cookie: this.s.cookie } })
      .then(async (res) => {
        const body = await res.arrayBuffer()
        if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`)
        this.bytes += body.byteLength
        this.fetchBytes += body.byteLength
        if (this.mode === 'parts') this.learn(Buffer.from(body).toString())
      })
      .finally(() => (this.inFlight = undefined))
  }

  /** Nothing gathered or in flight. */
  async idle(): Promise<void> {
    while (this.timer !== undefined || this.inFlight !== undefined) {
      await this.inFlight?.catch(() => {})
      await new Promise((ok) => setTimeout(ok, 20))
    }
  }
}

function bump(m: Map<string, number>, k: string): void {
  m.set(k, (m.get(k) ?? 0) + 1)
}

/** The changes --live makes, one MCP call each. */
const LIVE_CHANGES: [string, (s: Side, i: number) => Promise<void>][] = [
  [
    'message',
    (s, i) =>
      s.call('post_event', { agent_id: 'agent-1', type: 'message', text: `Live ${i} ${'m'.repeat(n('live-text'))}` }),
  ],
  ['question', (s, i) => s.call('post_event', { agent_id: 'agent-2', type: 'question', text: `Which one ${i}?` })],
  [
    'task claimed',
    (s, i) =>
      s.call('update_task', {
        agent_id: 'agent-3',
        // Tasks t5, t15, ... are to do after the filling: each taken, then put back.
        task_id: `t${(Math.floor(i / 2) % 50) * 10 + 5}`,
        status: i % 2 ? 'todo' : 'in_progress',
        assignee: 'agent-3',
        force: true,
      }),
  ],
  ['events read', (s, i) => s.call('get_unread_events', { agent_id: `agent-${4 + (i % 10)}`, limit: 1 })],
  [
    'context written',
    (s, i) =>
      s.call('write_context', {
        // A new version of one of the filling's entries (the room holds as many as it may).
        agent_id: 'agent-5',
        type: ['spec', 'brief', 'decision', 'handoff'][i % 4],
        key: `entry-${i % 4}`,
        body: `# Decision ${i}\n${'d'.repeat(n('live-text'))}`,
      }),
  ],
  [
    // An agent comes online (its first heartbeat), then leaves (offline, and its agent_left event).
    'presence',
    (s, i) => (i % 2 ? s.call('leave_room', { agent_id: 'visitor' }) : s.call('heartbeat', { agent_id: 'visitor' })),
  ],
]

/** --live: per event per open tab, bytes sent and node CPU, the live parts against the whole page. */
async function live(s: Side): Promise<void> {
  const tabs = n('tabs')
  const events = n('live-events')
  // A reader of each agent first, so that each read moves a position.
  for (let i = 0; i < 10; i++) await s.call('get_unread_events', { agent_id: `agent-${4 + i}`, limit: 1 })
  let counter = 0
  // --live-wait past the presence TTL (60 s): the filling's agents offline, their work stale.
  await new Promise((ok) => setTimeout(ok, n('live-wait') * 1000))
  const only = values['live-only']?.split(',').map((x) => x.trim())
  for (const [name, change] of LIVE_CHANGES) {
    if (only && !only.includes(name)) continue
    const cpu = { none: 0, parts: 0, page: 0 }
    const bytes = { none: 0, parts: 0, page: 0 }
    const seen: Tab[] = []
    for (let round = 0; round < 2; round++) {
      const modes = (round % 2 ? ['page', 'parts', 'none'] : ['none', 'parts', 'page']) as ('none' | 'parts' | 'page')[]
      for (const mode of modes) {
        if (mode === 'page' && values['live-no-page']) continue
        const open = mode === 'none' ? [] : Array.from({ length: tabs }, () => new Tab(s, mode))
        await Promise.all(open.map((t) => t.open()))
        await Promise.all(open.map((t) => t.connected))
        // The first frame (the versions now of the parts the tabs show) and what it asks, not counted.
        await new Promise((ok) => setTimeout(ok, 500))
        await Promise.all(open.map((t) => t.idle()))
        const base = open.reduce((a, t) => a + t.bytes, 0)
        const cpu0 = cpuMs(s.node.proc.pid!)
        for (let i = 0; i < events / 2; i++) {
          await change(s, counter++)
          await new Promise((ok) => setTimeout(ok, 200))
          await Promise.all(open.map((t) => t.idle()))
        }
        cpu[mode] += cpuMs(s.node.proc.pid!) - cpu0
        bytes[mode] += open.reduce((a, t) => a + t.bytes, 0) - base
        if (mode === 'parts') seen.push(...open)
        for (const t of open) t.close()
        await new Promise((ok) => setTimeout(ok, 200))
      }
    }
    const per = (x: number) => x / events / tabs
    console.log(
      `${s.label}: live, ${name}: per event per tab, live parts ${fmt(per(bytes.parts) / 1024, 2)} kB, node CPU ` +
        `${fmt(per(cpu.parts - cpu.none), 2)} ms; whole page ${fmt(per(bytes.page) / 1024, 1)} kB, node CPU ` +
        `${fmt(per(cpu.page - cpu.none), 2)} ms (the calls alone: node CPU ${fmt(cpu.none / events, 2)} ms a call; ` +
        `${tabs} tabs, ${events} calls each way)`,
    )
    // What the live parts' bytes were: frames or fetches, and by part what came patched, unchanged or fetched.
    const sum = (k: 'frameBytes' | 'fetchBytes' | 'fetches') => seen.reduce((a, t) => a + t[k], 0)
    const byPart = (k: 'patched' | 'unchanged' | 'fetched') => {
      const all = new Map<string, number>()
      for (const t of seen) for (const [p, c] of t[k]) all.set(p, (all.get(p) ?? 0) + c)
      return [...all].map(([p, c]) => `${p} ${fmt(c / events / tabs, 2)}`).join(', ') || 'none'
    }
    console.log(
      `${s.label}: live, ${name}, live parts per event per tab: frames ${fmt(per(sum('frameBytes')) / 1024, 2)} kB, ` +
        `fetches ${fmt(per(sum('fetches')), 2)} (${fmt(per(sum('fetchBytes')) / 1024, 2)} kB); ` +
        `patched: ${byPart('patched')}; unchanged: ${byPart('unchanged')}; fetched: ${byPart('fetched')}`,
    )
  }
}

const base = values.base ? await checkout(values.base) : undefined
const sides: Side[] = []
try {
  sides.push(await start('work', await compiled('src/main.ts'), LUA_DIR, values.profile))
  if (base) sides.push(await start(base.sha, base.main, join(base.tree, 'lua')))
  console.log(
    `room: ${n('tasks')} tasks, ${n('context')} context entries, ${n('vars')} vars, ${n('locks')} locks, ` +
      `${n('reviews')} reviews, ${n('events')} events (${n('event-bytes')} B of text each), 20 agents`,
  )
  for (let i = 0; i < 5; i++) for (const s of sides) await view(s, false)
  if (values.profile)
    for (const s of sides)
      await Promise.all([
        s.redis.call('CONFIG', 'SET', 'slowlog-log-slower-than', '0', 'slowlog-max-len', '1000000'),
        s.redis.call('SLOWLOG', 'RESET'),
      ])
  for (let i = 0; i < n('runs'); i++) {
    for (const s of i % 2 ? [...sides].reverse() : sides) {
      if (values.churn) await s.change(i)
      await view(s, true)
      await viewEmpty(s)
    }
  }
  if (values.parts) for (const s of sides) await parts(s, n('runs'))
  if (values.live) for (const s of sides) await live(s)
  const perScript = values.profile ? await Promise.all(sides.map((s) => redisPerScript(s, n('runs')))) : []
  const p = (xs: number[], q: number) =>
    fmt(
      percentile(
        [...xs].sort((a, b) => a - b),
        q,
      ),
    )
  for (const s of sides) {
    const runs = s.wall.length
    console.log(`${s.label}: GET /room ms p50 ${p(s.wall, 50)} p95 ${p(s.wall, 95)}`)
    const ratio = (q: number) =>
      fmt(
        percentile(
          [...s.wall].sort((x, y) => x - y),
          q,
        ) /
          percentile(
            [...s.empty].sort((x, y) => x - y),
            q,
          ),
        2,
      )
    console.log(
      `${s.label}: GET /room of the empty room ms p50 ${p(s.empty, 50)} p95 ${p(s.empty, 95)}; the room at ` +
        `the limits / the empty room: p50 ${ratio(50)}, p95 ${ratio(95)}`,
    )
    if (s.app.length > 0) {
      const parts = (['session', 'app', 'render'] as const).map((k) => `${k} p50 ${p(s[k], 50)} p95 ${p(s[k], 95)}`)
      console.log(`${s.label}: on the node (Server-Timing) ms: ${parts.join(', ')}`)
    }
    console.log(`${s.label}: CPU per page ms: node ${fmt(s.nodeCpuMs / runs)}, Redis ${fmt(s.redisCpuMs / runs)}`)
    const scripts = perScript[sides.indexOf(s)]
    if (scripts)
      console.log(`${s.label}: Redis ms a view of each room, by script (and the commands inside): ${scripts}`)
    console.log(
      `${s.label}: html ${fmt(s.html.length / 1024, 0)} kB, ${fmt(gzipSync(s.html).length / 1024, 0)} kB gzipped`,
    )
    const script = /<script src="([^"]+)"/.exec(s.html)?.[1]
    if (script) {
      const js = await (await fetch(`http://127.0.0.1:${s.node.port}${script}`)).text()
      console.log(`${s.label}: javascript shipped: ${js.length} B, ${gzipSync(js).length} B gzipped`)
    }
  }
  if (sides.length === 2) {
    const [w, b] = sides as [Side, Side]
    const ratio = (q: number) =>
      percentile(
        [...w.wall].sort((x, y) => x - y),
        q,
      ) /
      percentile(
        [...b.wall].sort((x, y) => x - y),
        q,
      )
    console.log(`work/${b.label}: p50 ${fmt(ratio(50), 2)}, p95 ${fmt(ratio(95), 2)}`)
  }
} finally {
  for (const s of sides) await s.stop()
  base?.remove()
}
// The node writes its profile when it exits (stopped above).
if (values.profile) for (const line of profileSummary(PROFILE_DIR)) console.log(line)
