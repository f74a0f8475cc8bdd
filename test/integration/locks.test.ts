// Locks on real Redis, standalone and cluster: acquire, extend, release, conflicts, expiry by key
// TTL, fencing tokens, the per-room limit, validation, and a race of 20 agents for one lock.
// A lock that must outlive some calls lives a minute; one that must expire either lives 300 ms
// with nothing to do before it goes, or is made to lapse on purpose (lapse()), so no check
// depends on how fast the machine runs. Seconds left are checked against the clock read before
// and after the call that counted them.
import t from 'tap'
import type { AppError } from '../../src/shared/errors.js'
import { Locks } from '../../src/core/locks.js'
import { newRoom, type TestRoom } from '../helpers/core.js'
import { BACKENDS } from '../helpers/shared.js'
import { waitFor } from '../helpers/wait.js'

/** Ends `agent`'s lock `name` on purpose: the holder extends it to 1 ms, so it lapses at once. */
function lapse(room: TestRoom, agent: string, name: string) {
  return new Locks(room.core.store, { ...room.core.settings, lockTtlDefaultMs: 1 }).acquire(room.as(agent), { name })
}

/**
 * Whether `seconds` is what a call between the clock readings `before` and `after` counts for a
 * lock expiring at `expiresAt` (rounded up).
 */
function leftBetween(seconds: number, expiresAt: string, before: number, after: number): boolean {
  const at = Date.parse(expiresAt)
  return seconds >= Math.ceil((at - after) / 1000) && seconds <= Math.ceil((at - before) / 1000)
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('acquire, extend, conflict, release', async (t) => {
      const room = await newRoom(t, backend)
      const { locks } = room.core
      const a = await locks.acquire(room.as('alice'), { name: 'db/schema.sql' })
      t.equal(a.extended, false)
      t.match(a.lock, { name: 'db/schema.sql', owner: 'alice', token: 1, expires_in_s: 120 })
      t.match(a.lock.acquired_at, /^\d{4}-\d\d-\d\dT/)
      t.equal(typeof a.unread, 'number')

      const ext = await locks.acquire(room.as('alice'), { name: 'db/schema.sql', ttl_s: 300 })
      t.equal(ext.extended, true)
      t.equal(ext.lock.token, 1, 'an extension keeps the token')
      t.equal(ext.lock.acquired_at, a.lock.acquired_at)
      t.equal(ext.lock.expires_in_s, 300)

      const asked = Date.now()
      const refused = (await locks
        .acquire(room.as('bob'), { name: 'db/schema.sql' })
        .catch((e: unknown) => e)) as AppError
      const answered = Date.now()
      t.match(refused, {
        code: 'conflict',
        details: { field: 'name', holder: 'alice', expires_at: ext.lock.expires_at },
      })
      const left = refused.details?.expires_in_s as number
      t.ok(
        leftBetween(left, ext.lock.expires_at, asked, answered),
        `the conflict counts the seconds left from its own time (${left})`,
      )
      t.match(refused.message, `held by alice for ${left} more s`)
      await t.rejects(
        locks.release(room.as('bob'), { name: 'db/schema.sql' }),
        { code: 'conflict', details: { holder: 'alice' } },
        'only the holder releases',
      )
      await t.rejects(locks.release(room.as('alice'), { name: 'db/schema.sql', token: 7 }), {
        code: 'conflict',
        details: { field: 'token', token: 1 },
      })
      t.same(
        (await locks.list(room.as('carol'))).locks.map((l) => [l.name, l.owner, l.token]),
        [['db/schema.sql', 'alice', 1]],
        'refused calls changed nothing',
      )

      const rel = await locks.release(room.as('alice'), { name: 'db/schema.sql', token: 1 })
      t.match(rel, { released: true, name: 'db/schema.sql', token: 1 })
      t.same((await locks.list(room.as('alice'))).locks, [])
      const twice = await locks.release(room.as('alice'), { name: 'db/schema.sql' })
      t.match(twice, { released: false, reason: /not held/ }, 'releasing twice is safe')

      const b = await locks.acquire(room.as('bob'), { name: 'db/schema.sql' })
      t.equal(b.lock.token, 2, 'a new acquisition takes the next fencing token')
    })

    t.test('the lock key expires with the lock; a later acquisition has a larger token', async (t) => {
      // The default lock lives 300 ms (a test's default may be under a second; ttl_s is whole seconds).
      const room = await newRoom(t, backend, { settings: { lockTtlDefaultMs: 300, lockTtlMaxMs: 60_000 } })
      const { locks, store } = room.core
      const first = await locks.acquire(room.as('alice'), { name: 'deploy' })
      const asked = Date.now()
      const long = await locks.acquire(room.as('alice'), { name: 'long', ttl_s: 60 })
      const pttl = await store.client.pttl(store.keys.lock({ teamId: room.teamId, roomId: room.roomId }, 'long'))
      const elapsed = Date.now() - asked
      t.ok(
        pttl <= 60_000 && pttl >= 60_000 - elapsed,
        `the lock key's TTL is the lock's: ${pttl} ms, ${elapsed} ms after asking for 60 s`,
      )

      const gone = async (name: string) => !(await locks.list(room.as('x'))).locks.some((l) => l.name === name)
      await waitFor(() => gone('deploy'), 10_000, 'the 300 ms lock to expire')
      const before = Date.now()
      const listed = await locks.list(room.as('x'))
      const after = Date.now()
      t.same(
        listed.locks.map((l) => l.name),
        ['long'],
        'an expired lock is not listed; the minute one is',
      )
      const left = listed.locks[0]!.expires_in_s
      t.ok(
        leftBetween(left, long.lock.expires_at, before, after),
        `seconds left are counted from the list's own time, rounded up (${left})`,
      )

      const second = await locks.acquire(room.as('bob'), { name: 'deploy' })
      t.equal(second.extended, false)
      t.ok(second.lock.token > first.lock.token, 'the late writer holding the old token can be told apart')
      await t.rejects(locks.release(room.as('alice'), { name: 'deploy', token: first.lock.token }), {
        code: 'conflict',
        details: { holder: 'bob' },
      })
      const again = await locks.acquire(room.as('alice'), { name: 'long', ttl_s: 1 })
      t.equal(again.extended, true, 'a lock still held is extended, not re-acquired')
    })

    t.test('the holder who lost the lock cannot release the new acquisition with the old token', async (t) => {
      const room = await newRoom(t, backend, { settings: { lockTtlDefaultMs: 300 } })
      const { locks } = room.core
      const first = await locks.acquire(room.as('alice'), { name: 'n' })
      await waitFor(
        async () => (await locks.list(room.as('x'))).locks.length === 0,
        10_000,
        'the 300 ms lock to expire',
      )
      const second = await locks.acquire(room.as('alice'), { name: 'n' })
      t.equal(second.extended, false)
      t.ok(second.lock.token > first.lock.token)
      await t.rejects(locks.release(room.as('alice'), { name: 'n', token: first.lock.token }), {
        code: 'conflict',
        details: { token: second.lock.token },
      })
      t.equal((await locks.release(room.as('alice'), { name: 'n', token: second.lock.token })).released, true)
    })

    t.test('locks-per-room limit counts live locks only', async (t) => {
      const room = await newRoom(t, backend, {
        settings: { locksPerRoom: 2, lockTtlDefaultMs: 60_000, lockTtlMaxMs: 60_000 },
      })
      const { locks } = room.core
      await locks.acquire(room.as('alice'), { name: 'a' })
      await locks.acquire(room.as('bob'), { name: 'b', ttl_s: 60 })
      await t.rejects(locks.acquire(room.as('carol'), { name: 'c', ttl_s: 60 }), {
        code: 'limit_reached',
        message: /locks-per-room limit is 2/,
        details: { field: 'locks', limit: 2 },
      })
      t.same(
        (await locks.list(room.as('x'))).locks.map((l) => l.name),
        ['a', 'b'],
        'the refused acquire changed nothing',
      )
      t.equal(
        (await locks.acquire(room.as('bob'), { name: 'b', ttl_s: 60 })).extended,
        true,
        'extending is not a new lock',
      )
      await lapse(room, 'alice', 'a')
      await waitFor(
        async () => !(await locks.list(room.as('x'))).locks.some((l) => l.name === 'a'),
        10_000,
        "alice's lock to expire",
      )
      const c = await locks.acquire(room.as('carol'), { name: 'c', ttl_s: 60 })
      t.equal(c.lock.owner, 'carol', 'an expired lock frees its place')
      t.same(
        (await locks.list(room.as('x'))).locks.map((l) => l.name),
        ['b', 'c'],
      )
    })

    t.test('validation names the field', async (t) => {
      const room = await newRoom(t, backend, { settings: { lockTtlMaxMs: 10_000, lockTtlDefaultMs: 5000 } })
      const { locks } = room.core
      const as = room.as('alice')
      await t.rejects(locks.acquire(as, { name: '' }), { code: 'invalid_request', details: { field: 'name' } })
      await t.rejects(locks.acquire(as, { name: 'x'.repeat(201) }), {
        code: 'invalid_request',
        message: /^name: must be at most 200/,
      })
      await t.rejects(locks.acquire(as, { name: 'a\nb' }), { code: 'invalid_request', details: { field: 'name' } })
      await t.rejects(locks.acquire(as, { name: 'x', ttl_s: 0 }), {
        code: 'invalid_request',
        details: { field: 'ttl_s' },
      })
      await t.rejects(locks.acquire(as, { name: 'x', ttl_s: 11 }), {
        code: 'invalid_request',
        message: /^ttl_s: must be at most 10/,
      })
      await t.rejects(locks.acquire(as, { name: 'x', ttl_s: 1.5 }), {
        code: 'invalid_request',
        details: { field: 'ttl_s' },
      })
      await t.rejects(locks.acquire(room.as(), { name: 'x' }), {
        code: 'invalid_request',
        details: { field: 'agent_id' },
      })
      await t.rejects(locks.release(room.as(), { name: 'x' }), {
        code: 'invalid_request',
        details: { field: 'agent_id' },
      })
      await t.rejects(locks.release(as, { name: 'x', token: 0 }), {
        code: 'invalid_request',
        details: { field: 'token' },
      })
      t.same((await locks.list(as)).locks, [], 'nothing was taken')
      const ok = await locks.acquire(as, { name: 'x'.repeat(200), ttl_s: 10 })
      t.equal(ok.lock.expires_in_s, 10)
      t.equal((await locks.acquire(as, { name: 'y' })).lock.expires_in_s, 5, 'the default TTL applies')
    })

    t.test('a retried acquire with the same idempotency key takes no new token', async (t) => {
      const room = await newRoom(t, backend)
      const { locks } = room.core
      const first = await locks.acquire(room.as('alice', 'k1'), { name: 'x' })
      const retry = await locks.acquire(room.as('alice', 'k1'), { name: 'x' })
      t.same(retry.lock, first.lock)
      t.equal(retry.extended, false)
      const other = await locks.acquire(room.as('alice'), { name: 'y' })
      t.equal(other.lock.token, 2)
    })

    t.test('20 agents racing for one lock: exactly one wins', async (t) => {
      const room = await newRoom(t, backend)
      const { locks } = room.core
      const agents = Array.from({ length: 20 }, (_, i) => `agent-${i}`)
      const results = await Promise.allSettled(agents.map((a) => locks.acquire(room.as(a), { name: 'release-train' })))
      const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
      t.equal(won.length, 1, 'one winner')
      const winner = won[0]!.lock.owner
      for (const r of results) {
        if (r.status === 'rejected') t.match(r.reason, { code: 'conflict', details: { holder: winner } })
      }
      t.same(
        (await locks.list(room.as('x'))).locks.map((l) => [l.owner, l.token]),
        [[winner, 1]],
      )
    })
  })
}
