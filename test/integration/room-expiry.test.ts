// Room inactivity removal by key expiry, with the TTL shortened to seconds.
import t from 'tap'
import { newRoom } from '../helpers/core.js'
import { BACKENDS, rawClient } from '../helpers/shared.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('an idle room disappears with every key it had', async (t) => {
      const room = await newRoom(t, backend, { template: 'web-app', settings: { roomTtlS: 2 } })
      await room.core.plan.addTask(room.as('a'), { title: 'x', notes: 'n' })
      const keys = room.core.store.keys.room({ teamId: room.teamId, roomId: room.roomId })
      const raw = rawClient(backend)
      t.teardown(() => raw.disconnect())
      const ttls = await Promise.all(keys.list.slice(0, 14).map((k) => raw.pttl(k)))
      for (const [i, ttl] of ttls.entries()) t.ok(ttl === -2 || (ttl > 0 && ttl <= 2000), `${keys.list[i]} has the room TTL or does not exist (${ttl})`)
      await sleep(2300)
      await t.rejects(room.core.plan.readPlan(room.as('a')), { code: 'not_found' })
      const left = await Promise.all(keys.list.map((k) => raw.exists(k)))
      t.same(left, keys.list.map(() => 0), 'no key of the room is left')
      const listed = await room.core.rooms.list(room.teamId)
      t.same(listed.rooms, [], 'the team list prunes the expired room')
    })

    t.test('activity keeps a room alive', async (t) => {
      const room = await newRoom(t, backend, { settings: { roomTtlS: 2 } })
      // touch interval is a tenth of the TTL (200 ms): calls every 400 ms keep it alive for 4 s.
      for (let i = 0; i < 10; i++) {
        await sleep(400)
        await room.core.plan.readPlan(room.as('a'))
      }
      t.ok((await room.core.rooms.info(room.as('a'))).room.room_id, 'still there after twice its TTL')
    })

    t.test('a room recreated after expiry starts clean', async (t) => {
      const room = await newRoom(t, backend, { settings: { roomTtlS: 2 } })
      await room.core.plan.addTask(room.as('a'), { title: 'old' })
      await sleep(2300)
      await room.core.rooms.create(room.teamId, { room_id: room.roomId }, 'test')
      t.same((await room.core.plan.readPlan(room.as('a'))).tasks, [])
    })
  })
}
