// The plan on real Redis, standalone and cluster: tasks, claims, dependencies, priority, limits.
import t from 'tap'
import { newRoom } from '../helpers/core.js'
import { BACKENDS } from '../helpers/shared.js'

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('add, get, update, delete', async (t) => {
      const room = await newRoom(t, backend)
      const { plan } = room.core
      const a = await plan.addTask(room.as('planner'), { title: 'Write the spec', notes: 'see brief' })
      t.match(a.task, {
        id: 't1',
        title: 'Write the spec',
        status: 'todo',
        priority: 'normal',
        order: 1,
        notes: 'see brief',
        depends_on: [],
        created_by: 'planner',
      })
      t.match(a.task.created_at, /^\d{4}-\d\d-\d\dT/)
      const g = await plan.getTask(room.as('planner'), { task_id: 't1' })
      t.same(g.blocked_by, [])
      t.equal(g.task.notes, 'see brief')
      const u = await plan.updateTask(room.as('backend'), { task_id: 't1', title: 'Write the API spec', notes: '' })
      t.same(u.changed.sort(), ['notes', 'title'])
      t.notOk(u.task.notes)
      t.equal(u.task.updated_by, 'backend')
      const d = await plan.deleteTask(room.as('planner'), { task_id: 't1' })
      t.equal(d.deleted, 't1')
      await t.rejects(plan.getTask(room.as('planner'), { task_id: 't1' }), { code: 'not_found' })
      await t.rejects(plan.deleteTask(room.as('planner'), { task_id: 't1' }), { code: 'not_found' })
    })

    t.test('claims', async (t) => {
      const room = await newRoom(t, backend)
      const { plan } = room.core
      await plan.addTask(room.as('p'), { title: 'a' })
      const c1 = await plan.updateTask(room.as('alice'), { task_id: 't1', status: 'in_progress' })
      t.match(c1.task, { status: 'in_progress', assignee: 'alice' })
      const again = await plan.updateTask(room.as('alice'), { task_id: 't1', status: 'in_progress' })
      t.same(again.changed, [], 'a repeat claim by the holder succeeds and changes nothing')
      await t.rejects(plan.updateTask(room.as('bob'), { task_id: 't1', status: 'in_progress' }), {
        code: 'conflict',
        details: { holder: 'alice' },
        message: /held by alice/,
      })
      await t.rejects(
        plan.updateTask(room.as('bob'), { task_id: 't1', assignee: 'bob' }),
        { code: 'conflict' },
        'reassigning a held task needs force',
      )
      const forced = await plan.updateTask(room.as('bob'), { task_id: 't1', status: 'in_progress', force: true })
      t.equal(forced.task.assignee, 'bob')
      await t.rejects(plan.updateTask(room.as(), { task_id: 't1', status: 'in_progress' }), {
        code: 'invalid_request',
        details: { field: 'agent_id' },
      })
    })

    t.test('a finished task is not claimed again without force', async (t) => {
      const room = await newRoom(t, backend)
      const { plan } = room.core
      await plan.addTask(room.as('p'), { title: 'a' })
      await plan.addTask(room.as('p'), { title: 'b' })
      await plan.updateTask(room.as('alice'), { task_id: 't1', status: 'in_progress' })
      await plan.updateTask(room.as('alice'), { task_id: 't1', status: 'done' })
      await plan.updateTask(room.as('p'), { task_id: 't2', status: 'cancelled' })
      for (const who of ['bob', 'alice'])
        await t.rejects(plan.updateTask(room.as(who), { task_id: 't1', status: 'in_progress' }), {
          code: 'conflict',
          details: { field: 'status', status: 'done' },
          message: 'task t1 is done already (alice); pick another task, or pass force to reopen it',
        })
      await t.rejects(plan.updateTask(room.as('bob'), { task_id: 't2', status: 'in_progress' }), {
        code: 'conflict',
        details: { status: 'cancelled' },
      })
      t.match((await plan.getTask(room.as('p'), { task_id: 't1' })).task, { status: 'done', assignee: 'alice' })
      const reopened = await plan.updateTask(room.as('bob'), { task_id: 't1', status: 'in_progress', force: true })
      t.match(reopened.task, { status: 'in_progress', assignee: 'bob' }, 'force reopens it')
      const back = await plan.updateTask(room.as('p'), { task_id: 't2', status: 'todo' })
      t.equal(back.task.status, 'todo', 'moving a finished task back to todo is not a claim')
    })

    t.test("changing another agent's claimed task needs force, and the event records it", async (t) => {
      const room = await newRoom(t, backend)
      const { plan, events } = room.core
      await plan.addTask(room.as('p'), { title: 'a' })
      await plan.updateTask(room.as('alice'), { task_id: 't1', status: 'in_progress' })
      for (const change of [
        { status: 'done' },
        { status: 'todo' },
        { title: 'renamed' },
        { notes: 'mine now' },
        { assignee: '' },
      ] as const) {
        await t.rejects(
          plan.updateTask(room.as('bob'), { task_id: 't1', ...change }),
          {
            code: 'conflict',
            message: /^task t1 is in progress, held by alice; .*force/,
            details: { holder: 'alice' },
          },
          `${JSON.stringify(change)} by bob is refused`,
        )
      }
      t.match(
        (await plan.getTask(room.as('x'), { task_id: 't1' })).task,
        { status: 'in_progress', assignee: 'alice', title: 'a' },
        'nothing changed',
      )
      const prio = await plan.setTaskPriority(room.as('lead'), { task_id: 't1', priority: 'high', order: 3 })
      t.same(prio.changed.sort(), ['order', 'priority'], "priority and order stay the planner's")
      const mine = await plan.updateTask(room.as('alice'), { task_id: 't1', notes: 'halfway' })
      t.same(mine.changed, ['notes'], 'the holder changes its own task freely')
      t.notOk('overrode' in mine)

      const forced = await plan.updateTask(room.as('bob'), { task_id: 't1', status: 'done', force: true })
      t.equal(forced.overrode, 'alice', 'the reply names whose claim was overridden')
      t.equal(forced.task.status, 'done')
      const feed = await events.unread(room.as('alice'))
      const ev = feed.events.find((e) => e.type === 'task_overridden')
      t.match(
        ev,
        { type: 'task_overridden', agent_id: 'bob', data: { task_id: 't1', holder: 'alice', changed: ['status'] } },
        'alice is told by an event',
      )
      t.match(ev?.text, /bob changed t1 \(status\) while alice held it/)
      await t.rejects(
        events.post(room.as('bob'), { type: 'task_overridden', text: 'x' }),
        { code: 'invalid_request', details: { field: 'type' } },
        'only the service posts it',
      )
    })

    t.test('dependencies, blocking and unblocking', async (t) => {
      const room = await newRoom(t, backend)
      const { plan } = room.core
      const as = room.as('p')
      await plan.addTask(as, { title: 'a' })
      await plan.addTask(as, { title: 'b', depends_on: ['t1'] })
      await plan.addTask(as, { title: 'c' })
      await plan.addDependency(as, { task_id: 't3', depends_on: 't2' })
      const again = await plan.addDependency(as, { task_id: 't3', depends_on: 't2' })
      t.equal(again.added, false)
      await t.rejects(plan.addDependency(as, { task_id: 't1', depends_on: 't3' }), {
        code: 'invalid_request',
        details: { cycle: ['t1', 't3', 't2', 't1'] },
      })
      await t.rejects(plan.addDependency(as, { task_id: 't1', depends_on: 't1' }), { code: 'invalid_request' })
      await t.rejects(plan.addDependency(as, { task_id: 't1', depends_on: 't9' }), { code: 'not_found' })
      await t.rejects(plan.addTask(as, { title: 'd', depends_on: ['t9'] }), {
        code: 'not_found',
        details: { field: 'depends_on' },
      })
      t.same(
        (await plan.unblockedTasks(as)).tasks.map((x) => x.id),
        ['t1'],
      )
      await t.rejects(plan.updateTask(room.as('bob'), { task_id: 't2', status: 'in_progress' }), {
        code: 'conflict',
        details: { blocked_by: ['t1'] },
      })
      await plan.updateTask(room.as('alice'), { task_id: 't1', status: 'in_progress' })
      const done = await plan.updateTask(room.as('alice'), { task_id: 't1', status: 'done' })
      t.same(done.unblocked, ['t2'])
      t.same(
        (await plan.unblockedTasks(as)).tasks.map((x) => x.id),
        ['t2'],
      )
      const del = await plan.deleteTask(as, { task_id: 't2' })
      t.same(del.dependents, ['t3'])
      t.same((await plan.getTask(as, { task_id: 't3' })).task.depends_on, [])
    })

    t.test('priority and order sort the unblocked list; assigned-to-others are left out', async (t) => {
      const room = await newRoom(t, backend)
      const { plan } = room.core
      const as = room.as('p')
      await plan.addTask(as, { title: 'low', priority: 'low' })
      await plan.addTask(as, { title: 'n1' })
      await plan.addTask(as, { title: 'n2' })
      await plan.addTask(as, { title: 'urgent', priority: 'urgent' })
      await plan.addTask(as, { title: 'for bob', assignee: 'bob' })
      await plan.setTaskPriority(as, { task_id: 't3', order: 0 })
      t.same(
        (await plan.unblockedTasks(room.as('alice'))).tasks.map((x) => x.title),
        ['urgent', 'n2', 'n1', 'low'],
      )
      t.same(
        (await plan.unblockedTasks(room.as('bob'), { limit: 2 })).tasks.map((x) => x.title),
        ['urgent', 'n2'],
      )
      t.equal((await plan.unblockedTasks(room.as('bob'), { limit: 2 })).total, 5)
      await t.rejects(plan.setTaskPriority(as, { task_id: 't3' }), { code: 'invalid_request' })
      const plan2 = await plan.readPlan(as)
      t.same(
        plan2.tasks.map((x) => x.title),
        ['urgent', 'n2', 'n1', 'for bob', 'low'],
      )
      t.same(plan2.counts, { todo: 5 })
    })

    t.test('my tasks', async (t) => {
      const room = await newRoom(t, backend)
      const { plan } = room.core
      await plan.addTask(room.as('p'), { title: 'a', assignee: 'alice' })
      await plan.addTask(room.as('p'), { title: 'b', assignee: 'alice' })
      await plan.addTask(room.as('p'), { title: 'c', assignee: 'bob' })
      await plan.updateTask(room.as('alice'), { task_id: 't2', status: 'done' })
      t.same(
        (await plan.myTasks(room.as('alice'))).tasks.map((x) => x.id),
        ['t1'],
      )
      t.same(
        (await plan.myTasks(room.as('alice'), { include_done: true })).tasks.map((x) => x.id),
        ['t1', 't2'],
      )
      await t.rejects(plan.myTasks(room.as()), { code: 'invalid_request' })
    })

    t.test('limits and validation name the field', async (t) => {
      const room = await newRoom(t, backend, { settings: { tasksPerRoom: 3, taskNotesBytes: 10 } })
      const { plan } = room.core
      const as = room.as('p')
      await t.rejects(plan.addTask(as, { title: '' }), { code: 'invalid_request', message: /^title:/ })
      await t.rejects(plan.addTask(as, { title: 'x', notes: 'é'.repeat(6) }), {
        code: 'too_large',
        details: { field: 'notes', limit: 10, size: 12 },
      })
      await t.rejects(plan.addTask(as, { title: 'x', priority: 'asap' }), {
        code: 'invalid_request',
        details: { field: 'priority' },
      })
      await t.rejects(plan.getTask(as, { task_id: '7' }), { code: 'invalid_request', details: { field: 'task_id' } })
      for (let i = 0; i < 3; i++) await plan.addTask(as, { title: `t${i}` })
      await t.rejects(plan.addTask(as, { title: 'one too many' }), { code: 'limit_reached', details: { limit: 3 } })
      t.equal((await plan.readPlan(as)).tasks.length, 3, 'the refused add changed nothing')
    })

    t.test('idempotency', async (t) => {
      const room = await newRoom(t, backend)
      const { plan } = room.core
      const first = await plan.addTask(room.as('p', 'k1'), { title: 'once' })
      const second = await plan.addTask(room.as('p', 'k1'), { title: 'once' })
      t.equal(second.task.id, first.task.id)
      t.equal((await plan.readPlan(room.as('p'))).tasks.length, 1)
      await t.rejects(plan.deleteTask(room.as('p', 'k1'), { task_id: 't1' }), {
        name: 'KeyReused',
        code: 'conflict',
        key: 'k1',
        details: { key: 'k1' },
      })
    })

    t.test('unknown room', async (t) => {
      const room = await newRoom(t, backend)
      await t.rejects(room.core.plan.readPlan({ room: { teamId: room.teamId, roomId: 'nope' }, agent: 'a' }), {
        code: 'not_found',
      })
      await t.rejects(
        room.core.plan.readPlan({ room: { teamId: 'other', roomId: room.roomId }, agent: 'a' }),
        { code: 'not_found' },
        'another team cannot see it',
      )
    })
  })
}
