// Presence on real Redis, standalone and cluster: heartbeat, online and recently offline,
// notices only on coming online, and leave_room. Nobody goes offline by the clock here: the TTL
// is a minute, and an agent goes quiet on purpose, its last heartbeat moved back through the
// test's own Redis connection (age()), so no step depends on how fast the machine runs.
import t, { type Test } from 'tap'
import { listen, newRoom, rawRoom, type TestRoom } from '../helpers/core.js'
import { eventually, sleep, waitFor } from '../helpers/wait.js'
import { BACKENDS, type Backend } from '../helpers/shared.js'

/** The presence TTL of the tests that take agents offline. */
const TTL_MS = 60_000

/** Moves `agent`'s last heartbeat `ms` into the past (its presence score), as if it had been quiet that long. */
function ager(t: Test, backend: Backend, room: TestRoom): (agent: string, ms: number) => Promise<unknown> {
  const { raw, keys } = rawRoom(t, backend, room)
  return (agent, ms) => raw.zincrby(keys.presence, -ms, agent)
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('heartbeat and get_presence', async (t) => {
      const room = await newRoom(t, backend)
      const { presence } = room.core
      const h1 = await presence.heartbeat(room.as('alice'))
      t.equal(h1.online_count, 1)
      t.equal(h1.you.agent_id, 'alice')
      t.match(h1.you.last_seen_at, /^\d{4}-\d\d-\d\dT/)
      t.equal(h1.unread, 0)
      await sleep(5) // a later millisecond, so the order of the two heartbeats is defined
      const h2 = await presence.heartbeat(room.as('bob'))
      t.equal(h2.online_count, 2)
      const list = await presence.list(room.as('carol'))
      t.same(
        list.online.map((e) => e.agent_id),
        ['bob', 'alice'],
        'newest heartbeat first',
      )
      t.equal(list.online[0]!.last_seen_at, h2.you.last_seen_at)
      t.equal(list.online_count, 2)
      t.notOk('offline' in list, 'offline only when asked')
      await t.rejects(presence.heartbeat(room.as()), { code: 'invalid_request', details: { field: 'agent_id' } })
      await t.rejects(presence.list(room.as('carol'), { include_offline: 'yes' }), {
        code: 'invalid_request',
        details: { field: 'include_offline' },
      })
      t.equal((await presence.list(room.as('carol'))).online_count, 2, 'the refused calls changed nothing')
    })

    t.test('an agent without heartbeat for the TTL goes offline', async (t) => {
      const room = await newRoom(t, backend, { settings: { presenceTtlMs: TTL_MS } })
      const { presence } = room.core
      const age = ager(t, backend, room)
      const listed = async () => {
        const l = await presence.list(room.as('x'), { include_offline: true })
        return {
          online: l.online.map((e) => e.agent_id),
          offline: l.offline?.map((e) => e.agent_id),
          offlineCount: l.offline_count,
        }
      }
      await presence.heartbeat(room.as('alice'))
      await presence.heartbeat(room.as('bob'))
      const first = await listed()
      t.same([first.online.sort(), first.offline], [['alice', 'bob'], []], 'both just seen: online')
      // Two TTLs for alice, so that she stays the one seen longest ago whatever happens to bob.
      await age('alice', 2 * TTL_MS)
      t.same(
        await listed(),
        { online: ['bob'], offline: ['alice'], offlineCount: 1 },
        'alice, quiet past the TTL, is recently offline; bob, just seen, is online',
      )
      // A heartbeat within the TTL keeps bob online: half a TTL, a heartbeat, half a TTL (and a
      // millisecond) more. His first heartbeat is then past the TTL, so only the second one keeps
      // him listed.
      await age('bob', TTL_MS / 2)
      await presence.heartbeat(room.as('bob'))
      await age('bob', TTL_MS / 2 + 1)
      t.same(
        await listed(),
        { online: ['bob'], offline: ['alice'], offlineCount: 1 },
        'bob, seen again half a TTL ago, is still online',
      )
      await age('bob', TTL_MS / 2)
      t.same(
        await listed(),
        { online: [], offline: ['bob', 'alice'], offlineCount: 2 },
        'bob, quiet a millisecond past the TTL since, is offline too; the latest first',
      )
      const back = await presence.heartbeat(room.as('alice'))
      t.equal(back.online_count, 1)
      t.same(
        (await presence.list(room.as('x'))).online.map((e) => e.agent_id),
        ['alice'],
      )
    })

    t.test('a notice only when an agent comes online, not per heartbeat', async (t) => {
      const room = await newRoom(t, backend, { settings: { presenceTtlMs: TTL_MS } })
      const { presence } = room.core
      const age = ager(t, backend, room)
      const got = await listen(t, backend, room)
      await presence.heartbeat(room.as('alice'))
      await presence.heartbeat(room.as('alice'))
      await presence.heartbeat(room.as('alice'))
      await age('alice', TTL_MS + 1)
      t.notOk(
        (await presence.list(room.as('x'))).online.some((e) => e.agent_id === 'alice'),
        'alice is offline, quiet past the presence TTL',
      )
      await presence.heartbeat(room.as('alice'))
      await presence.heartbeat(room.as('bob'))
      // Notices arrive in order: with bob's in, every earlier one is.
      t.ok(await eventually(() => got.some((n) => n.k === 'presence' && n.agent === 'bob')), "bob's notice arrived")
      const online = got.filter((n) => n.k === 'presence')
      t.same(
        online.map((n) => [n.op, n.agent]),
        [
          ['online', 'alice'],
          ['online', 'alice'],
          ['online', 'bob'],
        ],
        'alice came online twice (after going quiet), bob once',
      )
    })

    t.test('leave_room clears presence and posts agent_left', async (t) => {
      const room = await newRoom(t, backend)
      const { presence, events } = room.core
      await presence.heartbeat(room.as('alice'))
      await presence.heartbeat(room.as('bob'))
      const got = await listen(t, backend, room)
      const left = await presence.leave(room.as('alice'))
      t.equal(left.left, true)
      t.equal(left.was_online, true)
      t.match(left.event, { type: 'agent_left', agent_id: 'alice', text: 'alice left the room' })
      t.match(left.event!.id, /^\d+-1$/)
      t.same(
        (await presence.list(room.as('bob'), { include_offline: true })).online.map((e) => e.agent_id),
        ['bob'],
      )
      t.same((await presence.list(room.as('bob'), { include_offline: true })).offline, [], 'left, not merely offline')
      const feed = await events.unread(room.as('bob'))
      t.same(
        feed.events.map((e) => [e.type, e.agent_id]),
        [['agent_left', 'alice']],
      )
      t.equal(left.was_present, true)
      const never = await presence.leave(room.as('nobody'))
      t.match(
        never,
        { left: true, was_present: false, was_online: false, event: { type: 'agent_left', agent_id: 'nobody' } },
        'an agent that never sent a heartbeat says it left all the same',
      )
      t.same(
        (await events.read(room.as('bob'))).events.map((e) => [e.type, e.agent_id]),
        [
          ['agent_left', 'alice'],
          ['agent_left', 'nobody'],
        ],
      )
      await waitFor(() => got.length >= 2, 5000, 'the offline notice and the agent_left event notice')
      t.match(got[0], { k: 'presence', op: 'offline', agent: 'alice', type: 'agent_left', event_id: left.event!.id })
      await t.rejects(presence.leave(room.as()), { code: 'invalid_request', details: { field: 'agent_id' } })
    })
  })
}
