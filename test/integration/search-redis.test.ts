// The Redis search engine on real Redis, standalone and cluster: the conformance suite, then what
// is particular to it: reading its writes across connections (the cseq fence), recovering from a
// lost notice and a late one, re-created and expired rooms, retention, the indexed byte cap,
// templates, the node's memory budget (full reads under way and notices included) and idle
// release, a room dropped or closed while a search on it is in progress, and a bulk edit read in
// bounded calls.
import t from 'tap'
import type { RoomReply } from '../../src/store/script-map/index.js'
import type { Test } from 'tap'
import { decode, encode } from '@msgpack/msgpack'
import type { Settings } from '../../src/config.js'
import type { RoomRef } from '../../src/store/keys.js'
import type { Store } from '../../src/store/store.js'
import { newRoom, until, type TestRoom } from '../helpers/core.js'
import { engineOn, type SemanticNode } from '../helpers/semantic.js'
import { searchConformance } from '../helpers/search-conformance.js'
import { BACKENDS, storeFor, type Backend } from '../helpers/shared.js'

/** An engine on its own store and hub (a node of its own), stopped with the test. */
function engineFor(t: Test, backend: Backend, overrides: Partial<Settings> = {}): Promise<SemanticNode> {
  return engineOn(t, storeFor(backend, overrides))
}

/**
 * Renames task t1 behind the scripts' back and bumps the content seq without a notice (a notice
 * lost or late); returns the new cseq.
 */
async function quietRename(store: Store, ref: RoomRef, title: string): Promise<number> {
  const k = store.keys.room(ref)
  const raw = await store.client.hgetBuffer(k.tasks, 't1')
  const task = decode(raw!) as Record<string, unknown>
  await store.client.hset(k.tasks, 't1', Buffer.from(encode({ ...task, title, updated_at: Date.now() })))
  return store.client.hincrby(k.meta, 'cseq', 1)
}

/** A room of six context entries of ~60 K characters each (~720 KB as the budget counts). */
async function bigRoom(t: Test, backend: Backend): Promise<TestRoom> {
  const r = await newRoom(t, backend)
  for (let i = 0; i < 6; i++)
    await r.core.context.write(r.as('a'), { type: 'spec', key: `k${i}`, body: `needle ${'x'.repeat(60_000)}` })
  return r
}

const refs = (a: { results: { ref: string }[] }) => a.results.map((r) => r.ref)

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    searchConformance(t, `redis engine (${backend})`, async () => {
      const { engine } = await engineFor(t, backend)
      return { engine, newRoom: (tt, opts) => newRoom(tt, backend, opts), settle: async () => {} }
    })

    t.test('a hit that has some of the query words names them; one with all of them does not', async (t) => {
      const { engine } = await engineFor(t, backend)
      const r = await newRoom(t, backend)
      await r.core.plan.addTask(r.as('a'), { title: 'Retry webhook deliveries' })
      await r.core.plan.addTask(r.as('a'), { title: 'Webhook signatures' })
      const a = await engine.search(r.as('a'), { query: 'retry webhook deliv' })
      t.same(
        a.results.map((h) => [h.ref, h.words]),
        [
          ['task t1', undefined],
          ['task t2', ['webhook']],
        ],
        'the words as folded, a prefix match included',
      )
    })

    t.test('a change whose notice was lost is still found: the search waits, then reads the room again', async (t) => {
      const { engine, store } = await engineFor(t, backend)
      const r = await newRoom(t, backend)
      await r.core.plan.addTask(r.as('a'), { title: 'first task' })
      t.same(refs(await engine.search(r.as('a'), { query: 'first' })), ['task t1'])
      // A task written behind the scripts' back, with the content seq bumped and no notice: as if
      // the notice had been lost on its way.
      await quietRename(store, { teamId: r.teamId, roomId: r.roomId }, 'renamed quietly')
      t.same(refs(await engine.search(r.as('a'), { query: 'quietly' })), ['task t1'], 'found after the full read')
      t.equal(engine.stats().loads, 2, 'after waiting twice, the room was read again in full')
      t.same(refs(await engine.search(r.as('a'), { query: 'first' })), [], 'the old title is gone')
    })

    t.test('a late notice is waited for a second time: no full read of the room', async (t) => {
      const { engine, store } = await engineFor(t, backend)
      const r = await newRoom(t, backend)
      const ref = { teamId: r.teamId, roomId: r.roomId }
      await r.core.plan.addTask(r.as('a'), { title: 'first task' })
      t.same(refs(await engine.search(r.as('a'), { query: 'first' })), ['task t1'])
      t.equal(engine.stats().loads, 1)
      const cseq = await quietRename(store, ref, 'renamed late')
      const search = engine.search(r.as('a'), { query: 'late' })
      await until(() => engine.stats().lateNotices === 1, 5000)
      t.equal(engine.stats().lateNotices, 1, 'the first wait ran out')
      // The notice arrives during the second wait, as a notice delayed on a loaded node would.
      await store.client.spublish(
        store.keys.room(ref).channel,
        Buffer.from(encode({ k: 'task', op: 'updated', id: 't1', cseq, at: Date.now() })),
      )
      t.same(refs(await search), ['task t1'], 'the change is found')
      t.equal(engine.stats().loads, 1, 'from the notice: the room was not read again in full')
    })

    t.test('a search in progress on a closed index answers, and the room is not followed again', async (t) => {
      const { engine, store, hub } = await engineFor(t, backend)
      const r = await newRoom(t, backend)
      await r.core.plan.addTask(r.as('a'), { title: 'first task' })
      t.same(refs(await engine.search(r.as('a'), { query: 'first' })), ['task t1'])
      t.equal(hub.stats().listeners, 1)
      await quietRename(store, { teamId: r.teamId, roomId: r.roomId }, 'renamed while closing')
      const search = engine.search(r.as('a'), { query: 'closing' })
      await until(() => engine.stats().waiting === 1, 5000)
      t.equal(engine.stats().waiting, 1, 'the search waits for the notice')
      await engine.stop() // closes every room's index, as a drop does
      t.same(refs(await search), ['task t1'], 'answered from a read of its own')
      t.equal(hub.stats().listeners, 0, 'no listener left behind')
    })

    t.test('a room with a search in progress is not dropped for the budget; no index is left behind', async (t) => {
      const { engine, store, hub } = await engineFor(t, backend, {
        searchCacheMb: 1,
        searchCacheIdleMs: 1000,
        searchFieldBytes: 65_536,
      })
      const [a, b] = [await bigRoom(t, backend), await bigRoom(t, backend)]
      t.equal((await engine.search(a.as('x'), { query: 'needle' })).results.length, 6)
      // a notice that never comes
      await store.client.hincrby(store.keys.room({ teamId: a.teamId, roomId: a.roomId }).meta, 'cseq', 1)
      const searchA = engine.search(a.as('x'), { query: 'needle' })
      await until(() => engine.stats().waiting === 1, 5000)
      t.equal((await engine.search(b.as('x'), { query: 'needle' })).results.length, 6)
      t.equal(engine.stats().rooms, 2, 'over budget, but A has a search in progress: kept')
      t.equal((await searchA).results.length, 6)
      t.equal(engine.stats().rooms, 1, 'once it answered, the budget holds again')
      await until(() => engine.stats().rooms === 0, 5000)
      t.equal(engine.stats().rooms, 0, 'dropped when idle')
      t.equal(hub.stats().listeners, 0, 'and no index of either room still follows its room')
    })

    t.test('full reads: at most two at once, counted against the budget while under way', async (t) => {
      const { engine } = await engineFor(t, backend, { searchCacheMb: 1, searchFieldBytes: 65_536 })
      const rooms = [
        await bigRoom(t, backend),
        await bigRoom(t, backend),
        await bigRoom(t, backend),
        await bigRoom(t, backend),
      ]
      const readAll = engine.reader.readAll.bind(engine.reader)
      let reading = 0
      let most = 0
      const roomsWhenReadEnded: number[] = []
      engine.reader.readAll = async (ref, onChunk) => {
        most = Math.max(most, ++reading)
        try {
          const listing = await readAll(ref, onChunk)
          await new Promise((res) => setImmediate(res)) // the budget check the last chunk asked for
          await new Promise((res) => setImmediate(res))
          roomsWhenReadEnded.push(engine.stats().rooms)
          return listing
        } finally {
          reading--
        }
      }
      t.equal((await engine.search(rooms[0]!.as('x'), { query: 'needle' })).results.length, 6)
      const answers = await Promise.all(rooms.slice(1).map((r) => engine.search(r.as('x'), { query: 'needle' })))
      t.same(
        answers.map((a) => a.results.length),
        [6, 6, 6],
        'every search answered',
      )
      t.equal(most, 2, 'three first searches at once: two full reads at a time')
      t.equal(
        roomsWhenReadEnded[1],
        3,
        'when the first of them was read in, the room searched before had been dropped: reads under way count',
      )
    })

    t.test(
      'events that notices add between searches are capped at the retention, and the budget is checked',
      async (t) => {
        const { engine } = await engineFor(t, backend, {
          eventsRetained: 10,
          searchCacheMb: 1,
          searchFieldBytes: 65_536,
        })
        const settings = { eventsRetained: 10, eventTextBytes: 65_536 }
        const big = await bigRoom(t, backend)
        const r = await newRoom(t, backend, { settings })
        t.equal((await engine.search(big.as('x'), { query: 'needle' })).results.length, 6)
        t.equal((await engine.search(r.as('x'), { query: 'anything' })).results.length, 0)
        const base = engine.stats().textLength
        const text = (i: number) => `event ${String(i).padStart(4, '0')} ${'y'.repeat(100)}`
        for (let i = 0; i < 30; i++) await r.core.events.post(r.as('a'), { type: 'message', text: text(i) })
        await until(() => engine.stats().textLength === base + 10 * text(0).length, 5000)
        t.equal(
          engine.stats().textLength,
          base + 10 * text(0).length,
          'the index keeps the last 10 events, not 30, without a search',
        )
        t.equal(engine.stats().rooms, 2)
        // ~400 K characters more in events: the two rooms no longer fit 1 MiB; the one searched
        // least recently goes, though nobody searched since.
        for (let i = 0; i < 8; i++)
          await r.core.events.post(r.as('a'), { type: 'message', text: `big ${'z'.repeat(50_000)}` })
        await until(() => engine.stats().rooms === 1, 5000)
        t.equal(engine.stats().rooms, 1, 'the room searched first was dropped')
        t.equal((await engine.search(r.as('x'), { query: 'big', limit: 50 })).results.length, 8)
      },
    )

    t.test('a bulk edit is read back in calls of bounded size', async (t) => {
      const { engine, store } = await engineFor(t, backend, { searchFieldBytes: 65_536 })
      const r = await newRoom(t, backend)
      for (let i = 0; i < 40; i++)
        await r.core.context.write(r.as('a'), { type: 'spec', key: `k${i}`, body: `before ${'x'.repeat(50_000)}` })
      t.equal((await engine.search(r.as('x'), { query: 'before', limit: 50 })).results.length, 40)
      for (let i = 0; i < 40; i++)
        await r.core.context.update(r.as('a'), { type: 'spec', key: `k${i}`, body: `after ${'x'.repeat(50_000)}` })
      const room = store.room.bind(store)
      const read: number[] = []
      store.room = async (script, ...rest) => {
        const reply = await room(script, ...rest)
        if (script === 'readSearchDocs')
          read.push((reply as RoomReply<'readSearchDocs'>).rows.reduce((n, b) => n + b.length, 0))
        return reply
      }
      t.equal((await engine.search(r.as('x'), { query: 'after', limit: 50 })).results.length, 40, 'every edit is found')
      t.equal((await engine.search(r.as('x'), { query: 'before', limit: 50 })).results.length, 0)
      t.ok(read.reduce((a, b) => a + b, 0) >= 40 * 50_000, `2 MB were read back, in ${read.length} calls`)
      t.ok(
        Math.max(...read) <= 1024 * 1024 + 65_536,
        `no call returned more than ~1 MiB: at most ${Math.max(...read)} bytes`,
      )
    })

    t.test('a room that expired is not_found, and the same id created again starts empty', async (t) => {
      const { engine, store } = await engineFor(t, backend)
      const r = await newRoom(t, backend)
      await r.core.plan.addTask(r.as('a'), { title: 'before expiry' })
      t.equal((await engine.search(r.as('a'), { query: 'expiry' })).results.length, 1)
      const k = store.keys.room({ teamId: r.teamId, roomId: r.roomId })
      await Promise.all(k.list.slice(0, -1).map((key) => store.client.del(key)))
      await t.rejects(engine.search(r.as('a'), { query: 'expiry' }), { code: 'not_found' })
      t.equal(engine.stats().rooms, 0, "the room's index was dropped")
      await r.core.rooms.create(r.teamId, { room_id: r.roomId, template: 'blank' }, 'test')
      await r.core.plan.addTask(r.as('a'), { title: 'after recreation' })
      t.same(refs(await engine.search(r.as('a'), { query: 'expiry' })), [])
      t.same(refs(await engine.search(r.as('a'), { query: 'recreation' })), ['task t1'])
    })

    t.test('a room created again while cached is read again (its created notice)', async (t) => {
      const { engine, store } = await engineFor(t, backend)
      const r = await newRoom(t, backend)
      await r.core.plan.addTask(r.as('a'), { title: 'old incarnation' })
      t.equal((await engine.search(r.as('a'), { query: 'incarnation' })).results.length, 1)
      const k = store.keys.room({ teamId: r.teamId, roomId: r.roomId })
      await Promise.all(k.list.slice(0, -1).map((key) => store.client.del(key)))
      await r.core.rooms.create(r.teamId, { room_id: r.roomId, template: 'blank' }, 'test')
      await r.core.plan.addTask(r.as('a'), { title: 'new one' })
      t.same(refs(await engine.search(r.as('a'), { query: 'incarnation' })), [])
    })

    t.test('trimmed events leave the index; template content is found', async (t) => {
      const { engine } = await engineFor(t, backend, { eventsRetained: 10 })
      const r = await newRoom(t, backend, { template: 'web-app', settings: { eventsRetained: 10 } })
      t.ok(
        (await engine.search(r.as('a'), { query: 'brief', kinds: ['context'] })).results.length > 0,
        "the template's product brief",
      )
      await r.core.events.post(r.as('a'), { type: 'message', text: 'zebra crossing' })
      t.equal((await engine.search(r.as('a'), { query: 'zebra' })).results.length, 1)
      for (let i = 0; i < 12; i++) await r.core.events.post(r.as('a'), { type: 'message', text: `filler ${i}` })
      t.same(refs(await engine.search(r.as('a'), { query: 'zebra' })), [], 'trimmed away with the stream')
      t.equal((await engine.search(r.as('a'), { query: 'filler', limit: 50 })).results.length, 10, 'the retained ones')
    })

    t.test('only the first SEARCH_FIELD_BYTES of notes and bodies are indexed', async (t) => {
      const { engine } = await engineFor(t, backend, { searchFieldBytes: 1024 })
      const r = await newRoom(t, backend)
      const body = `early ${'padding '.repeat(200)} late`
      await r.core.context.write(r.as('a'), { type: 'spec', key: 'long', body })
      t.equal((await engine.search(r.as('a'), { query: 'early' })).results.length, 1)
      t.equal((await engine.search(r.as('a'), { query: 'late' })).results.length, 0, 'past the cap')
      t.equal((await engine.search(r.as('a'), { query: 'long' })).results.length, 1, 'the key is indexed whole')
    })

    t.test(
      'the memory budget keeps the rooms searched last; idle rooms are dropped and their channel released',
      async (t) => {
        const { engine } = await engineFor(t, backend, {
          searchCacheMb: 1,
          searchCacheIdleMs: 1000,
          searchFieldBytes: 65_536,
        })
        const rooms = [await newRoom(t, backend), await newRoom(t, backend)]
        for (const r of rooms) {
          for (let i = 0; i < 6; i++)
            await r.core.context.write(r.as('a'), { type: 'spec', key: `k${i}`, body: `needle ${'x'.repeat(60_000)}` })
        }
        for (const r of rooms) t.equal((await engine.search(r.as('a'), { query: 'needle' })).results.length, 6)
        t.equal(engine.stats().rooms, 1, 'two rooms of ~360 K characters each do not fit 1 MiB: the older was dropped')
        await until(() => engine.stats().rooms === 0, 5000)
        t.equal(engine.stats().rooms, 0, 'dropped after SEARCH_CACHE_IDLE_S')
        t.equal(
          (await engine.search(rooms[0]!.as('a'), { query: 'needle' })).results.length,
          6,
          'and read again when searched',
        )
      },
    )

    t.test('concurrent searches and writes of one room agree with the room', async (t) => {
      const { engine } = await engineFor(t, backend)
      const r = await newRoom(t, backend)
      const writes = Array.from({ length: 30 }, (_, i) =>
        r.core.plan.addTask(r.as('a'), { title: `parallel task ${i}` }),
      )
      const searches = Array.from({ length: 10 }, () => engine.search(r.as('a'), { query: 'parallel' }))
      await Promise.all([...writes, ...searches])
      t.equal((await engine.search(r.as('a'), { query: 'parallel', limit: 50 })).results.length, 30)
    })
  })
}
