// Redis cost of the plan's operations in a room at the limits, this work tree against another
// commit: the same calls through each tree's own core and scripts (imported from its checkout),
// each tree on a Redis of its own, one call at a time. Reported per call in Redis instructions
// under valgrind's callgrind (--callgrind: a count the machine's load does not move, so two
// versions compare exactly) or in µs of Redis time (INFO commandstats). The room: --tasks tasks
// (a third depending on the one before; a tenth in progress, a fifth done), 20 agents' events.
// post_event and heartbeat are the controls: the plan's indexes must not move them.
//   npx tsx bench/plan-cost.ts [--base 5f84fc9] [--tasks 2000] [--calls 40] [--callgrind]
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { checkout, fmt, startRedis, startRedisUnderCallgrind } from './lib.js'

const { values } = parseArgs({
  options: {
    base: { type: 'string', default: 'HEAD' },
    tasks: { type: 'string', default: '2000' },
    calls: { type: 'string', default: '40' },
    callgrind: { type: 'boolean', default: false },
  },
})
const TASKS = Number(values.tasks)
const CALLS = Number(values.calls)
const unit = values.callgrind ? 'instructions' : 'us'

type Call = (c: { room: { teamId: string; roomId: string }; agent?: string }) => Promise<unknown>
/** The core of one tree, as far as this bench calls it (both trees have these). */
interface AnyCore {
  rooms: { create(teamId: string, input: unknown, by: string): Promise<unknown> }
  plan: Record<
    | 'addTask'
    | 'updateTask'
    | 'setTaskPriority'
    | 'addDependency'
    | 'deleteTask'
    | 'getTask'
    | 'readPlan'
    | 'unblockedTasks',
    (c: unknown, input: unknown) => Promise<unknown>
  >
  analytics: { room(c: unknown, input: unknown): Promise<unknown> }
  roomPage: { read(c: unknown, o: unknown): Promise<unknown> }
  events: { post(c: unknown, input: unknown): Promise<unknown> }
  presence: { heartbeat(c: unknown): Promise<unknown> }
}

/** Task numbers of the filled room: tasks n with n % 3 === 1 (n > 1) depend on n - 1. */
const dependsOnPrevious = (n: number) => n > 1 && n % 3 === 1
const statusOf = (n: number) => (n % 10 === 2 ? 'in_progress' : n % 5 === 4 ? 'done' : 'todo')
/** `CALLS + 1` task numbers from `start` that pass `ok`. */
function pick(start: number, ok: (n: number) => boolean): number[] {
  const out: number[] = []
  for (let n = start; out.length <= CALLS && n <= TASKS; n++) if (ok(n)) out.push(n)
  return out
}

/**
 * Each figure: a name and a call per index (0 .. CALLS; the last one warms the script up,
 * unmeasured), in the order run.
 */
function figures(core: AnyCore): [string, (i: number) => Call][] {
  const todoFree = pick(100, (n) => statusOf(n) === 'todo' && !dependsOnPrevious(n))
  const withDependents = pick(400, (n) => statusOf(n) === 'todo' && dependsOnPrevious(n + 1) && !dependsOnPrevious(n))
  const toDelete = pick(800, (n) => n % 3 === 0)
  return [
    ['add_task', () => (c) => core.plan.addTask(c, { title: 'a task added', priority: 'high' })],
    [
      'add_task with a dependency',
      (i) => (c) => core.plan.addTask(c, { title: 'a task added', depends_on: [`t${10 + i}`] }),
    ],
    [
      'update_task: claim',
      (i) => (c) => core.plan.updateTask(c, { task_id: `t${todoFree[i]}`, status: 'in_progress' }),
    ],
    ['set_task_priority', (i) => (c) => core.plan.setTaskPriority(c, { task_id: `t${300 + i}`, priority: 'urgent' })],
    [
      'update_task: done, with a dependent',
      (i) => (c) => core.plan.updateTask(c, { task_id: `t${withDependents[i]}`, status: 'done', force: true }),
    ],
    ['add_dependency', (i) => (c) => core.plan.addDependency(c, { task_id: `t${600 + i}`, depends_on: `t${500 + i}` })],
    ['delete_task', (i) => (c) => core.plan.deleteTask(c, { task_id: `t${toDelete[i]}` })],
    ['get_task', (i) => (c) => core.plan.getTask(c, { task_id: `t${700 + i}` })],
    ['get_unblocked_tasks', () => (c) => core.plan.unblockedTasks(c, {})],
    ['read_plan', () => (c) => core.plan.readPlan(c, {})],
    ['get_room_analytics', () => (c) => core.analytics.room(c, {})],
    ['the room page (its reads)', () => (c) => core.roomPage.read({ room: c.room }, { size: 20, ids: 10, days: 14 })],
    ['post_event (control)', () => (c) => core.events.post(c, { type: 'status', text: 'working' })],
    ['heartbeat (control)', () => (c) => core.presence.heartbeat(c)],
  ]
}

async function measureTree(label: string, tree: string): Promise<Map<string, number>> {
  const load = (path: string) => import(pathToFileURL(join(tree, path)).href)
  const [{ Store }, { Core }, { loadSettings }] = await Promise.all([
    load('src/store/store.ts'),
    load('src/core/index.ts'),
    load('src/config.ts'),
  ])
  const grind = values.callgrind ? await startRedisUnderCallgrind() : undefined
  const redis = grind ?? (await startRedis())
  const settings = {
    ...loadSettings({ REDIS_URL: `redis://127.0.0.1:${redis.port}` }),
    tasksPerRoom: TASKS + 10 * CALLS,
  }
  const store = new Store(settings)
  const core = new Core(store, settings) as AnyCore
  const room = { teamId: 'tm-bench', roomId: 'big' }
  const as = (agent: string) => ({ room, agent })
  try {
    await core.rooms.create(room.teamId, { room_id: room.roomId }, 'bench')
    const t0 = Date.now()
    const inParallel = async (count: number, one: (n: number) => Promise<unknown>) => {
      let next = 1
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next <= count) await one(next++)
        }),
      )
    }
    for (let n = 1; n <= TASKS; n++)
      await core.plan.addTask(as(`agent-${n % 20}`), {
        title: `Task ${n}: ${'x'.repeat(60)}`,
        priority: ['urgent', 'high', 'normal', 'low'][n % 4],
        depends_on: dependsOnPrevious(n) ? [`t${n - 1}`] : [],
      })
    await inParallel(TASKS, async (n) => {
      const status = statusOf(n)
      if (status !== 'todo')
        await core.plan.updateTask(as(`agent-${n % 20}`), { task_id: `t${n}`, status, force: true })
    })
    await inParallel(200, (n) => core.events.post(as(`agent-${n % 20}`), { type: 'message', text: `event ${n}` }))
    console.log(`${label}: room filled in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
    const cli = (...a: string[]) => execFileSync('redis-cli', ['-p', String(redis.port), ...a], { encoding: 'utf8' })
    const out = new Map<string, number>()
    for (const [name, call] of figures(core)) {
      // A fresh Lua state for each figure: Lua collects the garbage of a script during the next
      // ones, so a figure after a heavy read would pay for it. The first call then loads its
      // script again (NOSCRIPT, then EVAL): not part of the figure.
      cli('SCRIPT', 'FLUSH')
      await call(CALLS)(as('bench-agent'))
      const run = async () => {
        for (let i = 0; i < CALLS; i++) await call(i)(as('bench-agent'))
      }
      if (grind) {
        out.set(name, (await grind.instructions(run)) / CALLS)
      } else {
        cli('CONFIG', 'RESETSTAT')
        await run()
        out.set(name, Number(/cmdstat_evalsha:calls=\d+,usec=(\d+)/.exec(cli('INFO', 'commandstats'))![1]) / CALLS)
      }
    }
    return out
  } finally {
    await store.close()
    await redis.stop()
  }
}

const base = await checkout(values.base!)
try {
  console.log(
    `# ${new Date().toISOString()}: ${TASKS} tasks, ${CALLS} calls a figure, one at a time, Redis ${unit} per call`,
  )
  const work = await measureTree('work', join(import.meta.dirname, '..'))
  const other = await measureTree(base.sha, base.tree)
  for (const [name, w] of work) {
    const b = other.get(name)!
    console.log(
      `${name}: work ${fmt(w, 0)}, ${base.sha} ${fmt(b, 0)} ${unit} per call; work/${base.sha} ${fmt(w / b, 2)}`,
    )
  }
} finally {
  base.remove()
}
