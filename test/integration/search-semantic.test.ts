// Semantic search on the Redis engine, standalone and cluster (Redis 7: no vector sets, so nodes
// rank vectors in process), against a real HTTP embedding server started here: the conformance
// suite with its semantic cases, then what is particular to the vectors: a write never waits for
// an embedding, text unchanged is not embedded again, the bound per room, vectors gone with their
// room and made again for a room created again, another model, and the keys' TTL.
import t from 'tap'
import type { Test } from 'tap'
import type { Settings } from '../../src/config.js'
import { Keys } from '../../src/store/keys.js'
import { VectorStore } from '../../src/store/vectors.js'
import { TEST_MODEL, startTestEmbedder, type TestEmbedder } from '../helpers/embedder.js'
import { searchConformance } from '../helpers/search-conformance.js'
import { roomWith, semanticNode, semanticSettings } from '../helpers/semantic.js'
import { BACKENDS, rawClient, settingsFor, type Backend } from '../helpers/shared.js'

async function embedderFor(t: Test, opts: Parameters<typeof startTestEmbedder>[0] = {}): Promise<TestEmbedder> {
  const e = await startTestEmbedder(opts)
  t.teardown(() => e.close())
  return e
}

function settingsOf(backend: Backend, url: string, overrides: Partial<Settings> = {}): Settings {
  const s = settingsFor(backend)
  return semanticSettings({ redisUrl: s.redisUrl, redisClusterNodes: s.redisClusterNodes }, url, overrides)
}

const refs = (a: { results: { ref: string }[] }) => a.results.map((r) => r.ref)

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const embedder = await embedderFor(t)

    searchConformance(t, `redis engine, semantic, vectors in process (${backend})`, async () => {
      const settings = settingsOf(backend, embedder.url)
      const { engine } = await semanticNode(t, settings)
      t.same(
        engine.status(),
        { engine: 'redis', semantic: true, model: TEST_MODEL, vectors: 'in process' },
        'Redis 7: no vector sets, ranked in process',
      )
      return {
        engine,
        newRoom: (tt, opts) => roomWith(tt, settings, opts),
        settle: async (ref) => void (await engine.vectorIndexer!.reconcile(ref)),
        embedder,
      }
    })

    t.test('a write never waits for an embedding; text unchanged is not embedded again', async (t) => {
      const e = await embedderFor(t)
      const settings = settingsOf(backend, e.url)
      const { engine } = await semanticNode(t, settings)
      const r = await roomWith(t, settings)
      e.delay(60_000) // an embedder that hangs: the writes below do not wait for it
      t.teardown(() => e.delay(0))
      const a = r.as('a')
      const { task } = (await r.core.plan.addTask(a, { title: 'Deploy the canary', notes: 'first' })) as {
        task: { id: string }
      }
      await r.core.events.post(a, { type: 'message', text: 'canary deploying now' })
      t.same(refs(await engine.search(a, { query: 'canary' })).length, 2, 'written and found lexically meanwhile')
      e.delay(0)
      await engine.vectorIndexer!.reconcile(r.as().room)
      const texts = e.stats.texts
      await r.core.plan.updateTask(a, { task_id: task.id, status: 'in_progress', assignee: 'a' })
      await engine.vectorIndexer!.reconcile(r.as().room)
      t.equal(e.stats.texts, texts, 'a status change embeds nothing')
      await r.core.plan.updateTask(a, { task_id: task.id, notes: 'second' })
      await engine.vectorIndexer!.reconcile(r.as().room)
      t.equal(e.stats.texts, texts + 1, 'new notes: that task is embedded again, alone')
    })

    t.test('at most SEARCH_VECTORS_PER_ROOM vectors: tasks and context first, then the newest events', async (t) => {
      const e = await embedderFor(t)
      const settings = settingsOf(backend, e.url, { searchVectorsPerRoom: 5 })
      const { engine, store } = await semanticNode(t, settings)
      const r = await roomWith(t, settings)
      const a = r.as('a')
      for (let i = 0; i < 2; i++) await r.core.plan.addTask(a, { title: `task ${i}` })
      await r.core.context.write(a, { type: 'spec', key: 'api', body: 'the api' })
      const events: string[] = []
      for (let i = 0; i < 6; i++)
        events.push(
          ((await r.core.events.post(a, { type: 'message', text: `event number ${i}` })) as { event: { id: string } })
            .event.id,
        )
      await engine.vectorIndexer!.reconcile(a.room)
      const held = await new VectorStore(store, 60_000).changes(a.room, -1, '', 100)
      t.same(
        held.puts.map((p) => p.key).sort(),
        ['context:spec/api', `event:${events[4]}`, `event:${events[5]}`, 'task:t1', 'task:t2'].sort(),
        'three records and the two newest events',
      )
      t.equal(e.stats.texts, 5, 'the older events were never embedded')
      await r.core.events.post(a, { type: 'message', text: 'one more event' })
      await engine.vectorIndexer!.reconcile(a.room)
      const after = await new VectorStore(store, 60_000).changes(a.room, -1, '', 100)
      t.equal(after.puts.length, 5, 'still five: the oldest event went')
      t.notOk(after.puts.some((p) => p.key === `event:${events[4]}`))
      const found = await engine.search(a, { query: 'event number', semantic: true })
      t.ok(found.results.length >= 6, 'records without a vector are still found by their words')
    })

    t.test('vectors live as long as their room, go with it, and are made again for a room created again', async (t) => {
      const e = await embedderFor(t)
      const settings = settingsOf(backend, e.url, { roomTtlMs: 3000 })
      const { engine } = await semanticNode(t, settings)
      const raw = rawClient(backend)
      t.teardown(() => raw.quit())
      const r = await roomWith(t, settings)
      const ref = r.as().room
      await r.core.plan.addTask(r.as('a'), { title: 'Migrate the billing database' })
      await engine.vectorIndexer!.reconcile(ref)
      const vk = new Keys(settings.keyPrefix).vectors(ref)
      for (const k of [vk.vec, vk.order, vk.log, vk.manifest]) {
        const ttl = await raw.pttl(k)
        t.ok(ttl > 0 && ttl <= 3000, `${k.slice(k.lastIndexOf(':') + 1)} has the room's TTL`)
      }
      // The room expires: its vectors expire with it, and a sync of the gone room leaves nothing.
      const until = Date.now() + 10_000
      while ((await raw.exists(new Keys(settings.keyPrefix).room(ref).meta)) === 1 && Date.now() < until)
        await new Promise((res) => setTimeout(res, 100))
      const sync = await engine.vectorIndexer!.reconcile(ref)
      t.equal(sync.dropped, true)
      t.same(
        await Promise.all([vk.vec, vk.order, vk.log, vk.dels, vk.set, vk.manifest].map((k) => raw.exists(k))),
        [0, 0, 0, 0, 0, 0],
        'no vector key left',
      )
      // Created again under the same id: only the new room's records.
      const again = await roomWith(t, settings, { teamId: ref.teamId, roomId: ref.roomId })
      await again.core.plan.addTask(again.as('a'), { title: 'Order lunch for the team' })
      await engine.vectorIndexer!.reconcile(ref)
      t.same(
        refs(await engine.search(again.as('a'), { query: 'migrating databases', semantic: true })),
        [],
        "the old incarnation's task is not found by its meaning",
      )
      const res = await engine.search(again.as('a'), { query: 'ordering lunches', semantic: true })
      t.same(refs(res), ['task t1'])
      t.match(
        res.results[0],
        { title: 'Order lunch for the team', match: 'semantic' },
        "the new incarnation's task, by its vector",
      )
    })

    t.test('another embedding model: answers say so, and every room is embedded again', async (t) => {
      const e = await embedderFor(t)
      const first = settingsOf(backend, e.url)
      const one = await semanticNode(t, first)
      const r = await roomWith(t, first)
      await r.core.plan.addTask(r.as('a'), { title: 'Migrate the billing database to Postgres' })
      await one.engine.vectorIndexer!.reconcile(r.as().room)
      await one.engine.stop() // the deployment's nodes now all have the new model
      const other = await embedderFor(t, { model: 'trigram-test-2' })
      const second = settingsOf(backend, other.url, { embedderModel: 'trigram-test-2', keyPrefix: first.keyPrefix })
      const two = await semanticNode(t, second)
      const before = await two.engine.search(r.as('a'), { query: 'migrating postgresql', semantic: true })
      t.match(before.note, /being made again/, 'vectors of another model are not compared')
      t.same(refs(before), [], 'and not used')
      // That search marked the room: a node embeds it again with the new model (this one, now).
      await two.engine.vectorIndexer!.reconcile(r.as().room)
      t.ok(other.stats.texts >= 1, 'the room was embedded again by the new model')
      const after = await two.engine.search(r.as('a'), { query: 'migrating postgresql', semantic: true })
      t.same(refs(after), ['task t1'])
      t.equal(after.note, undefined)
    })
  })
}
