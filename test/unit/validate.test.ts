// src/shared/validate.ts: null reads as absent for optional fields (and input without a null is
// answered as it is, uncopied), and input nested too deep is named before zod walks it.
import t from 'tap'
import { z } from 'zod'
import { MAX_DEPTH, nullsAsAbsent, parse, tooDeep } from '../../src/shared/validate.js'

const schema = z.object({
  a: z.string().optional(),
  b: z.object({ c: z.number().optional() }).optional(),
  d: z.unknown(),
})

t.test('nullsAsAbsent leaves out nulls of optional fields, at any level, and copies only then', async (t) => {
  const flat = { a: 'x', d: { free: 1 } }
  t.equal(nullsAsAbsent(schema, flat), flat, 'no null: the input itself')
  const given = { a: null, b: { c: null }, d: { free: null } }
  const out = nullsAsAbsent(schema, given)
  t.not(out, given, 'a null: a copy')
  t.same(out, { b: {}, d: { free: null } }, 'optional nulls gone; free-form JSON kept as it is')
  t.same(given, { a: null, b: { c: null }, d: { free: null } }, 'the input unchanged')
  t.same(parse(schema, { a: null, d: 1 }), { d: 1 })
})

t.test('tooDeep names the top-level field of input nested too deep, flat input or not', async (t) => {
  t.equal(tooDeep({ a: 1, b: 'x', c: null }), undefined, 'flat')
  t.equal(tooDeep([1, 'x']), undefined, 'flat array')
  let deep: unknown = 1
  for (let i = 0; i <= MAX_DEPTH; i++) deep = [deep]
  t.equal(tooDeep({ a: 1, deep }), 'deep')
  t.equal(tooDeep([0, deep]), 1)
  let ok: unknown = 1
  for (let i = 0; i < MAX_DEPTH; i++) ok = [ok]
  t.equal(tooDeep({ ok }), undefined, 'at the limit')
  t.throws(() => parse(schema, { a: 'x', d: deep }), { code: 'too_large' })
})
