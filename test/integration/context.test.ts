// Context on real Redis, standalone and cluster: versions, history depth, patches, concurrency
// checks, limits, listing, deletion, diffs, idempotency and multi-byte text.
import t from 'tap'
import { listen, newRoom, type TestRoom } from '../helpers/core.js'
import { eventually } from '../helpers/realtime.js'
import { BACKENDS } from '../helpers/shared.js'

/** The raw hashes under the store, to check what a call kept or left behind. */
function rawKeys(room: TestRoom) {
  const keys = room.core.store.keys.room({ teamId: room.teamId, roomId: room.roomId })
  const client = room.core.store.client
  return {
    versionFields: async () => (await client.hkeys(keys.ctxv)).sort(),
    entryCount: () => client.hlen(keys.ctx),
    channel: keys.channel,
  }
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('write creates, replaces with a new version, and ignores an identical body', async (t) => {
      const room = await newRoom(t, backend)
      const ctx = room.core.context
      const w1 = await ctx.write(room.as('alice'), { type: 'spec', key: 'api', body: 'GET /a\n' })
      t.match(w1, {
        changed: true,
        created: true,
        entry: { type: 'spec', key: 'api', version: 1, size: 7, created_by: 'alice', updated_by: 'alice' },
      })
      t.match(w1.entry.created_at, /^\d{4}-\d\d-\d\dT/)
      t.equal(typeof w1.unread, 'number')
      t.notOk('hist' in w1.entry, 'results carry no history')
      const w2 = await ctx.write(room.as('bob'), { type: 'spec', key: 'api', body: 'GET /a\nGET /b\n' })
      t.match(w2, {
        changed: true,
        created: false,
        entry: { version: 2, size: 14, created_by: 'alice', updated_by: 'bob' },
      })
      t.equal(w2.entry.created_at, w1.entry.created_at)
      const same = await ctx.write(room.as('carol'), { type: 'spec', key: 'api', body: 'GET /a\nGET /b\n' })
      t.match(same, { changed: false, created: false, entry: { version: 2, updated_by: 'bob' } })
      const r = await ctx.read(room.as('alice'), { type: 'spec', key: 'api' })
      t.equal(r.body, 'GET /a\nGET /b\n')
      t.equal(r.current_version, 2)
      t.same(r.entry, w2.entry)
      const old = await ctx.read(room.as('alice'), { type: 'spec', key: 'api', version: 1 })
      t.match(old, { body: 'GET /a\n', current_version: 2, entry: { version: 1, size: 7, updated_by: 'alice' } })
      t.same(await rawKeys(room).versionFields(), ['spec/api#1', 'spec/api#2'])
      await t.rejects(ctx.read(room.as('a'), { type: 'spec', key: 'nope' }), {
        code: 'not_found',
        details: { field: 'key' },
        message: /spec\/nope/,
      })
      await t.rejects(ctx.read(room.as('a'), { type: 'spec', key: 'api', version: 3 }), {
        code: 'not_found',
        details: { field: 'version', kept: [1, 2] },
      })
    })

    t.test('history keeps the last contextHistory versions, in ctxv and in hist', async (t) => {
      const room = await newRoom(t, backend, { settings: { contextHistory: 3 } })
      const ctx = room.core.context
      for (let i = 1; i <= 5; i++)
        await ctx.write(room.as(`agent${i}`), { type: 'handoff', key: 'h', body: `body ${i}` })
      const h = await ctx.history(room.as('x'), { type: 'handoff', key: 'h' })
      t.same(
        h.versions.map((v) => [v.version, v.updated_by, v.size]),
        [
          [5, 'agent5', 6],
          [4, 'agent4', 6],
          [3, 'agent3', 6],
        ],
      )
      t.match(h.versions[0]!.updated_at, /^\d{4}-/)
      t.match(h.entry, { version: 5, created_by: 'agent1', updated_by: 'agent5' })
      t.same(
        await rawKeys(room).versionFields(),
        ['handoff/h#3', 'handoff/h#4', 'handoff/h#5'],
        'trimmed bodies are deleted',
      )
      const kept = await ctx.read(room.as('x'), { type: 'handoff', key: 'h', version: 3 })
      t.match(kept, { body: 'body 3', entry: { version: 3, updated_by: 'agent3' } })
      await t.rejects(ctx.read(room.as('x'), { type: 'handoff', key: 'h', version: 2 }), {
        code: 'not_found',
        message: /no version 2 kept; kept versions are 3 to 5/,
        details: { field: 'version', version: 2, kept: [3, 4, 5] },
      })
      await t.rejects(ctx.history(room.as('x'), { type: 'handoff', key: 'zz' }), { code: 'not_found' })
    })

    t.test('update: append, edits, body', async (t) => {
      const room = await newRoom(t, backend)
      const ctx = room.core.context
      const as = room.as('alice')
      await ctx.write(as, { type: 'runbook', key: 'deploy', body: '1. build\n' })
      const a = await ctx.update(as, { type: 'runbook', key: 'deploy', append: '2. test\n' })
      t.match(a, { changed: true, entry: { version: 2, size: 17 } })
      const e = await ctx.update(room.as('bob'), {
        type: 'runbook',
        key: 'deploy',
        edits: [
          { old: '1. build', new: '1. build the image' },
          { old: 'build the image\n2.', new: 'build the image\n2. lint\n3.' },
        ],
      })
      t.match(e, { changed: true, entry: { version: 3, updated_by: 'bob' } })
      t.equal(
        (await ctx.read(as, { type: 'runbook', key: 'deploy' })).body,
        '1. build the image\n2. lint\n3. test\n',
        'each edit sees the text after the previous ones',
      )
      const b = await ctx.update(as, { type: 'runbook', key: 'deploy', body: 'rewritten' })
      t.match(b, { changed: true, entry: { version: 4, size: 9 } })
      const noop = await ctx.update(as, {
        type: 'runbook',
        key: 'deploy',
        edits: [{ old: 'rewritten', new: 'rewritten' }],
      })
      t.match(noop, { changed: false, entry: { version: 4 } })
      t.same(
        (await ctx.history(as, { type: 'runbook', key: 'deploy' })).versions.map((v) => v.version),
        [4, 3, 2, 1],
      )
      await t.rejects(ctx.update(as, { type: 'runbook', key: 'missing', append: 'x' }), {
        code: 'not_found',
        details: { field: 'key' },
      })
    })

    t.test('update: an edit whose text is missing or ambiguous is refused and changes nothing', async (t) => {
      const room = await newRoom(t, backend)
      const ctx = room.core.context
      const as = room.as('alice')
      await ctx.write(as, { type: 'spec', key: 's', body: 'alpha beta alpha aaa' })
      await t.rejects(
        ctx.update(as, {
          type: 'spec',
          key: 's',
          edits: [
            { old: 'beta', new: 'B' },
            { old: 'alpha', new: 'A' },
          ],
        }),
        {
          code: 'invalid_request',
          message: /^edits\[1\]\.old: the text occurs 2 times/,
          details: { field: 'edits[1].old', count: 2 },
        },
      )
      await t.rejects(ctx.update(as, { type: 'spec', key: 's', edits: [{ old: 'gamma', new: 'G' }] }), {
        code: 'invalid_request',
        message: /^edits\[0\]\.old: the text was not found/,
        details: { field: 'edits[0].old', count: 0 },
      })
      await t.rejects(
        ctx.update(as, { type: 'spec', key: 's', edits: [{ old: 'aa', new: 'b' }] }),
        { code: 'invalid_request', details: { count: 2 } },
        'overlapping matches count',
      )
      await t.rejects(
        ctx.update(as, {
          type: 'spec',
          key: 's',
          edits: [
            { old: 'beta', new: 'alpha' },
            { old: 'beta', new: 'x' },
          ],
        }),
        {
          code: 'invalid_request',
          details: { field: 'edits[1].old', count: 0 },
        },
      )
      const r = await ctx.read(as, { type: 'spec', key: 's' })
      t.match(r, { body: 'alpha beta alpha aaa', entry: { version: 1 } }, 'no edit of a refused batch was applied')
      await t.rejects(ctx.update(as, { type: 'spec', key: 's', edits: [{ old: '', new: 'x' }] }), {
        code: 'invalid_request',
        details: { field: 'edits[0].old' },
      })
      await t.rejects(ctx.update(as, { type: 'spec', key: 's', edits: [] }), {
        code: 'invalid_request',
        details: { field: 'edits' },
      })
      await t.rejects(ctx.update(as, { type: 'spec', key: 's' }), {
        code: 'invalid_request',
        message: /exactly one.*got none/,
      })
      await t.rejects(ctx.update(as, { type: 'spec', key: 's', append: 'x', body: 'y' }), {
        code: 'invalid_request',
        message: /got append and body/,
      })
    })

    t.test('expected_version: conflicts on write and update change nothing', async (t) => {
      const room = await newRoom(t, backend)
      const ctx = room.core.context
      const as = room.as('alice')
      await t.rejects(ctx.write(as, { type: 'decision', key: 'd', body: 'x', expected_version: 2 }), {
        code: 'conflict',
        details: { field: 'expected_version', expected_version: 2, version: 0 },
      })
      t.equal(await rawKeys(room).entryCount(), 0)
      const w = await ctx.write(as, { type: 'decision', key: 'd', body: 'first', expected_version: 0 })
      t.equal(w.entry.version, 1)
      await t.rejects(ctx.write(room.as('bob'), { type: 'decision', key: 'd', body: 'mine', expected_version: 0 }), {
        code: 'conflict',
        message: /must not exist/,
        details: { expected_version: 0, version: 1 },
      })
      const w2 = await ctx.write(as, { type: 'decision', key: 'd', body: 'second', expected_version: 1 })
      t.equal(w2.entry.version, 2)
      await t.rejects(ctx.write(as, { type: 'decision', key: 'd', body: 'stale', expected_version: 1 }), {
        code: 'conflict',
        details: { expected_version: 1, version: 2 },
      })
      await t.rejects(ctx.update(as, { type: 'decision', key: 'd', append: '!', expected_version: 1 }), {
        code: 'conflict',
        details: { expected_version: 1, version: 2 },
      })
      t.match(await ctx.read(as, { type: 'decision', key: 'd' }), { body: 'second', entry: { version: 2 } })
      const u = await ctx.update(as, { type: 'decision', key: 'd', append: '!', expected_version: 2 })
      t.equal(u.entry.version, 3)
    })

    t.test('limits name the field and the limit and change nothing', async (t) => {
      const room = await newRoom(t, backend, { settings: { contextPerRoom: 2, contextBodyBytes: 10 } })
      const ctx = room.core.context
      const as = room.as('alice')
      await t.rejects(ctx.write(as, { type: 'spec', key: 'a', body: 'é'.repeat(6) }), {
        code: 'too_large',
        details: { field: 'body', limit: 10, size: 12 },
        message: /^body/,
      })
      await ctx.write(as, { type: 'spec', key: 'a', body: '12345678' })
      await ctx.write(as, { type: 'spec', key: 'b', body: 'b' })
      await t.rejects(ctx.write(as, { type: 'spec', key: 'c', body: 'c' }), {
        code: 'limit_reached',
        message: /context-entries-per-room limit is 2/,
        details: { field: 'context', limit: 2 },
      })
      t.equal((await ctx.list(as)).entries.length, 2, 'the refused write made no entry')
      t.equal(
        (await ctx.write(as, { type: 'spec', key: 'b', body: 'b2' })).entry.version,
        2,
        'replacing an entry at the limit works',
      )
      await t.rejects(ctx.update(as, { type: 'spec', key: 'a', append: 'ñ!' }), {
        code: 'too_large',
        message: /^body: the patched body would be 11 bytes; the limit is 10 bytes/,
        details: { field: 'body', limit: 10, size: 11 },
      })
      await t.rejects(ctx.update(as, { type: 'spec', key: 'a', edits: [{ old: '1', new: '1234' }] }), {
        code: 'too_large',
        details: { field: 'body', size: 11 },
      })
      await t.rejects(ctx.update(as, { type: 'spec', key: 'a', body: 'x'.repeat(11) }), {
        code: 'too_large',
        details: { field: 'body', limit: 10, size: 11 },
      })
      const many = Array.from({ length: 51 }, (_, i) => ({ old: String(i), new: 'x' }))
      await t.rejects(ctx.update(as, { type: 'spec', key: 'a', edits: many }), {
        code: 'too_large',
        details: { field: 'edits', limit: 50, size: 51 },
      })
      t.match(
        await ctx.read(as, { type: 'spec', key: 'a' }),
        { body: '12345678', entry: { version: 1 } },
        'refused updates changed nothing',
      )
      t.equal(
        (await ctx.update(as, { type: 'spec', key: 'a', append: 'ñ' })).entry.size,
        10,
        'exactly at the limit is fine',
      )
    })

    t.test('list filters by type and sorts by type then key, without bodies', async (t) => {
      const room = await newRoom(t, backend)
      const ctx = room.core.context
      const as = room.as('alice')
      for (const [type, key] of [
        ['spec', 'b'],
        ['spec', 'a'],
        ['brief', 'z'],
        ['spec-old', 'a'],
        ['decision', 'm'],
      ] as const) {
        await ctx.write(as, { type, key, body: `${type} ${key}` })
      }
      const all = await ctx.list(as)
      t.same(
        all.entries.map((e) => `${e.type}/${e.key}`),
        ['brief/z', 'decision/m', 'spec/a', 'spec/b', 'spec-old/a'],
      )
      t.same(
        Object.keys(all.entries[0]!).sort(),
        ['key', 'size', 'type', 'updated_at', 'updated_by', 'version'],
        'compact items: no creation fields',
      )
      t.same(
        (await ctx.list(as, { type: 'spec' })).entries.map((e) => e.key),
        ['a', 'b'],
      )
      t.same((await ctx.list(as, { type: 'runbook' })).entries, [])
      await t.rejects(ctx.list(as, { type: 'Spec/x' }), { code: 'invalid_request', details: { field: 'type' } })
    })

    t.test('delete removes the entry and every kept version', async (t) => {
      const room = await newRoom(t, backend)
      const ctx = room.core.context
      const as = room.as('alice')
      await ctx.write(as, { type: 'spec', key: 'gone', body: 'v1' })
      await ctx.write(as, { type: 'spec', key: 'gone', body: 'v2' })
      await ctx.write(as, { type: 'spec', key: 'stays', body: 'x' })
      const d = await ctx.delete(as, { type: 'spec', key: 'gone' })
      t.same(d.deleted, { type: 'spec', key: 'gone', version: 2 })
      t.same(await rawKeys(room).versionFields(), ['spec/stays#1'])
      await t.rejects(ctx.read(as, { type: 'spec', key: 'gone' }), { code: 'not_found' })
      await t.rejects(ctx.delete(as, { type: 'spec', key: 'gone' }), { code: 'not_found', details: { field: 'key' } })
      t.same(
        (await ctx.list(as)).entries.map((e) => e.key),
        ['stays'],
      )
      const again = await ctx.write(as, { type: 'spec', key: 'gone', body: 'new' })
      t.match(again, { created: true, entry: { version: 1 } })
    })

    t.test('diff: default previous to current, explicit versions, first version, trimmed versions', async (t) => {
      const room = await newRoom(t, backend, { settings: { contextHistory: 3 } })
      const ctx = room.core.context
      const as = room.as('alice')
      await ctx.write(as, { type: 'spec', key: 'api', body: 'GET /users\nGET /teams\n' })
      const first = await ctx.diff(as, { type: 'spec', key: 'api' })
      t.match(first, { from_version: 0, to_version: 1, added: 2, removed: 0 })
      t.match(first.patch, /^--- spec\/api v0\n\+\+\+ spec\/api v1\n/)
      await ctx.write(as, { type: 'spec', key: 'api', body: 'GET /users\nPOST /teams\n' })
      await ctx.update(as, { type: 'spec', key: 'api', append: 'DELETE /teams/:id\n' })
      const d = await ctx.diff(as, { type: 'spec', key: 'api' })
      t.match(d, { type: 'spec', key: 'api', from_version: 2, to_version: 3, current_version: 3, added: 1, removed: 0 })
      t.match(d.patch, /^--- spec\/api v2\n\+\+\+ spec\/api v3\n@@/)
      t.match(d.patch, /\n\+DELETE \/teams\/:id\n/)
      const e = await ctx.diff(as, { type: 'spec', key: 'api', from_version: 1, to_version: 3 })
      t.match(e, { from_version: 1, to_version: 3, added: 2, removed: 1 })
      t.match(e.patch, /\n-GET \/teams\n/)
      t.match(e.patch, /\n\+POST \/teams\n/)
      t.match(e.patch, /\n GET \/users\n/)
      const back = await ctx.diff(as, { type: 'spec', key: 'api', from_version: 3, to_version: 2 })
      t.match(back, { added: 0, removed: 1 })
      const same = await ctx.diff(as, { type: 'spec', key: 'api', from_version: 2, to_version: 2 })
      t.match(same, { added: 0, removed: 0 })
      await ctx.update(as, { type: 'spec', key: 'api', body: 'v4' })
      await t.rejects(ctx.diff(as, { type: 'spec', key: 'api', from_version: 1 }), {
        code: 'not_found',
        details: { field: 'from_version', kept: [2, 3, 4] },
      })
      await t.rejects(ctx.diff(as, { type: 'spec', key: 'api', to_version: 9 }), {
        code: 'not_found',
        details: { field: 'to_version' },
      })
      await t.rejects(
        ctx.diff(as, { type: 'spec', key: 'api', to_version: 2 }),
        { code: 'not_found', details: { field: 'from_version', version: 1 } },
        'the version before the oldest kept one is gone',
      )
      await t.rejects(ctx.diff(as, { type: 'spec', key: 'none' }), { code: 'not_found', details: { field: 'key' } })
    })

    t.test('a write sent again with the same idempotency key returns the first result', async (t) => {
      const room = await newRoom(t, backend)
      const ctx = room.core.context
      const first = await ctx.write(room.as('alice', 'w-1'), { type: 'brief', key: 'b', body: 'one' })
      const second = await ctx.write(room.as('alice', 'w-1'), { type: 'brief', key: 'b', body: 'one' })
      t.same(second.entry, first.entry)
      await t.rejects(
        ctx.write(room.as('alice', 'w-1'), { type: 'brief', key: 'b', body: 'two' }),
        {
          name: 'KeyReused',
          code: 'conflict',
          message: /^idempotency key "w-1" was already used with other arguments/,
          reason: /^with other arguments; use a new key/,
          details: { key: 'w-1' },
        },
        "the same key with another body is refused (in no transport's words), not answered with the first result",
      )
      t.match(await ctx.read(room.as('alice'), { type: 'brief', key: 'b' }), { body: 'one', entry: { version: 1 } })
      await t.rejects(ctx.update(room.as('alice', 'w-1'), { type: 'brief', key: 'b', append: '!' }), {
        name: 'KeyReused',
        code: 'conflict',
        key: 'w-1',
      })
      const u1 = await ctx.update(room.as('alice', 'u-1'), { type: 'brief', key: 'b', append: '!' })
      const u2 = await ctx.update(room.as('alice', 'u-1'), { type: 'brief', key: 'b', append: '!' })
      t.same(u2.entry, u1.entry)
      t.equal(
        (await ctx.read(room.as('alice'), { type: 'brief', key: 'b' })).body,
        'one!',
        'the retried append was applied once',
      )
    })

    t.test('unicode bodies: sizes in bytes, edits and diffs on multi-byte text', async (t) => {
      const room = await newRoom(t, backend, { settings: { contextBodyBytes: 40 } })
      const ctx = room.core.context
      const as = room.as('ágent-🚀')
      const body = 'Zürich → 東京 🚀\n'
      const w = await ctx.write(as, { type: 'handoff', key: 'résumé/東京', body })
      t.equal(w.entry.size, Buffer.byteLength(body))
      t.equal(w.entry.size, 24)
      t.equal(w.entry.updated_by, 'ágent-🚀')
      const u = await ctx.update(as, {
        type: 'handoff',
        key: 'résumé/東京',
        edits: [
          { old: '東京', new: '大阪' },
          { old: '🚀', new: '✅' },
        ],
      })
      t.equal(u.entry.size, Buffer.byteLength('Zürich → 大阪 ✅\n'))
      const r = await ctx.read(as, { type: 'handoff', key: 'résumé/東京' })
      t.equal(r.body, 'Zürich → 大阪 ✅\n')
      const d = await ctx.diff(as, { type: 'handoff', key: 'résumé/東京' })
      // Like git and GNU diff, the diff package C-quotes a non-ASCII label (octal UTF-8 bytes).
      t.ok(
        d.patch.startsWith('--- "handoff/r\\303\\251sum\\303\\251/\\346\\235\\261\\344\\272\\254 v1"\n'),
        'the header label is C-quoted',
      )
      t.match(d.patch, /\n-Zürich → 東京 🚀\n\+Zürich → 大阪 ✅\n/)
      t.same(
        (await ctx.list(as)).entries.map((e) => e.key),
        ['résumé/東京'],
      )
      await t.rejects(ctx.update(as, { type: 'handoff', key: 'résumé/東京', append: '日本語日本語' }), {
        code: 'too_large',
        details: { field: 'body', limit: 40, size: Buffer.byteLength('Zürich → 大阪 ✅\n') + 18 },
      })
    })

    t.test('template entries are ordinary entries', async (t) => {
      const room = await newRoom(t, backend, { template: 'web-app' })
      const ctx = room.core.context
      const as = room.as('alice')
      t.same(
        (await ctx.list(as)).entries.map((e) => `${e.type}/${e.key}@${e.version}`),
        ['brief/product@1', 'decision/working-agreements@1'],
      )
      const r = await ctx.read(as, { type: 'brief', key: 'product' })
      t.match(r.body, /^# Product brief/)
      t.equal(r.entry.size, Buffer.byteLength(r.body))
      await ctx.update(as, {
        type: 'brief',
        key: 'product',
        edits: [{ old: '## Problem\n', new: '## Problem\nTeams lose track of agents.\n' }],
      })
      const h = await ctx.history(as, { type: 'brief', key: 'product' })
      t.same(
        h.versions.map((v) => [v.version, v.updated_by]),
        [
          [2, 'alice'],
          [1, 'test'],
        ],
      )
      t.match((await ctx.diff(as, { type: 'brief', key: 'product' })).patch, /\n\+Teams lose track of agents\.\n/)
    })

    t.test('validation names the field; mutations need an agent', async (t) => {
      const room = await newRoom(t, backend)
      const ctx = room.core.context
      await t.rejects(ctx.write(room.as(), { type: 'spec', key: 'a', body: 'x' }), {
        code: 'invalid_request',
        details: { field: 'agent_id' },
      })
      await t.rejects(ctx.update(room.as(), { type: 'spec', key: 'a', body: 'x' }), {
        code: 'invalid_request',
        details: { field: 'agent_id' },
      })
      await t.rejects(ctx.write(room.as('a'), { type: 'spec/x', key: 'a', body: 'x' }), {
        code: 'invalid_request',
        details: { field: 'type' },
      })
      await t.rejects(ctx.write(room.as('a'), { type: 'spec', key: '', body: 'x' }), {
        code: 'invalid_request',
        details: { field: 'key' },
      })
      await t.rejects(ctx.write(room.as('a'), { type: 'spec', key: 'a' }), {
        code: 'invalid_request',
        details: { field: 'body' },
      })
      await t.rejects(ctx.read(room.as('a'), { type: 'spec', key: 'a', version: 0 }), {
        code: 'invalid_request',
        details: { field: 'version' },
      })
      await t.rejects(ctx.write(room.as('a'), { type: 'spec', key: 'a', body: 'x', expected_version: -1 }), {
        code: 'invalid_request',
        details: { field: 'expected_version' },
      })
      t.equal(await rawKeys(room).entryCount(), 0)
    })

    t.test('each mutation publishes one notice on the room channel', async (t) => {
      const room = await newRoom(t, backend)
      const ctx = room.core.context
      const as = room.as('alice')
      const notices = await listen(t, backend, room)
      await ctx.write(as, { type: 'spec', key: 'n', body: 'a' })
      await ctx.write(as, { type: 'spec', key: 'n', body: 'a' })
      await ctx.update(as, { type: 'spec', key: 'n', append: 'b' })
      await ctx.delete(as, { type: 'spec', key: 'n' })
      // Notices of one room arrive in publish order: once the delete's is in, a notice of the
      // identical write would be in too.
      t.ok(await eventually(() => notices.some((n) => n.op === 'deleted')), 'the last notice arrived')
      t.same(
        notices.map((n) => [n.k, n.op, n.type, n.key, n.version]),
        [
          ['context', 'written', 'spec', 'n', 1],
          ['context', 'updated', 'spec', 'n', 2],
          ['context', 'deleted', 'spec', 'n', 2],
        ],
        'the identical write published nothing',
      )
    })
  })
}
