// Schemas of the identifiers every layer parses (rooms, teams, agents, idempotency keys, event
// types, short names): one definition, so the API, the MCP tools, the dashboard's forms, auth and the room
// model accept and refuse the same values with the same messages.
import { z } from 'zod'
import { ROOM_ID } from './room-name.js'

// eslint-disable-next-line no-control-regex -- refusing control characters is the point
export const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/
/**
 * A lone UTF-16 surrogate (with the u flag a pair is one code point and does not match). JSON may
 * carry one (`"\ud800"`), and encoding it as UTF-8 makes it U+FFFD: distinct ids would collapse
 * into one, so identifiers must be well-formed.
 */
export const LONE_SURROGATE = /[\ud800-\udfff]/u
export const WELL_FORMED = 'must be well-formed Unicode (no lone surrogate such as \\ud800)'

export const roomId = z
  .string()
  .regex(ROOM_ID, 'must be 1-64 characters: letters, digits, "_", "." or "-", starting with a letter or digit')
export const teamId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'must be 1-64 letters, digits, "_" or "-"')
export const agentId = z
  .string()
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters')
  .regex(NO_CONTROL, 'must not contain control characters')
  .refine((v) => !LONE_SURROGATE.test(v), WELL_FORMED)
export const idempotencyKey = z
  .string()
  .min(1)
  .max(128)
  .regex(NO_CONTROL, 'must not contain control characters')
  .refine((v) => !LONE_SURROGATE.test(v), WELL_FORMED)
export const isRoomId = passes(roomId)
export const isAgentId = passes(agentId)
export const isIdempotencyKey = passes(idempotencyKey)
/** An event's type: the room model's posts and the webhook filters that select them by type. */
export const EVENT_TYPE = /^[a-z0-9_.-]{1,32}$/
/** A short single-line name (lock names, var names, context keys). */
/** How many distinct values a `passes` check remembers before it starts over. */
const REMEMBERED = 1024

/**
 * Whether a string passes `schema`, for an identifier checked on every call: the strings that
 * passed are remembered (up to REMEMBERED, then it starts over), since an agent sends the same ids
 * call after call. For a value that fails, parse it with `schema` to learn why.
 */
export function passes(schema: z.ZodType<string>): (value: string) => boolean {
  const ok = new Set<string>()
  return (value) => {
    if (ok.has(value)) return true
    if (!schema.safeParse(value).success) return false
    if (ok.size >= REMEMBERED) ok.clear()
    ok.add(value)
    return true
  }
}

export const name = (max: number) =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .regex(NO_CONTROL, 'must not contain control characters')
    .refine((v) => !LONE_SURROGATE.test(v), WELL_FORMED)

/**
 * A short name or label, stored trimmed. "Not blank" is a pattern rather than .trim().min(1), so
 * the OpenAPI document (generated from this schema) refuses a blank value just as the API does.
 */
export const label = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .regex(/\S/, 'must not be blank')
    .transform((v) => v.trim())

/** The most characters of a room's name. */
export const ROOM_NAME_MAX = 100
/** A room's display name: the API's `name`, the create_room tool's and the dashboard's create form's. */
export const roomName = label(ROOM_NAME_MAX)

/**
 * Agent ids as a person or a command line writes them: comma-separated, blanks around each
 * ignored; at least one, at most `max`, each an agentId, none twice. Parses to the list. A refusal
 * quotes the id it is about, so it is found in what was typed.
 */
export const agentIdList = (max: number) =>
  z.string().transform((raw, ctx): string[] => {
    const ids = raw
      .split(',')
      .map((a) => a.trim())
      .filter((a) => a !== '')
    const refuse = (message: string) => {
      ctx.addIssue({ code: 'custom', message })
      return z.NEVER
    }
    if (ids.length === 0) return refuse('give at least one, e.g. "planner, backend"')
    if (ids.length > max) return refuse(`at most ${max} at once (${ids.length} given)`)
    for (const a of ids) {
      const v = agentId.safeParse(a)
      if (!v.success) return refuse(`${JSON.stringify(a.slice(0, 40))} ${v.error.issues[0]!.message}`)
    }
    const dup = ids.find((a, i) => ids.indexOf(a) !== i)
    if (dup !== undefined) return refuse(`${JSON.stringify(dup)} is listed twice; every agent needs its own id`)
    return ids
  })

/**
 * The credential a write was made with, as the record keeps it and read APIs return it (`via`):
 * a team key, a room invite key, an OAuth grant (a connected agent) or a person signed in to the
 * dashboard. It is made by the service from the verified credential, never from call arguments,
 * so no credential can name another.
 */
export interface Via {
  kind: 'key' | 'invite' | 'grant' | 'person'
  /** The key id, invite key id, grant id or user id. */
  id: string
  /** The key's or invite's label, the connected agent's client name, the person's name. */
  label?: string
  /** User id of the person behind the credential: who minted the key or consented to the grant. */
  person?: string
}

/** A stored `via` (the JSON text a script kept) as read APIs return it; undefined when absent or unreadable. */
export function viaOf(stored: unknown): Via | undefined {
  if (typeof stored !== 'string' || stored === '') return undefined
  try {
    const v = JSON.parse(stored) as Via
    return typeof v === 'object' && v !== null && typeof v.id === 'string' ? v : undefined
  } catch {
    return undefined
  }
}
