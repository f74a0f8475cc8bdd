// The Redis search engine on real Redis, standalone and cluster: the conformance suite, then what
// is particular to it: reading its writes across connections (the cseq fence), recovering from a
// lost notice, re-created and expired rooms, retention, the indexed byte cap, templates, and the
// node's memory budget and idle release.
import t from 'tap'
import type { Test } from 'tap'
import type { Settings } from '../../src/config.js'
import { Core } from '../../src/core/index.js'
import { RedisSearchEngine } from '../../src/search/redis/engine.js'
import type { Store } from '../../src/store/store.js'
import { until, type TestRoom } from '../helpers/core.js'
import { startHub } from '../helpers/realtime.js'
import { searchConformance } from '../helpers/search-conformance.js'
import { BACKENDS, storeFor, uid, type Backend } from '../helpers/shared.js'

/** An engine on its own store and hub (a node of its own), stopped with the test. */
async function engineFor(t: Test, backend: Backend, overrides: Partial<Settings> = {}): Promise<{ engine: RedisSearchEngine; store: Store }> {
  const store = storeFor(backend, overrides)
  const hub = await startHub(t, store)
  const engine = new RedisSearchEngine(store, hub, store.settings)
  await engine.start()
  t.teardown(async () => {
    await engine.stop()
    await hub.stop()
    await store.close()
  })
  return { engine, store }
}

/** A room written through a Core on another connection than the engine's (another node). */
async function roomOn(t: Test, backend: Backend, opts: { teamId?: string; roomId?: string; template?: string; settings?: Partial<Settings> } = {}): Promise<TestRoom> {
  const store = storeFor(backend, opts.settings ?? {})
  const core = new Core(store, store.settings)
  t.teardown(() => store.close())
  const teamId = opts.teamId ?? uid('tm')
  const { room } = await core.rooms.create(teamId, { room_id: opts.roomId, template: opts.template ?? 'blank' }, 'test')
  return { core, teamId, roomId: room.room_id, as: (agent?: string, idempotencyKey?: string) => ({ room: { teamId, roomId: room.room_id }, agent, idempotencyKey }) }
}

const refs = (a: { results: { ref: string }[] }) => a.results.map((r) => r.ref)

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    searchConformance(t, `redis engine (${backend})`, async () => {
      const { engine } = await engineFor(t, backend)
      return { engine, newRoom: (tt, opts) => roomOn(tt, backend, opts), settle: async () => {} }
    })

    t.test('a change whose notice was lost is still found: the search waits, then reads the room again', async (t) => {
      const { engine, store } = await engineFor(t, backend)
      const r = await roomOn(t, backend)
      await r.core.plan.addTask(r.as('a'), { title: 'first task' })
      t.same(refs(await engine.search(r.as('a'), { query: 'first' })), ['task t1'])
      // A task written behind the scripts' back, with the content seq bumped and no notice: as if
      // the notice had been lost on its way.
      const k = store.keys.room({ teamId: r.teamId, roomId: r.roomId })
      const raw = await store.client.hgetBuffer(k.tasks, 't1')
      const { decode, encode } = await import('@msgpack/msgpack')
      const task = decode(raw!) as Record<string, unknown>
      await store.client.hset(k.tasks, 't1', Buffer.from(encode({ ...task, title: 'renamed quietly', updated_at: Date.now() })))
      await store.client.hincrby(k.meta, 'cseq', 1)
      t.same(refs(await engine.search(r.as('a'), { query: 'quietly' })), ['task t1'], 'found after the full read')
      t.same(refs(await engine.search(r.as('a'), { query: 'first' })), [], 'the old title is gone')
    })

    t.test('a room that expired is not_found, and the same id created again starts empty', async (t) => {
      const { engine, store } = await engineFor(t, backend)
      const r = await roomOn(t, backend)
      await r.core.plan.addTask(r.as('a'), { title: 'before expiry' })
      t.equal((await engine.search(r.as('a'), { query: 'expiry' })).results.length, 1)
      const k = store.keys.room({ teamId: r.teamId, roomId: r.roomId })
      await Promise.all(k.list.slice(0, 14).map((key) => store.client.del(key)))
      await t.rejects(engine.search(r.as('a'), { query: 'expiry' }), { code: 'not_found' })
      t.equal(engine.stats().rooms, 0, 'the room\'s index was dropped')
      await r.core.rooms.create(r.teamId, { room_id: r.roomId, template: 'blank' }, 'test')
      await r.core.plan.addTask(r.as('a'), { title: 'after recreation' })
      t.same(refs(await engine.search(r.as('a'), { query: 'expiry' })), [])
      t.same(refs(await engine.search(r.as('a'), { query: 'recreation' })), ['task t1'])
    })

    t.test('a room created again while cached is read again (its created notice)', async (t) => {
      const { engine, store } = await engineFor(t, backend)
      const r = await roomOn(t, backend)
      await r.core.plan.addTask(r.as('a'), { title: 'old incarnation' })
      t.equal((await engine.search(r.as('a'), { query: 'incarnation' })).results.length, 1)
      const k = store.keys.room({ teamId: r.teamId, roomId: r.roomId })
      await Promise.all(k.list.slice(0, 14).map((key) => store.client.del(key)))
      await r.core.rooms.create(r.teamId, { room_id: r.roomId, template: 'blank' }, 'test')
      await r.core.plan.addTask(r.as('a'), { title: 'new one' })
      t.same(refs(await engine.search(r.as('a'), { query: 'incarnation' })), [])
    })

    t.test('trimmed events leave the index; template content is found', async (t) => {
      const { engine } = await engineFor(t, backend, { eventsRetained: 10 })
      const r = await roomOn(t, backend, { template: 'web-app', settings: { eventsRetained: 10 } })
      t.ok((await engine.search(r.as('a'), { query: 'brief', kinds: ['context'] })).results.length > 0, 'the template\'s product brief')
      await r.core.events.post(r.as('a'), { type: 'message', text: 'zebra crossing' })
      t.equal((await engine.search(r.as('a'), { query: 'zebra' })).results.length, 1)
      for (let i = 0; i < 12; i++) await r.core.events.post(r.as('a'), { type: 'message', text: `filler ${i}` })
      t.same(refs(await engine.search(r.as('a'), { query: 'zebra' })), [], 'trimmed away with the stream')
      t.equal((await engine.search(r.as('a'), { query: 'filler', limit: 50 })).results.length, 10, 'the retained ones')
    })

    t.test('only the first SEARCH_FIELD_BYTES of notes and bodies are indexed', async (t) => {
      const { engine } = await engineFor(t, backend, { searchFieldBytes: 1024 })
      const r = await roomOn(t, backend)
      const body = `early ${'padding '.repeat(200)} late`
      await r.core.context.write(r.as('a'), { type: 'spec', key: 'long', body })
      t.equal((await engine.search(r.as('a'), { query: 'early' })).results.length, 1)
      t.equal((await engine.search(r.as('a'), { query: 'late' })).results.length, 0, 'past the cap')
      t.equal((await engine.search(r.as('a'), { query: 'long' })).results.length, 1, 'the key is indexed whole')
    })

    t.test('the memory budget keeps the rooms searched last; idle rooms are dropped and their channel released', async (t) => {
      const { engine } = await engineFor(t, backend, { searchCacheMb: 1, searchCacheIdleS: 1, searchFieldBytes: 65_536 })
      const rooms = [await roomOn(t, backend), await roomOn(t, backend)]
      for (const r of rooms) {
        for (let i = 0; i < 6; i++) await r.core.context.write(r.as('a'), { type: 'spec', key: `k${i}`, body: `needle ${'x'.repeat(60_000)}` })
      }
      for (const r of rooms) t.equal((await engine.search(r.as('a'), { query: 'needle' })).results.length, 6)
      t.equal(engine.stats().rooms, 1, 'two rooms of ~360 K characters each do not fit 1 MiB: the older was dropped')
      await until(() => engine.stats().rooms === 0, 5000)
      t.equal(engine.stats().rooms, 0, 'dropped after SEARCH_CACHE_IDLE_S')
      t.equal((await engine.search(rooms[0]!.as('a'), { query: 'needle' })).results.length, 6, 'and read again when searched')
    })

    t.test('concurrent searches and writes of one room agree with the room', async (t) => {
      const { engine } = await engineFor(t, backend)
      const r = await roomOn(t, backend)
      const writes = Array.from({ length: 30 }, (_, i) => r.core.plan.addTask(r.as('a'), { title: `parallel task ${i}` }))
      const searches = Array.from({ length: 10 }, () => engine.search(r.as('a'), { query: 'parallel' }))
      await Promise.all([...writes, ...searches])
      t.equal((await engine.search(r.as('a'), { query: 'parallel', limit: 50 })).results.length, 30)
    })
  })
}
