// Semantic search on Redis 8 vector sets (VADD/VSIM), standalone and a 3-master cluster started
// here from the Redis 8 server that scripts/redis8.sh builds (.ci/run builds it; Debian 12 has
// only Redis 7). The conformance suite with its semantic cases on vector sets (SEARCH_VECTOR_SETS=
// auto); the fallback forced (off, the default) on the same server; the same results either way, similarities
// included; a vector set that lost its vectors, or that a node without vector sets wrote past,
// answered in process meanwhile and written again. On 1,500 vectors of each shape (uniformly
// random, clustered, random words through the test model, and adversarial: exact ties, near-ties
// and duplicates at the edge of the answer), with records refused and kinds asked, on both
// topologies: the answer on vector sets (VSIM TRUTH, proven exact: src/search/vectors/exact.ts)
// and the answer in process both equal the brute force, to the bit. And what that proof rests on:
// VSIM keeps the node's very int8 values, and its float32 distances stay within the slack.
// Without the server this file reports NOT RUN: `bash scripts/redis8.sh` builds it.
import t from 'tap'
import type { Settings } from '../../src/config.js'
import type { SearchKind } from '../../src/search/engine.js'
import { fp32, pack, quantize, unpack, type Quantized } from '../../src/search/vectors/codec.js'
import { slack } from '../../src/search/vectors/exact.js'
import { nearestOrder, RoomVectors, type Nearest } from '../../src/search/vectors/follower.js'
import type { Semantic } from '../../src/search/vectors/semantic.js'
import { uid } from '../helpers/shared.js'
import { TEST_MODEL, startTestEmbedder, trigramVector } from '../helpers/embedder.js'
import { startCluster, startRedis } from '../helpers/redis.js'
import { searchConformance } from '../helpers/search-conformance.js'
import { redis8Server, roomWith, semanticNode, semanticSettings } from '../helpers/semantic.js'

const server = redis8Server()

if (!server) {
  t.comment(
    "NOT RUN: no Redis 8 server (vector sets); `bash scripts/redis8.sh` builds one from Debian's source, as " +
      '.ci/run does.',
  )
  t.test(
    'semantic search on Redis 8 vector sets',
    { skip: 'NOT RUN: no Redis 8 server built (scripts/redis8.sh)' },
    async () => {},
  )
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
        const settings = semanticSettings(redis, embedder.url, { searchVectorSets: 'auto' })
        const { engine } = await semanticNode(t, settings)
        t.same(
          engine.status(),
          { engine: 'redis', semantic: true, model: TEST_MODEL, vectors: 'vector sets' },
          `${name}: vector sets detected`,
        )
        return {
          engine,
          newRoom: (tt, opts) => roomWith(tt, settings, opts),
          settle: async (ref) => void (await engine.vectorIndexer!.reconcile(ref)),
          embedder,
        }
      })
    }

    searchConformance(
      t,
      'redis engine, semantic, SEARCH_VECTOR_SETS=off on Redis 8 (the fallback, forced)',
      async () => {
        const settings = semanticSettings(topologies[0]![1], embedder.url, { searchVectorSets: 'off' })
        const { engine } = await semanticNode(t, settings)
        t.equal(engine.status().vectors, 'in process', 'off: ranked in process though the server has vector sets')
        return {
          engine,
          newRoom: (tt, opts) => roomWith(tt, settings, opts),
          settle: async (ref) => void (await engine.vectorIndexer!.reconcile(ref)),
          embedder,
        }
      },
    )

    for (const [name, redis] of topologies) {
      t.test(
        `${name}: the same results with and without vector sets, and in process while a vector set is incomplete`,
        async (t) => {
          const settings = semanticSettings(redis, embedder.url, { searchVectorSets: 'auto' })
          const sets = await semanticNode(t, settings)
          const plain = await semanticNode(t, { ...settings, searchVectorSets: 'off' })
          const r = await roomWith(t, settings)
          const a = r.as('a')
          const titles = [
            'Migrate the billing database to Postgres',
            'Rotate the TLS certificates',
            'Fix ERR_CONN_RESET in the payment client',
            'Connection resets from the payment gateway',
            'Order lunch for the offsite',
            'Write onboarding docs for new engineers',
            'Profile the slow search queries',
            'Upgrade the kubernetes cluster',
          ]
          for (const title of titles) await r.core.plan.addTask(a, { title })
          await r.core.context.write(a, {
            type: 'spec',
            key: 'payments',
            body: 'How the payment client retries after a connection reset.',
          })
          for (const text of [
            'deploying the database migration tonight',
            'certificates expire next week',
            'lunch is here',
          ])
            await r.core.events.post(a, { type: 'message', text })
          await sets.engine.vectorIndexer!.reconcile(a.room)
          const queries = [
            'migrating postgresql',
            'connection reset',
            'certificate rotation',
            'engineer onboarding',
            'ERR_CONN_RESET',
            'slow queries',
          ]
          const view = (x: Awaited<ReturnType<typeof sets.engine.search>>) =>
            x.results.map((h) => [h.ref, h.match, h.similarity, h.score])
          for (const query of queries) {
            for (const kinds of [undefined, ['task'] as const]) {
              const input = { query, semantic: true, limit: 20, ...(kinds ? { kinds: [...kinds] } : {}) }
              const viaSets = await sets.engine.search(a, input)
              const inProcess = await plain.engine.search(a, input)
              t.same(
                view(viaSets),
                view(inProcess),
                `"${query}"${kinds ? ' (tasks)' : ''}: same records, signals, similarities and scores`,
              )
            }
          }
          t.equal(sets.engine.semantic!.counts.process, 0, 'the vector-set node ranked every query with VSIM')
          t.ok(sets.engine.semantic!.counts.sets >= queries.length * 2)
          // The vector set loses its vectors (a Redis upgraded under existing rooms looks the same):
          // answers come from the vectors in process, unchanged.
          const before = view(await sets.engine.search(a, { query: 'migrating postgresql', semantic: true }))
          await sets.store.client.del(sets.store.keys.vectors(a.room).set)
          const setsBefore = sets.engine.semantic!.counts.sets
          t.same(
            view(await sets.engine.search(a, { query: 'migrating postgresql', semantic: true })),
            before,
            'an incomplete vector set: the same answer, from the vectors in process',
          )
          t.equal(sets.engine.semantic!.counts.process, 1, 'ranked in process this time')
          // Meanwhile the node writes the room's vectors into the set again: VSIM answers again, alike.
          const until = Date.now() + 10_000
          while (sets.engine.semantic!.counts.sets === setsBefore && Date.now() < until) {
            t.same(
              view(await sets.engine.search(a, { query: 'migrating postgresql', semantic: true })),
              before,
              'the same answer meanwhile',
            )
          }
          t.ok(sets.engine.semantic!.counts.sets > setsBefore, "the vector set holds the room's vectors again")
          // The vectors the indexer wrote (float32 values from its double scale) and those written
          // again (from the stored float32 scale) are kept by VADD as the node's very int8 values.
          const k = sets.store.keys.vectors(a.room)
          const rows = Object.entries(await sets.store.client.hgetallBuffer(k.vec)).filter(
            ([key]) => !key.startsWith('#'),
          )
          t.equal(rows.length, titles.length + 4)
          for (const [key, row] of rows) {
            const raw = (await sets.store.client.callBuffer('VEMB', k.set, key, 'RAW')) as Buffer[]
            t.same([...new Int8Array(raw[1]!)], [...unpack(row).q], `${key}: VEMB RAW is the node's int8 values`)
          }
          // A node that does not use vector sets writes a vector (as its indexer does): the set no
          // longer holds the room's vectors and is dropped with that write; the vector-set node answers
          // in process, then from the set written again, the same answer as the other node throughout.
          const [key, row] = rows[0]!
          const process = sets.engine.semantic!.counts.process
          await plain.engine.semantic!.vectors.write(
            a.room,
            { put: [{ key, packed: row }], del: [], gen: TEST_MODEL },
            5000,
            false,
          )
          t.equal(await sets.store.client.exists(k.set), 0, 'a write without mirroring dropped the vector set')
          const setsNow = sets.engine.semantic!.counts.sets
          const until2 = Date.now() + 10_000
          do {
            for (const query of queries)
              t.same(
                view(await sets.engine.search(a, { query, semantic: true })),
                view(await plain.engine.search(a, { query, semantic: true })),
                `"${query}": the same answer`,
              )
          } while (sets.engine.semantic!.counts.sets === setsNow && Date.now() < until2)
          t.ok(sets.engine.semantic!.counts.process > process, 'answered in process while the set was rebuilt')
          t.ok(sets.engine.semantic!.counts.sets > setsNow, 'then from the set written again')
          t.equal(
            Number(await sets.store.client.call('VCARD', k.set)),
            rows.length,
            'which holds every vector of the room',
          )
        },
      )
    }

    for (const [name, redis] of topologies) {
      t.test(`${name}: the exact answer either way, on random, clustered and adversarial vectors`, async (t) => {
        const settings = semanticSettings(redis, embedder.url, { searchVectorSets: 'auto' })
        const sets = (await semanticNode(t, settings)).engine.semantic!
        const plain = (await semanticNode(t, { ...settings, searchVectorSets: 'off' })).engine.semantic!
        t.ok(sets.sets && !plain.sets, 'vector sets detected on one node, the fallback forced on the other')
        for (const shape of SHAPES) {
          const room = await vectorRoom(sets, shape)
          const mismatches: string[] = []
          let compared = 0
          for (const [qi, query] of room.queries.entries()) {
            for (const [view, kinds, accept] of VIEWS) {
              for (const n of [50, 10]) {
                const exact = bruteForce(
                  room.vectors,
                  query,
                  n,
                  (key) => accept(key) && (!kinds || kinds.includes(kindOf(key) as SearchKind)),
                )
                const viaSets = (
                  await (
                    await sets.candidates(room.ref, () => new RoomVectors(), query, n, kinds)
                  )(accept)
                ).hits
                const inProcess = (
                  await (
                    await plain.candidates(room.ref, () => new RoomVectors(), query, n, kinds)
                  )(accept)
                ).hits
                compared++
                if (JSON.stringify(viaSets) !== JSON.stringify(exact))
                  mismatches.push(`vector sets, query ${qi}, ${view}, n ${n}: ${firstDifference(viaSets, exact)}`)
                if (JSON.stringify(inProcess) !== JSON.stringify(exact))
                  mismatches.push(`in process, query ${qi}, ${view}, n ${n}: ${firstDifference(inProcess, exact)}`)
              }
            }
          }
          t.same(
            mismatches,
            [],
            `${name}, ${shape}: ${compared} answers, on vector sets and in process, equal the brute force ` +
              `(records, order, similarities to the bit)`,
          )
        }
        t.equal(plain.counts.sets, 0, 'the forced fallback never asked VSIM')
        t.equal(sets.counts.process, 0, 'the vector-set node answered every lookup from VSIM')
        t.ok(
          sets.counts.more > 0,
          `ties and refusals at the edge made it ask VSIM for more (${sets.counts.more} times)`,
        )
        t.comment(
          `${name}: ${sets.counts.sets} lookups on vector sets, ${sets.counts.more} further VSIM calls to ` +
            `prove them exact`,
        )
      })
    }

    t.test(
      'what the proof rests on: VSIM stores the very bytes the node keeps, and its float32 distances stay ' +
        'within the slack',
      async (t) => {
        const settings = semanticSettings(topologies[0]![1], embedder.url, { searchVectorSets: 'auto' })
        const node = await semanticNode(t, settings)
        const sets = node.engine.semantic!
        for (const shape of SHAPES) {
          const room = await vectorRoom(sets, shape)
          const setKey = node.store.keys.vectors(room.ref).set
          let differ = 0
          for (const [key, v] of [...room.vectors].slice(0, 300)) {
            const raw = (await node.store.client.callBuffer('VEMB', setKey, key, 'RAW')) as Buffer[]
            if (!raw[1]!.equals(Buffer.from(v.q.buffer, v.q.byteOffset, v.q.length))) differ++
          }
          t.equal(differ, 0, `${shape}: VEMB RAW of 300 vectors gives the node's int8 values`)
          let worst = 0
          for (const query of room.queries) {
            const r = (await node.store.client.call(
              'VSIM',
              setKey,
              'FP32',
              fp32(query),
              'TRUTH',
              'WITHSCORES',
              'COUNT',
              500,
            )) as string[]
            for (let i = 0; i < r.length; i += 2) {
              // VSIM's score is 1 - d/2 (d its float32 distance): 1 - d = 2 score - 1.
              worst = Math.max(worst, Math.abs(2 * Number(r[i + 1]) - 1 - cosineOf(room.vectors.get(r[i]!)!, query)))
            }
          }
          t.ok(
            worst <= slack(DIMS),
            `${shape}: |(1 - d) - cosine| at most ${worst.toExponential(2)}, within the slack ` +
              `${slack(DIMS).toExponential(2)}`,
          )
        }
      },
    )
  })
}

const DIMS = 384
const SHAPES = ['uniform', 'clustered', 'words', 'ties', 'below float32'] as const
type Shape = (typeof SHAPES)[number]
const kindOf = (key: string) => key.slice(0, key.indexOf(':'))

/** Which records count in a comparison: kinds asked, and what the search accepts (records it sees). */
const VIEWS: [string, SearchKind[] | undefined, (key: string) => boolean][] = [
  ['all', undefined, () => true],
  ['one record in ten refused', undefined, (key) => !key.endsWith('3')],
  ['nine in ten refused', undefined, (key) => key.endsWith('7')],
  ['context entries only (a twentieth of the room)', ['context'], () => true],
  ['tasks and events, some refused', ['task', 'event'], (key) => !key.endsWith('1')],
]

let seed = 3
function rnd(): number {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
  return seed / 4294967296
}
const word = () =>
  Array.from({ length: 3 + Math.floor(rnd() * 8) }, () => String.fromCharCode(97 + Math.floor(rnd() * 26))).join('')
/** Exact int8 values: quantize() keeps a vector whose largest |value| is 127 as it is. */
const int8 = (f: (i: number) => number) =>
  Array.from({ length: DIMS }, (_, i) => Math.max(-127, Math.min(127, Math.round(f(i)))))

/**
 * 1,500 vectors of one shape and the queries to ask of them. Ties: 300 exact ties (the same values
 * toward the query, the same norm, their other values permuted: Redis's float32 distances of them
 * differ by its rounding alone, in no order the node would give), 200 near-ties (one value moved
 * by one: cosines 1e-6 apart, closer than the proof's slack), 40 duplicates, and the rest random;
 * queries that put the ties at the edge of the answer, their opposite, a duplicate. Below float32:
 * 480 vectors nearly at a right angle to the query, whose cosines (~1.4e-3) differ by ~4e-8 from
 * one norm to the next, less than a float32 distance near 1 resolves (6e-8): VSIM sees runs of
 * them as equal and keeps whichever it meets first, the node orders them; the rest point away.
 */
function draw(shape: Shape): { vectors: number[][]; queries: number[][] } {
  const random = () => Array.from({ length: DIMS }, () => rnd() - 0.5)
  if (shape === 'uniform')
    return { vectors: Array.from({ length: 1500 }, random), queries: Array.from({ length: 6 }, random) }
  if (shape === 'clustered') {
    const centers = Array.from({ length: 12 }, random)
    const near = () => centers[Math.floor(rnd() * centers.length)]!.map((x) => x + 0.4 * (rnd() - 0.5))
    return { vectors: Array.from({ length: 1500 }, near), queries: [centers[0]!, ...Array.from({ length: 5 }, near)] }
  }
  if (shape === 'words') {
    const text = () => Array.from({ length: 12 }, word).join(' ')
    return {
      vectors: Array.from({ length: 1500 }, () => trigramVector(text(), DIMS)),
      queries: Array.from({ length: 6 }, () => trigramVector(text(), DIMS)),
    }
  }
  const half = DIMS / 2
  if (shape === 'below float32') {
    // Queries lie in the first half (value 0 = 127, the others of one sign pattern); these vectors'
    // own values in the second; the rest, of the opposite signs, point away from every query.
    const sign = Array.from({ length: half }, () => (rnd() < 0.5 ? 1 : -1))
    const queries = Array.from({ length: 4 }, () =>
      int8((i) => (i === 0 ? 127 : i < half ? sign[i]! * rnd() * 100 : 0)),
    )
    const grey = Array.from({ length: 480 }, (_, i) => {
      // Toward every query 127 × 1 = 127; the norm grows by one with each further ±1 (m of them).
      const v = new Array<number>(DIMS).fill(0)
      v[0] = 1
      v[half] = 127
      const m = i % 60
      for (let j = 0; j < m; j++) v[half + 1 + ((j * 7 + i) % (half - 1))] = rnd() < 0.5 ? 1 : -1
      return v
    })
    const away = Array.from({ length: 1020 }, () =>
      int8((i) => (i === 0 ? -127 : i < half ? -sign[i]! * rnd() * 127 : (rnd() - 0.5) * 254)),
    )
    return { vectors: [...grey, ...away].sort(() => rnd() - 0.5), queries }
  }
  const q = int8((i) => (i < half ? (i === 0 ? 127 : (rnd() - 0.5) * 200) : 0))
  const toward = int8((i) => (i < half ? (i === 0 ? 127 : q[i]! * 0.8) : 0)).slice(0, half)
  const rest = Array.from({ length: half }, (_, i) => (i % 3 === 0 ? Math.round((rnd() - 0.5) * 120) : 0))
  const permuted = () => [...toward, ...[...rest].sort(() => rnd() - 0.5)]
  const ties = Array.from({ length: 300 }, permuted)
  const nearTies = Array.from({ length: 200 }, () => {
    const v = permuted()
    const at = q.findIndex((x, i) => i > 0 && i < half && Math.abs(x) <= 3 && rnd() < 0.5)
    v[at > 0 ? at : 1]! += rnd() < 0.5 ? 1 : -1
    return v
  })
  const dup = int8(() => (rnd() - 0.5) * 254)
  const vectors = [
    ...ties,
    ...nearTies,
    ...Array.from({ length: 40 }, () => dup),
    ...Array.from({ length: 960 }, random),
  ]
  return { vectors: vectors.sort(() => rnd() - 0.5), queries: [q, q.map((x) => -x), dup, random(), ties[0]!] }
}

/** A room of one shape's vectors, written as the indexer writes them (mirrored into its vector set). */
async function vectorRoom(semantic: Semantic, shape: Shape) {
  const ref = { teamId: uid('tm'), roomId: shape }
  const { vectors: floats, queries } = draw(shape)
  const vectors = new Map<string, Quantized & { hash: string }>()
  for (let i = 0; i < floats.length; i += 250) {
    const put = floats.slice(i, i + 250).map((f, j) => {
      const n = i + j
      const key = `${n % 20 === 0 ? 'context' : n % 3 === 0 ? 'event' : 'task'}:r${n}`
      const packed = pack('0123456789abcdef', quantize(f)!)
      vectors.set(key, unpack(packed))
      return { key, packed, priority: n, fp32: fp32(unpack(packed)), attrs: JSON.stringify({ k: kindOf(key) }) }
    })
    await semantic.vectors.write(ref, { put, del: [], gen: TEST_MODEL }, 100_000, true)
  }
  return { ref, vectors, queries: queries.map((f) => quantize(f)!) }
}

const cosineOf = (v: Quantized, query: Quantized) =>
  [...v.q].reduce((s, x, i) => s + x * query.q[i]!, 0) * v.range * (query.range / 16129)

/** The brute force: every vector scored, those at a right angle or more left out, sorted, the first n. */
function bruteForce(
  vectors: Map<string, Quantized & { hash: string }>,
  query: Quantized,
  n: number,
  counts: (key: string) => boolean,
): Nearest[] {
  return [...vectors]
    .map(([key, v]): Nearest => ({ key, cosine: cosineOf(v, query), hash: v.hash }))
    .filter((h) => h.cosine > 0 && counts(h.key))
    .sort(nearestOrder)
    .slice(0, n)
}

function firstDifference(got: Nearest[], want: Nearest[]): string {
  const at = want.findIndex((w, i) => JSON.stringify(w) !== JSON.stringify(got[i]))
  return (
    `${got.length} found, ${want.length} wanted; at ${at < 0 ? got.length - 1 : at}: ` +
    `${JSON.stringify(got[at < 0 ? got.length - 1 : at])} ≠ ${JSON.stringify(want[at])}`
  )
}
