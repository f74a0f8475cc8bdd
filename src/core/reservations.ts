// File reservations: an agent announces, for a TTL, the files it is about to change, as glob
// patterns (src/shared/globs.ts), exclusive or shared. Two reservations conflict when their
// patterns can match a common path, they belong to different agents, and either is exclusive.
// Overlap is decided here, exactly (an automata product), over the reservations as read at a
// version of the room (meta.rver); lua/reserveFiles.lua writes only while that version still
// holds, so two agents reserving at once never both win: the later one decides again against
// what the first wrote. Each new pattern takes a fencing token from the counter locks use.
import { decode } from '../shared/msgpack.js'
import { z } from 'zod'
import type { CoreSettings } from './settings.js'
import type { StoredReservation } from '../store/records.js'
import type { Store } from '../store/store.js'
import { AppError } from '../shared/errors.js'
import { GLOB_MAX_LENGTH, GlobError, matches, overlap, parseGlob, type Glob } from '../shared/globs.js'
import { requireAgent, type Caller } from './fields.js'
import { callOptions } from './records.js'
import { iso } from '../shared/time.js'
import { parse } from '../shared/validate.js'

/** Most patterns one reserve_files or release_files call takes. */
export const PATTERNS_PER_CALL = 100
/** Most paths one check (the commit guard) takes. */
export const PATHS_PER_CHECK = 10_000
/** How often reserve_files decides again when another reservation landed meanwhile. */
const ATTEMPTS = 8

export interface Reservation {
  pattern: string
  agent: string
  exclusive: boolean
  /** Fencing token: grows with every new reservation or lock in the room; kept by a renewal. */
  token: number
  reason?: string
  acquired_at: string
  expires_at: string
  /** Whole seconds left, rounded up. */
  expires_in_s: number
}

/** A path of a check that another agent's reservation covers. */
export interface PathConflict {
  path: string
  holder: string
  pattern: string
  exclusive: boolean
  token: number
  reason?: string
  expires_at: string
  expires_in_s: number
}

/** A glob pattern, checked by the glob parser (its message names what is wrong). */
const pattern = z
  .string()
  .max(GLOB_MAX_LENGTH, `must be at most ${GLOB_MAX_LENGTH} characters`)
  .superRefine((v, ctx) => {
    try {
      parseGlob(v)
    } catch (e) {
      if (!(e instanceof GlobError)) throw e
      ctx.addIssue({ code: 'custom', message: e.message })
    }
  })

const patterns = z
  .array(pattern)
  .min(1, 'must name at least one pattern')
  .max(PATTERNS_PER_CALL, `must be at most ${PATTERNS_PER_CALL} patterns`)

/** A repository-relative path as git prints it. */
const path = z
  .string()
  .min(1, 'must not be empty')
  .max(4096, 'must be at most 4096 characters')
  .refine(
    (p) => !p.startsWith('/') && !p.endsWith('/') && !p.split('/').some((s) => s === '' || s === '.' || s === '..'),
    {
      message:
        'must be a path relative to the repository root, as git prints it (no leading "/", no "." or ".." segment)',
    },
  )

export function reservationSchemas(s: CoreSettings) {
  const maxS = Math.floor(s.reservationTtlMaxMs / 1000)
  return {
    reserve: z.object({
      patterns,
      exclusive: z.boolean().default(true),
      ttl_s: z
        .number()
        .int('must be a whole number of seconds')
        .min(1, 'must be at least 1')
        .max(maxS, `must be at most ${maxS} (the reservation TTL limit)`)
        .optional(),
      reason: z.string().max(200, 'must be at most 200 characters').optional(),
    }),
    release: z.object({ patterns: patterns.optional() }),
    list: z.object({ agent: z.string().max(128, 'must be at most 128 characters').optional() }),
    check: z.object({
      paths: z.array(path).max(PATHS_PER_CHECK, `must be at most ${PATHS_PER_CHECK} paths`),
    }),
  }
}

function toReservation(raw: StoredReservation, now: number): Reservation {
  const out: Reservation = {
    pattern: raw.pattern,
    agent: raw.agent,
    exclusive: raw.exclusive,
    token: raw.token,
    acquired_at: iso(raw.acquired_at),
    expires_at: iso(raw.expires_at),
    expires_in_s: Math.max(0, Math.ceil((raw.expires_at - now) / 1000)),
  }
  if (raw.reason !== undefined) out.reason = raw.reason
  return out
}

const byPattern = (a: Reservation, b: Reservation) =>
  a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0

/** Parsed globs, kept per pattern text: a guard check matches the same few patterns many times. */
const GLOB_CACHE_MAX = 4096
const globCache = new Map<string, Glob>()
function globOf(p: string): Glob {
  let g = globCache.get(p)
  if (g) return g
  g = parseGlob(p)
  if (globCache.size >= GLOB_CACHE_MAX) globCache.clear()
  globCache.set(p, g)
  return g
}

export class Reservations {
  readonly schemas: ReturnType<typeof reservationSchemas>

  constructor(
    private readonly store: Store,
    private readonly settings: CoreSettings,
  ) {
    this.schemas = reservationSchemas(settings)
  }

  private async read(c: Caller) {
    // A read never takes the idempotency key: it belongs to the write that follows.
    const opts = { ...callOptions(c), idempotencyKey: undefined }
    const r = await this.store.room('listReservations', c.room, opts, [], [this.key(c)])
    const rows = r.rows.map((raw) => decode(raw) as StoredReservation)
    return { rows, now: r.now, version: r.version, unread: r.unread }
  }

  private key(c: Caller): string {
    return this.store.keys.reservations(c.room)
  }

  /**
   * Reserves the patterns for the caller, all or none. A conflict names, for every pattern that
   * overlaps another agent's reservation (either side exclusive), the holder, its pattern, a path
   * both match, and when it expires; nothing is written then.
   */
  async reserve(c: Caller, input: unknown) {
    const agent = requireAgent(c)
    const v = parse(this.schemas.reserve, input)
    const wanted = [...new Set(v.patterns)]
    const ttlMs = v.ttl_s === undefined ? this.settings.reservationTtlDefaultMs : v.ttl_s * 1000
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const { rows, now, version } = await this.read(c)
      const conflicts = []
      for (const p of wanted) {
        const mine = globOf(p)
        for (const row of rows) {
          if (row.agent === agent || (!v.exclusive && !row.exclusive)) continue
          const example = overlap(mine, globOf(row.pattern))
          if (example === null) continue
          const left = Math.max(1, Math.ceil((row.expires_at - now) / 1000))
          conflicts.push({
            pattern: p,
            holder: row.agent,
            held_pattern: row.pattern,
            held_exclusive: row.exclusive,
            example,
            expires_at: iso(row.expires_at),
            expires_in_s: left,
            ...(row.reason === undefined ? {} : { reason: row.reason }),
          })
        }
      }
      if (conflicts.length > 0) {
        const first = conflicts[0]!
        const more = conflicts.length > 1 ? ` (and ${conflicts.length - 1} more conflicts in details.conflicts)` : ''
        throw new AppError(
          'conflict',
          `patterns: "${first.pattern}" overlaps "${first.held_pattern}", reserved ` +
            `${first.held_exclusive ? 'exclusively' : 'shared'} by ` +
            (`${first.holder} until ${first.expires_at} (${first.expires_in_s} more s; both match ` +
              `"${first.example}")${more}; `) +
            'wait for its release or expiry, reserve other files, or ask the holder',
          { field: 'patterns', holder: first.holder, expires_at: first.expires_at, conflicts },
        )
      }
      const r = await this.store.room(
        'reserveFiles',
        c.room,
        callOptions(c),
        [String(version), ttlMs, this.settings.reservationsPerRoom, v.exclusive ? '1' : '0', v.reason ?? '', ...wanted],
        [this.key(c)],
      )
      if ('retry' in r) continue
      return {
        reservations: r.reservations.map((x) => toReservation(x, r.now)).sort(byPattern),
        unread: r.unread,
      }
    }
    throw new AppError(
      'unavailable',
      `patterns: the room's reservations changed ${ATTEMPTS} times while this call decided; call again`,
      { field: 'patterns', retry_after_s: 1 },
    )
  }

  /** Releases the caller's reservations of the patterns, or all of them; not_held lists what it did not hold. */
  async release(c: Caller, input: unknown = {}) {
    requireAgent(c)
    const v = parse(this.schemas.release, input)
    const args = v.patterns === undefined ? (['all'] as const) : (['some', ...new Set(v.patterns)] as const)
    const r = await this.store.room('releaseFiles', c.room, callOptions(c), [...args], [this.key(c)])
    return { released: [...r.released].sort(), not_held: [...r.not_held].sort(), unread: r.unread }
  }

  /** The live reservations (of one agent, with `agent`), sorted by pattern, then holder. */
  async list(c: Caller, input: unknown = {}) {
    const v = parse(this.schemas.list, input)
    const { rows, now, unread } = await this.read(c)
    const reservations = rows
      .filter((r) => v.agent === undefined || r.agent === v.agent)
      .map((r) => toReservation(r, now))
      .sort(byPattern)
    return { reservations, unread }
  }

  /**
   * Which of `paths` another agent holds exclusively (the commit guard): each such path with the
   * first reservation that covers it. The caller's own reservations and shared ones never
   * conflict. One read of the room, then matching here: linear in paths × patterns.
   */
  async check(c: Caller, input: unknown) {
    const agent = requireAgent(c)
    const v = parse(this.schemas.check, input)
    const { rows, now, unread } = await this.read(c)
    const held = rows
      .filter((r) => r.exclusive && r.agent !== agent)
      .sort((a, b) => (a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0))
      .map((r) => ({ row: r, glob: globOf(r.pattern) }))
    const conflicts: PathConflict[] = []
    for (const p of v.paths) {
      const hit = held.find((h) => matches(h.glob, p))
      if (!hit) continue
      const { row } = hit
      conflicts.push({
        path: p,
        holder: row.agent,
        pattern: row.pattern,
        exclusive: true,
        token: row.token,
        ...(row.reason === undefined ? {} : { reason: row.reason }),
        expires_at: iso(row.expires_at),
        expires_in_s: Math.max(1, Math.ceil((row.expires_at - now) / 1000)),
      })
    }
    return { checked: v.paths.length, conflicts, unread }
  }
}
