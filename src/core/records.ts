// Decoding of stored records. Scripts store msgpack with times in epoch milliseconds; the core
// hands out the same records with ISO-8601 times, the form agents and integrators read best.
import { decode } from '../shared/msgpack.js'
import type { CallOptions } from '../store/store.js'
import type { Caller } from './fields.js'
import { agentId, idempotencyKey, isAgentId, isIdempotencyKey } from '../shared/fields.js'
import { AppError } from '../shared/errors.js'
import { withIsoTimes } from '../shared/time.js'

/** Decodes a raw msgpack row; turns every `*_at` epoch-ms field into an ISO string. */
export function decodeRecord<T>(raw: Buffer | Uint8Array): T {
  return withIsoTimes(decode(raw) as Record<string, unknown>) as T
}

/** The store options for a caller; a given agent id is validated here, once for every operation. */
export function callOptions(c: Caller, touch = true): CallOptions {
  if (c.agent !== undefined && c.agent !== '' && !isAgentId(c.agent)) {
    const r = agentId.safeParse(c.agent)
    throw new AppError('invalid_request', `agent_id: ${r.error?.issues[0]?.message}`, { field: 'agent_id' })
  }
  if (c.idempotencyKey !== undefined && !isIdempotencyKey(c.idempotencyKey)) {
    const r = idempotencyKey.safeParse(c.idempotencyKey)
    throw new AppError('invalid_request', `idempotency_key: ${r.error?.issues[0]?.message}`, {
      field: 'idempotency_key',
    })
  }
  return { agent: c.agent, idempotencyKey: c.idempotencyKey, touch, budget: c.budget }
}

/** A map a script returned: Lua packs an empty table as a list. */
export const luaMap = <V>(v: unknown): Record<string, V> => (Array.isArray(v) ? {} : (v as Record<string, V>))

/** Splits interleaved rows [a, b, a, b, ...] into pairs. */
export function pairs(rows: Buffer[]): [Buffer, Buffer][] {
  const out: [Buffer, Buffer][] = []
  for (let i = 0; i + 1 < rows.length; i += 2) out.push([rows[i]!, rows[i + 1]!])
  return out
}
