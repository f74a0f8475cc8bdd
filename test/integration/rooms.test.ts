// Rooms: create with a given or generated id, templates, info with counts, the team's list.
import t from 'tap'
import { coreFor, newRoom } from '../helpers/core.js'
import { BACKENDS, uid } from '../helpers/shared.js'
import { TEMPLATES } from '../../src/core/templates.js'
import { RoomExists } from '../../src/shared/errors.js'

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('create with a given id, then the same id again', async (t) => {
      const core = coreFor(t, backend)
      const team = uid('tm')
      const { room } = await core.rooms.create(team, { room_id: 'payments-api', name: 'Payments API' }, 'alice')
      t.match(room, { room_id: 'payments-api', name: 'Payments API', template: 'blank', created_by: 'alice' })
      await t.rejects(core.rooms.create(team, { room_id: 'payments-api' }, 'bob'), RoomExists)
      const other = await core.rooms.create(uid('tm'), { room_id: 'payments-api' }, 'carol')
      t.equal(other.room.room_id, 'payments-api', 'another team may use the same id: ids are per team')
    })

    t.test('a retried creation with the same idempotency key returns the first result', async (t) => {
      const core = coreFor(t, backend)
      const team = uid('tm')
      const a = await core.rooms.create(team, { room_id: 'retry' }, 'x', 'create-1')
      const b = await core.rooms.create(team, { room_id: 'retry' }, 'x', 'create-1')
      t.same(b, a)
      await t.rejects(core.rooms.create(team, { room_id: 'retry' }, 'x', 'create-2'), { code: 'conflict' })
      const g1 = await core.rooms.create(team, {}, 'x', 'create-3')
      const g2 = await core.rooms.create(team, {}, 'x', 'create-3')
      t.same(g2, g1, 'a generated id is derived from the key, so the retry names the same room')
      t.equal((await core.rooms.list(team)).rooms.length, 2)
    })

    t.test('generated ids and validation', async (t) => {
      const core = coreFor(t, backend)
      const team = uid('tm')
      const a = await core.rooms.create(team, {}, 'x')
      const b = await core.rooms.create(team, {}, 'x')
      t.match(a.room.room_id, /^room-[a-z2-7]{10}$/)
      t.not(a.room.room_id, b.room.room_id)
      await t.rejects(core.rooms.create(team, { room_id: '../etc' }, 'x'), {
        code: 'invalid_request',
        details: { field: 'room_id' },
      })
      await t.rejects(core.rooms.create(team, { template: 'nope' }, 'x'), {
        code: 'invalid_request',
        message: /template: must be one of blank, web-app, incident/,
      })
    })

    for (const template of TEMPLATES) {
      t.test(`template ${template.id} brings its starter content`, async (t) => {
        const room = await newRoom(t, backend, { template: template.id })
        const plan = await room.core.plan.readPlan(room.as('a'))
        t.equal(plan.tasks.length, template.tasks.length)
        const info = await room.core.rooms.info(room.as('a'))
        t.equal(info.counts.tasks, template.tasks.length)
        t.equal(info.counts.context, template.context.length)
        t.equal(info.room.template, template.id)
        if (template.tasks.length > 0) {
          const unblocked = await room.core.plan.unblockedTasks(room.as('a'), { limit: 100 })
          const withDeps = template.tasks.filter((x) => (x.after ?? []).length > 0).length
          t.equal(unblocked.total, template.tasks.length - withDeps, 'tasks with dependencies start blocked')
        }
      })
    }

    t.test('info counts and expiry time', async (t) => {
      const room = await newRoom(t, backend)
      await room.core.plan.addTask(room.as('a'), { title: 'x' })
      const info = await room.core.rooms.info(room.as('a'))
      t.match(info.counts, { tasks: 1, context: 0, events: 0, vars: 0, reviews: 0, locks: 0, online: 0 })
      t.ok(Date.parse(info.expires_at) > Date.now() + 29 * 86400_000)
      t.equal(info.unread, 0)
    })

    t.test('list pages through a team and never shows another team', async (t) => {
      const core = coreFor(t, backend)
      const team = uid('tm')
      for (let i = 0; i < 5; i++) {
        await core.rooms.create(team, { room_id: `r${i}` }, 'x')
        await new Promise((r) => setTimeout(r, 2)) // a later millisecond: the list is in creation order
      }
      await core.rooms.create(uid('tm'), { room_id: 'foreign' }, 'x')
      const p1 = await core.rooms.list(team, { limit: 2 })
      t.same(
        p1.rooms.map((r) => r.room_id),
        ['r0', 'r1'],
      )
      const p2 = await core.rooms.list(team, { limit: 2, after: p1.next })
      t.same(
        p2.rooms.map((r) => r.room_id),
        ['r2', 'r3'],
      )
      const p3 = await core.rooms.list(team, { limit: 2, after: p2.next })
      t.same(
        p3.rooms.map((r) => r.room_id),
        ['r4'],
      )
      t.equal(p3.next, undefined)
    })

    t.test('rooms-per-team limit', async (t) => {
      const core = coreFor(t, backend, { roomsPerTeam: 2 })
      const team = uid('tm')
      await core.rooms.create(team, {}, 'x')
      await core.rooms.create(team, {}, 'x')
      await t.rejects(core.rooms.create(team, {}, 'x'), { code: 'limit_reached', details: { limit: 2 } })
      t.equal((await core.rooms.list(team)).rooms.length, 2)
    })
  })
}
