// Shared vars: small named string values for flags and counters (long text belongs in context).
// Every write bumps the var's version; expected_version makes a write conditional, and increment
// is an atomic counter over decimal strings. Limits and versions are checked in the Lua scripts.
import { z } from 'zod'
import type { CoreSettings } from './settings.js'
import type { Store } from '../store/store.js'
import { type Caller } from './fields.js'
import { name } from '../shared/fields.js'
import { callOptions, decodeRecord, pairs } from './records.js'
import { withIsoTimes } from '../shared/time.js'
import { parse, text } from '../shared/validate.js'

export interface SharedVar {
  name: string
  value: string
  version: number
  updated_by?: string
  updated_at: string
}

/** Largest step of one increment: far below 2^53, so one step never loses precision. */
export const MAX_INCREMENT = 1e12

export function varSchemas(s: CoreSettings) {
  const varName = name(128)
  return {
    set: z.object({
      name: varName,
      value: text(s.varValueBytes),
      expected_version: z.number().int().min(0, 'must be 0 (the var must not exist yet) or a version').optional(),
    }),
    get: z.object({ name: varName }),
    list: z.object({ prefix: z.string().max(128, 'must be at most 128 characters').default('') }),
    increment: z.object({
      name: varName,
      by: z
        .number()
        .int('must be an integer')
        .min(-MAX_INCREMENT, `must be at least -${MAX_INCREMENT}`)
        .max(MAX_INCREMENT, `must be at most ${MAX_INCREMENT}`)
        .default(1),
    }),
  }
}

export function toVar(varName: string, rec: Record<string, unknown>): SharedVar {
  return { name: varName, ...(withIsoTimes(rec) as Omit<SharedVar, 'name'>) }
}

export class Vars {
  readonly schemas: ReturnType<typeof varSchemas>

  constructor(
    private readonly store: Store,
    private readonly settings: CoreSettings,
  ) {
    this.schemas = varSchemas(settings)
  }

  /** Sets the value; with expected_version only when the var is at that version (0: absent). */
  async set(c: Caller, input: unknown) {
    const v = parse(this.schemas.set, input)
    const r = await this.store.room('setVar', c.room, callOptions(c), [
      v.name,
      v.value,
      v.expected_version ?? '',
      this.settings.varsPerRoom,
    ])
    return { var: toVar(v.name, r.var), unread: r.unread }
  }

  async get(c: Caller, input: unknown) {
    const v = parse(this.schemas.get, input)
    const r = await this.store.room('getVar', c.room, callOptions(c), [v.name])
    return { var: toVar(v.name, r.var), unread: r.unread }
  }

  /** Vars whose name starts with `prefix`, sorted by name. */
  async list(c: Caller, input: unknown = {}) {
    const v = parse(this.schemas.list, input)
    const r = await this.store.room('listVars', c.room, callOptions(c), [v.prefix])
    const vars = pairs(r.rows)
      .map(([n, raw]) => ({ name: n.toString(), ...decodeRecord<Omit<SharedVar, 'name'>>(raw) }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    return { vars, unread: r.unread }
  }

  /** Adds `by` (default 1) atomically; an absent var counts from 0. */
  async increment(c: Caller, input: unknown) {
    const v = parse(this.schemas.increment, input)
    const r = await this.store.room('incrementVar', c.room, callOptions(c), [
      v.name,
      String(v.by),
      this.settings.varsPerRoom,
    ])
    return { var: toVar(v.name, r.var), unread: r.unread }
  }
}
