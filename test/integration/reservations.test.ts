// File reservations on real Redis, standalone and cluster: reserve, renew, conflicts (exclusive
// and shared, overlap of globs), release, expiry, fencing tokens shared with locks, the per-room
// limit, leave_room releasing, malformed patterns, the guard's check, and a race of agents for
// overlapping patterns where exactly one may win.
import t from 'tap'
import type { AppError } from '../../src/shared/errors.js'
import { newRoom, listen, until } from '../helpers/core.js'
import { BACKENDS } from '../helpers/shared.js'

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('reserve, renew, conflict, release', async (t) => {
      const room = await newRoom(t, backend)
      const { reservations: rs } = room.core
      const notices = await listen(t, backend, room)
      const a = await rs.reserve(room.as('alice'), { patterns: ['src/api/**', 'docs/a.md'], reason: 't3' })
      t.match(a.reservations, [
        { pattern: 'docs/a.md', agent: 'alice', exclusive: true, reason: 't3', expires_in_s: 1800 },
        { pattern: 'src/api/**', agent: 'alice', exclusive: true, reason: 't3' },
      ])
      const tokens = a.reservations.map((r) => r.token).sort()
      t.same(tokens, [1, 2], 'each new pattern takes a fencing token')

      const renewed = await rs.reserve(room.as('alice'), { patterns: ['src/api/**'], ttl_s: 60 })
      t.equal(renewed.reservations[0]!.token, a.reservations[1]!.token, 'a renewal keeps the token')
      t.equal(renewed.reservations[0]!.acquired_at, a.reservations[1]!.acquired_at)
      t.equal(renewed.reservations[0]!.expires_in_s, 60)

      const lock = await room.core.locks.acquire(room.as('carol'), { name: 'deploy' })
      t.equal(lock.lock.token, 3, 'locks and reservations draw from one fencing counter')

      const before = await rs.list(room.as('bob'))
      const refused = (await rs
        .reserve(room.as('bob'), { patterns: ['lib/**', 'src/**/model.ts'] })
        .catch((e: unknown) => e)) as AppError
      t.equal(refused.code, 'conflict')
      t.match(refused.message, /"src\/\*\*\/model\.ts" overlaps "src\/api\/\*\*", reserved exclusively by alice until/)
      t.match(refused.message, /both match "src\/api\/model\.ts"/)
      t.match(refused.details, {
        field: 'patterns',
        holder: 'alice',
        conflicts: [{ pattern: 'src/**/model.ts', holder: 'alice', held_pattern: 'src/api/**', expires_in_s: 60 }],
      })
      t.same(await rs.list(room.as('bob')), before, 'a refused reservation changes nothing (lib/** was not taken)')

      const docs = (await rs.reserve(room.as('bob'), { patterns: ['*.md'] })) as { reservations: unknown[] }
      t.equal(docs.reservations.length, 1, '*.md stays at the root: it does not overlap docs/a.md')

      await t.rejects(
        rs.reserve(room.as('bob'), { patterns: ['docs/*.md'], exclusive: false }),
        {
          code: 'conflict',
          details: { holder: 'alice' },
        },
        'a shared reservation still conflicts with an exclusive one',
      )

      const rel = await rs.release(room.as('alice'), { patterns: ['src/api/**', 'nothing/**'] })
      t.same(rel.released, ['src/api/**'])
      t.same(rel.not_held, ['nothing/**'])
      const again = await rs.release(room.as('alice'), { patterns: ['src/api/**'] })
      t.same(again.released, [], 'releasing twice is safe')
      await rs.reserve(room.as('bob'), { patterns: ['src/**/model.ts'] })

      const all = await rs.list(room.as('x'))
      t.same(
        all.reservations.map((r) => `${r.agent}:${r.pattern}`),
        ['bob:*.md', 'alice:docs/a.md', 'bob:src/**/model.ts'],
        'sorted by pattern',
      )
      t.same((await rs.list(room.as('x'), { agent: 'alice' })).reservations.length, 1)
      await until(() => notices.filter((n) => n.k === 'reservation').length >= 4)
      t.match(
        notices.filter((n) => n.k === 'reservation'),
        [
          { op: 'reserved', agent: 'alice' },
          { op: 'reserved', agent: 'alice' },
          { op: 'reserved', agent: 'bob' },
          { op: 'released', agent: 'alice' },
        ],
      )
    })

    t.test('shared reservations coexist; exclusive ones refuse them', async (t) => {
      const room = await newRoom(t, backend)
      const { reservations: rs } = room.core
      await rs.reserve(room.as('a'), { patterns: ['package-lock.json'], exclusive: false })
      await rs.reserve(room.as('b'), { patterns: ['package-lock.json'], exclusive: false })
      await t.rejects(rs.reserve(room.as('c'), { patterns: ['*.json'] }), { code: 'conflict' })
      const ex = await rs.reserve(room.as('a'), { patterns: ['package-lock.json'], exclusive: true }).catch((e) => e)
      t.match(ex, { code: 'conflict', details: { holder: 'b' } }, 'making it exclusive conflicts with the other sharer')
      t.equal((await rs.list(room.as('a'))).reservations.length, 2)
    })

    t.test('expiry, leave_room and the guard check', async (t) => {
      const room = await newRoom(t, backend, { settings: { reservationTtlDefaultMs: 300 } })
      const { reservations: rs } = room.core
      await rs.reserve(room.as('a'), { patterns: ['tmp/**'] })
      await rs.reserve(room.as('a'), { patterns: ['src/**'], ttl_s: 60, reason: 'refactor' })
      await rs.reserve(room.as('b'), { patterns: ['docs/**'], ttl_s: 60, exclusive: false })
      await new Promise((r) => setTimeout(r, 400))
      const live = await rs.list(room.as('a'))
      t.same(
        live.reservations.map((r) => r.pattern),
        ['docs/**', 'src/**'],
        'an expired reservation is never listed',
      )
      await rs.reserve(room.as('b'), { patterns: ['tmp/x'] })

      const check = await rs.check(room.as('b'), {
        paths: ['src/a.ts', 'src/deep/b.ts', 'docs/x.md', 'tmp/x', 'README.md'],
      })
      t.equal(check.checked, 5)
      t.match(check.conflicts, [
        { path: 'src/a.ts', holder: 'a', pattern: 'src/**', reason: 'refactor' },
        { path: 'src/deep/b.ts', holder: 'a', pattern: 'src/**' },
      ])
      t.equal(check.conflicts.length, 2, 'own and shared reservations never conflict')
      t.same((await rs.check(room.as('a'), { paths: ['src/a.ts'] })).conflicts, [], 'the holder may commit its files')

      await room.core.presence.heartbeat(room.as('a'))
      const left = await room.core.presence.leave(room.as('a'))
      t.same(left.released, ['src/**'])
      const gone = await room.core.presence.leave(room.as('b'))
      t.equal(gone.was_present, false, 'b was never present…')
      t.same(gone.released, ['docs/**', 'tmp/x'], '…and its reservations go all the same')
      t.same((await rs.list(room.as('x'))).reservations, [])
    })

    t.test('bad input and the per-room limit change nothing', async (t) => {
      const room = await newRoom(t, backend, { settings: { reservationsPerRoom: 3 } })
      const { reservations: rs } = room.core
      await t.rejects(rs.reserve(room.as('a'), { patterns: ['src//x'] }), {
        code: 'invalid_request',
        message: /patterns\[0\]: "src\/\/x" is not a valid glob: it has an empty segment/,
      })
      await t.rejects(rs.reserve(room.as('a'), { patterns: [] }), { code: 'invalid_request', message: /patterns/ })
      await t.rejects(rs.reserve(room.as('a'), { patterns: ['a'], ttl_s: 10 ** 9 }), {
        code: 'invalid_request',
        message: /ttl_s: must be at most 28800/,
      })
      await t.rejects(rs.reserve(room.as(), { patterns: ['a'] }), { message: /agent_id: required/ })
      await rs.reserve(room.as('a'), { patterns: ['a', 'b'] })
      const over = (await rs.reserve(room.as('b'), { patterns: ['c', 'd'] }).catch((e) => e)) as AppError
      t.match(over, { code: 'limit_reached', details: { field: 'patterns', limit: 3, held: 2 } })
      t.match(over.message, /reservations-per-room limit is 3/)
      await rs.reserve(room.as('a'), { patterns: ['a', 'b'] })
      t.pass('renewing what one holds adds nothing against the limit')
      t.equal((await rs.list(room.as('a'))).reservations.length, 2)
      await t.rejects(rs.check(room.as('a'), { paths: ['/abs/path'] }), { message: /paths\[0\]: must be a path/ })
    })

    t.test('agents racing for overlapping patterns: exactly one wins', async (t) => {
      const room = await newRoom(t, backend)
      const { reservations: rs } = room.core
      // Different patterns, all of which match src/api/model.ts.
      const globs = ['src/**', 'src/*/model.ts', '**/model.ts', 'src/api/model.ts', 'src/api/*', 'src/[a-c]*/**']
      const agents = Array.from({ length: 12 }, (_, i) => `agent-${i}`)
      const results = await Promise.allSettled(
        agents.map((a, i) => rs.reserve(room.as(a), { patterns: [globs[i % globs.length]!] })),
      )
      const won = results.filter((r) => r.status === 'fulfilled')
      t.equal(won.length, 1, 'one reservation holds')
      for (const r of results)
        if (r.status === 'rejected')
          t.equal((r.reason as AppError).code, 'conflict', 'the others are told who holds it')
      t.equal((await rs.list(room.as('x'))).reservations.length, 1)
    })
  })
}
