// Room inactivity removal by key expiry. The room TTL is a minute, which nothing here comes near;
// the time a room is idle is made on purpose through the test's own Redis connection (its keys'
// TTLs cut short, its last touch moved back), so no check depends on how fast the machine runs.
import t, { type Test } from 'tap'
import { newRoom, type TestRoom } from '../helpers/core.js'
import { BACKENDS, rawClient } from '../helpers/shared.js'
import { eventually } from '../helpers/wait.js'

/** The room TTL of these tests (the touch interval is a tenth of it, 6 s). */
const TTL_MS = 60_000

/** The room's stored keys (the last of its key names is its pub/sub channel, never stored). */
const storedKeys = (room: TestRoom) =>
  room.core.store.keys.room({ teamId: room.teamId, roomId: room.roomId }).list.slice(0, -1)

/** Ends the room's idle time now, as if no call had come for the whole TTL: every key it has expires in 1 ms. */
async function lapse(room: TestRoom, raw: ReturnType<typeof rawClient>): Promise<void> {
  await Promise.all(storedKeys(room).map((k) => raw.pexpire(k, 1)))
}

/**
 * Waits until Redis has expired every key of the room (checked with EXISTS on a raw client: a
 * call through the service would touch the room and keep it alive). Redis removes an expired
 * key within about 100 ms of its TTL (its active expiry cycle), so this ends soon after it.
 */
async function expired(t: Test, room: TestRoom, raw: ReturnType<typeof rawClient>, ms = 10_000): Promise<void> {
  const keys = room.core.store.keys.room({ teamId: room.teamId, roomId: room.roomId }).list
  const gone = await eventually(
    async () => (await Promise.all(keys.map((k) => raw.exists(k)))).every((e) => e === 0),
    ms,
  )
  t.ok(gone, 'every key of the room expired')
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('an idle room disappears with every key it had', async (t) => {
      const created = Date.now()
      const room = await newRoom(t, backend, { template: 'web-app', settings: { roomTtlMs: TTL_MS } })
      await room.core.plan.addTask(room.as('a'), { title: 'x', notes: 'n' })
      const keys = room.core.store.keys.room({ teamId: room.teamId, roomId: room.roomId })
      const raw = rawClient(backend)
      t.teardown(() => raw.disconnect())
      const stored = storedKeys(room)
      const ttls = await Promise.all(stored.map((k) => raw.pttl(k)))
      const elapsed = Date.now() - created
      // What the template and the task wrote must be there; a key nothing wrote (-2) does not exist.
      const written = [keys.meta, keys.tasks, keys.notes, keys.ctx, keys.ctxv, keys.board, keys.deps]
      for (const [i, ttl] of ttls.entries()) {
        const key = stored[i]!
        if (ttl === -2 && !written.includes(key)) continue
        t.ok(
          ttl <= TTL_MS && ttl >= TTL_MS - elapsed,
          `${key} has the room TTL (${ttl} ms, ${elapsed} ms after the room was created)`,
        )
      }
      await lapse(room, raw)
      await expired(t, room, raw)
      await t.rejects(room.core.plan.readPlan(room.as('a')), { code: 'not_found' })
      const listed = await room.core.rooms.list(room.teamId)
      t.same(listed.rooms, [], 'the team list prunes the expired room')
    })

    t.test('every key a call creates or writes has the room TTL, between touches too', async (t) => {
      // An hour's TTL: the touch interval (6 min) never passes here, so only each call's own
      // PEXPIREs (or the TTL a key already had) can give a key its TTL. Scripts skip the PEXPIRE
      // of a key they know existed; this checks that no key is ever left without one.
      const room = await newRoom(t, backend, { settings: { roomTtlMs: 3_600_000 } })
      const keys = room.core.store.keys.room({ teamId: room.teamId, roomId: room.roomId })
      const raw = rawClient(backend)
      t.teardown(() => raw.disconnect())
      const steps: [string, () => Promise<unknown>][] = [
        [
          'first post (creates the stream and the author cursor)',
          () => room.core.events.post(room.as('a'), { type: 'status', text: '1' }),
        ],
        ['second post (both exist)', () => room.core.events.post(room.as('a'), { type: 'status', text: '2' })],
        [
          'post by an agent with unread events',
          () => room.core.events.post(room.as('b'), { type: 'status', text: '3' }),
        ],
        ['first read by a new agent', () => room.core.events.unread(room.as('c'))],
        ['read again', () => room.core.events.unread(room.as('c'))],
        ['first heartbeat (creates presence)', () => room.core.presence.heartbeat(room.as('a'))],
        ['heartbeat again', () => room.core.presence.heartbeat(room.as('a'))],
        ['leave (may empty presence)', () => room.core.presence.leave(room.as('a'))],
        ['heartbeat after leaving', () => room.core.presence.heartbeat(room.as('a'))],
        ['task', () => room.core.plan.addTask(room.as('a'), { title: 'x', notes: 'n' })],
        [
          'task with a dependency (creates deps)',
          () => room.core.plan.addTask(room.as('a'), { title: 'y', depends_on: ['t1'] }),
        ],
        ['task deleted', () => room.core.plan.deleteTask(room.as('a'), { task_id: 't1' })],
        ['var', () => room.core.vars.set(room.as('a'), { name: 'v', value: '1' })],
        ['lock', () => room.core.locks.acquire(room.as('a'), { name: 'l' })],
        ['context', () => room.core.context.write(room.as('a'), { type: 'spec', key: 'k', body: 'b' })],
        ['idempotent post', () => room.core.events.post(room.as('d', 'idem-1'), { type: 'status', text: '4' })],
      ]
      for (const [name, run] of steps) {
        await run()
        const ttls = await Promise.all(keys.list.slice(0, -1).map((k) => raw.pttl(k)))
        const bad = keys.list.slice(0, -1).filter((_, i) => ttls[i] === -1)
        t.same(bad, [], `after ${name}: no room key without a TTL`)
      }
      t.ok(
        (await raw.pttl(keys.cursors)) > 0 &&
          (await raw.pttl(keys.events)) > 0 &&
          (await raw.pttl(keys.presence)) > 0 &&
          (await raw.pttl(keys.board)) > 0,
        'the keys the steps made exist, with the TTL',
      )
    })

    t.test(
      'activity keeps a room alive: a call past the touch interval gives every key the whole TTL again',
      async (t) => {
        const room = await newRoom(t, backend, { template: 'web-app', settings: { roomTtlMs: TTL_MS } })
        await room.core.plan.addTask(room.as('a'), { title: 'x', notes: 'n' })
        const raw = rawClient(backend)
        t.teardown(() => raw.disconnect())
        const keys = room.core.store.keys.room({ teamId: room.teamId, roomId: room.roomId })
        const stored = (
          await Promise.all(storedKeys(room).map(async (k) => ((await raw.exists(k)) === 1 ? [k] : [])))
        ).flat()
        // Half the TTL idle, made on purpose: every key's TTL cut to half, the last touch moved back as far.
        await Promise.all(stored.map((k) => raw.pexpire(k, TTL_MS / 2)))
        await raw.hset(keys.meta, 'touched', String(Date.now() - TTL_MS / 2))
        const asked = Date.now()
        await room.core.plan.readPlan(room.as('a'))
        const ttls = await Promise.all(stored.map((k) => raw.pttl(k)))
        const elapsed = Date.now() - asked
        // Not refreshed, a key would have at most TTL/2 - elapsed left.
        for (const [i, ttl] of ttls.entries())
          t.ok(
            ttl <= TTL_MS && ttl >= TTL_MS - elapsed,
            `${stored[i]}: the whole TTL again (${ttl} ms, ${elapsed} ms after the read)`,
          )
        t.ok((await room.core.rooms.info(room.as('a'))).room.room_id, 'the room is there')
      },
    )

    t.test('a room recreated after expiry starts clean', async (t) => {
      const room = await newRoom(t, backend, { settings: { roomTtlMs: TTL_MS } })
      await room.core.plan.addTask(room.as('a'), { title: 'old' })
      const raw = rawClient(backend)
      t.teardown(() => raw.disconnect())
      await lapse(room, raw)
      await expired(t, room, raw)
      await room.core.rooms.create(room.teamId, { room_id: room.roomId }, 'test')
      t.same((await room.core.plan.readPlan(room.as('a'))).tasks, [])
    })
  })
}
