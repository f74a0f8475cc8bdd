// When a room's event sequence goes back, SSE never skips silently: an open
// stream and a reconnect with Last-Event-ID get an `event: gap` frame {"lost": 0, "rewound": true}
// and then the new events, whose seqs repeat ones they have seen. Nor do the agents' read cursors
// (get_unread_events, wait_for_events, get_my_summary, the unread count of every reply,
// mark_event_read, get_event_reads): a cursor left from the lost history counts the new events as
// unread and the consuming read reports cursor_reset {lost: 0, rewound: true, reset_to}. The
// dashboard's room page says who has read each event by the same rule as get_event_reads.
// Two ways the history goes back:
// - the room expires (its keys are gone: deleted here, as expiry would) and is created again
//   under the same id;
// - Redis comes back from an older copy that lacks the last events (an AOF or replica behind
//   the acknowledged writes): made here by removing the last two events and setting the room's
//   counters back, which is what such a copy holds. bench/faults.ts does it with a real AOF.
import type { Test } from 'tap'
import t from 'tap'
import type { Caller } from '../../src/core/fields.js'
import { readersOf } from '../../src/dashboard/room-feed.js'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { rawClient, BACKENDS } from '../helpers/shared.js'
import { eventOf, openStream, type SseStream } from '../helpers/sse.js'

async function live(t: Test, s: SseStream): Promise<void> {
  t.teardown(() => s.close())
  t.equal(s.status, 200, 'the stream opened')
  t.ok(await s.waitFor((f) => f.comments.some((c) => c.startsWith('connected'))), 'and is live')
}

async function postN(n: TestNode, as: Caller, prefix: string, count: number): Promise<string[]> {
  const ids: string[] = []
  for (let i = 1; i <= count; i++)
    ids.push((await n.node.core.events.post(as, { type: 'status', text: `${prefix} ${i}` })).event.id)
  return ids
}

/** Who has read each event the room page shows, by event text: the page's "read by" and get_event_reads'. */
async function readersOnPage(
  n: TestNode,
  as: Caller,
): Promise<{ page: Record<string, string[]>; tools: Record<string, string[]> }> {
  const view = await n.node.core.roomPage.read(as, { size: 10, days: 1, ids: 5 })
  const page: Record<string, string[]> = {}
  const tools: Record<string, string[]> = {}
  for (const e of view.events) {
    page[e.text] = readersOf(view.reads, e.id)
    tools[e.text] = (await n.node.core.events.reads(as, { event_id: e.id })).read_by
  }
  return { page, tools }
}

/** Texts of the stream's event frames after the gap frame, or undefined when no rewound gap came. */
function afterGap(s: SseStream): string[] | undefined {
  const at = s.frames.findIndex(
    (f) => f.event === 'gap' && (JSON.parse(f.data ?? '{}') as { rewound?: boolean }).rewound === true,
  )
  if (at < 0) return undefined
  return s.frames
    .slice(at + 1)
    .filter((f) => f.id !== undefined)
    .map((f) => eventOf(f).text)
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const a = await startNode(t, backend)
    const b = await startNode(t, backend)
    const team = await newTeam(a)
    const raw = rawClient(backend)
    t.teardown(() => raw.quit())

    t.test('a room expired and created again under the same id', async (t) => {
      const roomId = `again-${Date.now()}`
      await a.node.core.rooms.create(team.teamId, { room_id: roomId, template: 'blank' }, 'test')
      const as: Caller = { room: { teamId: team.teamId, roomId }, agent: 'alice' }
      const open = await openStream(b.base, roomId, { key: team.key })
      await live(t, open)
      const old = await postN(a, as, 'old', 5)
      t.ok(await open.waitFor((f) => f.id === old[4]), 'the open stream got the first history')

      const keys = a.node.store.keys.room(as.room).list
      await raw.del(...keys)
      await a.node.core.rooms.create(team.teamId, { room_id: roomId, template: 'blank' }, 'test')
      const fresh = await postN(a, as, 'new', 2)
      t.equal(fresh[0]!.split('-')[1], '1', 'the new room numbers its events from 1 again')

      t.ok(
        await open.waitFor((f) => f.id !== undefined && eventOf(f).text === 'new 2'),
        'the open stream gets the new events',
      )
      t.same(afterGap(open), ['new 1', 'new 2'], 'after a rewound gap frame, both, in order')

      const resumed = await openStream(a.base, roomId, { key: team.key, lastEventId: old[4] })
      await live(t, resumed)
      t.same(afterGap(resumed), ['new 1', 'new 2'], 'a reconnect with the old Last-Event-ID: the gap, then both')
    })

    t.test('Redis back from a copy without the last two events', async (t) => {
      const { room } = await a.node.core.rooms.create(team.teamId, { template: 'blank' }, 'test')
      const as: Caller = { room: { teamId: team.teamId, roomId: room.room_id }, agent: 'alice' }
      const open = await openStream(b.base, room.room_id, { key: team.key })
      await live(t, open)
      const ids = await postN(a, as, 'kept', 5)
      t.ok(await open.waitFor((f) => f.id === ids[4]), 'the open stream got all five')

      const k = a.node.store.keys.room(as.room)
      await raw.xdel(k.events, ids[3]!, ids[4]!)
      await raw.hset(k.meta, 'eseq', '3', 'lastms', ids[2]!.split('-')[0]!)
      const fresh = await postN(a, as, 'after', 2)
      t.same(
        fresh.map((id) => id.split('-')[1]),
        ['4', '5'],
        'the new events take seqs 4 and 5 again',
      )

      t.ok(await open.waitFor((f) => f.id === fresh[1]), 'the open stream gets the new events')
      t.same(afterGap(open), ['after 1', 'after 2'], 'after a rewound gap frame, both')
      const resumed = await openStream(a.base, room.room_id, { key: team.key, lastEventId: ids[4] })
      await live(t, resumed)
      t.same(afterGap(resumed), ['after 1', 'after 2'], "and so does a reconnect with the lost event's id")
      const current = await openStream(a.base, room.room_id, { key: team.key, lastEventId: fresh[0] })
      await live(t, current)
      t.same(
        current.events().map((f) => eventOf(f).text),
        ['after 2'],
        'a reconnect from the new history resumes as usual',
      )
      t.notOk(
        current.frames.some((f) => f.event === 'gap'),
        'with no gap',
      )
    })

    t.test('read cursors: a room created again under the same id over a cursor of the old one', async (t) => {
      const roomId = `cur-again-${Date.now()}`
      await a.node.core.rooms.create(team.teamId, { room_id: roomId, template: 'blank' }, 'test')
      const ref = { teamId: team.teamId, roomId }
      const alice: Caller = { room: ref, agent: 'alice' }
      const bob: Caller = { room: ref, agent: 'bob' }
      await postN(a, bob, 'old', 5)
      t.equal((await a.node.core.events.consume(alice, 50)).events.length, 5, 'alice read the old history')
      const k = a.node.store.keys.room(ref)
      const cursors = await raw.hgetall(k.cursors)
      t.equal(cursors['alice']?.split('-')[1], '5', 'her cursor is at seq 5')

      // createRoom clears every key of the room; a cursors hash that outlives it (restored beside a
      // new room, or written back by a Redis restored from a copy of other keys) is what is left.
      await raw.del(...k.list)
      await a.node.core.rooms.create(team.teamId, { room_id: roomId, template: 'blank' }, 'test')
      await raw.hset(k.cursors, 'alice', cursors['alice']!)
      t.equal(await a.node.core.events.peekUnread(alice), 0, 'the new room has no event: nothing unread')
      const fresh = await postN(a, bob, 'new', 3)
      t.equal(fresh[2]!.split('-')[1], '3', 'the new room numbers its events from 1 again, below her cursor')
      t.equal(await a.node.core.events.peekUnread(alice), 3, 'all three new events count as unread')
      const got = await a.node.core.events.consume(alice, 50)
      t.same(
        got.events.map((e) => e.text),
        ['new 1', 'new 2', 'new 3'],
        'the consuming read returns them all',
      )
      t.same(got.cursor_reset, { lost: 0, rewound: true, reset_to: fresh[0] }, 'and says the history went back')
      t.equal(got.remaining, 0, 'nothing remains')
      await postN(a, bob, 'later', 1)
      const next = await a.node.core.events.consume(alice, 50)
      t.same(
        next.events.map((e) => e.text),
        ['later 1'],
        'then reading goes on as usual',
      )
      t.notOk(next.cursor_reset, 'with no reset')
    })

    t.test('read cursors: Redis back from a copy without the last events', async (t) => {
      const { room } = await a.node.core.rooms.create(team.teamId, { template: 'blank' }, 'test')
      const ref = { teamId: team.teamId, roomId: room.room_id }
      const alice: Caller = { room: ref, agent: 'alice' }
      const bob: Caller = { room: ref, agent: 'bob' }
      const carol: Caller = { room: ref, agent: 'carol' }
      const ids = await postN(a, bob, 'kept', 5)
      t.equal((await a.node.core.events.consume(alice, 50)).events.length, 5, 'alice read all five')
      t.equal((await a.node.core.events.consume(carol, 50)).events.length, 5, 'so did carol')

      const k = a.node.store.keys.room(ref)
      await raw.xdel(k.events, ids[3]!, ids[4]!)
      await raw.hset(k.meta, 'eseq', '3', 'lastms', ids[2]!.split('-')[0]!)
      t.equal(await a.node.core.events.peekUnread(alice), 0, 'nothing new yet')
      const quiet = await a.node.core.events.consume(carol, 50)
      t.same(quiet.events, [], 'a read before any new event returns nothing')
      t.same(quiet.cursor_reset, { lost: 0, rewound: true }, 'but says the history went back')

      const fresh = await postN(a, bob, 'after', 2)
      t.same(
        fresh.map((id) => id.split('-')[1]),
        ['4', '5'],
        'the new events take seqs 4 and 5 again',
      )
      t.equal(
        await a.node.core.events.peekUnread(alice),
        2,
        'alice: both count as unread (her cursor is the lost seq 5)',
      )
      t.equal(await a.node.core.events.peekUnread(carol), 2, 'carol too')
      const reads = await a.node.core.events.reads(bob, { event_id: fresh[0] })
      t.same(
        reads.read_by,
        ['bob'],
        'get_event_reads: only its author has read the new event (alice and carol not yet)',
      )
      const shown = await readersOnPage(a, bob)
      t.same(shown.page['after 1'], ['bob'], 'the room page: alice and carol have not read the new events')
      t.same(shown.page['kept 3'], ['alice', 'bob', 'carol'], 'but have read those of the history kept')
      t.same(shown.page, shown.tools, 'the page says what get_event_reads says, event by event')

      const summary = await a.node.core.summary.mine(alice)
      t.same(
        summary.events.map((e) => e.text),
        ['after 1', 'after 2'],
        'get_my_summary returns both',
      )
      t.same(summary.cursor_reset, { lost: 0, rewound: true, reset_to: fresh[0] }, 'and says the history went back')
      t.equal(summary.unread, 0, 'alice has read everything now')

      const marked = await a.node.core.events.markRead(carol, { event_id: fresh[0] })
      t.ok(marked.moved, 'mark_event_read moves a cursor of the lost history to a new event')
      t.equal(marked.unread, 1, 'one left for carol')
      const rest = await a.node.core.events.consume(carol, 50)
      t.same(
        rest.events.map((e) => e.text),
        ['after 2'],
        'carol reads the other one',
      )
      t.notOk(rest.cursor_reset, 'with no reset: her cursor is of the new history now')
    })

    t.test('read cursors on the room page: a cursor of the old room written by a clock an hour ahead', async (t) => {
      // The old room's history ran on a clock an hour ahead of the new one's (Redis failed over to
      // a machine whose clock is behind), so the new room's first events come before alice's
      // cursor in stream order though she never saw them: stream order is not the rule; the
      // tools' cursorAt is.
      const roomId = `cur-ahead-${Date.now()}`
      await a.node.core.rooms.create(team.teamId, { room_id: roomId, template: 'blank' }, 'test')
      const ref = { teamId: team.teamId, roomId }
      const alice: Caller = { room: ref, agent: 'alice' }
      const bob: Caller = { room: ref, agent: 'bob' }
      const ahead = Date.now() + 3_600_000
      const k = a.node.store.keys.room(ref)
      await raw.hset(k.cursors, 'alice', `${ahead}-1`)
      await postN(a, bob, 'new', 3)
      // An hour later: the room's clock passes her cursor (lastms is what the next id's ms is taken from).
      await raw.hset(k.meta, 'lastms', String(ahead))
      await postN(a, bob, 'later', 1)
      t.equal(
        await a.node.core.events.peekUnread(alice),
        3,
        'the tools: she has read the first new event only (her cursor is at seq 1)',
      )
      const shown = await readersOnPage(a, bob)
      t.same(
        shown.tools,
        { 'new 1': ['alice', 'bob'], 'new 2': ['bob'], 'new 3': ['bob'], 'later 1': ['bob'] },
        'get_event_reads agrees',
      )
      t.same(shown.page, shown.tools, 'and so does the room page: new 2 and new 3 are not read by alice')
    })
  })
}
