// claim_next_task on real Redis, standalone and cluster: the caller gets its best claimable task
// (the first get_unblocked_tasks lists), chosen and claimed in one script, so agents racing for
// fewer tasks than they are each get a different one; nothing claimable answers no task and how
// many are still open; without an agent id it is refused.
import t from 'tap'
import { newRoom } from '../helpers/core.js'
import { BACKENDS } from '../helpers/shared.js'

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('the best claimable task, then none', async (t) => {
      const room = await newRoom(t, backend)
      const { plan } = room.core
      const p = room.as('planner')
      await plan.addTask(p, { title: 'low first in creation', priority: 'low' }) // t1
      await plan.addTask(p, { title: 'the urgent one', priority: 'urgent' }) // t2
      await plan.addTask(p, { title: 'waits for t2', depends_on: ['t2'], priority: 'urgent' }) // t3
      await plan.addTask(p, { title: "bob's", assignee: 'bob', priority: 'high' }) // t4
      const listed = await plan.unblockedTasks(room.as('alice'))
      t.same(
        listed.tasks.map((x) => x.id),
        ['t2', 't1'],
        'alice may claim t2, then t1',
      )

      const a = await plan.claimNext(room.as('alice'))
      t.match(a.task, { id: 't2', status: 'in_progress', assignee: 'alice' }, 'the first listed, claimed')
      t.equal(a.open, 4)
      t.match((await plan.getTask(p, { task_id: 't2' })).task, { status: 'in_progress', assignee: 'alice' })
      const b = await plan.claimNext(room.as('bob'))
      t.match(b.task, { id: 't4', assignee: 'bob' }, "bob's own task ranks above the low one")
      const c = await plan.claimNext(room.as('carol'))
      t.match(c.task, { id: 't1', assignee: 'carol' })
      const none = await plan.claimNext(room.as('dave'))
      t.notOk('task' in none, 'nothing claimable: no task (t3 waits for t2)')
      t.equal(none.open, 4, 'four tasks are not done')

      await plan.updateTask(room.as('alice'), { task_id: 't2', status: 'done' })
      const d = await plan.claimNext(room.as('dave'))
      t.match(d.task, { id: 't3', assignee: 'dave' }, 'unblocked by t2, claimable')
      for (const [agent, id] of [
        ['bob', 't4'],
        ['carol', 't1'],
        ['dave', 't3'],
      ] as const)
        await plan.updateTask(room.as(agent), { task_id: id, status: 'done' })
      const finished = await plan.claimNext(room.as('erin'))
      t.notOk('task' in finished)
      t.equal(finished.open, 0, 'open 0: the plan is finished')
    })

    t.test('30 agents race for 10 tasks: each task once, 20 get none', async (t) => {
      const room = await newRoom(t, backend)
      const { plan } = room.core
      for (let i = 0; i < 10; i++) await plan.addTask(room.as('planner'), { title: `task ${i}` })
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) => plan.claimNext(room.as(`agent-${i}`)).then((r) => ({ i, r }))),
      )
      const won = results.filter(({ r }) => r.task)
      t.equal(won.length, 10, 'ten claims granted')
      t.equal(new Set(won.map(({ r }) => r.task!.id)).size, 10, 'each to a different task')
      for (const { i, r } of won) t.equal(r.task!.assignee, `agent-${i}`)
      t.ok(
        results.filter(({ r }) => !r.task).every(({ r }) => r.open === 10),
        'the others get none, with ten open',
      )
      const final = await plan.readPlan(room.as('planner'))
      t.same(final.counts, { in_progress: 10 })
    })

    t.test('needs an agent id', async (t) => {
      const room = await newRoom(t, backend)
      await room.core.plan.addTask(room.as('planner'), { title: 'one' })
      await t.rejects(room.core.plan.claimNext(room.as()), { code: 'invalid_request', details: { field: 'agent_id' } })
      const left = await room.core.plan.readPlan(room.as('planner'))
      t.same(left.counts, { todo: 1 }, 'nothing changed')
    })
  })
}
