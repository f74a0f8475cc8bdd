// Input validation for the domain core. Every operation parses its input with a zod schema; the
// first problem becomes an AppError that names the field: `invalid_request`, or `too_large` for a
// size limit (with the limit and the size sent).
import { z } from 'zod'
import { AppError, tooLarge } from './errors.js'

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

/** Parses `input`, or throws an AppError naming the first bad field. */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input ?? {})
  if (r.success) return r.data
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
    if (size > limit) ctx.addIssue({ code: 'custom', message: `must be at most ${limit} bytes`, params: { tooLarge: true, limit, size, unit: 'bytes' } })
  })
}

/** A list of at most `limit` items; longer ones fail as too_large. */
export function list<T extends z.ZodType>(item: T, limit: number) {
  return z.array(item).superRefine((v, ctx) => {
    if (v.length > limit) ctx.addIssue({ code: 'custom', message: `must have at most ${limit} items`, params: { tooLarge: true, limit, size: v.length, unit: 'items' } })
  })
}
