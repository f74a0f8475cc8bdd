// The Meilisearch engine. Two parts:
// - Always (Redis only): the engine with Meilisearch unreachable still answers lexical searches
//   through the Redis engine, says so in a note, and refuses semantic ones clearly.
// - When MEILI_URL is set (with MEILI_API_KEY when the server has a master key): the conformance
//   suite of every engine, on a fresh index, with the indexer syncing each room before its
//   searches. No Meilisearch can be installed on the development machines; without MEILI_URL this
//   part is reported as NOT RUN. `docker compose -f docker-compose.meili.yml up -d` starts one:
//   MEILI_URL=http://127.0.0.1:7700 MEILI_API_KEY=agentrooms-test-key npx tap test/integration/search-meili.test.ts
import t from 'tap'
import type { Test } from 'tap'
import { randomBytes } from 'node:crypto'
import type { Settings } from '../../src/config.js'
import { MeiliSearchEngine } from '../../src/search/meili/engine.js'
import { RedisSearchEngine } from '../../src/search/redis/engine.js'
import { newRoom } from '../helpers/core.js'
import { startHub } from '../helpers/realtime.js'
import { searchConformance } from '../helpers/search-conformance.js'
import { BACKENDS, storeFor, uid, type Backend } from '../helpers/shared.js'

async function meiliEngine(t: Test, backend: Backend, overrides: Partial<Settings>): Promise<MeiliSearchEngine> {
  const store = storeFor(backend, overrides)
  const hub = await startHub(t, store)
  const engine = new MeiliSearchEngine(store, store.settings, new RedisSearchEngine(store, hub, store.settings), {
    sweepMs: 0,
    retryMs: 200,
  })
  await engine.start()
  t.teardown(async () => {
    await engine.stop()
    await hub.stop()
    await store.close()
  })
  return engine
}

for (const backend of BACKENDS) {
  t.test(`${backend}: Meilisearch unreachable`, async (t) => {
    const down = { meiliUrl: 'http://127.0.0.1:1', meiliIndex: `down-${uid('')}` }

    t.test('a lexical search is answered by the Redis engine, with a note saying so', async (t) => {
      const engine = await meiliEngine(t, backend, down)
      const r = await newRoom(t, backend)
      await r.core.plan.addTask(r.as('a'), { title: 'still searchable' })
      const a = await engine.search(r.as('a'), { query: 'searchable' })
      t.equal(a.engine, 'redis')
      t.same(
        a.results.map((x) => x.ref),
        ['task t1'],
      )
      t.match(a.note, /Meilisearch is unreachable/)
      await t.rejects(
        engine.search(r.as('a'), { query: 'x', semantic: true }),
        { code: 'semantic_search_disabled' },
        'no embedder configured: disabled, whatever the server',
      )
    })

    t.test('with an embedder configured, a semantic search fails as unavailable', async (t) => {
      const engine = await meiliEngine(t, backend, {
        ...down,
        meiliEmbedderSource: 'ollama',
        meiliEmbedderModel: 'nomic-embed-text',
      })
      t.equal(engine.semanticEnabled, true)
      const r = await newRoom(t, backend)
      await t.rejects(engine.search(r.as('a'), { query: 'anything', semantic: true }), {
        code: 'unavailable',
        message: /Meilisearch is unreachable/,
      })
    })

    t.test("deleting a team's documents fails as unavailable, so the account deletion stops first", async (t) => {
      const engine = await meiliEngine(t, backend, down)
      await t.rejects(engine.dropTeam(uid('tm')), { code: 'unavailable', message: /nothing was deleted/ })
    })
  })
}

const url = process.env.MEILI_URL
if (!url) {
  t.comment('NOT RUN: the Meilisearch engine conformance suite needs a Meilisearch server and MEILI_URL is not set.')
  t.comment(
    'Start one with `docker compose -f docker-compose.meili.yml up -d`, then run ' +
      'MEILI_URL=http://127.0.0.1:7700 MEILI_API_KEY=agentrooms-test-key npx tap ' +
      'test/integration/search-meili.test.ts',
  )
  t.test(
    'Meilisearch engine conformance suite',
    { skip: 'NOT RUN: MEILI_URL is not set (no Meilisearch server on this machine)' },
    async () => {},
  )
} else {
  for (const backend of BACKENDS) {
    t.test(`${backend}: Meilisearch at ${url}`, async (t) => {
      const settings: Partial<Settings> = {
        meiliUrl: url,
        meiliApiKey: process.env.MEILI_API_KEY,
        meiliIndex: `agentrooms-test-${randomBytes(4).toString('hex')}`,
      }
      searchConformance(t, `meilisearch engine (${backend})`, async () => {
        const engine = await meiliEngine(t, backend, settings)
        t.teardown(() => engine.sink.client.deleteIndexIfExists(engine.sink.uid))
        return {
          engine,
          newRoom: (tt, opts) => newRoom(tt, backend, opts),
          settle: async (ref) => {
            await engine.indexer.reconcile(ref)
          },
        }
      })

      t.test('the documents of an expired room are deleted from the index', async (t) => {
        const engine = await meiliEngine(t, backend, settings)
        t.teardown(() => engine.sink.client.deleteIndexIfExists(engine.sink.uid))
        const r = await newRoom(t, backend)
        await r.core.plan.addTask(r.as('a'), { title: 'ephemeral' })
        const ref = { teamId: r.teamId, roomId: r.roomId }
        await engine.indexer.reconcile(ref)
        const filter = `team_id = "${r.teamId}" AND room_id = "${r.roomId}"`
        t.equal((await engine.sink.index.search('', { filter })).hits.length, 1)
        const store = r.core.store
        await Promise.all(
          store.keys
            .room(ref)
            .list.slice(0, -1)
            .map((k) => store.client.del(k)),
        )
        t.match(await engine.indexer.reconcile(ref), { dropped: true })
        t.equal((await engine.sink.index.search('', { filter })).hits.length, 0)
      })

      t.test("a deleted team's documents are all removed, and no other team's", async (t) => {
        const engine = await meiliEngine(t, backend, settings)
        t.teardown(() => engine.sink.client.deleteIndexIfExists(engine.sink.uid))
        const gone = await newRoom(t, backend)
        const goneToo = await newRoom(t, backend, { teamId: gone.teamId })
        const stays = await newRoom(t, backend)
        for (const r of [gone, goneToo, stays]) {
          await r.core.plan.addTask(r.as('a'), { title: 'indexed' })
          await engine.indexer.reconcile({ teamId: r.teamId, roomId: r.roomId })
        }
        const count = async (teamId: string) =>
          (await engine.sink.index.search('', { filter: `team_id = "${teamId}"` })).hits.length
        t.equal(await count(gone.teamId), 2)
        await engine.dropTeam(gone.teamId)
        t.equal(await count(gone.teamId), 0, "the team's documents, in every room, are gone")
        t.equal(await count(stays.teamId), 1, "another team's stay")
      })
    })
  }
}
