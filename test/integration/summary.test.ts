// get_my_summary and get_room_analytics.
import t from 'tap'
import { newRoom } from '../helpers/core.js'
import { BACKENDS } from '../helpers/shared.js'

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('summary consumes unread events and lists my open tasks and my reviews', async (t) => {
      const room = await newRoom(t, backend)
      const { plan, events, reviews, summary, presence } = room.core
      await plan.addTask(room.as('lead'), { title: 'mine', assignee: 'dev' })
      await plan.addTask(room.as('lead'), { title: 'claimed' })
      await plan.addTask(room.as('lead'), { title: 'free' })
      await plan.addTask(room.as('lead'), { title: 'blocked', depends_on: ['t3'] })
      await plan.updateTask(room.as('dev'), { task_id: 't2', status: 'in_progress' })
      await reviews.request(room.as('lead'), { target: { kind: 'task', task_id: 't3' }, reviewer: 'dev' })
      for (let i = 0; i < 3; i++) await events.post(room.as('lead'), { type: 'message', text: `hello ${i}` })
      await presence.heartbeat(room.as('dev'))

      const s = await summary.mine(room.as('dev'), { event_limit: 2 })
      t.same(
        s.events.map((e) => e.text),
        ['hello 0', 'hello 1'],
      )
      t.equal(s.remaining_unread, 1)
      t.equal(s.unread, 1, 'the unread count after consuming')
      t.same(s.my_tasks.map((x) => x.title).sort(), ['claimed', 'mine'])
      t.equal(s.my_tasks_total, 2)
      t.same(
        s.reviews_for_me.map((r) => r.id),
        ['r1'],
      )
      t.equal(s.unblocked_tasks, 2, 'mine (assigned to me, todo) and free')
      t.equal(s.online_agents, 1)

      const again = await summary.mine(room.as('dev'))
      t.same(
        again.events.map((e) => e.text),
        ['hello 2'],
        'the second call sees only what is left',
      )
      const third = await summary.mine(room.as('dev'))
      t.same(third.events, [], 'one consuming call per turn: the next sees nothing')
      await t.rejects(summary.mine(room.as()), { code: 'invalid_request', details: { field: 'agent_id' } })
    })

    t.test('a retried summary with the same idempotency key replays the same events', async (t) => {
      const room = await newRoom(t, backend)
      await room.core.events.post(room.as('lead'), { type: 'message', text: 'once' })
      const a = await room.core.summary.mine(room.as('dev', 'turn-1'))
      const b = await room.core.summary.mine(room.as('dev', 'turn-1'))
      t.same(b.events, a.events)
      t.equal(a.events.length, 1)
    })

    t.test('analytics: completion rate, status counts, events per day, online agents', async (t) => {
      const room = await newRoom(t, backend)
      const { plan, events, presence, analytics } = room.core
      const empty = await analytics.room(room.as('a'))
      t.equal(empty.completion_rate, null)
      t.equal(empty.events_per_day.length, 7)
      for (let i = 0; i < 4; i++) await plan.addTask(room.as('a'), { title: `t${i}` })
      await plan.updateTask(room.as('a'), { task_id: 't1', status: 'done' })
      await plan.updateTask(room.as('a'), { task_id: 't2', status: 'cancelled' })
      await events.post(room.as('a'), { type: 'status', text: 'x' })
      await events.post(room.as('b'), { type: 'status', text: 'y' })
      await presence.heartbeat(room.as('b'))
      await presence.heartbeat(room.as('a'))
      const a = await analytics.room(room.as('a'), { days: 3 })
      t.equal(a.completion_rate, 0.333, 'done / (all - cancelled) = 1/3')
      t.same(a.tasks.by_status, { todo: 2, in_progress: 0, in_review: 0, done: 1, cancelled: 1 })
      t.same(a.online_agents, ['a', 'b'])
      t.match(a.counts, { context: 0, events: 2, events_total: 2, vars: 0, reviews: 0 })
      t.equal(a.events_per_day.length, 3)
      const today = a.events_per_day[2]!
      t.equal(today.date, new Date().toISOString().slice(0, 10))
      t.equal(today.events, 2)
      t.equal(today.tasks_done, 1)
      await t.rejects(analytics.room(room.as('a'), { days: 31 }), {
        code: 'invalid_request',
        details: { field: 'days' },
      })
    })
  })
}
