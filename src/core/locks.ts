// Locks: an exclusive, expiring claim on a named resource (a file, a migration, a deploy). Key
// expiry is the TTL, so a crashed holder never blocks the room for longer than its TTL; every new
// acquisition gets a larger fencing token, so a writer can tell that it lost the lock meanwhile.
// The rules (ownership, limits, tokens) run in lua/acquireLock.lua and releaseLock.lua.
import { decode } from '../shared/msgpack.js'
import { z } from 'zod'
import type { CoreSettings } from './settings.js'
import type { StoredLock } from '../store/records.js'
import type { Store } from '../store/store.js'
import { AppError } from '../shared/errors.js'
import { requireAgent, type Caller } from './fields.js'
import { name } from '../shared/fields.js'
import { callOptions, pairs } from './records.js'
import { withIsoTimes } from '../shared/time.js'
import { parse } from '../shared/validate.js'

export interface Lock {
  name: string
  owner: string
  /** Fencing token: grows with every new acquisition in the room; kept by an extension. */
  token: number
  acquired_at: string
  expires_at: string
  /** Whole seconds left, rounded up. */
  expires_in_s: number
}

export function lockSchemas(s: CoreSettings) {
  const lockName = name(200)
  const maxS = Math.floor(s.lockTtlMaxMs / 1000)
  return {
    acquire: z.object({
      name: lockName,
      // Absent: LOCK_TTL_DEFAULT_S, taken in ms (Locks.acquire), so a test's default may be shorter than a second.
      ttl_s: z
        .number()
        .int('must be a whole number of seconds')
        .min(1, 'must be at least 1')
        .max(maxS, `must be at most ${maxS} (the lock TTL limit)`)
        .optional(),
    }),
    release: z.object({
      name: lockName,
      token: z.number().int().min(1, 'must be the fencing token the lock was acquired with').optional(),
    }),
    /** No input (list_locks' arguments come from here all the same: src/mcp/args.ts). */
    list: z.object({}),
  }
}

export function toLock(lockName: string, raw: StoredLock, now: number): Lock {
  const { owner, token, acquired_at, expires_at } = raw
  const rec = withIsoTimes({ name: lockName, owner, token, acquired_at, expires_at }) as unknown as Omit<
    Lock,
    'expires_in_s'
  >
  return { ...rec, expires_in_s: Math.max(0, Math.ceil((expires_at - now) / 1000)) }
}

/** Lua reports the holder's expiry in epoch ms; callers read ISO times everywhere else. */
async function isoErrors<T>(call: Promise<T>): Promise<T> {
  try {
    return await call
  } catch (err) {
    if (err instanceof AppError && err.details) withIsoTimes(err.details)
    throw err
  }
}

export class Locks {
  readonly schemas: ReturnType<typeof lockSchemas>

  constructor(
    private readonly store: Store,
    private readonly settings: CoreSettings,
  ) {
    this.schemas = lockSchemas(settings)
  }

  /** Takes the lock, or extends it (same token) when the caller holds it already. */
  async acquire(c: Caller, input: unknown) {
    requireAgent(c)
    const v = parse(this.schemas.acquire, input)
    const key = this.store.keys.lock(c.room, v.name)
    const ttlMs = v.ttl_s === undefined ? this.settings.lockTtlDefaultMs : v.ttl_s * 1000
    const r = await isoErrors(
      this.store.room('acquireLock', c.room, callOptions(c), [v.name, ttlMs, this.settings.locksPerRoom], [key]),
    )
    return { lock: toLock(v.name, r.lock, r.now), extended: r.extended, unread: r.unread }
  }

  /**
   * Releases the caller's lock; a free lock answers released: false (releasing twice is safe).
   * `override`: a person (the dashboard, never an agent's tool) releases another's lock, only the
   * acquisition of the token given; `holder` says whose it was.
   */
  async release(c: Caller, input: unknown, opts: { override?: boolean } = {}) {
    requireAgent(c)
    const v = parse(this.schemas.release, input)
    const key = this.store.keys.lock(c.room, v.name)
    const r = await isoErrors(
      this.store.room('releaseLock', c.room, callOptions(c), [v.name, v.token ?? '', opts.override ? '1' : ''], [key]),
    )
    if (!r.released) return { released: false as const, name: v.name, reason: r.reason, unread: r.unread }
    const { lock } = r
    const holder = opts.override ? { holder: lock.owner } : {}
    return { released: true as const, name: v.name, token: lock.token, ...holder, unread: r.unread }
  }

  /** The live locks, sorted by name. */
  async list(c: Caller, input: unknown = {}) {
    parse(this.schemas.list, input)
    const r = await this.store.room('listLocks', c.room, callOptions(c))
    const { now } = r
    const locks = pairs(r.rows)
      .map(([n, raw]) => toLock(n.toString(), decodeRaw(raw), now))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    return { locks, unread: r.unread }
  }
}

/** A stored lock with its epoch-ms times (expires_in_s is computed from them before ISO). */
export function decodeRaw(raw: Buffer): StoredLock {
  return decode(raw) as StoredLock
}
