// When a room's event sequence goes back (issue 19, defect 5), SSE never skips silently: an open
// stream and a reconnect with Last-Event-ID get an `event: gap` frame {"lost": 0, "rewound": true}
// and then the new events, whose seqs repeat ones they have seen. Two ways the history goes back:
// - the room expires (its keys are gone: deleted here, as expiry would) and is created again
//   under the same id;
// - Redis comes back from an older copy that lacks the last events (an AOF or replica behind
//   the acknowledged writes): made here by removing the last two events and setting the room's
//   counters back, which is what such a copy holds. bench/faults.ts does it with a real AOF.
import type { Test } from 'tap'
import t from 'tap'
import type { Caller } from '../../src/core/fields.js'
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
  for (let i = 1; i <= count; i++) ids.push((await n.node.core.events.post(as, { type: 'status', text: `${prefix} ${i}` })).event.id)
  return ids
}

/** Texts of the stream's event frames after the gap frame, or undefined when no rewound gap came. */
function afterGap(s: SseStream): string[] | undefined {
  const at = s.frames.findIndex((f) => f.event === 'gap' && (JSON.parse(f.data ?? '{}') as { rewound?: boolean }).rewound === true)
  if (at < 0) return undefined
  return s.frames.slice(at + 1).filter((f) => f.id !== undefined).map((f) => eventOf(f).text)
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

      t.ok(await open.waitFor((f) => f.id !== undefined && eventOf(f).text === 'new 2'), 'the open stream gets the new events')
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
      t.same(fresh.map((id) => id.split('-')[1]), ['4', '5'], 'the new events take seqs 4 and 5 again')

      t.ok(await open.waitFor((f) => f.id === fresh[1]), 'the open stream gets the new events')
      t.same(afterGap(open), ['after 1', 'after 2'], 'after a rewound gap frame, both')
      const resumed = await openStream(a.base, room.room_id, { key: team.key, lastEventId: ids[4] })
      await live(t, resumed)
      t.same(afterGap(resumed), ['after 1', 'after 2'], 'and so does a reconnect with the lost event\'s id')
      const current = await openStream(a.base, room.room_id, { key: team.key, lastEventId: fresh[0] })
      await live(t, current)
      t.same(current.events().map((f) => eventOf(f).text), ['after 2'], 'a reconnect from the new history resumes as usual')
      t.notOk(current.frames.some((f) => f.event === 'gap'), 'with no gap')
    })
  })
}
