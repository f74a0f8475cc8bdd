// Semantic search on Redis 8 vector sets (VADD/VSIM), standalone and a 3-master cluster started
// here from the Redis 8 server that scripts/redis8.sh builds (.ci/run builds it; Debian 12 has
// only Redis 7). The conformance suite with its semantic cases on vector sets; the fallback forced
// (SEARCH_VECTOR_SETS=off) on the same server; the same results either way, similarities
// included; and a vector set that lost its vectors answered in process meanwhile. On thousands of
// random vectors: what VSIM finds is scored exactly as in process, and on clustered vectors (the
// shape of embeddings) it finds the brute force's nearest; on structureless ones its graph search
// misses some (counted, not held to: HNSW is approximate; ranking in process is exact).
// Without the server this file reports NOT RUN: `bash scripts/redis8.sh` builds it.
import t from 'tap'
import type { Settings } from '../../src/config.js'
import { fp32, pack, quantize, unpack } from '../../src/search/vectors/codec.js'
import { nearestOrder, RoomVectors, type Nearest } from '../../src/search/vectors/follower.js'
import { uid } from '../helpers/shared.js'
import { TEST_MODEL, startTestEmbedder } from '../helpers/embedder.js'
import { startCluster, startRedis } from '../helpers/redis.js'
import { searchConformance } from '../helpers/search-conformance.js'
import { redis8Server, roomWith, semanticNode, semanticSettings } from '../helpers/semantic.js'

const server = redis8Server()

if (!server) {
  t.comment('NOT RUN: no Redis 8 server (vector sets); `bash scripts/redis8.sh` builds one from Debian\'s source, as .ci/run does.')
  t.test('semantic search on Redis 8 vector sets', { skip: 'NOT RUN: no Redis 8 server built (scripts/redis8.sh)' }, async () => {})
} else {
  t.test('Redis 8 vector sets', async (t) => {
    const embedder = await startTestEmbedder()
    t.teardown(() => embedder.close())
    const standalone = await startRedis([], undefined, false, server)
    t.teardown(() => standalone.stop())
    const cluster = await startCluster(3, 0, false, server)
    t.teardown(() => cluster.stop())
    const topologies: [string, Partial<Settings>][] = [
      ['standalone', { redisUrl: `redis://127.0.0.1:${standalone.port}` }],
      ['cluster', { redisClusterNodes: cluster.seeds }],
    ]

    for (const [name, redis] of topologies) {
      searchConformance(t, `redis engine, semantic, vector sets (${name})`, async () => {
        const settings = semanticSettings(redis, embedder.url)
        const { engine } = await semanticNode(t, settings)
        t.same(engine.status(), { engine: 'redis', semantic: true, model: TEST_MODEL, vectors: 'vector sets' }, `${name}: vector sets detected`)
        return { engine, newRoom: (tt, opts) => roomWith(tt, settings, opts), settle: async (ref) => void (await engine.vectorIndexer!.reconcile(ref)), embedder }
      })
    }

    searchConformance(t, 'redis engine, semantic, SEARCH_VECTOR_SETS=off on Redis 8 (the fallback, forced)', async () => {
      const settings = semanticSettings(topologies[0]![1], embedder.url, { searchVectorSets: 'off' })
      const { engine } = await semanticNode(t, settings)
      t.equal(engine.status().vectors, 'in process', 'off: ranked in process though the server has vector sets')
      return { engine, newRoom: (tt, opts) => roomWith(tt, settings, opts), settle: async (ref) => void (await engine.vectorIndexer!.reconcile(ref)), embedder }
    })

    for (const [name, redis] of topologies) {
      t.test(`${name}: the same results with and without vector sets, and in process while a vector set is incomplete`, async (t) => {
        const settings = semanticSettings(redis, embedder.url)
        const sets = await semanticNode(t, settings)
        const plain = await semanticNode(t, { ...settings, searchVectorSets: 'off' })
        const r = await roomWith(t, settings)
        const a = r.as('a')
        const titles = ['Migrate the billing database to Postgres', 'Rotate the TLS certificates', 'Fix ERR_CONN_RESET in the payment client', 'Connection resets from the payment gateway', 'Order lunch for the offsite', 'Write onboarding docs for new engineers', 'Profile the slow search queries', 'Upgrade the kubernetes cluster']
        for (const title of titles) await r.core.plan.addTask(a, { title })
        await r.core.context.write(a, { type: 'spec', key: 'payments', body: 'How the payment client retries after a connection reset.' })
        for (const text of ['deploying the database migration tonight', 'certificates expire next week', 'lunch is here']) await r.core.events.post(a, { type: 'message', text })
        await sets.engine.vectorIndexer!.reconcile(a.room)
        const queries = ['migrating postgresql', 'connection reset', 'certificate rotation', 'engineer onboarding', 'ERR_CONN_RESET', 'slow queries']
        const view = (x: Awaited<ReturnType<typeof sets.engine.search>>) => x.results.map((h) => [h.ref, h.match, h.similarity, h.score])
        for (const query of queries) {
          for (const kinds of [undefined, ['task'] as const]) {
            const input = { query, semantic: true, limit: 20, ...(kinds ? { kinds: [...kinds] } : {}) }
            const viaSets = await sets.engine.search(a, input)
            const inProcess = await plain.engine.search(a, input)
            t.same(view(viaSets), view(inProcess), `"${query}"${kinds ? ' (tasks)' : ''}: same records, signals, similarities and scores`)
          }
        }
        t.equal(sets.engine.semantic!.counts.process, 0, 'the vector-set node ranked every query with VSIM')
        t.ok(sets.engine.semantic!.counts.sets >= queries.length * 2)
        // The vector set loses its vectors (a Redis upgraded under existing rooms looks the same):
        // answers come from the vectors in process, unchanged.
        const before = view(await sets.engine.search(a, { query: 'migrating postgresql', semantic: true }))
        await sets.store.client.del(sets.store.keys.vectors(a.room).set)
        const setsBefore = sets.engine.semantic!.counts.sets
        t.same(view(await sets.engine.search(a, { query: 'migrating postgresql', semantic: true })), before, 'an incomplete vector set: the same answer, from the vectors in process')
        t.equal(sets.engine.semantic!.counts.process, 1, 'ranked in process this time')
        // Meanwhile the node writes the room's vectors into the set again: VSIM answers again, alike.
        const until = Date.now() + 10_000
        while (sets.engine.semantic!.counts.sets === setsBefore && Date.now() < until) {
          t.same(view(await sets.engine.search(a, { query: 'migrating postgresql', semantic: true })), before, 'the same answer meanwhile')
        }
        t.ok(sets.engine.semantic!.counts.sets > setsBefore, 'the vector set holds the room\'s vectors again')
      })
    }

    t.test('thousands of vectors: VSIM\'s finds are scored as in process; on clustered vectors they are the brute force\'s nearest', async (t) => {
      const settings = semanticSettings(topologies[0]![1], embedder.url)
      const sets = (await semanticNode(t, settings)).engine.semantic!
      const plain = (await semanticNode(t, { ...settings, searchVectorSets: 'off' })).engine.semantic!
      let seed = 3
      const rnd = () => {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
        return seed / 4294967296
      }
      const dims = 384
      const n = 50
      for (const shape of ['clustered', 'uniform'] as const) {
        const ref = { teamId: uid('tm'), roomId: 'random' }
        const centers = Array.from({ length: 12 }, () => Array.from({ length: dims }, () => rnd() - 0.5))
        const draw = () => (shape === 'uniform' ? Array.from({ length: dims }, () => rnd() - 0.5) : centers[Math.floor(rnd() * centers.length)]!.map((x) => x + 0.4 * (rnd() - 0.5)))
        const all = new Map<string, ReturnType<typeof unpack>>()
        for (let i = 0; i < 2000; i += 250) {
          const put = Array.from({ length: 250 }, (_, j) => {
            const v = quantize(draw())!
            // Duplicates too: equal vectors tie exactly, and are ordered by key both ways.
            const packed = pack('0123456789abcdef', (i + j) % 100 === 0 ? quantize(centers[0]!)! : v)
            all.set(`task:t${i + j}`, unpack(packed))
            return { key: `task:t${i + j}`, packed, priority: i + j, fp32: fp32(unpack(packed)), attrs: '{"k":"task"}' }
          })
          await sets.vectors.write(ref, { put, del: [], gen: TEST_MODEL }, 100_000, true)
        }
        let missed = 0
        for (let q = 0; q < 20; q++) {
          const query = quantize(q === 0 ? centers[0]! : draw())!
          const viaSets = (await sets.candidates(ref, () => new RoomVectors(), query, n, undefined))(() => true).hits
          const inProcess = (await plain.candidates(ref, () => new RoomVectors(), query, n, undefined))(() => true).hits
          const exact = [...all].map(([key, v]): Nearest => ({ key, cosine: [...v.q].reduce((s, x, i) => s + x * query.q[i]!, 0) * v.range * (query.range / 16129), hash: v.hash })).filter((h) => h.cosine > 0).sort(nearestOrder).slice(0, n)
          t.same(inProcess, exact, `${shape}, query ${q}: in process, the brute force`)
          const byKey = new Map(inProcess.map((h) => [h.key, h.cosine]))
          const wrong = viaSets.filter((h) => byKey.has(h.key) && byKey.get(h.key) !== h.cosine)
          t.same(wrong, [], `${shape}, query ${q}: what VSIM found has the in-process similarity, to the bit`)
          t.same([...viaSets].sort(nearestOrder), viaSets, 'and is in nearest order')
          missed += exact.filter((h) => !viaSets.some((x) => x.key === h.key)).length
          if (shape === 'clustered') t.same(viaSets, exact, `clustered, query ${q}: VSIM finds the brute force's ${n} nearest`)
        }
        t.comment(`${shape}: VSIM (EF 100) missed ${missed} of the brute force's ${20 * n} nearest over 20 queries`)
      }
    })
  })
}
