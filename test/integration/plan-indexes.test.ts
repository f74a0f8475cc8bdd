// The plan's indexes (lua/includes/board.lua, docs/data-model.md "The plan's indexes") agree with
// the tasks after every kind of plan change: each change alone, many at once from concurrent
// agents, replays of an idempotency key, failed changes, a room re-created after expiry, and a
// room whose indexes are missing (one from before them). Two checks each time: the keys hold
// exactly what the tasks say (members, scores, dependency edges), and the room page's board,
// read page by page, is what reading and sorting every task gives (counts, order within each
// column, blocked by, blocks), as the page computed it before the indexes.
import t, { type Test } from 'tap'
import { decode } from '@msgpack/msgpack'
import { AppError } from '../../src/shared/errors.js'
import { TASK_STATUSES, type Task, type TaskStatus } from '../../src/core/plan.js'
import { newRoom, rawRoom, type TestRoom } from '../helpers/core.js'
import { BACKENDS, type Backend } from '../helpers/shared.js'
import { eventually } from '../helpers/wait.js'

const RANK: Record<string, number> = { urgent: 0, high: 1, normal: 2, low: 3 }
const BAND = 2 ** 44
const finished = (s: TaskStatus) => s === 'done' || s === 'cancelled'
const num = (id: string) => Number(id.slice(1))
const slot = (id: string) => String(num(id)).padStart(10, '0')

/** What the indexes must hold for these stored tasks (the contract of lua/includes/board.lua). */
function expectedIndexes(
  tasks: {
    id: string
    status: TaskStatus
    priority: string
    order: number
    updated_at: number
    depends_on?: string[]
  }[],
) {
  const board = tasks
    .map((t) => {
      const band = TASK_STATUSES.indexOf(t.status)
      return [slot(t.id), band * BAND + (band >= 3 ? t.updated_at : RANK[t.priority]! * 2 ** 30 + t.order)] as const
    })
    .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
  const deps = tasks.flatMap((t) => (t.depends_on ?? []).map((d) => `${slot(d)}:${slot(t.id)}`)).sort()
  return { board, deps }
}

/** The keys hold exactly what the tasks hash says. */
async function indexesAgree(t: Test, backend: Backend, room: TestRoom, when: string): Promise<void> {
  const { raw, keys } = rawRoom(t, backend, room)
  const stored = Object.values(await raw.hgetallBuffer(keys.tasks)).map(
    (b) => decode(b) as Parameters<typeof expectedIndexes>[0][number],
  )
  const want = expectedIndexes(stored)
  const flat = await raw.zrange(keys.board, 0, -1, 'WITHSCORES')
  const board: (readonly [string, number])[] = []
  for (let i = 0; i < flat.length; i += 2) board.push([flat[i]!, Number(flat[i + 1])])
  t.same(board, want.board, `${when}: the board holds every task, by status and column order`)
  t.same(await raw.zrange(keys.deps, 0, -1), want.deps, `${when}: deps holds every dependency`)
  if (stored.length > 0) t.ok((await raw.pttl(keys.board)) > 0, `${when}: the board has the room TTL`)
  if (want.deps.length > 0) t.ok((await raw.pttl(keys.deps)) > 0, `${when}: deps has the room TTL`)
}

const SIZE = 4
const IDS = 3

/** The board as the page showed it before the indexes: every task read, then counted and sorted. */
function expectedBoard(tasks: Task[]) {
  const byId = new Map(tasks.map((x) => [x.id, x]))
  const ms = (iso: string) => Date.parse(iso)
  const out = {} as Record<
    TaskStatus,
    { total: number; cards: { id: string; blocked_by: string[]; blocks: string[]; blocks_total: number }[] }
  >
  for (const st of TASK_STATUSES) {
    const col = tasks
      .filter((x) => x.status === st)
      .sort(
        finished(st)
          ? (a, b) => ms(b.updated_at) - ms(a.updated_at) || num(b.id) - num(a.id)
          : (a, b) => RANK[a.priority]! - RANK[b.priority]! || a.order - b.order || num(a.id) - num(b.id),
      )
    out[st] = {
      total: col.length,
      cards: col.map((x) => {
        const blocks = tasks
          .filter((o) => o.depends_on.includes(x.id))
          .map((o) => o.id)
          .sort((a, b) => num(a) - num(b))
        const open = st === 'todo' ? x.depends_on.filter((d) => byId.has(d) && !finished(byId.get(d)!.status)) : []
        return { id: x.id, blocked_by: open.slice(0, IDS), blocks: blocks.slice(0, IDS), blocks_total: blocks.length }
      }),
    }
  }
  return out
}

/**
 * The page's board, read a page at a time, is the board of every task read and sorted; so are the
 * analytics' counts.
 */
async function pageAgrees(t: Test, room: TestRoom, when: string): Promise<void> {
  const c = room.as()
  const snap = await room.core.snapshot.room(c)
  const want = expectedBoard(snap.tasks)
  const got = {} as Record<
    TaskStatus,
    { total: number; cards: { id: string; blocked_by: string[]; blocks: string[]; blocks_total: number }[] }
  >
  for (const st of TASK_STATUSES) got[st] = { total: -1, cards: [] }
  const most = Math.max(...TASK_STATUSES.map((st) => want[st].total))
  for (let from = 0; from === 0 || from < most; from += SIZE) {
    const page = await room.core.roomPage.read(c, {
      size: SIZE,
      ids: IDS,
      days: 7,
      from: Object.fromEntries(TASK_STATUSES.map((st) => [st, from])),
    })
    for (const st of TASK_STATUSES) {
      const col = page.columns[st]
      got[st].total = col.total
      if (col.from !== from) continue // past this column's end: its last page again
      got[st].cards.push(
        ...col.items.map((card) => ({
          id: card.task.id,
          blocked_by: card.blocked_by,
          blocks: card.blocks,
          blocks_total: card.blocks_total,
        })),
      )
    }
  }
  t.same(got, want, `${when}: every column's count, order and links, page by page`)
  // get_unblocked_tasks reads the tasks to do in the board's order.
  const open = new Set(snap.tasks.filter((x) => !finished(x.status)).map((x) => x.id))
  const free = want.todo.cards
    .map((card) => snap.tasks.find((x) => x.id === card.id)!)
    .filter((x) => !x.depends_on.some((d) => open.has(d)))
  for (const agent of [undefined, 'agent-1']) {
    const mine = free.filter((x) => agent === undefined || x.assignee === undefined || x.assignee === agent)
    const got = await room.core.plan.unblockedTasks(room.as(agent), { limit: 200 })
    t.same(
      got.tasks.map((x) => x.id),
      mine.slice(0, 200).map((x) => x.id),
      `${when}: get_unblocked_tasks${agent ? ` for ${agent}` : ''}, in order`,
    )
    t.equal(got.total, mine.length, `${when}: get_unblocked_tasks counts them all`)
  }
  const analytics = await room.core.analytics.room(c, { days: 7 }, false)
  t.same(
    analytics.tasks.by_status,
    Object.fromEntries(TASK_STATUSES.map((st) => [st, want[st].total])),
    `${when}: analytics count by status`,
  )
  const today = Math.floor(Date.now() / 86_400_000)
  const doneToday = snap.tasks.filter(
    (x) => x.status === 'done' && Math.floor(Date.parse(x.updated_at) / 86_400_000) === today,
  ).length
  t.equal(analytics.events_per_day.at(-1)!.tasks_done, doneToday, `${when}: tasks done today`)
}

async function bothAgree(t: Test, backend: Backend, room: TestRoom, when: string): Promise<void> {
  await indexesAgree(t, backend, room, when)
  await pageAgrees(t, room, when)
}

/** A deterministic stream of numbers in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let x = Math.imul(a ^ (a >>> 15), 1 | a)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

/** One random plan change by `agent`; refusals the rules make (conflicts, cycles, gone tasks) are part of the game. */
async function randomChange(room: TestRoom, rnd: () => number, agent: string, next: () => number): Promise<void> {
  const { plan, reviews } = room.core
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!
  const someTask = () => `t${1 + Math.floor(rnd() * next())}`
  const c = room.as(agent)
  const r = rnd()
  try {
    if (r < 0.25) {
      const deps = rnd() < 0.5 ? [someTask(), someTask()] : []
      await plan.addTask(c, {
        title: `task by ${agent}`,
        priority: pick(['urgent', 'high', 'normal', 'low'] as const),
        ...(rnd() < 0.3 ? { order: Math.floor(rnd() * 5) } : {}),
        depends_on: deps,
      })
    } else if (r < 0.5) {
      await plan.updateTask(c, { task_id: someTask(), status: pick(TASK_STATUSES), force: rnd() < 0.7 })
    } else if (r < 0.6) {
      await plan.setTaskPriority(c, {
        task_id: someTask(),
        priority: pick(['urgent', 'high', 'normal', 'low'] as const),
        ...(rnd() < 0.5 ? { order: Math.floor(rnd() * 5) } : {}),
      })
    } else if (r < 0.7) {
      await plan.addDependency(c, { task_id: someTask(), depends_on: someTask() })
    } else if (r < 0.78) {
      await plan.deleteTask(c, { task_id: someTask() })
    } else if (r < 0.9) {
      await reviews.request(c, { target: { kind: 'task', task_id: someTask() } })
    } else {
      const listed = await reviews.list(c, { status: 'pending' })
      const review = listed.reviews.find((x) => x.requested_by !== agent)
      if (review)
        await (rnd() < 0.6 ? reviews.approve(c, { review_id: review.id }) : reviews.reject(c, { review_id: review.id }))
    }
  } catch (err) {
    if (!(err instanceof AppError) || !['conflict', 'not_found', 'invalid_request', 'limit_reached'].includes(err.code))
      throw err
  }
}

/** The highest task number of the plan, or `high` when higher (ids are never reused). */
async function highest(room: TestRoom, high: number): Promise<number> {
  return Math.max(high, ...(await room.core.snapshot.room(room.as())).tasks.map((x) => num(x.id)))
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('every kind of plan change, one at a time', async (t) => {
      const room = await newRoom(t, backend, { template: 'web-app' })
      await bothAgree(t, backend, room, 'a room from a template')
      const { plan, reviews } = room.core
      const a = room.as('alice')
      const steps: [string, () => Promise<unknown>][] = [
        ['add_task', () => plan.addTask(a, { title: 'new', priority: 'urgent', depends_on: ['t1', 't2'] })],
        [
          'add_task in progress, with an order',
          () => plan.addTask(a, { title: 'started', status: 'in_progress', order: 0 }),
        ],
        ['claim', () => plan.updateTask(a, { task_id: 't4', status: 'in_progress' })],
        ['set_task_priority', () => plan.setTaskPriority(a, { task_id: 't5', priority: 'low', order: 1 })],
        ['update_task title only', () => plan.updateTask(a, { task_id: 't6', title: 'renamed' })],
        [
          'request_review (in progress -> in review)',
          () => reviews.request(a, { target: { kind: 'task', task_id: 't4' } }),
        ],
        ['approve (in review -> done)', () => reviews.approve(room.as('bob'), { review_id: 'r1' })],
        ['done', () => plan.updateTask(a, { task_id: 't1', status: 'done', force: true })],
        ['cancelled', () => plan.updateTask(a, { task_id: 't3', status: 'cancelled', force: true })],
        [
          'reject (in review -> in progress)',
          async () => {
            await plan.updateTask(a, { task_id: 't10', status: 'in_progress' })
            await reviews.request(a, { target: { kind: 'task', task_id: 't10' } })
            return reviews.reject(room.as('bob'), { review_id: 'r2' })
          },
        ],
        ['add_dependency', () => plan.addDependency(a, { task_id: 't6', depends_on: 't10' })],
        ['done again (updated_at moves)', () => plan.updateTask(a, { task_id: 't1', title: 'first, renamed' })],
        ['delete_task with dependents', () => plan.deleteTask(a, { task_id: 't2' })],
        ['delete_task with dependencies', () => plan.deleteTask(a, { task_id: 't9' })],
        ['back to todo', () => plan.updateTask(a, { task_id: 't1', status: 'todo' })],
      ]
      for (const [name, run] of steps) {
        await run()
        await bothAgree(t, backend, room, `after ${name}`)
      }
    })

    t.test('refused changes leave the indexes as they were', async (t) => {
      const room = await newRoom(t, backend, { template: 'web-app' })
      const { plan } = room.core
      const a = room.as('alice')
      await plan.updateTask(room.as('bob'), { task_id: 't1', status: 'in_progress' })
      await t.rejects(
        plan.updateTask(a, { task_id: 't1', status: 'in_progress' }),
        { code: 'conflict' },
        'a held claim',
      )
      await t.rejects(
        plan.updateTask(a, { task_id: 't5', status: 'in_progress' }),
        { code: 'conflict' },
        'a blocked claim',
      )
      await t.rejects(
        plan.addDependency(a, { task_id: 't1', depends_on: 't8' }),
        { code: 'invalid_request' },
        'a cycle',
      )
      await t.rejects(
        plan.addTask(a, { title: 'x', depends_on: ['t99'] }),
        { code: 'not_found' },
        'a missing dependency',
      )
      await t.rejects(plan.deleteTask(a, { task_id: 't99' }), { code: 'not_found' })
      await bothAgree(t, backend, room, 'after refused changes')
    })

    t.test('concurrent agents changing the plan at once', async (t) => {
      const room = await newRoom(t, backend)
      for (let i = 0; i < 30; i++)
        await room.core.plan.addTask(room.as('planner'), {
          title: `task ${i}`,
          depends_on: i > 2 && i % 3 === 0 ? [`t${i - 2}`] : [],
        })
      let high = 30
      const next = () => high
      for (let round = 0; round < 3; round++) {
        await Promise.all(
          Array.from({ length: 8 }, async (_, w) => {
            const rnd = random(1000 * round + w + (backend === 'cluster' ? 7 : 0))
            for (let i = 0; i < 25; i++) await randomChange(room, rnd, `agent-${w}`, next)
          }),
        )
        high = await highest(room, high)
        await bothAgree(t, backend, room, `after round ${round + 1} of 200 concurrent changes`)
      }
    })

    t.test('a replayed idempotency key changes nothing', async (t) => {
      const room = await newRoom(t, backend, { template: 'web-app' })
      const { plan } = room.core
      const first = await plan.deleteTask(room.as('alice', 'del-1'), { task_id: 't1' })
      const added = await plan.addTask(room.as('alice', 'add-1'), { title: 'once', depends_on: ['t2'] })
      const claimed = await plan.updateTask(room.as('alice', 'claim-1'), { task_id: 't4', status: 'in_progress' })
      await plan.updateTask(room.as('alice'), { task_id: 't4', status: 'done' })
      t.same(await plan.deleteTask(room.as('alice', 'del-1'), { task_id: 't1' }), first, 'the delete replays its reply')
      t.same(
        await plan.addTask(room.as('alice', 'add-1'), { title: 'once', depends_on: ['t2'] }),
        added,
        'the add replays its reply',
      )
      t.same(
        (await plan.updateTask(room.as('alice', 'claim-1'), { task_id: 't4', status: 'in_progress' })).task,
        claimed.task,
        'the claim replays its reply',
      )
      t.equal(
        (await room.core.snapshot.room(room.as())).tasks.find((x) => x.id === 't4')!.status,
        'done',
        'and claims nothing again',
      )
      await bothAgree(t, backend, room, 'after replays')
    })

    t.test('a room re-created after expiry starts with indexes of its own tasks only', async (t) => {
      const room = await newRoom(t, backend)
      const { raw, keys } = rawRoom(t, backend, room)
      for (let i = 0; i < 5; i++)
        await room.core.plan.addTask(room.as('a'), { title: `old ${i}`, depends_on: i ? ['t1'] : [] })
      // Every key lapses at once.
      await Promise.all(keys.list.slice(0, -1).map((k) => raw.pexpire(k, 1)))
      t.ok(
        await eventually(
          async () => (await Promise.all(keys.list.slice(0, -1).map((k) => raw.exists(k)))).every((e) => e === 0),
          10_000,
        ),
        'every key expired',
      )
      await room.core.rooms.create(room.teamId, { room_id: room.roomId, template: 'incident' }, 'test')
      await bothAgree(t, backend, room, 're-created from a template')
      // The room record lapses first and the indexes are still there: creation clears them.
      for (let i = 0; i < 5; i++) await room.core.plan.addTask(room.as('a'), { title: `more ${i}`, depends_on: ['t2'] })
      await raw.del(keys.meta)
      await room.core.rooms.create(room.teamId, { room_id: room.roomId }, 'test')
      t.equal(await raw.exists(keys.board, keys.deps), 0, 'a blank room has no indexes left from before')
      await bothAgree(t, backend, room, 're-created blank while the old indexes remained')
    })

    t.test('a room without indexes (from before them) gets them at its first read or write', async (t) => {
      for (const first of ['the room page', 'analytics', 'a claim', 'add_task', 'delete_task'] as const) {
        const room = await newRoom(t, backend, { template: 'web-app' })
        const { raw, keys } = rawRoom(t, backend, room)
        await room.core.plan.updateTask(room.as('a'), { task_id: 't1', status: 'done' })
        await raw.del(keys.board, keys.deps)
        const c = room.as('a')
        if (first === 'the room page') await room.core.roomPage.read(room.as(), { size: SIZE, ids: IDS, days: 7 })
        if (first === 'analytics') await room.core.analytics.room(c)
        if (first === 'a claim') await room.core.plan.updateTask(c, { task_id: 't2', status: 'in_progress' })
        if (first === 'add_task') await room.core.plan.addTask(c, { title: 'new', depends_on: ['t3'] })
        if (first === 'delete_task') await room.core.plan.deleteTask(c, { task_id: 't2' })
        await bothAgree(t, backend, room, `built by ${first}`)
      }
    })
  })
}
