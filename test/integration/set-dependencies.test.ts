// Setting a task's dependencies all at once (lua/setDependencies.lua through Plan.setDependencies)
// on real Redis, standalone and cluster: added and removed in one change, refusals (an unknown
// id, the task itself, a cycle, the limit) that name the field and the id and change nothing, two
// concurrent sets that would close a cycle between them, and the notice a change publishes.
import t, { type Test } from 'tap'
import { decode } from '@msgpack/msgpack'
import { listen, newRoom, rawRoom, type TestRoom } from '../helpers/core.js'
import { BACKENDS, type Backend } from '../helpers/shared.js'
import { eventually } from '../helpers/wait.js'

const slot = (id: string) => id.slice(1).padStart(10, '0')

/** Everything the plan keeps (tasks, notes, board, deps), to show a refusal changed none of it. */
async function planState(t: Test, backend: Backend, room: TestRoom) {
  const { raw, keys } = rawRoom(t, backend, room)
  const tasks = await raw.hgetallBuffer(keys.tasks)
  return {
    tasks: Object.fromEntries(Object.entries(tasks).map(([k, v]) => [k, decode(v)])),
    notes: await raw.hgetall(keys.notes),
    board: await raw.zrange(keys.board, 0, -1, 'WITHSCORES'),
    deps: await raw.zrange(keys.deps, 0, -1),
  }
}

/** The dependency index holds exactly the stored tasks' depends_on. */
async function edgesAgree(t: Test, backend: Backend, room: TestRoom) {
  const s = await planState(t, backend, room)
  const want = Object.values(s.tasks as Record<string, { id: string; depends_on?: string[] }>)
    .flatMap((task) => (task.depends_on ?? []).map((d) => `${slot(d)}:${slot(task.id)}`))
    .sort()
  t.same(s.deps, want, 'the dependency index holds every depends_on entry and no other')
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('adds and removes in one change, and keeps the indexes', async (t) => {
      const room = await newRoom(t, backend)
      const { plan } = room.core
      const as = room.as('planner')
      for (const title of ['a', 'b', 'c', 'd']) await plan.addTask(as, { title })
      await plan.addTask(as, { title: 'e', depends_on: ['t1', 't2'], notes: 'kept' })
      const r = await plan.setDependencies(room.as('lead'), { task_id: 't5', depends_on: ['t2', 't3', 't4', 't3'] })
      t.same(r.task.depends_on, ['t2', 't3', 't4'], 'exactly the ids given, duplicates dropped, in order')
      t.same(r.added, ['t3', 't4'])
      t.same(r.removed, ['t1'])
      t.same(r.blocked_by, ['t2', 't3', 't4'])
      t.equal(r.task.updated_by, 'lead')
      t.equal(r.task.notes, 'kept', 'the notes come with the task')
      await edgesAgree(t, backend, room)
      t.same((await plan.getTask(as, { task_id: 't5' })).task.depends_on, ['t2', 't3', 't4'])

      // t1 no longer blocks anything; t2 still does.
      await plan.updateTask(room.as('x'), { task_id: 't1', status: 'in_progress' })
      t.same((await plan.updateTask(room.as('x'), { task_id: 't1', status: 'done' })).unblocked, [])

      const cleared = await plan.setDependencies(as, { task_id: 't5', depends_on: [] })
      t.same(cleared.task.depends_on, [])
      t.same(cleared.removed, ['t2', 't3', 't4'])
      t.same(cleared.blocked_by, [])
      await edgesAgree(t, backend, room)
      t.same(
        (await plan.unblockedTasks(as, { limit: 10 })).tasks.map((x) => x.id),
        ['t2', 't3', 't4', 't5'],
      )
    })

    t.test('refusals name the field and the id, and change nothing', async (t) => {
      const room = await newRoom(t, backend, { settings: { dependenciesPerTask: 3 } })
      const { plan } = room.core
      const as = room.as('planner')
      await plan.addTask(as, { title: 'a' })
      await plan.addTask(as, { title: 'b', depends_on: ['t1'] })
      await plan.addTask(as, { title: 'c', depends_on: ['t2'] })
      await plan.addTask(as, { title: 'd' })
      await plan.addTask(as, { title: 'e' })
      const before = await planState(t, backend, room)

      await t.rejects(plan.setDependencies(as, { task_id: 't4', depends_on: ['t1', 't9', 't8'] }), {
        code: 'not_found',
        message: 'depends_on: task t9 does not exist',
        details: { field: 'depends_on', id: 't9' },
      })
      await t.rejects(plan.setDependencies(as, { task_id: 't4', depends_on: ['t1', 't4'] }), {
        code: 'invalid_request',
        message: 'depends_on: task t4 cannot depend on itself',
        details: { field: 'depends_on', id: 't4' },
      })
      // t1 <- t2 <- t3: t1 depending on t3 (with a harmless t4 beside it) closes the cycle.
      await t.rejects(plan.setDependencies(as, { task_id: 't1', depends_on: ['t4', 't3'] }), {
        code: 'invalid_request',
        message: 'depends_on: task t3 already depends on t1 (t1 -> t3 -> t2 -> t1); this would make a cycle',
        details: { field: 'depends_on', id: 't3', cycle: ['t1', 't3', 't2', 't1'] },
      })
      await t.rejects(plan.setDependencies(as, { task_id: 't2', depends_on: ['t3'] }), {
        code: 'invalid_request',
        details: { field: 'depends_on', id: 't3', cycle: ['t2', 't3', 't2'] },
      })
      await t.rejects(plan.setDependencies(as, { task_id: 't9', depends_on: [] }), {
        code: 'not_found',
        details: { field: 'task_id' },
      })
      await t.rejects(plan.setDependencies(as, { task_id: 't5', depends_on: ['t1', 't2', 't3', 't4'] }), {
        code: 'too_large',
        details: { field: 'depends_on' },
      })
      await t.rejects(plan.setDependencies(as, { task_id: 'nope', depends_on: [] }), {
        code: 'invalid_request',
        details: { field: 'task_id' },
      })
      t.same(await planState(t, backend, room), before, 'no refused set changed the plan')

      // Going the other way along the chain is fine: it is no cycle.
      const ok = await plan.setDependencies(as, { task_id: 't3', depends_on: ['t1', 't2'] })
      t.same(ok.added, ['t1'])
      await edgesAgree(t, backend, room)
    })

    t.test('a duplicate id counts once against the limit', async (t) => {
      const room = await newRoom(t, backend, { settings: { dependenciesPerTask: 2 } })
      const { plan } = room.core
      const as = room.as('planner')
      for (const title of ['a', 'b', 'c']) await plan.addTask(as, { title })
      const r = await plan.setDependencies(as, { task_id: 't3', depends_on: ['t1', 't1'] })
      t.same(r.task.depends_on, ['t1'])
    })

    t.test('two concurrent sets that would close a cycle between them: one wins', async (t) => {
      const room = await newRoom(t, backend)
      const { plan } = room.core
      const as = room.as('planner')
      for (const title of ['a', 'b', 'c']) await plan.addTask(as, { title })
      for (let round = 0; round < 5; round++) {
        await plan.setDependencies(as, { task_id: 't1', depends_on: [] })
        await plan.setDependencies(as, { task_id: 't2', depends_on: [] })
        await plan.setDependencies(as, { task_id: 't3', depends_on: [] })
        const results = await Promise.allSettled([
          plan.setDependencies(room.as('a'), { task_id: 't1', depends_on: ['t2'] }),
          plan.setDependencies(room.as('b'), { task_id: 't2', depends_on: ['t3'] }),
          plan.setDependencies(room.as('c'), { task_id: 't3', depends_on: ['t1'] }),
        ])
        const refused = results.filter((r) => r.status === 'rejected')
        t.equal(refused.length, 1, `round ${round}: exactly the set that would close the cycle is refused`)
        t.match((refused[0] as PromiseRejectedResult).reason, { code: 'invalid_request', details: { cycle: Array } })
      }
      await edgesAgree(t, backend, room)
    })

    t.test('a change publishes the task notice; an unchanged set publishes nothing', async (t) => {
      const room = await newRoom(t, backend)
      const { plan } = room.core
      const as = room.as('planner')
      await plan.addTask(as, { title: 'a' })
      await plan.addTask(as, { title: 'b' })
      const notices = await listen(t, backend, room)
      await plan.setDependencies(as, { task_id: 't2', depends_on: ['t1'] })
      const same = await plan.setDependencies(as, { task_id: 't2', depends_on: ['t1'] })
      t.same([same.added, same.removed], [[], []])
      await t.rejects(plan.setDependencies(as, { task_id: 't1', depends_on: ['t2'] }))
      await plan.addTask(as, { title: 'c' })
      // Notices of one room arrive in publish order: once the added task's is in, any of the
      // sets' would be too.
      t.ok(await eventually(() => notices.some((n) => n.op === 'added')), 'the notices arrived')
      t.same(
        notices.map((n) => [n.k, n.op, n.id, n.status]),
        [
          ['task', 'updated', 't2', 'todo'],
          ['task', 'added', 't3', undefined],
        ],
        'one notice per change, shaped as a task update',
      )
    })
  })
}
