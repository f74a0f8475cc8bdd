// Input validation, for the core and every layer that parses input. Every operation parses its
// input with a zod schema; the first problem becomes an AppError that names the field:
// `invalid_request`, or `too_large` for a size limit (with the limit and the size sent). An
// argument the schema does not know is named (strict objects), and input nested deeper than
// MAX_DEPTH is refused before zod walks it.
import { z } from 'zod'
import { AppError, tooLarge } from './errors.js'

/**
 * How many levels below the input (the tool's arguments, a request body) an object or array may
 * sit. zod validates recursively, so ~10,000 levels would overflow the stack; no field of this
 * service needs more than a few (event `data` is free-form JSON, and 32 levels is plenty).
 */
export const MAX_DEPTH = 32

interface SizeParams {
  tooLarge: true
  limit: number
  size: number
  unit: string
}

function fieldName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'input'
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('')
}

/**
 * The top-level field (a key, or an index) under which a value sits more than `max` levels below
 * the input, or undefined when none does. Iterative, so a hostile depth cannot overflow the stack
 * here either; it runs on every parse, so it keeps only a depth and that first key per value.
 */
export function tooDeep(input: unknown, max = MAX_DEPTH): PropertyKey | undefined {
  if (typeof input !== 'object' || input === null) return undefined
  // Most input is flat (no value an object): nothing to walk, nothing allocated.
  let nested = false
  if (Array.isArray(input)) nested = input.some((v) => typeof v === 'object' && v !== null)
  else
    for (const k in input) {
      const v = (input as Record<string, unknown>)[k]
      if (typeof v === 'object' && v !== null) {
        nested = true
        break
      }
    }
  if (!nested) return undefined
  const stack: { value: object; depth: number; top: PropertyKey }[] = []
  const push = (v: unknown, depth: number, top: PropertyKey) => {
    if (typeof v === 'object' && v !== null) stack.push({ value: v, depth, top })
  }
  if (Array.isArray(input)) input.forEach((v, i) => push(v, 1, i))
  else for (const k in input) push((input as Record<string, unknown>)[k], 1, k)
  while (stack.length > 0) {
    const { value, depth, top } = stack.pop()!
    if (depth > max) return top
    if (Array.isArray(value)) for (const v of value) push(v, depth + 1, top)
    else for (const k in value) push((value as Record<string, unknown>)[k], depth + 1, top)
  }
  return undefined
}

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; element?: z.ZodType; shape?: z.ZodRawShape }
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def

/** The object or array schema under optional, default, nullable and pipe wrappers, if any. */
function container(schema: z.ZodType): Def | undefined {
  let def = defOf(schema)
  for (let i = 0; i < 8; i++) {
    if (def.type === 'object' || def.type === 'array') return def
    const inner = def.innerType ?? def.in
    if (!inner) return undefined
    def = defOf(inner)
  }
  return undefined
}

/**
 * `input` with every null given for an optional field left out, in nested objects and arrays of
 * objects too (never inside free-form JSON): strict-mode models send null for every optional
 * argument they do not mean to give, so null reads as absent wherever absent is allowed. A null
 * for a required field stays, and fails as the wrong type. The input itself is not changed.
 */
export function nullsAsAbsent(schema: z.ZodType, input: unknown): unknown {
  if (typeof input !== 'object' || input === null) return input
  const def = container(schema)
  if (def?.type === 'array' && Array.isArray(input)) return input.map((v) => nullsAsAbsent(def.element!, v))
  if (def?.type !== 'object' || Array.isArray(input)) return input
  const given = input as Record<string, unknown>
  if (!hasNull(given)) return input
  const out: Record<string, unknown> = {}
  // Own enumerable keys in order, as Object.entries gives them, without a pair array per key.
  for (const k in given) {
    if (!Object.hasOwn(given, k)) continue
    const v = given[k]
    const field = def.shape![k] as z.ZodType | undefined
    if (field === undefined) out[k] = v
    else if (v === null && field.safeParse(undefined).success) continue
    else out[k] = nullsAsAbsent(field, v)
  }
  return out
}

/**
 * Whether a null may sit anywhere in `value` (nullsAsAbsent has nothing to do without one): true
 * for one, and for anything nested deeper than MAX_DEPTH, which is not looked into.
 */
function hasNull(value: unknown, depth = 0): boolean {
  if (value === null) return true
  if (typeof value !== 'object') return false
  if (depth > MAX_DEPTH) return true
  if (Array.isArray(value)) return value.some((v) => hasNull(v, depth + 1))
  for (const k in value)
    if (Object.hasOwn(value, k) && hasNull((value as Record<string, unknown>)[k], depth + 1)) return true
  return false
}

/**
 * Parses `input` (undefined reads as {}; null for an optional field reads as absent, see
 * nullsAsAbsent), or throws an AppError naming the first bad field.
 */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const deep = tooDeep(input)
  if (deep !== undefined) {
    const field = fieldName([deep])
    throw new AppError(
      'too_large',
      `${field}: nested more than ${MAX_DEPTH} levels deep; the limit is ${MAX_DEPTH} levels`,
      { field, limit: MAX_DEPTH, unit: 'levels' },
    )
  }
  const r = schema.safeParse(input === undefined ? {} : nullsAsAbsent(schema, input))
  if (r.success) return r.data
  // A misspelt field also makes the field meant missing: naming the unknown one says more.
  const unknown = r.error.issues.find((i) => i.code === 'unrecognized_keys')
  if (unknown) {
    const field = fieldName([...unknown.path, unknown.keys[0]!])
    const known = unknown.path.length === 0 && schema instanceof z.ZodObject ? Object.keys(schema.shape as object) : []
    const expected = known.length > 0 ? `; known fields: ${known.join(', ')}` : ''
    throw new AppError('invalid_request', `${field}: unknown field${expected}`, { field })
  }
  const issue = r.error.issues[0]!
  const field = fieldName(issue.path)
  const params = (issue as { params?: SizeParams }).params
  if (params?.tooLarge) throw tooLarge(field, params.limit, params.size, params.unit)
  throw new AppError('invalid_request', `${field}: ${issue.message}`, { field })
}

/** A string of at most `limit` UTF-8 bytes; longer ones fail as too_large. */
export function text(limit: number) {
  return z.string().superRefine((v, ctx) => {
    const size = Buffer.byteLength(v, 'utf8')
    if (size > limit)
      ctx.addIssue({
        code: 'custom',
        message: `must be at most ${limit} bytes`,
        params: { tooLarge: true, limit, size, unit: 'bytes' },
      })
  })
}

/** A list of at most `limit` items; longer ones fail as too_large. */
export function list<T extends z.ZodType>(item: T, limit: number) {
  return z.array(item).superRefine((v, ctx) => {
    if (v.length > limit)
      ctx.addIssue({
        code: 'custom',
        message: `must have at most ${limit} items`,
        params: { tooLarge: true, limit, size: v.length, unit: 'items' },
      })
  })
}
