// Search on a room filled to the default limits (docs/configuration.md), Redis engine: 2,000 tasks, 1,000 context
// entries of 64 KiB, 10,000 events, on a Redis of the bench's own. Prints one line per figure:
// - the room's first search on a node: the full read and the index build (SEARCH_FIELD_BYTES);
// - warm query latency p50/p99 by query shape, in process (the engine's own cost: one script call
//   plus ranking);
// - query latency right after a write (the search fetches the changed record first), and how
//   many full reads of the room that caused (none expected: a late notice is waited for);
// - a search right after a bulk edit of 200 context entries (12.5 MiB): the changed records are
//   read back in calls of at most ~1 MiB, and the longest Redis command stays small;
// - the same through HTTP (GET /rooms/:roomId/search on a node in a child process);
// - semantic search (--semantic true): the embedding backlog of the whole room drained (through the
//   test embedding server, 384 dimensions), then semantic against lexical latency on the same
//   queries, paired (--runs times, each with the machine's load average), with the query's vector
//   cached (its embedding call excluded) and without; vectors ranked in process (this Redis), and
//   in vector sets on a Redis 8 when scripts/redis8.sh built one (--vector-sets true: the room is
//   filled there too), where a node ranking in process on the same Redis is timed in the same
//   loop (lexical, vector sets, in process, query after query), the answers that differ between
//   the two are counted (none expected: both are exact), and Redis's main-thread CPU per query is
//   read (INFO cpu) for each, with the rate one shard could sustain at that cost.
//   node --expose-gc --import tsx bench/search.ts [--queries 400] [--field-bytes 16384,65536]
//   [--http true] [--semantic true] [--vector-sets true] [--lexical true] [--runs 1]
import { Redis } from 'ioredis'
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { defaultSettings, type Settings } from '../src/config.js'
import { Core } from '../src/core/index.js'
import { Hub } from '../src/realtime/hub.js'
import type { SearchAnswer } from '../src/search/engine.js'
import { RedisSearchEngine } from '../src/search/redis/engine.js'
import { Store } from '../src/store/store.js'
import { Teams } from '../src/auth/teams.js'
import { createEmbedder } from '../src/search/embed/index.js'
import { startTestEmbedder, TEST_MODEL } from '../test/helpers/embedder.js'
import { redis8Server } from '../test/helpers/semantic.js'
import { fmt, percentile, startChild, startRedis } from './lib.js'

const { values } = parseArgs({
  options: {
    queries: { type: 'string', default: '400' },
    'field-bytes': { type: 'string', default: '16384,65536' },
    http: { type: 'string', default: 'true' },
    semantic: { type: 'string', default: 'true' },
    lexical: { type: 'string', default: 'true' },
    'vector-sets': { type: 'string', default: 'true' },
    runs: { type: 'string', default: '1' },
  },
})
const QUERIES = Number(values.queries)
const RUNS = Number(values.runs)

// Text: a Zipf-distributed vocabulary of 30,000 made-up words (natural text is Zipfian), plus the
// words the queries look for, planted at known rates.
let seed = 42
const rnd = () => {
  seed = (seed + 0x6d2b79f5) >>> 0
  let x = seed
  x = Math.imul(x ^ (x >>> 15), x | 1)
  x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296
}
const VOCAB: string[] = []
for (let i = 0; i < 30_000; i++) {
  let w = ''
  const len = 3 + Math.floor(rnd() * 8)
  for (let j = 0; j < len; j++) w += String.fromCharCode(97 + Math.floor(rnd() * 26))
  VOCAB.push(w)
}
const word = () => VOCAB[Math.min(VOCAB.length - 1, Math.floor(Math.exp(rnd() * Math.log(VOCAB.length))) - 1)]!
function text(bytes: number, plant: string[] = []): string {
  const out: string[] = []
  let n = 0
  while (n < bytes - 12) {
    const w = rnd() < 0.002 && plant.length > 0 ? plant[Math.floor(rnd() * plant.length)]! : word()
    out.push(w)
    n += w.length + 1
  }
  return out.join(' ')
}
const PLANTED = ['deployment', 'rollback', 'kubernetes', 'latency', 'invoice', 'migration']

async function fill(core: Core, teamId: string, roomId: string): Promise<void> {
  await core.rooms.create(teamId, { room_id: roomId, template: 'blank' }, 'bench')
  const c = { room: { teamId, roomId }, agent: 'filler' }
  const started = performance.now()
  const batch = async (n: number, one: (i: number) => Promise<unknown>) => {
    for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, j) => one(i + j)))
  }
  await batch(2000, (i) =>
    core.plan.addTask(c, { title: text(50, PLANTED).slice(0, 190), notes: text(600 + (i % 5) * 300, PLANTED) }),
  )
  await batch(1000, (i) =>
    core.context.write(c, {
      type: ['spec', 'brief', 'decision', 'runbook'][i % 4],
      key: `doc-${i}-${word()}`,
      body: text(64 * 1024 - 64, PLANTED),
    }),
  )
  await batch(10_000, () =>
    core.events.post(c, { type: 'message', text: text(120 + Math.floor(rnd() * 300), PLANTED) }),
  )
  console.log(
    `fill: 2000 tasks, 1000 context entries of 64 KiB, 10000 events in ${fmt((performance.now() - started) / 1000)} s`,
  )
}

interface Shape {
  name: string
  make: () => { query: string; kinds?: ('task' | 'context' | 'event')[] }
}
const SHAPES: Shape[] = [
  { name: 'one planted word', make: () => ({ query: PLANTED[Math.floor(rnd() * PLANTED.length)]! }) },
  { name: 'one common word', make: () => ({ query: VOCAB[Math.floor(rnd() * 20)]! }) },
  { name: 'two words', make: () => ({ query: `${PLANTED[Math.floor(rnd() * PLANTED.length)]!} ${word()}` }) },
  { name: 'prefix, 3 letters', make: () => ({ query: `rollback ${word().slice(0, 3)}` }) },
  { name: 'one word, tasks only', make: () => ({ query: word(), kinds: ['task'] }) },
]

function line(label: string, ms: number[]): void {
  const s = [...ms].sort((a, b) => a - b)
  console.log(`${label}: p50 ${fmt(percentile(s, 50), 2)} ms, p99 ${fmt(percentile(s, 99), 2)} ms (n=${s.length})`)
}

/** The longest command Redis ran since the last call (SLOWLOG, µs resolution), in ms. */
async function slowest(store: Store): Promise<string> {
  const log = (await store.client.call('SLOWLOG', 'GET', '100000')) as [number, number, number, string[]][]
  await store.client.call('SLOWLOG', 'RESET')
  const top = log.reduce<[number, number, number, string[]] | undefined>(
    (a, e) => (!a || e[2] > a[2] ? e : a),
    undefined,
  )
  if (process.env.BENCH_DEBUG)
    console.log(
      'slowest',
      top?.[2],
      top?.[3].slice(0, 2).join(' ').slice(0, 60),
      top?.[3].slice(25, 28).map((x) => String(x).slice(0, 40)),
    )
  return fmt((top?.[2] ?? 0) / 1000, 1)
}

async function inProcess(redisUrl: string, teamId: string, roomId: string, fieldBytes: number): Promise<void> {
  const settings: Settings = defaultSettings({ redisUrl, searchFieldBytes: fieldBytes, searchCacheMb: 4096 })
  const store = new Store(settings)
  const hub = new Hub(store)
  await hub.start()
  const engine = new RedisSearchEngine(store, hub, settings)
  await engine.start()
  const caller = { room: { teamId, roomId }, agent: 'reader' }
  await store.client.call('CONFIG', 'SET', 'slowlog-log-slower-than', '0')
  await store.client.call('CONFIG', 'SET', 'slowlog-max-len', '100000')
  await store.client.call('SLOWLOG', 'RESET')
  let t0 = performance.now()
  let records = 0
  let pages = 0
  await engine.reader.readAll(caller.room, (chunk) => {
    records += chunk.tasks.length + chunk.context.length + chunk.events.length
    pages++
  })
  console.log(
    `SEARCH_FIELD_BYTES=${fieldBytes}: the full read alone (${records} records, a listing and ${pages} ` +
      `reads) ${fmt(performance.now() - t0, 0)} ms; longest script call in Redis ${await slowest(store)} ms`,
  )
  global.gc?.()
  const heap0 = process.memoryUsage().heapUsed
  t0 = performance.now()
  await engine.search(caller, { query: 'deployment' })
  const first = performance.now() - t0
  global.gc?.()
  const heap = (process.memoryUsage().heapUsed - heap0) / 1048576
  const indexed = (engine.stats().textLength * 2) / 1048576
  console.log(
    `SEARCH_FIELD_BYTES=${fieldBytes}: first search (read + build) ${fmt(first, 0)} ms; indexed text ` +
      `${fmt(indexed)} MiB; heap +${global.gc ? fmt(heap) : 'n/a (run with --expose-gc)'} MiB; longest Redis ` +
      `call ${await slowest(store)} ms`,
  )
  const all: number[] = []
  for (const shape of SHAPES) {
    const ms: number[] = []
    for (let i = 0; i < QUERIES / SHAPES.length; i++) {
      const q = shape.make()
      t0 = performance.now()
      await engine.search(caller, { ...q, limit: 10 })
      ms.push(performance.now() - t0)
    }
    all.push(...ms)
    line(`SEARCH_FIELD_BYTES=${fieldBytes}: warm, ${shape.name}`, ms)
  }
  line(`SEARCH_FIELD_BYTES=${fieldBytes}: warm, all shapes`, all)
  console.log(`SEARCH_FIELD_BYTES=${fieldBytes}: warm: longest Redis call ${await slowest(store)} ms`)
  // Right after a write on another connection (another node): the search waits for the change's
  // notice if needed, fetches the changed record, then ranks.
  const writer = new Core(new Store(settings), settings)
  const loadsBefore = engine.stats().loads
  const afterWrite: number[] = []
  for (let i = 0; i < 100; i++) {
    if (i % 2 === 0)
      await writer.plan.updateTask(
        { room: caller.room, agent: 'w' },
        { task_id: `t${1 + (i % 2000)}`, notes: text(800, PLANTED) },
      )
    else await writer.events.post({ room: caller.room, agent: 'w' }, { type: 'message', text: text(200, PLANTED) })
    t0 = performance.now()
    await engine.search(caller, { query: 'latency invoice' })
    afterWrite.push(performance.now() - t0)
  }
  line(`SEARCH_FIELD_BYTES=${fieldBytes}: right after a write (task update or event)`, afterWrite)
  console.log(
    `SEARCH_FIELD_BYTES=${fieldBytes}: full reads of the room caused by those 100 writes: ` +
      `${engine.stats().loads - loadsBefore}; waits for a notice that ran out: ${engine.stats().lateNotices}`,
  )
  // A bulk edit: 200 context entries rewritten on another connection, then one search.
  const c = { room: caller.room, agent: 'w' }
  const entries = ((await writer.context.list(c)) as { entries: { type: string; key: string }[] }).entries.slice(0, 200)
  for (let i = 0; i < entries.length; i += 50) {
    await Promise.all(
      entries
        .slice(i, i + 50)
        .map((e) => writer.context.update(c, { type: e.type, key: e.key, body: text(64 * 1024 - 64, PLANTED) })),
    )
  }
  await slowest(store)
  const loadsBeforeBulk = engine.stats().loads
  t0 = performance.now()
  await engine.search(caller, { query: 'latency invoice' })
  console.log(
    `SEARCH_FIELD_BYTES=${fieldBytes}: first search after a bulk edit of 200 context entries (12.5 MiB) ` +
      `${fmt(performance.now() - t0, 0)} ms; longest Redis call ${await slowest(store)} ms; full reads: ` +
      `${engine.stats().loads - loadsBeforeBulk}`,
  )
  await writer.store.close()
  await engine.stop()
  await hub.stop()
  await store.close()
}

async function overHttp(port: number, key: string, roomId: string): Promise<void> {
  const get = async (q: string) => {
    const r = await fetch(`http://127.0.0.1:${port}/rooms/${roomId}/search?q=${encodeURIComponent(q)}`, {
      headers: { Authorization: `Bearer ${key}` },
    })
    if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${await r.text()}`)
    await r.json()
  }
  let t0 = performance.now()
  await get('deployment')
  console.log(`HTTP (node in a child process, default settings): first search ${fmt(performance.now() - t0, 0)} ms`)
  const ms: number[] = []
  for (let i = 0; i < QUERIES; i++) {
    const q = SHAPES[i % SHAPES.length]!.make().query
    t0 = performance.now()
    await get(q)
    ms.push(performance.now() - t0)
  }
  line('HTTP GET /rooms/:roomId/search, warm, all shapes', ms)
}

/** The machine's load average over the last minute (other work on it skews every figure). */
const load = () => fmt(loadavg()[0]!, 1)

/** What a semantic answer says: records in order, with their signal, similarity and score. */
const answerOf = (a: SearchAnswer) => JSON.stringify(a.results.map((h) => [h.ref, h.match, h.similarity, h.score]))

/** A node with semantic search on, embedding through `embedderUrl`; `overrides` on its settings. */
async function semanticEngine(redisUrl: string, embedderUrl: string, overrides: Partial<Settings> = {}) {
  const settings = defaultSettings({
    redisUrl,
    searchCacheMb: 4096,
    embedderUrl,
    embedderModel: TEST_MODEL,
    ...overrides,
  })
  const store = new Store(settings)
  const hub = new Hub(store)
  await hub.start()
  const engine = new RedisSearchEngine(store, hub, settings, {
    embedder: createEmbedder(settings)!,
    indexer: { sweepMs: 0 },
  })
  await engine.start()
  return {
    engine,
    settings,
    async stop() {
      await engine.stop()
      await hub.stop()
      await store.close()
    },
  }
}

/** Redis's main-thread CPU time so far (INFO cpu), in ms: the one thread all of a shard's nodes share. */
async function redisCpuMs(client: Redis): Promise<number> {
  const info = await client.info('cpu')
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1])
  return (field('used_cpu_user_main_thread') + field('used_cpu_sys_main_thread')) * 1000
}

/**
 * Semantic search on the room: the backlog drained (every record embedded, as when semantic search
 * is turned on under existing rooms), then lexical and semantic latency on the same queries,
 * paired, RUNS times. On vector sets (`compare`), a node ranking in process on the same Redis
 * answers the same queries in the same loop: both are timed against the same lexical searches,
 * their answers compared (both are exact: none should differ), and Redis's CPU per query read.
 */
async function semantic(
  redisUrl: string,
  teamId: string,
  roomId: string,
  label: string,
  compare: boolean,
): Promise<void> {
  const embedder = await startTestEmbedder({ dims: 384 })
  // on Redis 7: in process, none being there
  const node = await semanticEngine(redisUrl, embedder.url, { searchVectorSets: 'auto' })
  const { engine, settings } = node
  const caller = { room: { teamId, roomId }, agent: 'reader' }
  const client = new Redis(redisUrl)
  const cpuBefore = await redisCpuMs(client)
  let t0 = performance.now()
  await engine.vectorIndexer!.reconcile(caller.room, 3_600_000)
  const drain = (performance.now() - t0) / 1000
  const drainCpu = (await redisCpuMs(client)) - cpuBefore
  console.log(
    `${label}: embedding backlog of the room drained in ${fmt(drain)} s: ${embedder.stats.texts} records ` +
      `embedded in ${embedder.stats.requests} requests (SEARCH_VECTORS_PER_ROOM ` +
      `${settings.searchVectorsPerRoom} of 13000 records; local trigram embedding server, 384 dimensions); ` +
      `vectors in ${engine.status().vectors}; Redis main-thread CPU ${fmt(drainCpu / 1000)} s ` +
      `(${fmt(drainCpu / embedder.stats.texts, 3)} ms a vector); load ${load()}`,
  )
  await engine.search(caller, { query: 'deployment' }) // the room's lexical index, read once
  // 200 queries, each embedded once before timing: the query's own embedding call is excluded.
  const queries = Array.from({ length: 200 }, (_, i) => SHAPES[i % SHAPES.length]!.make())
  for (const q of queries) await engine.search(caller, { ...q, semantic: true })
  // On vector sets: a node ranking in process on the same Redis, its lexical index and the room's vectors read once.
  const exact = compare ? await semanticEngine(redisUrl, embedder.url, { searchVectorSets: 'off' }) : undefined
  if (exact) for (const q of queries) await exact.engine.search(caller, { ...q, semantic: true })
  const p99 = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      99,
    )
  const p50 = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    )
  const counts = engine.semantic!.counts
  for (let run = 1; run <= RUNS; run++) {
    const lex: number[] = []
    const sem: number[] = []
    const proc: number[] = []
    const loadBefore = load()
    const [sets, more] = [counts.sets, counts.more]
    const timed = async (out: number[], search: () => Promise<unknown>) => {
      t0 = performance.now()
      await search()
      out.push(performance.now() - t0)
    }
    for (let round = 0; round < Math.max(1, Math.round(QUERIES / queries.length)); round++) {
      for (const [i, q] of queries.entries()) {
        await timed(lex, () => engine.search(caller, { ...q, limit: 10 }))
        // The two semantic ways take turns going first.
        if (exact && i % 2) await timed(proc, () => exact.engine.search(caller, { ...q, limit: 10, semantic: true }))
        await timed(sem, () => engine.search(caller, { ...q, limit: 10, semantic: true }))
        if (exact && !(i % 2)) await timed(proc, () => exact.engine.search(caller, { ...q, limit: 10, semantic: true }))
      }
    }
    const at = RUNS > 1 ? `${label}, run ${run}` : label
    line(`${at}: lexical, the same queries (paired)`, lex)
    line(`${at}: semantic, query vector cached (embedding call excluded)`, sem)
    console.log(
      `${at}: semantic p99 / lexical p99 = ${fmt(p99(sem) / p99(lex), 2)} (goal: at most 2), p50 ratio ` +
        `${fmt(p50(sem) / p50(lex), 2)}; load ${loadBefore} -> ${load()}`,
    )
    if (exact) {
      line(`${at}: semantic ranked in process, the same queries on the same Redis (paired)`, proc)
      console.log(
        `${at}: in process: semantic p99 / lexical p99 = ${fmt(p99(proc) / p99(lex), 2)}, p50 ratio ` +
          `${fmt(p50(proc) / p50(lex), 2)}; on vector sets VSIM was asked again (answer not yet proven exact) ` +
          `for ${counts.more - more} of ${counts.sets - sets} lookups`,
      )
    }
  }
  const fresh: number[] = []
  for (let i = 0; i < 50; i++) {
    t0 = performance.now()
    await engine.search(caller, { query: `${word()} ${word()} fresh${i}`, limit: 10, semantic: true })
    fresh.push(performance.now() - t0)
  }
  line(`${label}: semantic, new queries (with their embedding call to the local server)`, fresh)
  if (exact) {
    let differ = 0
    for (const q of queries) {
      const input = { ...q, limit: 10, semantic: true }
      if (answerOf(await engine.search(caller, input)) !== answerOf(await exact.engine.search(caller, input))) differ++
    }
    console.log(
      `${label}: answers (top 10, with similarities and scores) that differ from ranking in process on the ` +
        `same Redis: ${differ} of ${queries.length}`,
    )
    // Redis's main-thread CPU per query, each kind alone over the 200 queries (the lexical half's
    // script call is in both semantic figures).
    const cpu = async (search: (q: (typeof queries)[number]) => Promise<unknown>) => {
      const before = await redisCpuMs(client)
      for (const q of queries) await search(q)
      return ((await redisCpuMs(client)) - before) / queries.length
    }
    const lexicalMs = await cpu((q) => engine.search(caller, { ...q, limit: 10 }))
    const setsMs = await cpu((q) => engine.search(caller, { ...q, limit: 10, semantic: true }))
    const processMs = await cpu((q) => exact.engine.search(caller, { ...q, limit: 10, semantic: true }))
    const rate = (ms: number) => fmt(1000 / ms, 0)
    console.log(
      `${label}: Redis main-thread CPU per query: lexical ${fmt(lexicalMs, 3)} ms, semantic on vector sets ` +
        `${fmt(setsMs, 3)} ms, semantic in process ${fmt(processMs, 3)} ms; one shard at 100% sustains ` +
        `~${rate(setsMs)} semantic queries/s on vector sets, ~${rate(processMs)} in process ` +
        `(${rate(lexicalMs)} lexical); load ${load()}`,
    )
    await exact.stop()
  }
  client.disconnect()
  await node.stop()
  await embedder.close()
}

const redis = await startRedis()
const redis8 = values.semantic === 'true' && values['vector-sets'] === 'true' ? redis8Server() : undefined
try {
  const redisUrl = `redis://127.0.0.1:${redis.port}`
  const settings = defaultSettings({ redisUrl })
  const store = new Store(settings)
  const { team, key } = await new Teams(store).create({ name: 'bench', teamId: 'bench' })
  const roomId = 'full-room'
  await fill(new Core(store, settings), team.teamId, roomId)
  if (values.lexical === 'true')
    for (const fb of values['field-bytes'].split(',').map(Number)) await inProcess(redisUrl, team.teamId, roomId, fb)
  if (values.semantic === 'true')
    await semantic(redisUrl, team.teamId, roomId, 'semantic, Redis 7, vectors in process', false)
  if (redis8) {
    const r8 = await startRedis([], undefined, false, redis8)
    try {
      const url8 = `redis://127.0.0.1:${r8.port}`
      const s8 = new Store(defaultSettings({ redisUrl: url8 }))
      const t8 = await new Teams(s8).create({ name: 'bench', teamId: 'bench' })
      await fill(new Core(s8, s8.settings), t8.team.teamId, roomId)
      await semantic(url8, t8.team.teamId, roomId, 'semantic, Redis 8, vector sets', true)
      await s8.close()
    } finally {
      await r8.stop()
    }
  } else if (values.semantic === 'true' && values['vector-sets'] === 'true') {
    console.log('semantic, Redis 8: not run (no Redis 8 server; bash scripts/redis8.sh builds one)')
  }
  if (values.http === 'true') {
    const node = await startChild('src/main.ts', {
      REDIS_URL: redisUrl,
      RATE_LIMIT_PER_MIN: '1000000',
      RATE_LIMIT_PER_CREDENTIAL_PER_MIN: '500000',
    })
    try {
      await overHttp(node.port, key!, roomId)
    } finally {
      await node.stop()
    }
  }
  await store.close()
} finally {
  await redis.stop()
}
