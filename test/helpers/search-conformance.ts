// The conformance suite of the search engine interface (src/search/engine.ts): the same cases run
// on every engine (test/integration/search-redis.test.ts, search-meili.test.ts). A harness gives
// the engine, makes rooms on the engine's Redis, and settles (waits until the engine has seen the
// writes made so far: nothing for the Redis engine, which reads its writes; an indexer sync for
// Meilisearch).
import type { Test } from 'tap'
import { AppError } from '../../src/shared/errors.js'
import type { SearchAnswer, SearchEngine } from '../../src/search/engine.js'
import type { RoomRef } from '../../src/store/keys.js'
import type { TestRoom } from './core.js'

export interface SearchHarness {
  engine: SearchEngine
  /** A new room; in the given team when teamId is set, with the given id when roomId is set. */
  newRoom(t: Test, opts?: { teamId?: string; roomId?: string }): Promise<TestRoom>
  /** Waits until the engine has seen the writes made so far, their embeddings included. */
  settle(ref: RoomRef): Promise<void>
  /**
   * The embedding server of a semantic engine (test/helpers/embedder.ts or one like it): the
   * semantic cases run when it is given.
   */
  embedder?: { down(): Promise<void>; up(): Promise<void> }
}

const refOf = (r: TestRoom): RoomRef => ({ teamId: r.teamId, roomId: r.roomId })

/** The fixed corpus: every ranking case below is decided by it. */
async function fill(r: TestRoom) {
  const a = r.as('agent-a')
  const ids: Record<string, string> = {}
  const add = async (name: string, title: string, notes: string) => {
    const res = (await r.core.plan.addTask(a, { title, notes })) as { task: { id: string } }
    ids[name] = res.task.id
  }
  await add('title', 'Rollout plan for billing', 'Steps and owners.')
  await add('notes', 'Clean up logs', 'Before the rollout, rotate the logs.')
  await add('prefix', 'Write docs', 'Document rollouts for the new region.')
  await add('accents', 'Crème brûlée party', 'Order dessert for the team.')
  await r.core.context.write(a, { type: 'spec', key: 'rollout', body: 'How we ship: canary first, then everyone.' })
  await r.core.context.write(a, { type: 'brief', key: 'product', body: 'The product brief mentions the rollout once.' })
  const e1 = (await r.core.events.post(a, {
    type: 'message',
    text: 'Rollout starts at noon, watch the dashboards',
  })) as { event: { id: string } }
  await r.core.events.post(a, { type: 'status', text: 'Unrelated chatter about lunch' })
  ids.event = e1.event.id
  return ids
}

async function searchOf(
  h: SearchHarness,
  r: TestRoom,
  input: Record<string, unknown>,
  agent = 'agent-b',
): Promise<SearchAnswer> {
  return h.engine.search(r.as(agent), input)
}

const refs = (a: SearchAnswer) => a.results.map((x) => x.ref)

async function failsWith(
  t: Test,
  p: Promise<unknown>,
  code: string,
  field: string,
  what: string,
): Promise<AppError | undefined> {
  try {
    await p
    t.fail(`${what}: expected ${code}`)
    return undefined
  } catch (err) {
    t.ok(err instanceof AppError, `${what}: an AppError`)
    const e = err as AppError
    t.equal(e.code, code, `${what}: ${code}`)
    t.equal(e.details?.field, field, `${what}: names ${field}`)
    return e
  }
}

export function searchConformance(t: Test, name: string, harness: () => Promise<SearchHarness>): void {
  t.test(`${name}: conformance`, async (t) => {
    const h = await harness()

    t.test('ranking on a fixed corpus: title over notes, exact over prefix, key over body', async (t) => {
      const r = await h.newRoom(t)
      const ids = await fill(r)
      await h.settle(refOf(r))
      const tasks = await searchOf(h, r, { query: 'rollout', kinds: ['task'] })
      t.same(
        refs(tasks),
        [`task ${ids.title}`, `task ${ids.notes}`, `task ${ids.prefix}`],
        'title match, then exact notes match, then prefix notes match',
      )
      const ctx = await searchOf(h, r, { query: 'rollout', kinds: ['context'] })
      t.same(refs(ctx), ['context spec/rollout', 'context brief/product'], 'key match above body match')
      const all = await searchOf(h, r, { query: 'rollout' })
      t.equal(all.results.length, 6, 'three tasks, two context entries, one event')
      t.equal(all.engine, h.engine.name)
      t.equal(all.semantic, false)
      for (let i = 1; i < all.results.length; i++)
        t.ok(all.results[i - 1]!.score >= all.results[i]!.score, 'best first')
    })

    t.test('exact above prefix: completions of the last word do not add up past an exact match', async (t) => {
      const r = await h.newRoom(t)
      const a = r.as('agent-a')
      const add = async (title: string, notes: string) =>
        ((await r.core.plan.addTask(a, { title, notes })) as { task: { id: string } }).task.id
      const many = await add('Release notes', 'deployment deployments deployed')
      const exact = await add('Friday', 'we deploy')
      await add('Unrelated', 'nothing to see here')
      await h.settle(refOf(r))
      t.same(refs(await searchOf(h, r, { query: 'deploy', kinds: ['task'] })), [`task ${exact}`, `task ${many}`])
    })

    t.test('kinds filter and limit', async (t) => {
      const r = await h.newRoom(t)
      const ids = await fill(r)
      await h.settle(refOf(r))
      t.same(refs(await searchOf(h, r, { query: 'rollout', kinds: ['event'] })), [`event ${ids.event}`])
      const two = await searchOf(h, r, { query: 'rollout', kinds: ['task', 'context'], limit: 2 })
      t.equal(two.results.length, 2)
      t.ok(two.results.every((x) => x.kind === 'task' || x.kind === 'context'))
    })

    t.test('results name the record, with a highlighted snippet from the field that matched', async (t) => {
      const r = await h.newRoom(t)
      const ids = await fill(r)
      await h.settle(refOf(r))
      const a = await searchOf(h, r, { query: 'rollout' })
      const task = a.results.find((x) => x.id === ids.notes)!
      t.match(task, { ref: `task ${ids.notes}`, kind: 'task', title: 'Clean up logs', status: 'todo', field: 'notes' })
      t.match(task.snippet, /\*\*rollout\*\*/i)
      t.match(task.at, /^\d{4}-\d\d-\d\dT/)
      const entry = a.results.find((x) => x.id === 'brief/product')!
      t.match(entry, {
        ref: 'context brief/product',
        kind: 'context',
        type: 'brief',
        key: 'product',
        version: 1,
        field: 'body',
      })
      t.match(entry.snippet, /mentions the \*\*rollout\*\* once/)
      const ev = a.results.find((x) => x.kind === 'event')!
      t.match(ev, { ref: `event ${ids.event}`, id: ids.event, type: 'message', agent_id: 'agent-a', field: 'text' })
      t.match(ev.snippet, /\*\*Rollout\*\* starts at noon/)
      t.type(a.unread, 'number', "the caller's unread count, as on every room tool result")
    })

    t.test('case and accent folding, and the last word as a prefix', async (t) => {
      const r = await h.newRoom(t)
      const ids = await fill(r)
      await h.settle(refOf(r))
      t.same(refs(await searchOf(h, r, { query: 'CREME brulee', kinds: ['task'] })), [`task ${ids.accents}`])
      t.same(refs(await searchOf(h, r, { query: 'plan billi', kinds: ['task'] })), [`task ${ids.title}`])
      const snip = (await searchOf(h, r, { query: 'creme', kinds: ['task'] })).results[0]!.snippet
      t.match(snip, /\*\*Crème\*\*/, 'the snippet shows the text as written')
    })

    t.test('changes are found at once: updated and deleted records', async (t) => {
      const r = await h.newRoom(t)
      const ids = await fill(r)
      await h.settle(refOf(r))
      const a = r.as('agent-a')
      await r.core.plan.deleteTask(a, { task_id: ids.notes })
      await r.core.plan.updateTask(a, { task_id: ids.prefix, notes: 'Now about kubernetes upgrades.' })
      await r.core.context.update(a, { type: 'brief', key: 'product', body: 'Rewritten: nothing about shipping.' })
      await r.core.context.delete(a, { type: 'spec', key: 'rollout' })
      await r.core.events.delete(a, { event_id: ids.event })
      await h.settle(refOf(r))
      t.same(
        refs(await searchOf(h, r, { query: 'rollout' })),
        [`task ${ids.title}`],
        'a deleted task, a rewritten task, a rewritten and a deleted entry, a deleted event: no longer found',
      )
      t.same(refs(await searchOf(h, r, { query: 'kubernetes' })), [`task ${ids.prefix}`], 'the new notes are found')
      t.same(refs(await searchOf(h, r, { query: 'rewritten' })), ['context brief/product'])
    })

    t.test('a review that moves its task: results show the status it moved to', async (t) => {
      const r = await h.newRoom(t)
      const { task } = (await r.core.plan.addTask(r.as('lead'), { title: 'Migrate the ledger' })) as {
        task: { id: string }
      }
      await r.core.plan.updateTask(r.as('dev'), { task_id: task.id, status: 'in_review' })
      const { review } = (await r.core.reviews.request(r.as('dev'), {
        target: { kind: 'task', task_id: task.id },
      })) as { review: { id: string } }
      await h.settle(refOf(r))
      t.match((await searchOf(h, r, { query: 'ledger' })).results, [{ ref: `task ${task.id}`, status: 'in_review' }])
      await r.core.reviews.approve(r.as('lead'), { review_id: review.id })
      await h.settle(refOf(r))
      t.match((await searchOf(h, r, { query: 'ledger' })).results, [{ ref: `task ${task.id}`, status: 'done' }])
    })

    t.test('room isolation: never a result from another room or team', async (t) => {
      const r = await h.newRoom(t)
      await fill(r)
      const sameTeam = await h.newRoom(t, { teamId: r.teamId })
      await fill(sameTeam)
      const otherTeam = await h.newRoom(t, { roomId: r.roomId })
      await fill(otherTeam)
      await otherTeam.core.plan.addTask(otherTeam.as('x'), { title: 'Rollout of the other team only' })
      for (const room of [r, sameTeam, otherTeam]) await h.settle(refOf(room))
      const mine = await searchOf(h, r, { query: 'rollout', limit: 50 })
      t.equal(mine.results.length, 6, "exactly this room's records")
      const other = await searchOf(h, otherTeam, { query: 'rollout', limit: 50 })
      t.equal(other.results.length, 7, "the other team's room of the same id has its own records")
      t.notOk(mine.results.some((x) => x.title === 'Rollout of the other team only'))
    })

    t.test('semantic without an embedder, bad input and a missing room', async (t) => {
      const r = await h.newRoom(t)
      if (!h.engine.semanticEnabled) {
        const e = await failsWith(
          t,
          searchOf(h, r, { query: 'rollout', semantic: true }),
          'semantic_search_disabled',
          'semantic',
          'semantic: true',
        )
        const settings = (e?.details?.settings ?? []) as string[]
        t.ok(settings.length > 0, 'the settings that enable it are named')
        for (const name of settings) t.match(e?.message, name, `the message names ${name}`)
        t.ok((await searchOf(h, r, { query: 'rollout' })).results, 'lexical search keeps working')
      }
      await failsWith(t, searchOf(h, r, { query: '' }), 'invalid_request', 'query', 'an empty query')
      await failsWith(t, searchOf(h, r, { query: '?!' }), 'invalid_request', 'query', 'a query without a word')
      await failsWith(t, searchOf(h, r, { query: 'x', limit: 51 }), 'invalid_request', 'limit', 'limit over 50')
      await failsWith(
        t,
        searchOf(h, r, { query: 'x', kinds: ['tasks'] }),
        'invalid_request',
        'kinds[0]',
        'an unknown kind',
      )
      // The engine raises the room model's domain error; each transport words it (room_id on MCP).
      await t.rejects(
        h.engine.search({ room: { teamId: r.teamId, roomId: 'no-such-room' } }, { query: 'x' }),
        { name: 'RoomNotFound', code: 'not_found', roomId: 'no-such-room' },
        'a room that does not exist: RoomNotFound',
      )
    })

    if (h.embedder) semanticConformance(t, h, h.embedder)
  })
}

/** Records whose meaning, not wording, a query finds (the embedders' paraphrase cases). */
async function fillMeaning(r: TestRoom) {
  const a = r.as('agent-a')
  const id = async (title: string, notes = '') =>
    ((await r.core.plan.addTask(a, { title, notes })) as { task: { id: string } }).task.id
  return {
    migrate: await id('Migrate the billing database to Postgres', 'Move every table and check the row counts.'),
    reset: await id('Fix ERR_CONN_RESET in the payment client', 'Seen when the gateway drops idle sockets.'),
    resets: await id(
      'Connection resets from the payment gateway',
      'The client sees the connection reset errors after idle periods.',
    ),
    lunch: await id('Order lunch for the offsite', 'Sandwiches for twelve.'),
    docs: await id('Write onboarding docs', 'Explain how a new engineer sets up the laptop.'),
  }
}

function semanticConformance(t: Test, h: SearchHarness, embedder: NonNullable<SearchHarness['embedder']>): void {
  t.test('semantic: a paraphrase finds what the words miss, and says which signal matched', async (t) => {
    const r = await h.newRoom(t)
    const ids = await fillMeaning(r)
    await h.settle(refOf(r))
    const query = 'migrating postgresql'
    t.same(refs(await searchOf(h, r, { query, kinds: ['task'] })), [], 'lexically: no word of the query is in any task')
    const a = await searchOf(h, r, { query, kinds: ['task'], semantic: true })
    t.equal(a.semantic, true)
    t.equal(a.results[0]?.ref, `task ${ids.migrate}`, 'semantically: the migration task first')
    t.equal(a.results[0]?.match, 'semantic', 'found by its meaning only')
    t.ok(
      a.results.every((x) => x.match !== undefined),
      'every result says which signal matched',
    )
    const both = await searchOf(h, r, { query: 'billing migration', kinds: ['task'], semantic: true })
    t.equal(both.results[0]?.ref, `task ${ids.migrate}`)
    t.equal(both.results[0]?.match, 'both', 'a word and the meaning: both')
  })

  t.test('semantic: an identifier ranks its exact match first, in both modes', async (t) => {
    const r = await h.newRoom(t)
    const ids = await fillMeaning(r)
    await h.settle(refOf(r))
    for (const semantic of [false, true]) {
      const a = await searchOf(h, r, { query: 'ERR_CONN_RESET', semantic })
      t.equal(a.results[0]?.ref, `task ${ids.reset}`, `semantic: ${semantic}: the task that names it first`)
    }
    const related = await searchOf(h, r, { query: 'ERR_CONN_RESET', semantic: true })
    t.ok(refs(related).includes(`task ${ids.resets}`), 'the related task follows, by meaning')
  })

  t.test('semantic: an update is found by its new meaning once embedded again, not by its old one', async (t) => {
    const r = await h.newRoom(t)
    const ids = await fillMeaning(r)
    await h.settle(refOf(r))
    await r.core.plan.updateTask(r.as('agent-a'), {
      task_id: ids.lunch,
      title: 'Rotate the kubernetes certificates',
      notes: 'Before they expire.',
    })
    await h.settle(refOf(r))
    const a = await searchOf(h, r, { query: 'rotating certificate', kinds: ['task'], semantic: true })
    t.equal(a.results[0]?.ref, `task ${ids.lunch}`, 'found by the new text')
    const old = await searchOf(h, r, { query: 'ordering sandwich lunches', kinds: ['task'], semantic: true })
    t.not(old.results[0]?.ref, `task ${ids.lunch}`, 'the old text no longer leads to it')
  })

  t.test('semantic: a deleted record never returns', async (t) => {
    const r = await h.newRoom(t)
    const ids = await fillMeaning(r)
    await h.settle(refOf(r))
    const a = r.as('agent-a')
    await r.core.plan.deleteTask(a, { task_id: ids.migrate })
    // Asked at once, before the vector indexer removed its vector, and again after.
    for (const when of ['at once', 'settled']) {
      if (when === 'settled') await h.settle(refOf(r))
      const res = await searchOf(h, r, { query: 'migrating postgresql', semantic: true, limit: 50 })
      t.notOk(refs(res).includes(`task ${ids.migrate}`), `${when}: not in the answer`)
    }
  })

  t.test('semantic: with the embedder down, lexical search works and semantic search is unavailable', async (t) => {
    const r = await h.newRoom(t)
    const ids = await fillMeaning(r)
    await h.settle(refOf(r))
    await embedder.down()
    t.teardown(() => embedder.up())
    await r.core.plan.addTask(r.as('agent-a'), { title: 'Written while the embedder is down' })
    t.same(
      refs(await searchOf(h, r, { query: 'billing', kinds: ['task'] })),
      [`task ${ids.migrate}`],
      'lexical search answers',
    )
    t.ok(
      refs(await searchOf(h, r, { query: 'embedder down', kinds: ['task'] })).length === 1,
      'and sees the write made meanwhile',
    )
    const e = await failsWith(
      t,
      searchOf(h, r, { query: 'a query never asked before', semantic: true }),
      'unavailable',
      'semantic',
      'semantic search, embedder down',
    )
    t.match(e?.message, /without semantic: true/, 'the message says what still works')
    await embedder.up()
    const back = await searchOf(h, r, { query: 'a query never asked before', semantic: true })
    t.equal(back.semantic, true, 'semantic search answers again once the embedder is back')
  })
}
