// A swarm draining a plan: N agents, each a real MCP SDK client (Streamable HTTP, initialize era),
// half on node A and half on node B (child processes on one Redis of the bench's own), work through
// a plan of layered tasks with dependencies by the typical turn: claim_next_task (--pick next, the
// default: the best claimable task, chosen and claimed in one call), or get_unblocked_tasks and
// then the first listed task that update_task (status in_progress) grants, trying the next on a
// conflict (--pick first; --pick random starts at a random one); then post_event, "work" for
// --work-ms, update_task status done. An agent that finds nothing it can claim waits --poll-ms
// and looks again. Every task of a
// layer depends on 1 to --deps tasks of the layer before, so the plan's width is --width and its
// critical path has tasks/width tasks.
// Reported: duplicate claims (a task granted to a second agent: goal 0), reply tokens per completed
// task (every reply the agents read, Claude tokenizer, as bench/tokens.ts counts: goal <= 500),
// wall time against the critical path, and the calls spent waiting. Exits 1 unless every task is
// done, once.
//   npx tsx bench/swarm.ts [--agents 20] [--tasks 200] [--width 20] [--deps 2] [--work-ms 100]
//   [--poll-ms 100] [--seed 1] [--timeout 90] [--pick next|first|random]
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { getTokenizer } from '@anthropic-ai/tokenizer'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { defaultKey, fmt, percentile, STANDARD_TITLES, startChild, startRedis, type ChildNode } from './lib.js'

const { values } = parseArgs({
  options: {
    agents: { type: 'string', default: '20' },
    tasks: { type: 'string', default: '200' },
    width: { type: 'string', default: '20' },
    deps: { type: 'string', default: '2' },
    'work-ms': { type: 'string', default: '100' },
    'poll-ms': { type: 'string', default: '100' },
    seed: { type: 'string', default: '1' },
    timeout: { type: 'string', default: '90' },
    pick: { type: 'string', default: 'next' },
  },
})
const agents = Number(values.agents)
const tasks = Number(values.tasks)
const width = Number(values.width)
const maxDeps = Number(values.deps)
const workMs = Number(values['work-ms'])
const pollMs = Number(values['poll-ms'])
for (const [name, v] of Object.entries({ agents, tasks, width, deps: maxDeps })) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name}: a positive integer, got ${String(v)}`)
}
if (!['next', 'first', 'random'].includes(values.pick)) throw new Error('--pick: next, first or random')
if (tasks % width !== 0) throw new Error(`--tasks (${tasks}) must be a multiple of --width (${width})`)
const ROOM = 'swarm'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A small seeded generator (mulberry32), so a seed gives the same plan every run. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The plan: task i, the indexes of the tasks it depends on (all of the layer before it). */
function makePlan(): { title: string; notes: string; deps: number[] }[] {
  const rnd = random(Number(values.seed))
  return Array.from({ length: tasks }, (_, i) => {
    const layer = Math.floor(i / width)
    const deps = new Set<number>()
    if (layer > 0) {
      const n = 1 + Math.floor(rnd() * maxDeps)
      while (deps.size < Math.min(n, width)) deps.add((layer - 1) * width + Math.floor(rnd() * width))
    }
    const title = `${STANDARD_TITLES[i % STANDARD_TITLES.length]!} (${layer + 1})`
    return { title, notes: `Acceptance: ${title.toLowerCase()} is covered by a test.`, deps: [...deps] }
  })
}

/** Tasks on the longest dependency chain of `plan`. */
function criticalPath(plan: { deps: number[] }[]): number {
  const depth: number[] = []
  plan.forEach((t, i) => (depth[i] = 1 + Math.max(0, ...t.deps.map((d) => depth[d]!))))
  return Math.max(...depth)
}

/** CPU seconds a process used so far (Linux /proc; clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

interface Reply {
  text: string
  isError: boolean
}

/** Replies read and latencies, by tool; claims granted, by task. */
const replies = new Map<string, string[]>()
const latencies = new Map<string, number[]>()
const granted = new Map<string, string[]>()
/** Tasks marked done, and grants of a task some agent had already marked done (a reopen). */
const finished = new Set<string>()
let reopened = 0
let completed = 0
let deadline = Infinity
let waits = 0
let conflicts = 0

async function connect(node: ChildNode, key: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${node.port}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  })
  await client.connect(transport)
  return client
}

/** Calls `name` as `agent` in the swarm room; records the reply text and the latency. */
async function call(client: Client, agent: string, name: string, args: Record<string, unknown>): Promise<Reply> {
  const t0 = performance.now()
  const r = (await client.callTool({ name, arguments: { room_id: ROOM, agent_id: agent, ...args } })) as {
    content: { type: string; text: string }[]
    isError?: boolean
  }
  const ms = performance.now() - t0
  const text = r.content[0]?.text ?? ''
  const label = name === 'update_task' ? `update_task ${String(args.status)}` : name
  ;(replies.get(label) ?? replies.set(label, []).get(label)!).push(text)
  ;(latencies.get(label) ?? latencies.set(label, []).get(label)!).push(ms)
  return { text, isError: r.isError === true }
}

async function agent(client: Client, id: string): Promise<void> {
  while (finished.size < tasks) {
    if (performance.now() > deadline) throw new Error(`${id}: the plan was not drained in ${values.timeout} s`)
    const claimed = values.pick === 'next' ? await claimNext(client, id) : await listAndClaim(client, id)
    if (!claimed) {
      waits++
      await sleep(pollMs)
      continue
    }
    ;(granted.get(claimed) ?? granted.set(claimed, []).get(claimed)!).push(id)
    if (finished.has(claimed)) reopened++
    const ev = await call(client, id, 'post_event', { type: 'status', text: `Claimed ${claimed}; working on it` })
    if (ev.isError) throw new Error(`${id} post_event: ${ev.text}`)
    await sleep(workMs)
    const done = await call(client, id, 'update_task', { task_id: claimed, status: 'done' })
    if (done.isError) throw new Error(`${id} done ${claimed}: ${done.text}`)
    completed++
    finished.add(claimed)
  }
}

/** claim_next_task: the id of the task it granted, or undefined when none was claimable. */
async function claimNext(client: Client, id: string): Promise<string | undefined> {
  const r = await call(client, id, 'claim_next_task', {})
  if (r.isError) throw new Error(`${id} claim_next_task: ${r.text}`)
  return (JSON.parse(r.text) as { task?: { id: string } }).task?.id
}

/** get_unblocked_tasks, then claims of the listed tasks until one is granted: its id, or undefined. */
async function listAndClaim(client: Client, id: string): Promise<string | undefined> {
  const list = await call(client, id, 'get_unblocked_tasks', {})
  if (list.isError) throw new Error(`${id} get_unblocked_tasks: ${list.text}`)
  const listed = (JSON.parse(list.text) as { tasks: { id: string }[] }).tasks
  // --pick random: start at a random listed task (then the next ones, wrapping around).
  const start = values.pick === 'random' ? Math.floor(Math.random() * listed.length) : 0
  for (const t of [...listed.slice(start), ...listed.slice(0, start)]) {
    const r = await call(client, id, 'update_task', { task_id: t.id, status: 'in_progress' })
    if (!r.isError) return t.id
    if (!r.text.includes('conflict')) throw new Error(`${id} claim of ${t.id}: ${r.text}`)
    conflicts++
  }
  return undefined
}

const redis = await startRedis()
const env = {
  REDIS_URL: `redis://127.0.0.1:${redis.port}`,
  RATE_LIMIT_PER_MIN: '10000000',
  RATE_LIMIT_PER_CREDENTIAL_PER_MIN: '5000000',
}
const a = await startChild('src/main.ts', env)
const key = await defaultKey(a)
const b = await startChild('src/main.ts', env)
try {
  const created = await fetch(`http://127.0.0.1:${a.port}/admin/rooms`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ roomId: ROOM }),
  })
  if (created.status !== 201) throw new Error(`room creation: ${created.status} ${await created.text()}`)
  const plan = makePlan()
  const planner = await connect(a, key, 'planner')
  // One layer at a time, its tasks added concurrently: a task names the ids its dependencies got.
  const ids: string[] = []
  for (let first = 0; first < tasks; first += width) {
    const added = await Promise.all(
      plan.slice(first, first + width).map(async ({ title, notes, deps }) => {
        const depends_on = deps.map((d) => ids[d]!)
        const args = { room_id: ROOM, agent_id: 'planner', title, notes, depends_on }
        const r = await planner.callTool({ name: 'add_task', arguments: args })
        const text = (r.content as { text: string }[])[0]!.text
        if (r.isError) throw new Error(`add_task: ${text}`)
        return (JSON.parse(text) as { task: { id: string } }).task.id
      }),
    )
    ids.push(...added)
  }
  const depth = criticalPath(plan)
  const clients = await Promise.all(
    Array.from({ length: agents }, (_, i) => connect(i % 2 === 0 ? a : b, key, `agent-${i + 1}`)),
  )
  console.log(
    `# ${new Date().toISOString()} node ${process.version}; nodes A and B on one Redis; ${agents} agents ` +
      `(MCP SDK clients, half on each node); plan of ${tasks} tasks, width ${width}, 1-${maxDeps} dependencies ` +
      `each, critical path ${depth} tasks; work ${workMs} ms per task, poll ${pollMs} ms, pick ${values.pick}`,
  )

  const cpu0 = [cpuSeconds(a.proc.pid!), cpuSeconds(b.proc.pid!), cpuSeconds(redis.proc.pid!), cpuSeconds(process.pid)]
  const t0 = performance.now()
  deadline = t0 + Number(values.timeout) * 1000
  await Promise.all(clients.map((c, i) => agent(c, `agent-${i + 1}`)))
  const wall = performance.now() - t0
  const cpu = [cpuSeconds(a.proc.pid!), cpuSeconds(b.proc.pid!), cpuSeconds(redis.proc.pid!), cpuSeconds(process.pid)]
  await Promise.all([...clients, planner].map((c) => c.close()))

  const counts = (
    JSON.parse(
      (
        (
          await (
            await connect(b, key, 'checker')
          ).callTool({ name: 'read_plan', arguments: { room_id: ROOM, agent_id: 'checker', limit: 1 } })
        ).content as { text: string }[]
      )[0]!.text,
    ) as { counts: Record<string, number> }
  ).counts

  const duplicates = [...granted.values()].filter((g) => g.length > 1).length
  const label = `swarm agents=${agents} tasks=${tasks}`
  console.log(
    `${label} completed: ${finished.size} of ${tasks} tasks (${completed} done calls); plan counts ` +
      JSON.stringify(counts),
  )
  console.log(
    `${label} duplicate claims: ${duplicates} (tasks granted to more than one agent); ${reopened} grants of a ` +
      `task already done`,
  )
  const tokenizer = getTokenizer()
  // As @anthropic-ai/tokenizer's countTokens counts, with one tokenizer for all the replies.
  const countTokens = (text: string) => tokenizer.encode(text.normalize('NFKC'), 'all').length
  let tokens = 0
  let calls = 0
  for (const [tool, texts] of [...replies].sort()) {
    const n = texts.reduce((s, t) => s + countTokens(t), 0)
    tokens += n
    calls += texts.length
    const ms = latencies.get(tool)!.sort((x, y) => x - y)
    console.log(
      `${label} ${tool}: ${texts.length} calls, ${fmt(n / texts.length, 0)} tokens per reply, p50 ` +
        `${fmt(percentile(ms, 50), 2)} ms, p99 ${fmt(percentile(ms, 99), 2)} ms`,
    )
  }
  tokenizer.free()
  console.log(
    `${label} reply tokens per completed task: ${fmt(tokens / finished.size, 0)} (${tokens} in ${calls} calls)`,
  )
  console.log(
    `${label} waiting: ${waits} turns found nothing claimable; ${conflicts} claims refused ` +
      `(conflict); ${fmt(calls / finished.size, 2)} calls per completed task`,
  )
  // The critical path at this run's latencies: each of its tasks one turn (claim, post, work, done).
  const p50 = (tool: string) => percentile(latencies.get(tool)!, 50)
  const claim = values.pick === 'next' ? ['claim_next_task'] : ['get_unblocked_tasks', 'update_task in_progress']
  const turn = workMs + [...claim, 'post_event', 'update_task done'].map(p50).reduce((x, y) => x + y, 0)
  console.log(
    `${label} wall: ${fmt(wall / 1000, 2)} s; critical path ${depth} tasks: ${fmt((depth * workMs) / 1000, 2)} s ` +
      `of work (${fmt(wall / (depth * workMs), 1)}x), ${fmt((depth * turn) / 1000, 2)} s at one turn each with ` +
      `this run's p50 latencies (${fmt(wall / (depth * turn), 2)}x)`,
  )
  const pct = cpu.map((x, i) => fmt((100 * (x - cpu0[i]!)) / (wall / 1000), 0))
  console.log(
    `${label} cpu (% of one core): node A ${pct[0]}, node B ${pct[1]}, Redis ${pct[2]}, agents (this process) ` +
      pct[3],
  )
  if (finished.size !== tasks || counts.done !== tasks || duplicates > 0) process.exitCode = 1
} finally {
  await Promise.all([a.stop(), b.stop()])
  await redis.stop()
}
