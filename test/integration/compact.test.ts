// Compact list replies on real Redis, standalone and cluster: list items carry what an
// agent decides with and omit empty or default fields; limits say how many were left out and how
// to get them; an empty consuming read says when the last event was.
import t from 'tap'
import { AppError, ERRORS } from '../../src/shared/errors.js'
import { planTools } from '../../src/mcp/tools/plan.js'
import { newRoom } from '../helpers/core.js'
import { BACKENDS } from '../helpers/shared.js'

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('task lists: compact items, blocked_by, limits that say what was left out', async (t) => {
      const room = await newRoom(t, backend)
      const { plan } = room.core
      const p = room.as('planner')
      await plan.addTask(p, { title: 'urgent one', notes: 'long notes', priority: 'urgent' })
      await plan.addTask(p, { title: 'waits for t1', depends_on: ['t1'], assignee: 'dev' })
      for (let i = 3; i <= 13; i++) await plan.addTask(p, { title: `task ${i}`, notes: 'n' })

      const unblocked = await plan.unblockedTasks(room.as('dev'))
      t.same(
        unblocked.tasks[0],
        { id: 't1', title: 'urgent one', status: 'todo', priority: 'urgent' },
        'no notes, order, times or empty depends_on',
      )
      t.same(unblocked.tasks[1], { id: 't3', title: 'task 3', status: 'todo' }, 'normal priority is left out')
      t.equal(unblocked.tasks.length, 10, 'ten by default: a turn picks from the top')
      t.equal(unblocked.total, 12)
      t.equal(unblocked.more, '2 more: pass limit (at most 200)')
      const all = await plan.unblockedTasks(room.as('dev'), { limit: 12 })
      t.equal(all.tasks.length, 12)
      t.notOk('more' in all, 'nothing left out, no more')

      t.same((await plan.myTasks(room.as('dev'))).tasks, [
        { id: 't2', title: 'waits for t1', status: 'todo', assignee: 'dev', blocked_by: ['t1'] },
      ])

      const whole = await plan.readPlan(room.as('dev'), { limit: 2 })
      t.same(whole.tasks, [
        { id: 't1', title: 'urgent one', status: 'todo', priority: 'urgent' },
        { id: 't2', title: 'waits for t1', status: 'todo', assignee: 'dev', blocked_by: ['t1'] },
      ])
      t.same(whole.counts, { todo: 13 })
      t.equal(whole.more, '11 more: pass limit (at most 2000)')
      await t.rejects(plan.readPlan(room.as('dev'), { limit: 0 }), {
        code: 'invalid_request',
        details: { field: 'limit' },
      })

      await plan.updateTask(room.as('dev'), { task_id: 't1', status: 'done' })
      const after = await plan.readPlan(room.as('dev'), { limit: 2 })
      t.same(
        after.tasks[1],
        { id: 't2', title: 'waits for t1', status: 'todo', assignee: 'dev' },
        'a done dependency blocks nothing',
      )
      t.same(after.tasks[0], { id: 't1', title: 'urgent one', status: 'done', priority: 'urgent' })
      t.same(
        (await plan.getTask(room.as('dev'), { task_id: 't1' })).task.notes,
        'long notes',
        'get_task keeps the whole record',
      )
    })

    t.test('context and review lists: compact items', async (t) => {
      const room = await newRoom(t, backend)
      const { context, reviews } = room.core
      await context.write(room.as('planner'), { type: 'brief', key: 'a', body: 'hello' })
      await context.write(room.as('planner'), { type: 'spec', key: 'b', body: 'world!' })
      const listed = await context.list(room.as('dev'), { limit: 1 })
      t.same(Object.keys(listed.entries[0]!).sort(), ['key', 'size', 'type', 'updated_at', 'updated_by', 'version'])
      t.match(listed.entries[0], { type: 'brief', key: 'a', version: 1, size: 5, updated_by: 'planner' })
      t.equal(listed.total, 2)
      t.equal(listed.more, '1 more: pass limit (at most 1000)')
      t.match(
        (await context.read(room.as('dev'), { type: 'brief', key: 'a' })).entry,
        { created_by: 'planner', created_at: String },
        'read_context keeps the whole record',
      )

      await reviews.request(room.as('planner'), {
        target: { kind: 'context', type: 'spec', key: 'b' },
        reviewer: 'dev',
        note: 'check',
      })
      const r = await reviews.list(room.as('dev'))
      t.same(r.reviews, [
        {
          id: 'r1',
          target: { kind: 'context', type: 'spec', key: 'b' },
          status: 'pending',
          requested_by: 'planner',
          reviewer: 'dev',
          note: 'check',
        },
      ])
      t.equal(r.total, 1)
    })

    t.test('a refused claim names the holder or the blockers and points at get_unblocked_tasks', async (t) => {
      const room = await newRoom(t, backend)
      const { plan } = room.core
      await plan.addTask(room.as('p'), { title: 'a' })
      await plan.addTask(room.as('p'), { title: 'b', depends_on: ['t1'] })
      await plan.updateTask(room.as('alice'), { task_id: 't1', status: 'in_progress' })
      const refused = (p: Promise<unknown>) =>
        p.then(
          () => t.fail('expected a refusal') as never,
          (e: unknown) => e as AppError,
        )
      // The core names the holder or the blockers; the update_task tool adds a hint in tools' words.
      const updateTask = planTools.find((d) => d.name === 'update_task')!
      const asTool = (agent: string, a: { task_id: string; status: 'in_progress' }) =>
        updateTask.run(
          {
            deps: { core: room.core },
            caller: room.as(agent),
            principal: { kind: 'team', teamId: 'x', keyId: 'k', scope: 'agent', access: 'write' },
            signal: new AbortController().signal,
            longRunning: () => undefined,
          } as Parameters<typeof updateTask.run>[0],
          a as Parameters<typeof updateTask.run>[1],
        )
      const core = await refused(plan.updateTask(room.as('bob'), { task_id: 't1', status: 'in_progress' }))
      t.match(core.toJSON(), { code: 'conflict', message: /held by alice/, details: { holder: 'alice' } })
      t.notMatch(core.hint ?? '', /get_unblocked_tasks|post_event/, 'the core names no tool')
      const held = await refused(asTool('bob', { task_id: 't1', status: 'in_progress' }))
      t.ok(held instanceof AppError)
      t.match(held.toJSON(), {
        code: 'conflict',
        message: /held by alice/,
        hint: 'alice holds it: call claim_next_task for another task, or post_event to ask alice.',
        details: { holder: 'alice' },
      })
      const blocked = await refused(asTool('bob', { task_id: 't2', status: 'in_progress' }))
      t.match(blocked.toJSON(), {
        code: 'conflict',
        hint: 'Wait for t1 to be done, or call claim_next_task for a task you can claim now.',
        details: { blocked_by: ['t1'] },
      })
      const missing = await refused(plan.updateTask(room.as('bob'), { task_id: 't9', status: 'in_progress' }))
      t.equal(missing.hint, ERRORS.not_found.hint, "other failures keep their code's hint")
    })

    t.test('summary: compact tasks and reviews; an empty read says when the last event was', async (t) => {
      const room = await newRoom(t, backend)
      const { plan, events, reviews, summary } = room.core
      const quiet = await summary.mine(room.as('dev'))
      t.notOk('last_event_at' in quiet, 'a room without events has no last event')
      await plan.addTask(room.as('lead'), { title: 'first' })
      await plan.addTask(room.as('lead'), { title: 'second', depends_on: ['t1'], assignee: 'dev', priority: 'high' })
      await reviews.request(room.as('lead'), { target: { kind: 'task', task_id: 't1' }, reviewer: 'dev' })
      const posted = await events.post(room.as('lead'), { type: 'status', text: 'hi' })

      const s = await summary.mine(room.as('dev'))
      t.equal(s.events.length, 1)
      t.notOk('last_event_at' in s, 'events came: no last_event_at')
      t.same(s.my_tasks, [
        { id: 't2', title: 'second', status: 'todo', priority: 'high', assignee: 'dev', blocked_by: ['t1'] },
      ])
      t.same(s.reviews_for_me, [
        { id: 'r1', target: { kind: 'task', task_id: 't1' }, status: 'pending', requested_by: 'lead', reviewer: 'dev' },
      ])

      const empty = await summary.mine(room.as('dev'))
      t.same(empty.events, [])
      t.equal(empty.last_event_at, posted.event.created_at)
      const unread = await events.unread(room.as('dev'))
      t.same(unread.events, [])
      t.equal(unread.last_event_at, posted.event.created_at)
    })
  })
}
