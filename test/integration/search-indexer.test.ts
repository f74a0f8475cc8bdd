// The Meilisearch indexer's position handling on real Redis, standalone and cluster, without
// Meilisearch: the indexer writes to a sink that keeps documents in memory the way the index does
// (one document per record id, upserts and deletes idempotent), and can be made to stall or fail
// like an unreachable or crashing Meilisearch. What is checked is what lives in Redis: marks,
// leases, manifests and positions, across a crash, a lost mark, and expired or re-created rooms.
// A node that stalls past its lease and then writes is checked with the Redis engine's own sink
// (vectors, with the test embedding server): what it wrote over the newer node's is written again.
import t from 'tap'
import type { Test } from 'tap'
import { randomBytes } from 'node:crypto'
import type { Settings } from '../../src/config.js'
import { Teams } from '../../src/auth/teams.js'
import { Core } from '../../src/core/index.js'
import { Indexer, type IndexerOptions } from '../../src/search/indexer.js'
import { createEmbedder } from '../../src/search/embed/index.js'
import { docId, toMeiliDoc, type IndexSink, type MeiliDoc } from '../../src/search/meili/sink.js'
import { SearchReader, type SourceDoc } from '../../src/search/records.js'
import { textHash } from '../../src/search/vectors/codec.js'
import { VectorSink, embedText, generationOf } from '../../src/search/vectors/sink.js'
import type { RoomRef } from '../../src/store/keys.js'
import type { Store } from '../../src/store/store.js'
import { VectorStore } from '../../src/store/vectors.js'
import { TEST_MODEL, startTestEmbedder } from '../helpers/embedder.js'
import { BACKENDS, storeFor, uid, type Backend } from '../helpers/shared.js'

/** Documents as the index holds them; `gate` makes apply() wait (a stalled or dying Meilisearch). */
class MemorySink implements IndexSink {
  readonly docs = new Map<string, MeiliDoc>()
  applies = 0
  gate: ((n: number) => Promise<void>) | undefined

  async apply(ref: RoomRef, docs: SourceDoc[], deleteKeys: string[]): Promise<void> {
    await this.gate?.(++this.applies)
    for (const d of docs) this.docs.set(docId(ref, d.key), toMeiliDoc(ref, d))
    for (const k of deleteKeys) this.docs.delete(docId(ref, k))
  }

  async dropRoom(ref: RoomRef): Promise<void> {
    for (const [id, d] of this.docs) if (d.team_id === ref.teamId && d.room_id === ref.roomId) this.docs.delete(id)
  }

  /** "<kind> <rid>" of the room's documents, sorted. */
  of(ref: RoomRef): string[] {
    return [...this.docs.values()]
      .filter((d) => d.team_id === ref.teamId && d.room_id === ref.roomId)
      .map((d) => `${d.kind} ${d.rid}`)
      .sort()
  }
}

interface World {
  store: Store<Settings>
  core: Core
  settings: Settings
  indexer(sink: IndexSink, opts?: IndexerOptions): Indexer
  /** An indexer on a connection of its own (another node), and that connection, to kill it. */
  node(sink: IndexSink, opts?: IndexerOptions): { ix: Indexer; store: Store<Settings> }
}

/** A key prefix of the test's own, so marks and leases of other tests never mix in. */
function world(t: Test, backend: Backend, overrides: Partial<Settings> = {}): World {
  const settings = { keyPrefix: `x${randomBytes(5).toString('hex')}`, ...overrides }
  const store = storeFor(backend, settings)
  t.teardown(() => store.close())
  const core = new Core(store, store.settings)
  const indexerOn = (on: Store<Settings>, sink: IndexSink, opts: IndexerOptions) => {
    const ix = new Indexer(on, sink, on.settings, { sweepMs: 0, retryMs: 100, ...opts })
    t.teardown(() => ix.stop())
    return ix
  }
  return {
    store,
    core,
    settings: store.settings,
    indexer: (sink, opts = {}) => indexerOn(store, sink, opts),
    node: (sink, opts = {}) => {
      const own = storeFor(backend, settings)
      t.teardown(() => own.close())
      return { ix: indexerOn(own, sink, opts), store: own }
    },
  }
}

async function roomIn(w: World, teamId = uid('tm'), roomId?: string) {
  const { room } = await w.core.rooms.create(teamId, { room_id: roomId, template: 'blank' }, 'test')
  const ref = { teamId, roomId: room.room_id }
  return { ref, as: (agent = 'a') => ({ room: ref, agent }) }
}

/** What the room holds, as "<kind> <id>", sorted: what the index must hold after a sync. */
async function truth(w: World, ref: RoomRef): Promise<string[]> {
  const c = { room: ref, agent: 'reader' }
  const plan = (await w.core.plan.readPlan(c, { limit: 2000 })) as { tasks: { id: string }[] }
  const ctx = (await w.core.context.list(c, { limit: 1000 })) as { entries: { type: string; key: string }[] }
  const evs = (await w.core.events.read(c, { limit: 100 })) as { events: { id: string }[] }
  return [
    ...plan.tasks.map((x) => `task ${x.id}`),
    ...ctx.entries.map((e) => `context ${e.type}/${e.key}`),
    ...evs.events.map((e) => `event ${e.id}`),
  ].sort()
}

const manifest = (w: World, ref: RoomRef) => w.store.client.hgetall(w.store.keys.searchManifest(ref))
const marked = (w: World, ref: RoomRef) =>
  w.store.client.zscore(w.store.keys.search().dirty, `${ref.teamId}/${ref.roomId}`)
const cseqOf = async (w: World, ref: RoomRef) => (await w.store.client.hget(w.store.keys.room(ref).meta, 'cseq')) ?? '0'

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('a sync writes the room and its position; a second one writes nothing', async (t) => {
      const w = world(t, backend)
      const sink = new MemorySink()
      const ix = w.indexer(sink)
      const r = await roomIn(w)
      await w.core.plan.addTask(r.as(), { title: 'one', notes: 'first notes' })
      await w.core.plan.addTask(r.as(), { title: 'two' })
      await w.core.context.write(r.as(), { type: 'spec', key: 'api', body: 'the body' })
      await w.core.events.post(r.as(), { type: 'message', text: 'hello' })
      const first = await ix.reconcile(r.ref)
      t.match(first, { upserted: 4, deleted: 0, fresh: true, dropped: false })
      t.same(sink.of(r.ref), await truth(w, r.ref))
      const m = await manifest(w, r.ref)
      t.equal(m.pos, await cseqOf(w, r.ref), "the position is the room's content seq")
      t.ok(m['t:t1'] && m['c:spec/api'] && m.elast, 'the manifest names what was written')
      t.equal(await marked(w, r.ref), null, 'the mark is cleared')
      t.match(await ix.reconcile(r.ref), { upserted: 0, deleted: 0, fresh: false })
      t.equal(sink.docs.get(docId(r.ref, 'task:t1'))?.body, 'first notes', 'notes are the body')
    })

    t.test('updates, deletions and trimmed events reach the index', async (t) => {
      const w = world(t, backend, { eventsRetained: 10 })
      const sink = new MemorySink()
      const ix = w.indexer(sink)
      const r = await roomIn(w)
      await w.core.plan.addTask(r.as(), { title: 'keep' })
      await w.core.plan.addTask(r.as(), { title: 'drop' })
      await w.core.context.write(r.as(), { type: 'spec', key: 'gone', body: 'x' })
      await w.core.context.write(r.as(), { type: 'spec', key: 'edited', body: 'old' })
      const first = (await w.core.events.post(r.as(), { type: 'message', text: 'first' })) as { event: { id: string } }
      const second = (await w.core.events.post(r.as(), { type: 'message', text: 'second' })) as {
        event: { id: string }
      }
      await ix.reconcile(r.ref)
      await w.core.plan.deleteTask(r.as(), { task_id: 't2' })
      await w.core.plan.updateTask(r.as(), { task_id: 't1', title: 'kept and renamed' })
      await w.core.context.delete(r.as(), { type: 'spec', key: 'gone' })
      await w.core.context.update(r.as(), { type: 'spec', key: 'edited', body: 'new' })
      await w.core.events.delete(r.as(), { event_id: second.event.id })
      for (let i = 0; i < 10; i++) await w.core.events.post(r.as(), { type: 'message', text: `more ${i}` })
      const res = await ix.reconcile(r.ref)
      t.same(sink.of(r.ref), await truth(w, r.ref), 'the index holds exactly the room')
      t.notOk(sink.of(r.ref).includes(`event ${first.event.id}`), 'the trimmed event is gone')
      t.equal(sink.docs.get(docId(r.ref, 'task:t1'))?.title, 'kept and renamed')
      t.equal(sink.docs.get(docId(r.ref, 'context:spec/edited'))?.body, 'new')
      t.ok(res.deleted >= 4)
      const m = await manifest(w, r.ref)
      t.notOk(m['t:t2'] || m['c:spec/gone'], 'the manifest forgot the deleted records')
    })

    t.test('a node that dies mid-sync: another resumes from the saved manifest once the lease runs out', async (t) => {
      const w = world(t, backend)
      const r = await roomIn(w)
      for (let i = 0; i < 60; i++) await w.core.plan.addTask(r.as(), { title: `task number ${i}` })
      const sink = new MemorySink()
      // Node A: its third batch never completes, and its connection dies (the process is gone:
      // nothing renews its lease, nothing acks).
      sink.gate = (n) => (n >= 3 ? new Promise(() => {}) : Promise.resolve())
      const nodeA = w.node(sink, { leaseMs: 400, pageSize: 10 })
      const a = nodeA.ix
      await a.mark(r.ref)
      void a.runOnce()
      const deadline = Date.now() + 5000
      while (sink.applies < 3 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20))
      nodeA.store.client.disconnect()
      const saved = Object.keys(await manifest(w, r.ref)).filter((f) => f.startsWith('t:')).length
      t.equal(saved, 20, 'two batches applied and saved before the crash')
      t.equal((await manifest(w, r.ref)).pos, undefined, 'no position yet')
      t.ok(await marked(w, r.ref), 'the room is still marked')
      // Node B, same Redis and index.
      sink.gate = undefined
      const b = w.indexer(sink, { leaseMs: 400, pageSize: 10 })
      t.equal(await b.runOnce(), 0, 'the room is leased by A: B does not take it yet')
      await new Promise((res) => setTimeout(res, 450))
      const before = sink.applies
      t.equal(await b.runOnce(), 1, 'after the lease ran out, B syncs it')
      t.same(sink.of(r.ref), await truth(w, r.ref))
      t.equal((await manifest(w, r.ref)).pos, await cseqOf(w, r.ref))
      t.equal(await marked(w, r.ref), null)
      t.ok(
        sink.applies - before <= 6,
        `B resumed: ${sink.applies - before} applies for the 40 tasks left (+ deletes), not 60 again`,
      )
    })

    t.test('a failing sink keeps the room marked, and it is retried after the back-off', async (t) => {
      const w = world(t, backend)
      const r = await roomIn(w)
      await w.core.plan.addTask(r.as(), { title: 'x' })
      const sink = new MemorySink()
      sink.gate = async () => {
        throw new Error('meilisearch is down')
      }
      const ix = w.indexer(sink, { retryMs: 200 })
      await ix.mark(r.ref)
      await ix.runOnce()
      t.ok(await marked(w, r.ref), 'still marked')
      sink.gate = undefined
      t.equal(await ix.runOnce(), 0, 'not retried within the back-off')
      await new Promise((res) => setTimeout(res, 250))
      t.equal(await ix.runOnce(), 1)
      t.same(sink.of(r.ref), ['task t1'])
    })

    t.test('a change marked while its room syncs is not lost when the sync acks', async (t) => {
      const w = world(t, backend)
      const r = await roomIn(w)
      await w.core.plan.addTask(r.as(), { title: 'first' })
      const sink = new MemorySink()
      let release!: () => void
      const held = new Promise<void>((res) => (release = res))
      sink.gate = (n) => (n === 1 ? held : Promise.resolve())
      const ix = w.indexer(sink)
      await ix.mark(r.ref)
      const run = ix.runOnce()
      while (sink.applies < 1) await new Promise((res) => setTimeout(res, 10))
      await w.core.plan.addTask(r.as(), { title: 'during the sync' })
      await ix.mark(r.ref)
      release()
      await run
      t.same(sink.of(r.ref), await truth(w, r.ref), 'the runner synced again: the second task is in')
      t.equal(await marked(w, r.ref), null)
    })

    t.test('writes through a node mark their room; other scripts do not', async (t) => {
      const w = world(t, backend)
      const ix = w.indexer(new MemorySink())
      w.store.onCommitted((c) => ix.onCommitted(c))
      const r = await roomIn(w)
      await new Promise((res) => setTimeout(res, 50))
      t.ok(await marked(w, r.ref), 'creating a room marks it (templates bring content)')
      await w.store.client.del(w.store.keys.search().dirty)
      await w.core.presence.heartbeat(r.as())
      await w.core.vars.set(r.as(), { name: 'flag', value: 'on' })
      await new Promise((res) => setImmediate(res))
      await new Promise((res) => setTimeout(res, 50))
      t.equal(await marked(w, r.ref), null, 'presence and vars change nothing search reads')
      await Promise.all([w.core.plan.addTask(r.as(), { title: 'a' }), w.core.plan.addTask(r.as(), { title: 'b' })])
      await new Promise((res) => setTimeout(res, 50))
      t.ok(Number(await marked(w, r.ref)) >= 1, 'a task write marks the room')
      // Deciding a review moves its task (in_review to done): the script's Effects say so.
      const { task } = await w.core.plan.addTask(r.as(), { title: 'to review' })
      await w.core.plan.updateTask(r.as('dev'), { task_id: task.id, status: 'in_review' })
      const { review } = await w.core.reviews.request(r.as('dev'), { target: { kind: 'task', task_id: task.id } })
      await new Promise((res) => setTimeout(res, 50))
      await w.store.client.del(w.store.keys.search().dirty)
      await w.core.reviews.approve(r.as('lead'), { review_id: review.id })
      await new Promise((res) => setTimeout(res, 50))
      t.ok(Number(await marked(w, r.ref)) >= 1, 'approving a review of a task marks the room')
    })

    t.test('a sync longer than its lease keeps the room: the lease is renewed, no other node claims it', async (t) => {
      const w = world(t, backend)
      const r = await roomIn(w)
      for (let i = 0; i < 30; i++) await w.core.plan.addTask(r.as(), { title: `task ${i}` })
      const sink = new MemorySink()
      // Each batch takes longer than the lease: without renewal the room would be free after the first.
      sink.gate = () => new Promise((res) => setTimeout(res, 700))
      const a = w.indexer(sink, { leaseMs: 500, pageSize: 10 })
      const b = w.indexer(sink, { leaseMs: 500, pageSize: 10 })
      await a.mark(r.ref)
      const run = a.runOnce()
      let claimedByB = 0
      while (sink.applies < 3) {
        claimedByB += await b.runOnce()
        await new Promise((res) => setTimeout(res, 100))
      }
      t.equal(claimedByB, 0, 'B never got the room while A synced it')
      t.equal(await run, 1)
      t.same(sink.of(r.ref), await truth(w, r.ref))
      t.equal(await marked(w, r.ref), null, "A's ack cleared the mark")
      t.equal(
        await w.store.client.zscore(w.store.keys.search().leases, `${r.ref.teamId}/${r.ref.roomId}`),
        null,
        'and its lease',
      )
    })

    t.test('a node whose lease ran out and went to another clears neither that lease nor the mark', async (t) => {
      const w = world(t, backend)
      const r = await roomIn(w)
      const room = `${r.ref.teamId}/${r.ref.roomId}`
      const k = w.store.keys.search()
      const tokens = w.store.keys.leaseTokens(k.leases)
      const set: [string, string, string] = [k.dirty, k.leases, tokens]
      const claim = async (leaseMs = 60_000) =>
        (await w.store.run('claimSearchRooms', set, [leaseMs, 8, room])).rooms[0]!
      const renew = async (token: number) =>
        (await w.store.run('renewLeases', [k.leases, tokens], [60_000, room, token])).ends[0]!
      const lease = async () => [
        Number(await w.store.client.zscore(k.leases, room)),
        await w.store.client.hget(tokens, room),
      ]
      await w.store.client.zincrby(k.dirty, 1, room)
      // A's lease really runs out (rewriting A's score to the past instead could give B the same
      // token within one ms).
      const a = await claim(300)
      t.equal(await claim(), undefined, 'held by A')
      await new Promise((r) => setTimeout(r, 350)) // A stalled past its lease
      const b = await claim()
      t.ok(b.token > a.token, 'B holds it under a later token')
      const bHeld = await lease()
      t.equal(await renew(a.token), 0, 'A cannot renew it')
      const ackA = await w.store.run('ackSearchRoom', set, [room, a.mark, 0, a.token])
      t.match(ackA, { held: false, cleared: false })
      t.same(await lease(), bHeld, "B's lease stays as it was")
      t.ok(await marked(w, r.ref), 'the mark stays for B')
      t.ok((await renew(b.token)) > 0, 'B renews it')
      t.match(
        await w.store.run('ackSearchRoom', set, [room, b.mark, 0, b.token]),
        { held: true, cleared: true },
        'B acks with the token it claimed with',
      )
      t.equal(await w.store.client.zscore(k.leases, room), null)
      t.equal(await w.store.client.hget(tokens, room), null, 'nothing of the lease is left')
    })

    t.test(
      "a node that stalled past its lease and then wrote: its documents are written again (the Redis engine's sink)",
      async (t) => {
        const w = world(t, backend)
        const e = await startTestEmbedder()
        t.teardown(() => e.close())
        const settings: Settings = {
          ...w.settings,
          embedderUrl: e.url,
          embedderModel: TEST_MODEL,
          embedderRetries: 0,
          embedderTimeoutMs: 2000,
        }
        const vectors = new VectorStore(w.store, settings.roomTtlMs)
        const sink = new VectorSink(vectors, createEmbedder(settings)!, {
          bound: 100,
          textChars: settings.embedderTextChars,
          batch: 16,
          mirror: () => false,
          generation: generationOf(TEST_MODEL, undefined),
        })
        const keys = {
          manifest: (ref: RoomRef) => w.store.keys.vectors(ref).manifest,
          shared: w.store.keys.vectorIndex(),
        }
        const r = await roomIn(w)
        const room = `${r.ref.teamId}/${r.ref.roomId}`
        await w.core.plan.addTask(r.as(), { title: 'deploy', notes: 'the first notes' })
        const held = async () => (await vectors.hashes(r.ref, ['task:t1']))[0]
        const hashOf = (notes: string) =>
          textHash(embedText({ kind: 'task', fields: { title: 'deploy', notes } }, settings.embedderTextChars))
        // Node A's first write stalls after its lease check, until released; then it writes.
        let stalled!: () => void
        const inStall = new Promise<void>((res) => (stalled = res))
        let release!: () => void
        const stall = new Promise<void>((res) => (release = res))
        let lateWrite: string | undefined
        const stalling: IndexSink = {
          generation: sink.generation,
          apply: async (ref, docs, deleteKeys, listing) => {
            const late = lateWrite === undefined
            if (late) {
              lateWrite = ''
              stalled()
              await stall
            }
            await sink.apply(ref, docs, deleteKeys, listing)
            if (late) lateWrite = await held()
          },
          dropRoom: (ref) => sink.dropRoom(ref),
        }
        const a = w.indexer(stalling, { keys, leaseMs: 300 })
        const b = w.indexer(sink, { keys })
        await a.mark(r.ref)
        const runA = a.runOnce()
        await inStall // A read the first notes and checked its lease
        await w.core.plan.updateTask(r.as(), { task_id: 't1', notes: 'the second notes' })
        // A's renewals stall with it: its lease runs out (its end passes).
        await w.store.client.zadd(keys.shared.leases, Date.now() - 1, room)
        await b.mark(r.ref)
        t.equal(await b.runOnce(), 1, 'B takes the room over and syncs it')
        t.equal(await held(), hashOf('the second notes'), 'the index holds the second notes')
        t.equal(await w.store.client.zscore(keys.shared.dirty, room), null, "B's ack cleared the mark")
        release()
        await runA
        t.equal(lateWrite, hashOf('the first notes'), "A, back late, wrote the first notes over B's")
        await b.runOnce()
        t.equal(await held(), hashOf('the second notes'), 'the next sync wrote the second notes again')
        const m = await w.store.client.hgetall(keys.manifest(r.ref))
        t.equal(m.pos, await cseqOf(w, r.ref), "the position is the room's")
        t.same(
          Object.keys(m).filter((f) => f.startsWith('r:')),
          [],
          'nothing is left to write again',
        )
        t.equal(await w.store.client.zscore(keys.shared.dirty, room), null, 'nor marked')
      },
    )

    t.test(
      'a node that stalled past its lease and then dropped a room to index it anew: the room is written again',
      async (t) => {
        const w = world(t, backend)
        const r = await roomIn(w)
        const room = `${r.ref.teamId}/${r.ref.roomId}`
        await w.core.plan.addTask(r.as(), { title: 'one' })
        await w.core.context.write(r.as(), { type: 'spec', key: 'api', body: 'the body' })
        const sink = new MemorySink()
        // A room never indexed starts from nothing: node A's drop of its documents stalls after its lease check.
        let stalled!: () => void
        const inStall = new Promise<void>((res) => (stalled = res))
        let release!: () => void
        const stall = new Promise<void>((res) => (release = res))
        let stalls = 1
        const stalling: IndexSink = {
          apply: (ref, docs, deleteKeys) => sink.apply(ref, docs, deleteKeys),
          dropRoom: async (ref) => {
            if (stalls-- > 0) {
              stalled()
              await stall
            }
            await sink.dropRoom(ref)
          },
        }
        const a = w.indexer(stalling, { leaseMs: 300 })
        const b = w.indexer(sink)
        await a.mark(r.ref)
        const runA = a.runOnce()
        await inStall
        await w.store.client.zadd(w.store.keys.search().leases, Date.now() - 1, room) // A's lease runs out
        await b.mark(r.ref)
        t.equal(await b.runOnce(), 1, 'B takes the room over and indexes it')
        t.same(sink.of(r.ref), await truth(w, r.ref))
        release()
        await runA
        await b.runOnce()
        t.same(sink.of(r.ref), await truth(w, r.ref), "A's late drop was written over again")
        t.equal((await manifest(w, r.ref)).pos, await cseqOf(w, r.ref))
        t.equal(await marked(w, r.ref), null)
      },
    )

    t.test('a committed listener that throws does not fail the write, nor stop other listeners', async (t) => {
      const w = world(t, backend)
      const r = await roomIn(w)
      let heard = 0
      w.store.onCommitted(() => {
        throw new Error('a faulty listener')
      })
      w.store.onCommitted(() => heard++)
      const added = (await w.core.plan.addTask(r.as(), { title: 'still written' })) as { task: { id: string } }
      t.equal(added.task.id, 't1')
      t.equal(heard, 1, 'the next listener heard it')
      t.same(await truth(w, r.ref), ['task t1'])
    })

    t.test('a room that is only read keeps its manifest: searches and the sweep refresh its TTL', async (t) => {
      const w = world(t, backend)
      const { team } = await new Teams(w.store).create({ name: 'ttl team', teamId: uid('tm') })
      const sink = new MemorySink()
      const ix = w.indexer(sink, { sweepMs: 1000 })
      const r = await roomIn(w, team.teamId)
      await w.core.plan.addTask(r.as(), { title: 'indexed' })
      await ix.reconcile(r.ref)
      const manifestKey = w.store.keys.searchManifest(r.ref)
      const roomTtl = await w.store.client.pttl(w.store.keys.room(r.ref).meta)
      // The manifest is about to expire, the room is not (as after weeks of reads without changes).
      await w.store.client.pexpire(manifestKey, 60_000)
      await w.store.client.del(w.store.keys.search().sweep)
      t.equal(await ix.sweep(), 0, 'the room is in step: nothing to mark')
      t.ok((await w.store.client.pttl(manifestKey)) > roomTtl - 60_000, "the sweep gave the manifest the room's TTL")
      await w.store.client.pexpire(manifestKey, 60_000)
      await new SearchReader(w.store, w.settings).pick(r.ref, { agent: 'reader' }, {})
      t.ok((await w.store.client.pttl(manifestKey)) > 60_000, 'a search (its script) refreshes it too')
      await w.store.client.del(w.store.keys.search().sweep)
      t.equal(await ix.sweep(), 0)
      t.same(sink.of(r.ref), ['task t1'], 'never dropped and indexed again')
    })

    t.test(
      'the sweep finds a room whose mark was lost, and deletes the documents of a room that expired',
      async (t) => {
        const w = world(t, backend)
        const { team } = await new Teams(w.store).create({ name: 'sweep team', teamId: uid('tm') })
        const sink = new MemorySink()
        const ix = w.indexer(sink, { sweepMs: 1000 })
        const r = await roomIn(w, team.teamId)
        await w.core.plan.addTask(r.as(), { title: 'written with no mark' })
        t.equal(await marked(w, r.ref), null, 'the core wrote without marking (as a node that died before marking)')
        t.ok((await ix.sweep()) >= 1, 'the sweep marks it: no position yet')
        await ix.runOnce()
        t.same(sink.of(r.ref), ['task t1'])
        await w.core.plan.addTask(r.as(), { title: 'second, mark lost again' })
        await w.store.client.del(w.store.keys.search().sweep)
        await ix.sweep()
        await ix.runOnce()
        t.same(sink.of(r.ref), ['task t1', 'task t2'], 'content seq ahead of the position: synced')
        // The room expires.
        await Promise.all(
          w.store.keys
            .room(r.ref)
            .list.slice(0, -1)
            .map((k) => w.store.client.del(k)),
        )
        await w.store.client.del(w.store.keys.search().sweep)
        await ix.sweep()
        await ix.runOnce()
        t.same(sink.of(r.ref), [], 'its documents are deleted')
        t.same(await manifest(w, r.ref), {}, 'and its manifest')
        t.equal(
          await w.store.client.zscore(w.store.keys.search().rooms, `${r.ref.teamId}/${r.ref.roomId}`),
          null,
          'and it is no longer listed as having documents',
        )
        await w.store.client.del(w.store.keys.search().sweep)
        t.equal(await ix.sweep(), 0, 'nothing left to do')
      },
    )

    t.test("a room created again under the same id: the old incarnation's documents go", async (t) => {
      const w = world(t, backend)
      const sink = new MemorySink()
      const ix = w.indexer(sink)
      const r = await roomIn(w)
      await w.core.plan.addTask(r.as(), { title: 'old' })
      await w.core.plan.addTask(r.as(), { title: 'old too' })
      await ix.reconcile(r.ref)
      await Promise.all(
        w.store.keys
          .room(r.ref)
          .list.slice(0, -1)
          .map((k) => w.store.client.del(k)),
      )
      await roomIn(w, r.ref.teamId, r.ref.roomId)
      await w.core.plan.addTask(r.as(), { title: 'new' })
      t.match(await ix.reconcile(r.ref), { fresh: true, upserted: 1 })
      t.same(sink.of(r.ref), ['task t1'])
      t.equal(sink.docs.get(docId(r.ref, 'task:t1'))?.title, 'new')
    })
  })
}
