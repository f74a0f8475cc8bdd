// The event feed on real Redis, standalone and cluster: ids, replies, paging, consuming reads and
// their cursors, retention, marks, reads, deletion, limits, notices and per-day counts.
import t from 'tap'
import { decodeNotice } from '../../src/core/events.js'
import { listen, newRoom, rawRoom, until, type TestRoom } from '../helpers/core.js'
import { BACKENDS } from '../helpers/shared.js'

const seqOf = (id: string) => Number(id.split('-')[1])
const msOf = (id: string) => Number(id.split('-')[0])

/** Posts `n` message events "<prefix>0" .. by `agent`, one after the other; returns their ids. */
async function postMany(room: TestRoom, agent: string, n: number, prefix = 'm'): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < n; i++)
    ids.push((await room.core.events.post(room.as(agent), { type: 'message', text: `${prefix}${i}` })).event.id)
  return ids
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('post: id format, monotonic ids, the stored event', async (t) => {
      const room = await newRoom(t, backend)
      const { events } = room.core
      const first = await events.post(room.as('alice'), {
        type: 'status',
        text: 'started t1',
        data: { task: 't1', pct: [1, 2] },
      })
      t.match(first.event, { type: 'status', agent_id: 'alice', text: 'started t1', data: { task: 't1', pct: [1, 2] } })
      t.match(first.event.id, /^\d{13}-1$/)
      t.match(first.event.created_at, /^\d{4}-\d\d-\d\dT/)
      t.notOk('reply_to' in first.event)
      const ids = [first.event.id, ...(await postMany(room, 'bob', 20))]
      for (let i = 1; i < ids.length; i++) {
        t.equal(seqOf(ids[i]!), i + 1, 'seq numbers the events 1, 2, 3, ...')
        t.ok(msOf(ids[i]!) >= msOf(ids[i - 1]!), 'the ms part never goes back')
      }
      const page = await events.read(room.as('carol'), { limit: 100 })
      t.same(
        page.events.map((e) => e.id),
        ids,
      )
      t.same(page.events[0], first.event, 'read returns the event as post did')
      await t.rejects(events.post(room.as(), { type: 'message', text: 'x' }), {
        code: 'invalid_request',
        details: { field: 'agent_id' },
      })
    })

    t.test('reply_to and reply', async (t) => {
      const room = await newRoom(t, backend)
      const { events } = room.core
      const q = await events.post(room.as('alice'), { type: 'question', text: 'which port?' })
      const a = await events.reply(room.as('bob'), { event_id: q.event.id, text: '8080' })
      t.match(a.event, { type: 'message', reply_to: q.event.id, agent_id: 'bob', text: '8080' })
      const a2 = await events.reply(room.as('bob'), {
        event_id: q.event.id,
        text: 'or 8081',
        type: 'answer',
        data: 8081,
      })
      t.match(a2.event, { type: 'answer', data: 8081 })
      const p = await events.post(room.as('carol'), { type: 'message', text: 'me too', reply_to: q.event.id })
      t.equal(p.event.reply_to, q.event.id)
      await t.rejects(events.reply(room.as('bob'), { event_id: '1-99', text: 'x' }), {
        code: 'not_found',
        details: { field: 'event_id' },
        message: /^event_id:/,
      })
      await t.rejects(events.post(room.as('bob'), { type: 'message', text: 'x', reply_to: `${msOf(q.event.id)}-9` }), {
        code: 'not_found',
      })
      t.equal((await events.read(room.as('bob'))).events.length, 4, 'the refused replies posted nothing')
    })

    t.test('validation and size limits name the field', async (t) => {
      const room = await newRoom(t, backend, { settings: { eventTextBytes: 10, eventDataBytes: 12 } })
      const { events } = room.core
      const as = room.as('alice')
      await t.rejects(events.post(as, { type: 'message', text: 'é'.repeat(6) }), {
        code: 'too_large',
        details: { field: 'text', limit: 10, size: 12 },
      })
      await t.rejects(events.post(as, { type: 'message', text: 'ok', data: { k: 'abcdefgh' } }), {
        code: 'too_large',
        details: { field: 'data', limit: 12, size: 16 },
        message: /^data is 16 bytes; the limit is 12 bytes/,
      })
      await t.rejects(events.post(as, { type: 'message', text: '' }), {
        code: 'invalid_request',
        details: { field: 'text' },
      })
      await t.rejects(events.post(as, { type: 'Message', text: 'x' }), {
        code: 'invalid_request',
        details: { field: 'type' },
      })
      await t.rejects(events.post(as, { type: 'a'.repeat(33), text: 'x' }), {
        code: 'invalid_request',
        details: { field: 'type' },
      })
      await t.rejects(events.post(as, { type: 'agent_left', text: 'x' }), {
        code: 'invalid_request',
        message: /^type: is reserved/,
      })
      await t.rejects(events.reply(as, { event_id: '1-1', text: 'x', type: 'agent_left' }), {
        code: 'invalid_request',
        details: { field: 'type' },
      })
      await t.rejects(events.post(as, { type: 'message', text: 'x', reply_to: 'e1' }), {
        code: 'invalid_request',
        details: { field: 'reply_to' },
      })
      await t.rejects(events.read(as, { before: '1-1', after: '1-1' }), {
        code: 'invalid_request',
        details: { field: 'before' },
      })
      await t.rejects(events.read(as, { limit: 101 }), { code: 'invalid_request', details: { field: 'limit' } })
      await t.rejects(events.unread(as, { limit: 0 }), { code: 'invalid_request', details: { field: 'limit' } })
      const ok = await events.post(as, { type: 'deploy.done', text: '0123456789', data: { k: 'abcd' } })
      t.same(ok.event.data, { k: 'abcd' }, 'at the limits is accepted; any type of [a-z0-9_.-] too')
      t.equal((await events.read(as)).events.length, 1, 'only the accepted post is in the feed')
    })

    t.test('read_events pages forward and back, and filters by type', async (t) => {
      const room = await newRoom(t, backend)
      const { events } = room.core
      const ids = await postMany(room, 'alice', 25)
      const as = room.as('reader')
      const latest = await events.read(as, { limit: 10 })
      t.same(
        latest.events.map((e) => e.id),
        ids.slice(15),
        'latest page, oldest first',
      )
      t.equal(latest.prev, ids[15])
      t.notOk(latest.next, 'nothing newer')
      const older = await events.read(as, { limit: 10, before: latest.prev })
      t.same(
        older.events.map((e) => e.id),
        ids.slice(5, 15),
      )
      t.equal(older.prev, ids[5])
      t.equal(older.next, ids[14])
      const oldest = await events.read(as, { limit: 10, before: older.prev })
      t.same(
        oldest.events.map((e) => e.id),
        ids.slice(0, 5),
      )
      t.notOk(oldest.prev, 'nothing older')
      const fwd = await events.read(as, { limit: 10, after: ids[2] })
      t.same(
        fwd.events.map((e) => e.id),
        ids.slice(3, 13),
      )
      t.equal(fwd.next, ids[12])
      t.equal(fwd.prev, ids[3])
      const end = await events.read(as, { limit: 10, after: ids[20] })
      t.same(
        end.events.map((e) => e.id),
        ids.slice(21),
      )
      t.notOk(end.next)
      t.same((await events.read(as, { after: ids[24] })).events, [])
      t.same((await events.read(as, { before: '0-0' })).events, [], 'nothing precedes 0-0')

      await events.post(room.as('bob'), { type: 'blocker', text: 'b1' })
      await postMany(room, 'alice', 3, 'n')
      await events.post(room.as('bob'), { type: 'blocker', text: 'b2' })
      const blockers = await events.read(as, { type: 'blocker' })
      t.same(
        blockers.events.map((e) => e.text),
        ['b1', 'b2'],
      )
      const oneBlocker = await events.read(as, { type: 'blocker', limit: 1 })
      t.same(
        oneBlocker.events.map((e) => e.text),
        ['b2'],
      )
      t.same(
        (await events.read(as, { type: 'blocker', before: oneBlocker.prev })).events.map((e) => e.text),
        ['b1'],
      )
      t.equal(await events.peekUnread(room.as('reader')), 30, 'reading pages consumed nothing')
    })

    t.test("an agent's own events never count as unread for it, in any order", async (t) => {
      const room = await newRoom(t, backend)
      const { events } = room.core
      const bob = room.as('bob')
      const own = await events.post(bob, { type: 'message', text: 'first, caught up' })
      t.equal(own.unread, 0, 'caught up: its post is not unread')
      const [a1] = await postMany(room, 'alice', 1, 'a')
      const mine = await events.post(bob, { type: 'message', text: 'mine, with one unread' })
      t.equal(mine.unread, 1, 'one unread from alice, and its own post is not a second')
      t.equal(await events.peekUnread(bob), 1)
      const [a2, a3] = await postMany(room, 'alice', 2, 'b')
      await events.post(bob, { type: 'message', text: 'mine again' })
      t.equal(await events.peekUnread(bob), 3, "alice's three, none of bob's")
      const r1 = await events.unread(bob, { limit: 2 })
      t.same(
        r1.events.map((e) => e.id),
        [a1, a2],
        'get_unread_events skips its own events',
      )
      t.equal(r1.remaining, 1)
      const r2 = await events.unread(bob)
      t.same(
        r2.events.map((e) => e.id),
        [a3],
      )
      t.equal(r2.remaining, 0)
      t.equal(await events.peekUnread(bob), 0)
      const after = await events.post(bob, { type: 'message', text: 'caught up again' })
      t.equal(after.unread, 0)

      // Deleting its own post while behind counts it once (not twice) as gone.
      const [a4] = await postMany(room, 'alice', 1, 'c')
      const gone = await events.post(bob, { type: 'message', text: 'to delete' })
      await events.delete(bob, { event_id: gone.event.id })
      t.equal(await events.peekUnread(bob), 1, "only alice's")
      t.equal(await events.peekUnread(room.as('carol')), 8, 'carol: 9 posted, 1 deleted')
      const m = await events.markRead(bob, { event_id: a4 })
      t.equal(m.unread, 0, "marked read up to alice's last: nothing left")
      const carol = await events.unread(room.as('carol'), { limit: 100 })
      t.equal(
        carol.events.filter((e) => e.agent_id === 'bob').length,
        4,
        "others still get bob's events (four kept, one deleted)",
      )
      const info = await room.core.rooms.info(bob)
      t.notOk(
        Object.keys(info.room).some((k) => k.startsWith('o:')),
        'the own-event lists stay out of the room record',
      )
    })

    t.test('a backlog drains over several consuming calls', async (t) => {
      const room = await newRoom(t, backend)
      const { events } = room.core
      const ids = await postMany(room, 'alice', 120)
      const as = room.as('bob')
      t.equal(await events.peekUnread(as), 120)
      const a = await events.unread(as)
      t.same(
        a.events.map((e) => e.id),
        ids.slice(0, 50),
      )
      t.equal(a.remaining, 70)
      t.equal(a.unread, 70)
      t.notOk(a.cursor_reset)
      t.equal(await events.peekUnread(as), 70, 'peeking consumes nothing')
      t.equal(await events.peekUnread(as), 70)
      const b = await events.unread(as)
      t.same(
        b.events.map((e) => e.id),
        ids.slice(50, 100),
      )
      const c = await events.unread(as, { limit: 100 })
      t.same(
        c.events.map((e) => e.id),
        ids.slice(100),
      )
      t.equal(c.remaining, 0)
      const d = await events.unread(as)
      t.same(d.events, [])
      t.equal(d.remaining, 0)
      await t.rejects(events.unread(room.as()), { code: 'invalid_request', details: { field: 'agent_id' } })
      await t.rejects(events.peekUnread(room.as()), { code: 'invalid_request' })
    })

    t.test('concurrent consuming calls of one agent never return the same event', async (t) => {
      const room = await newRoom(t, backend)
      const { events } = room.core
      const ids = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          events.post(room.as('alice'), { type: 'message', text: `c${i}` }).then((r) => r.event.id),
        ),
      )
      const as = room.as('bob')
      const results = await Promise.all(Array.from({ length: 10 }, () => events.unread(as, { limit: 30 })))
      const seen = results.flatMap((r) => r.events.map((e) => e.id))
      t.equal(new Set(seen).size, seen.length, 'no event twice')
      t.equal(seen.length, 200, 'together they return all')
      t.same(new Set(seen), new Set(ids))
      for (const r of results) {
        const s = r.events.map((e) => seqOf(e.id))
        t.same(
          s,
          [...s].sort((x, y) => x - y),
          'each call returns a run oldest first',
        )
      }
    })

    t.test('a cursor behind the trimmed history is reported with the lost count', async (t) => {
      const room = await newRoom(t, backend, { settings: { eventsRetained: 10 } })
      const { events } = room.core
      const first = await postMany(room, 'alice', 5)
      const bob = room.as('bob')
      const r1 = await events.unread(bob, { limit: 3 })
      t.equal(r1.events.length, 3, 'cursor at seq 3')
      const more = await postMany(room, 'alice', 25)
      const ids = [...first, ...more] // 30 events; 20 trimmed, ids[20..29] retained
      const page = await events.read(bob, { limit: 100 })
      t.same(
        page.events.map((e) => e.id),
        ids.slice(20),
        'only the last 10 are kept',
      )
      t.equal(await events.peekUnread(bob), 10, 'unread counts from the trim point')
      const r2 = await events.unread(bob, { limit: 4 })
      t.same(r2.cursor_reset, { lost: 17, reset_to: ids[20] })
      t.same(
        r2.events.map((e) => e.id),
        ids.slice(20, 24),
      )
      t.equal(r2.remaining, 6)
      const r3 = await events.unread(bob)
      t.notOk(r3.cursor_reset, 'reported once')
      t.equal(r3.events.length, 6)
      const carol = await events.unread(room.as('carol'))
      t.notOk(carol.cursor_reset, 'an agent that never read lost nothing')
      t.equal(carol.events.length, 10)
      await t.rejects(events.reads(bob, { event_id: ids[3] }), { code: 'not_found' }, 'a trimmed event is gone')
      const { raw, keys } = rawRoom(t, backend, room)
      t.equal(await raw.hget(keys.meta, 'trim'), '20')
      t.equal(await raw.xlen(keys.events), 10)
    })

    t.test('a feed over the limit is trimmed by a further 1% of it, then left alone until full', async (t) => {
      const room = await newRoom(t, backend, { settings: { eventsRetained: 300 } })
      const { events } = room.core
      const { raw, keys } = rawRoom(t, backend, room)
      const bob = room.as('bob')
      await postMany(room, 'alice', 2)
      await events.unread(bob, { limit: 1 }) // bob's cursor at seq 1
      const ids = [...(await postMany(room, 'alice', 298))]
      t.equal(await raw.xlen(keys.events), 300, 'full: nothing trimmed yet')
      t.equal(await raw.hget(keys.meta, 'trim'), '0')
      ids.push(...(await postMany(room, 'alice', 1)))
      t.equal(await raw.xlen(keys.events), 297, 'one over: the oldest 1 + 3 (1% of 300) are trimmed')
      t.equal(await raw.hget(keys.meta, 'trim'), '4', 'trim is the seq of the last one removed')
      ids.push(...(await postMany(room, 'alice', 3)))
      t.equal(await raw.xlen(keys.events), 300, 'the next 3 appends trim nothing')
      t.equal(await raw.hget(keys.meta, 'trim'), '4')
      t.equal(await events.peekUnread(bob), 300, 'unread counts from the trim point')
      const r = await events.unread(bob, { limit: 1 })
      t.same(r.cursor_reset?.lost, 3, 'bob lost seqs 2-4')
      t.equal(r.events[0]?.id, ids[2], 'and reads on from seq 5')
      ids.push(...(await postMany(room, 'alice', 1)))
      t.equal(await raw.xlen(keys.events), 297, 'over again: trimmed to 297 again')
      t.equal(await raw.hget(keys.meta, 'trim'), '8')
    })

    t.test('the trim point is the last event trimmed, not one its author deleted', async (t) => {
      const room = await newRoom(t, backend, { settings: { eventsRetained: 10 } })
      const { events } = room.core
      const { raw, keys } = rawRoom(t, backend, room)
      const bob = room.as('bob')
      const ids = await postMany(room, 'alice', 1)
      await events.unread(bob) // bob's cursor on seq 1
      ids.push(...(await postMany(room, 'alice', 10))) // seqs 2-11: seq 1 trimmed
      t.equal(await raw.hget(keys.meta, 'trim'), '1')
      for (const i of [2, 3, 4]) await events.delete(room.as('alice'), { event_id: ids[i]! }) // seqs 3-5
      ids.push(...(await postMany(room, 'alice', 4))) // seqs 12-15: seq 2 trimmed at the last
      t.equal(await raw.xlen(keys.events), 10)
      t.equal(await raw.hget(keys.meta, 'trim'), '2', 'seq 2 was trimmed; 3-5, below the oldest kept, were deleted')
      t.same(await raw.zrange(keys.evdel, 0, -1), ['3', '4', '5'], 'their marks stay')
      t.equal(await events.peekUnread(room.as('carol')), 10, 'carol: the 10 retained are unread')
      ids.push(...(await postMany(room, 'alice', 1))) // seq 16: seq 6 trimmed
      t.equal(await raw.hget(keys.meta, 'trim'), '6')
      t.same(await raw.zrange(keys.evdel, 0, -1), [], 'marks at or below the trim point are forgotten')
      t.equal(await events.peekUnread(bob), 10, 'bob: seqs 7-16 unread')
      const r = await events.unread(bob)
      t.same(r.cursor_reset?.lost, 5, 'bob lost seqs 2-6, counted by seq')
      t.same(
        r.events.map((e) => e.id),
        ids.slice(6),
        'and reads seqs 7-16',
      )
    })

    t.test('mark_event_read moves the cursor forward, never back', async (t) => {
      const room = await newRoom(t, backend)
      const { events } = room.core
      const ids = await postMany(room, 'alice', 6)
      const bob = room.as('bob')
      const m1 = await events.markRead(bob, { event_id: ids[3] })
      t.same(m1, { moved: true, cursor: ids[3], unread: 2 })
      const m2 = await events.markRead(bob, { event_id: ids[1] })
      t.same(m2, { moved: false, cursor: ids[3], unread: 2 }, 'never back')
      t.same(
        (await events.unread(bob)).events.map((e) => e.id),
        ids.slice(4),
      )
      await t.rejects(events.markRead(bob, { event_id: `${msOf(ids[5]!)}-7` }), {
        code: 'invalid_request',
        details: { field: 'event_id', newest: ids[5] },
      })
      await t.rejects(
        events.markRead(room.as('carol'), { event_id: `1-3` }),
        { code: 'not_found', details: { field: 'event_id' } },
        'an id whose ms disagrees with the feed',
      )
      t.equal(await events.peekUnread(room.as('carol')), 6, 'the refused marks changed nothing')
      await t.rejects(events.markRead(room.as(), { event_id: ids[0] }), {
        code: 'invalid_request',
        details: { field: 'agent_id' },
      })
      await t.rejects(events.markRead(bob, { event_id: 'latest' }), {
        code: 'invalid_request',
        details: { field: 'event_id' },
      })
    })

    t.test('get_event_reads lists agents whose cursor is at or past the event, and the author', async (t) => {
      const room = await newRoom(t, backend)
      const { events } = room.core
      const ids = await postMany(room, 'alice', 4)
      await events.markRead(room.as('bob'), { event_id: ids[2] })
      await events.unread(room.as('carol'), { limit: 1 })
      await events.unread(room.as('dave'))
      t.same(await events.reads(room.as('x'), { event_id: ids[0] }), {
        event_id: ids[0],
        author: 'alice',
        read_by: ['alice', 'bob', 'carol', 'dave'],
        unread: 4,
      })
      t.same(
        (await events.reads(room.as('x'), { event_id: ids[2] })).read_by,
        ['alice', 'bob', 'dave'],
        'the poster read its own events',
      )
      t.same((await events.reads(room.as('x'), { event_id: ids[3] })).read_by, ['alice', 'dave'])
      await t.rejects(events.reads(room.as('x'), { event_id: `${msOf(ids[3]!)}-99` }), {
        code: 'not_found',
        details: { field: 'event_id' },
      })
    })

    t.test('delete: only by the author; deleted events are neither unread nor returned', async (t) => {
      const room = await newRoom(t, backend)
      const { events } = room.core
      const ids = await postMany(room, 'alice', 3)
      const bob = room.as('bob')
      t.equal(await events.peekUnread(bob), 3)
      await t.rejects(events.delete(bob, { event_id: ids[1] }), {
        code: 'forbidden',
        details: { author: 'alice' },
        message: /posted by alice/,
      })
      t.equal(await events.peekUnread(bob), 3, 'the refused delete changed nothing')
      const d = await events.delete(room.as('alice'), { event_id: ids[1] })
      t.equal(d.deleted, ids[1])
      t.equal(await events.peekUnread(bob), 2, 'a deleted event is not unread')
      await t.rejects(events.delete(room.as('alice'), { event_id: ids[1] }), { code: 'not_found' })
      await t.rejects(events.reads(bob, { event_id: ids[1] }), { code: 'not_found' })
      await t.rejects(events.reply(bob, { event_id: ids[1], text: 'x' }), { code: 'not_found' })
      const r = await events.unread(bob)
      t.same(
        r.events.map((e) => e.id),
        [ids[0], ids[2]],
      )
      t.equal(r.remaining, 0)
      const m = await events.markRead(room.as('carol'), { event_id: ids[1] })
      t.equal(m.unread, 1, 'the id of a deleted event is still a valid position')
      await events.delete(room.as('alice'), { event_id: ids[2] })
      t.equal(await events.peekUnread(room.as('carol')), 0)
    })

    t.test("the poster's own event is not unread, caught up or behind", async (t) => {
      const room = await newRoom(t, backend)
      const { events } = room.core
      const p1 = await events.post(room.as('alice'), { type: 'message', text: 'hello' })
      t.equal(p1.unread, 0, 'caught up: its own event is not news')
      await events.post(room.as('bob'), { type: 'message', text: 'hi' })
      const p2 = await events.post(room.as('alice'), { type: 'message', text: 'again' })
      t.equal(p2.unread, 1, 'behind: the cursor stays, but its own event does not count')
      const r = await events.unread(room.as('alice'))
      t.same(
        r.events.map((e) => e.text),
        ['hi'],
      )
      t.equal(await events.peekUnread(room.as('bob')), 2, "bob was behind when he posted: alice's two, not his own")
    })

    t.test('idempotent post', async (t) => {
      const room = await newRoom(t, backend)
      const { events } = room.core
      const a = await events.post(room.as('alice', 'k1'), { type: 'message', text: 'once' })
      const b = await events.post(room.as('alice', 'k1'), { type: 'message', text: 'once' })
      t.same(b.event, a.event)
      t.equal((await events.read(room.as('alice'))).events.length, 1)
    })

    t.test('a consuming read retried with its idempotency key returns the same events', async (t) => {
      const room = await newRoom(t, backend)
      const { events } = room.core
      const ids = await postMany(room, 'alice', 5)
      const first = await events.unread(room.as('bob', 'u1'), { limit: 3 })
      const retry = await events.unread(room.as('bob', 'u1'), { limit: 3 })
      t.same(
        retry.events.map((e) => e.id),
        ids.slice(0, 3),
      )
      t.same(retry, first)
      t.same(
        (await events.unread(room.as('bob', 'u2'))).events.map((e) => e.id),
        ids.slice(3),
        'the retry consumed nothing more',
      )
    })

    t.test('notices announce each change', async (t) => {
      const room = await newRoom(t, backend)
      const { events } = room.core
      const got = await listen(t, backend, room)
      const p = await events.post(room.as('alice'), { type: 'status', text: 'x' })
      await events.markRead(room.as('bob'), { event_id: p.event.id })
      await events.delete(room.as('alice'), { event_id: p.event.id })
      await until(() => got.length >= 3)
      t.match(got[0], { k: 'event', op: 'posted', id: p.event.id, type: 'status', event_id: p.event.id })
      t.type(got[0]!.at, 'number')
      t.match(got[1], { k: 'event', op: 'read', agent: 'bob', id: p.event.id })
      t.notOk(got[1]!.event_id, 'only new events carry event_id')
      t.match(got[2], { k: 'event', op: 'deleted', id: p.event.id })
      t.equal(decodeNotice(Buffer.from('not msgpack \xc1')), undefined)
    })

    t.test('events are counted per day in meta', async (t) => {
      const room = await newRoom(t, backend)
      await postMany(room, 'alice', 3)
      const { raw, keys } = rawRoom(t, backend, room)
      const meta = await raw.hgetall(keys.meta)
      const days = Object.keys(meta).filter((k) => k.startsWith('d:'))
      t.equal(days.length, 1)
      t.equal(days[0], `d:${Math.floor(Date.now() / 86_400_000)}`)
      t.equal(meta[days[0]!], '3')
      t.equal(meta.eseq, '3')
    })

    t.test("a day's first event forgets per-day counts older than 30 days", async (t) => {
      const room = await newRoom(t, backend)
      const { raw, keys } = rawRoom(t, backend, room)
      const today = Math.floor(Date.now() / 86_400_000)
      await raw.hset(keys.meta, `d:${today - 31}`, '4', `d:${today - 30}`, '2')
      await postMany(room, 'alice', 1)
      const meta = await raw.hgetall(keys.meta)
      t.notOk(meta[`d:${today - 31}`], '31 days ago is forgotten')
      t.equal(meta[`d:${today - 30}`], '2', '30 days ago is kept')
      t.equal(meta[`d:${today}`], '1')
    })
  })
}
