// Shared vars on real Redis, standalone and cluster: set, get, list by prefix, versions and
// expected_version, atomic increments, and the size and count limits.
import t from 'tap'
import { newRoom } from '../helpers/core.js'
import { BACKENDS } from '../helpers/shared.js'

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('set, get, list, prefix', async (t) => {
      const room = await newRoom(t, backend)
      const { vars } = room.core
      const s1 = await vars.set(room.as('alice'), { name: 'feature/dark-mode', value: 'on' })
      t.match(s1.var, { name: 'feature/dark-mode', value: 'on', version: 1, updated_by: 'alice' })
      t.match(s1.var.updated_at, /^\d{4}-\d\d-\d\dT/)
      t.equal(typeof s1.unread, 'number')
      const s2 = await vars.set(room.as('bob'), { name: 'feature/dark-mode', value: 'off' })
      t.match(s2.var, { value: 'off', version: 2, updated_by: 'bob' })
      await vars.set(room.as('bob'), { name: 'build', value: '' })
      await vars.set(room.as(), { name: 'feature/beta', value: 'yes' })

      const g = await vars.get(room.as('carol'), { name: 'feature/dark-mode' })
      t.same(g.var, s2.var)
      const beta = (await vars.get(room.as('carol'), { name: 'feature/beta' })).var
      t.notOk('updated_by' in beta, 'no agent, no updated_by')
      t.equal((await vars.get(room.as('carol'), { name: 'build' })).var.value, '', 'an empty value is a value')

      const all = await vars.list(room.as('carol'))
      t.same(
        all.vars.map((v) => v.name),
        ['build', 'feature/beta', 'feature/dark-mode'],
      )
      t.match(all.vars[2], { value: 'off', version: 2 })
      t.match(all.vars[2]!.updated_at, /^\d{4}-\d\d-\d\dT/)
      t.same(
        (await vars.list(room.as('carol'), { prefix: 'feature/' })).vars.map((v) => v.name),
        ['feature/beta', 'feature/dark-mode'],
      )
      t.same((await vars.list(room.as('carol'), { prefix: 'nope' })).vars, [])

      await t.rejects(vars.get(room.as('carol'), { name: 'missing' }), {
        code: 'not_found',
        details: { field: 'name' },
        message: /"missing" does not exist/,
      })
    })

    t.test('expected_version', async (t) => {
      const room = await newRoom(t, backend)
      const { vars } = room.core
      const as = room.as('alice')
      t.equal(
        (await vars.set(as, { name: 'owner', value: 'alice', expected_version: 0 })).var.version,
        1,
        '0: create only',
      )
      await t.rejects(vars.set(as, { name: 'owner', value: 'bob', expected_version: 0 }), {
        code: 'conflict',
        details: { field: 'expected_version', version: 1 },
        message: /^expected_version: shared var "owner" is at version 1, not 0/,
      })
      await t.rejects(vars.set(as, { name: 'owner', value: 'bob', expected_version: 5 }), {
        code: 'conflict',
        details: { version: 1 },
      })
      t.match(
        (await vars.get(as, { name: 'owner' })).var,
        { value: 'alice', version: 1 },
        'refused writes changed nothing',
      )
      t.match((await vars.set(as, { name: 'owner', value: 'bob', expected_version: 1 })).var, {
        value: 'bob',
        version: 2,
      })
      await t.rejects(vars.set(as, { name: 'fresh', value: 'x', expected_version: 1 }), {
        code: 'conflict',
        details: { version: 0 },
      })
      await t.rejects(vars.get(as, { name: 'fresh' }), { code: 'not_found' })
      await t.rejects(vars.set(as, { name: 'owner', value: 'x', expected_version: -1 }), {
        code: 'invalid_request',
        details: { field: 'expected_version' },
      })
    })

    t.test('increment', async (t) => {
      const room = await newRoom(t, backend)
      const { vars } = room.core
      const as = room.as('alice')
      t.match(
        (await vars.increment(as, { name: 'builds' })).var,
        { name: 'builds', value: '1', version: 1, updated_by: 'alice' },
        'absent starts at 0',
      )
      t.equal((await vars.increment(as, { name: 'builds', by: -5 })).var.value, '-4')
      t.match((await vars.increment(as, { name: 'builds', by: 1e12 })).var, { value: '999999999996', version: 3 })
      await vars.set(as, { name: 'zero-padded', value: '007' })
      t.equal((await vars.increment(as, { name: 'zero-padded' })).var.value, '8')

      await vars.set(as, { name: 'flag', value: 'yes' })
      await t.rejects(vars.increment(as, { name: 'flag' }), {
        code: 'conflict',
        details: { field: 'name', value: 'yes' },
        message: /holds "yes", not an integer/,
      })
      await vars.set(as, { name: 'decimal', value: '1.5' })
      await t.rejects(vars.increment(as, { name: 'decimal' }), { code: 'conflict' })
      await vars.set(as, { name: 'huge', value: '99999999999999999999' })
      await t.rejects(vars.increment(as, { name: 'huge' }), { code: 'conflict' }, 'beyond the exact integer range')
      await vars.set(as, { name: 'edge', value: '9007199254740990' })
      t.equal((await vars.increment(as, { name: 'edge' })).var.value, '9007199254740991')
      await t.rejects(vars.increment(as, { name: 'edge' }), { code: 'conflict', details: { field: 'by' } })
      t.match(
        (await vars.get(as, { name: 'flag' })).var,
        { value: 'yes', version: 1 },
        'a refused increment changed nothing',
      )
      t.match((await vars.get(as, { name: 'edge' })).var, { value: '9007199254740991', version: 2 })

      await t.rejects(vars.increment(as, { name: 'builds', by: 1.5 }), {
        code: 'invalid_request',
        details: { field: 'by' },
      })
      await t.rejects(vars.increment(as, { name: 'builds', by: 1e12 + 1 }), {
        code: 'invalid_request',
        message: /^by: must be at most/,
      })
      await t.rejects(vars.increment(as, { name: 'builds', by: -1e12 - 1 }), {
        code: 'invalid_request',
        details: { field: 'by' },
      })
      await t.rejects(vars.increment(as, { name: 'builds', by: '2' }), {
        code: 'invalid_request',
        details: { field: 'by' },
      })
      t.equal((await vars.get(as, { name: 'builds' })).var.value, '999999999996')
    })

    t.test('concurrent increments are atomic', async (t) => {
      const room = await newRoom(t, backend)
      const { vars } = room.core
      await Promise.all(Array.from({ length: 50 }, (_, i) => vars.increment(room.as(`a${i}`), { name: 'n' })))
      t.match((await vars.get(room.as('x'), { name: 'n' })).var, { value: '50', version: 50 })
    })

    t.test('size and count limits name the field and the limit', async (t) => {
      const room = await newRoom(t, backend, { settings: { varValueBytes: 8, varsPerRoom: 2 } })
      const { vars } = room.core
      const as = room.as('alice')
      await t.rejects(vars.set(as, { name: 'a', value: 'é'.repeat(5) }), {
        code: 'too_large',
        details: { field: 'value', limit: 8, size: 10 },
        message: /^value is 10 bytes; the limit is 8/,
      })
      await t.rejects(vars.get(as, { name: 'a' }), { code: 'not_found' }, 'the refused set changed nothing')
      await vars.set(as, { name: 'a', value: '12345678' })
      await vars.increment(as, { name: 'b' })
      await t.rejects(vars.set(as, { name: 'c', value: 'x' }), {
        code: 'limit_reached',
        details: { field: 'vars', limit: 2 },
        message: /vars-per-room limit is 2/,
      })
      await t.rejects(vars.increment(as, { name: 'c' }), { code: 'limit_reached', details: { limit: 2 } })
      t.same(
        (await vars.list(as)).vars.map((v) => v.name),
        ['a', 'b'],
        'refused calls changed nothing',
      )
      t.equal((await vars.set(as, { name: 'a', value: 'again' })).var.version, 2, 'existing names can still be written')
      t.equal((await vars.increment(as, { name: 'b' })).var.value, '2')
    })

    t.test('names are validated', async (t) => {
      const room = await newRoom(t, backend)
      const { vars } = room.core
      const as = room.as('alice')
      await t.rejects(vars.set(as, { name: '', value: 'x' }), { code: 'invalid_request', details: { field: 'name' } })
      await t.rejects(vars.set(as, { name: 'n'.repeat(129), value: 'x' }), {
        code: 'invalid_request',
        message: /^name: must be at most 128/,
      })
      await t.rejects(vars.set(as, { name: 'x', value: 5 }), { code: 'invalid_request', details: { field: 'value' } })
      await t.rejects(vars.get(as, {}), { code: 'invalid_request', details: { field: 'name' } })
      await t.rejects(vars.list(as, { prefix: 'p'.repeat(129) }), {
        code: 'invalid_request',
        details: { field: 'prefix' },
      })
      t.same((await vars.list(as)).vars, [])
    })
  })
}
