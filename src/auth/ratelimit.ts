// The API's rate limits (docs/http-api.md#rate-limit): a team's calls per rolling minute (its
// ceiling), and each credential's (a team key, a room invite key, an OAuth grant, a person on the
// dashboard) inside it. Both are rolling windows in Redis (lua/includes/rateWindow.lua), so they
// hold across nodes; a call needs room in both.
//
// Leases: a node does not ask Redis per call. It leases a chunk of each window it needs
// (chunkOf: a hundredth of the limit, at least one call) in one script (lua/leaseRate-2.lua),
// spends it locally, and leases the next chunk in the background once half of one is left, so a
// call in steady state makes no Redis call for its limit. Leased calls count in Redis when they are
// leased, spent or not; nothing unspent goes back, and what a node holds is dropped a period after
// its lease. A window full when leased is known full here until Redis said it has room again: such
// calls are refused without asking. The slack: a node holds less than two chunks of a window, so
// in any rolling minute a window admits at most 2 x chunk x (nodes) calls over its limit; a limit
// under 200 has chunks of one call and no prefetch, and is exact.
//
// A call with nothing left to spend waits for a lease: the calls of a team that arrive meanwhile
// wait for the same one (one lease at a time per team), which asks for what they need. The wait
// counts in the call's time waiting for Redis (src/shared/wait-budget.ts): the lease is given what
// the call that starts it has left of the command deadline (REDIS_COMMAND_TIMEOUT_MS), a call that
// has less left than the lease stops waiting at its own end, and one with nothing left is refused
// as unavailable at once. When that lease fails at once (its shard refusing, Redis full), the calls
// that waited go through unlimited; when it timed out or took a quarter of the deadline or more (a
// stalled Redis), they answer its failure (unavailable), as any call whose Redis fails does,
// rather than wait again for their own scripts.
//
// Then the limit fails open: the team's next calls go through at once, unlimited and without
// RateLimit-* headers, while one of them every OPEN_MS asks the store again in the background. A
// limiter must not be what takes the rooms down: a room on a healthy shard keeps working while the
// shard of its team's rate keys fails over, and reads go on while Redis is full. One log line when
// a team's limit turns off, one when it is back.
import { AppError } from '../shared/errors.js'
import { leftOf, type WaitBudget } from '../shared/wait-budget.js'
import { unavailable } from '../store/health.js'
import type { Store } from '../store/store.js'
import type { RateWindow } from '../store/script-map/keyed.js'

export const RATE_PERIOD_MS = 60_000
/** While a team's limit is off, how often one of its calls asks the store again, in the background (ms). */
export const OPEN_MS = 1000

/** The calls one lease of a window takes: a hundredth of its limit, at least one. */
export const chunkOf = (limit: number): number => Math.max(1, Math.floor(limit / 100))

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err))

export interface RateLog {
  warn(obj: object, msg: string): void
  info(obj: object, msg: string): void
}

/** Which limit a decision reports: the team's ceiling, or the credential's own. */
export type RateScope = 'team' | 'credential'

export interface RateDecision {
  allowed: boolean
  /** The limit reported: when refused, the one that refused; when allowed, the one with less left. */
  scope: RateScope
  limit: number
  remaining: number
  /** Seconds until the full allowance is back (RateLimit-Reset). */
  resetS: number
  /** Seconds to wait before the next call is allowed (Retry-After); 0 when allowed. */
  retryAfterS: number
  /** The limit could not be checked (its store failed) and the call went through: no RateLimit-* headers. */
  unchecked?: true
}

/** The settings the limiter reads (src/config.ts has them, with their environment names). */
export interface RateLimitSettings {
  /** A team's ceiling: calls per rolling minute, all its credentials together. */
  rateLimitPerMin: number
  /** Per-team ceilings that replace rateLimitPerMin (tests change them while a node runs). */
  rateLimitOverrides: Map<string, number>
  /** Each credential's own calls per rolling minute, inside its team's ceiling; 0: none below the ceiling. */
  rateLimitPerCredentialPerMin: number
  /** The store's command deadline (REDIS_COMMAND_TIMEOUT_MS): tells a stalled lease from a refused one. */
  redisCommandTimeoutMs?: number | undefined
}

/** What this node holds of one rate window. */
interface Pool {
  readonly limit: number
  readonly chunk: number
  /** A background lease is due once `held` is at most this (-1: never; chunks of one are not prefetched). */
  readonly low: number
  /** Calls leased and not spent. */
  held: number
  /** When `held` is dropped (ms): a period after the lease that brought the last of it. */
  until: number
  /** The window's allowance left after the last lease, as Redis said it (others' calls since are not seen). */
  left: number
  /** When the window's full allowance is back, as of the last lease (ms). */
  resetAt: number
  /** The window has no room before then (ms): calls are refused without asking. */
  fullUntil: number
}

interface Credential {
  readonly id: string
  /** Its own window; undefined while its limit is not below the team's (the team's window covers it). */
  pool: Pool | undefined
}

interface Waiter {
  cred: Credential
  /** The call's time waiting for Redis; the wait for the lease is added to it when it ends. */
  budget: WaitBudget | undefined
  /** Date.now() when it began to wait. */
  since: number
  /** Ends the wait at the call's own end, when that comes before the lease's. */
  timer: NodeJS.Timeout | undefined
  resolve(d: RateDecision): void
  reject(err: unknown): void
}

/** Ends a wait: its time counts in the call's budget. */
function done(w: Waiter): void {
  if (w.timer !== undefined) clearTimeout(w.timer)
  if (w.budget !== undefined) w.budget.waitedMs += Date.now() - w.since
}

/** This node's part of one team's limits. */
interface Team {
  readonly id: string
  pool: Pool
  readonly creds: Map<string, Credential>
  /** Calls waiting for a lease, in arrival order. */
  waiting: Waiter[]
  /** A lease of the team's is under way. */
  leasing: boolean
  /** When the lease under way times out (Date.now() ms; Infinity without a command deadline). */
  leaseEnds: number
  /** While the limit is off (its store failed): when a call next asks the store again (ms). */
  openUntil: number | undefined
}

function newPool(limit: number): Pool {
  const chunk = chunkOf(limit)
  return {
    limit,
    chunk,
    low: chunk >= 2 ? Math.floor(chunk / 2) : -1,
    held: 0,
    until: 0,
    left: limit,
    resetAt: 0,
    fullUntil: 0,
  }
}

/** Calls to ask of a window: what the waiting calls lack (at least a chunk), or a chunk when it runs low. */
function wanted(p: Pool, lacking: number, now: number): number {
  if (p.fullUntil > now) return 0
  if (lacking > 0) return Math.max(p.chunk, lacking)
  return p.held <= p.low ? p.chunk : 0
}

function settle(p: Pool, w: RateWindow, sent: number): void {
  p.held += w.granted
  if (w.granted > 0) p.until = sent + RATE_PERIOD_MS
  p.left = w.remaining
  p.resetAt = sent + w.reset_ms
  // The window had room again at Redis' time + retry_ms, at the earliest sent + retry_ms.
  p.fullUntil = w.retry_ms > 0 ? sent + w.retry_ms : 0
}

const secondsUntil = (at: number, now: number) => Math.max(0, Math.ceil((at - now) / 1000))

export class RateLimiter {
  private readonly teams = new Map<string, Team>()
  private nextSweep = Date.now() + RATE_PERIOD_MS

  constructor(
    private readonly store: Store,
    private readonly settings: RateLimitSettings,
    private readonly log: RateLog = { warn: () => {}, info: () => {} },
  ) {}

  /** A team's ceiling (calls per minute). */
  limitFor(teamId: string): number {
    return this.settings.rateLimitOverrides.get(teamId) ?? this.settings.rateLimitPerMin
  }

  /** A credential's own limit in a team of ceiling `teamLimit`: the smaller of the two. */
  credentialLimitFor(teamLimit: number): number {
    const own = this.settings.rateLimitPerCredentialPerMin
    return own > 0 && own < teamLimit ? own : teamLimit
  }

  /**
   * Charges one call of `credential` (credentialOf(principal), or `user:<id>`) to its limits and its
   * team's. Answers at once while this node holds leased calls (the hot path: no Redis call, no
   * promise); otherwise a promise, settled by the next lease. `budget`: the call's time waiting for
   * Redis, which the wait for a lease adds to.
   */
  check(teamId: string, credential: string, budget?: WaitBudget): RateDecision | Promise<RateDecision> {
    const now = Date.now()
    if (now >= this.nextSweep) this.sweep(now)
    const s = this.team(teamId, now)
    if (s.openUntil !== undefined) return this.whileOpen(s, this.cred(s, credential, now), now)
    const c = this.cred(s, credential, now)
    const cp = c.pool
    if (s.pool.held > 0 && (cp === undefined || cp.held > 0)) {
      const d = this.spend(s, c, now)
      if (!s.leasing && (s.pool.held <= s.pool.low || (cp !== undefined && cp.held <= cp.low))) void this.lease(s, c)
      return d
    }
    const refused = this.refusal(s, c, now)
    if (refused) return refused
    const left = leftOf(budget, this.settings.redisCommandTimeoutMs)
    if (left !== undefined && left <= 0) return Promise.reject(unavailable())
    return new Promise((resolve, reject) => {
      const w: Waiter = { cred: c, budget, since: now, timer: undefined, resolve, reject }
      s.waiting.push(w)
      if (!s.leasing) void this.lease(s, c, budget)
      else if (left !== undefined && now + left < s.leaseEnds)
        w.timer = setTimeout(() => {
          const i = s.waiting.indexOf(w)
          if (i < 0) return
          s.waiting.splice(i, 1)
          done(w)
          w.reject(unavailable())
        }, left)
    })
  }

  /** The team's state, its pool renewed when its ceiling changed; held calls past their time dropped. */
  private team(teamId: string, now: number): Team {
    const limit = this.limitFor(teamId)
    let s = this.teams.get(teamId)
    if (s === undefined) {
      s = {
        id: teamId,
        pool: newPool(limit),
        creds: new Map(),
        waiting: [],
        leasing: false,
        leaseEnds: 0,
        openUntil: undefined,
      }
      this.teams.set(teamId, s)
    } else if (s.pool.limit !== limit) s.pool = newPool(limit)
    else if (s.pool.until <= now) s.pool.held = 0
    return s
  }

  private cred(s: Team, id: string, now: number): Credential {
    const limit = this.credentialLimitFor(s.pool.limit)
    let c = s.creds.get(id)
    if (c === undefined) {
      c = { id, pool: undefined }
      s.creds.set(id, c)
    }
    if (limit >= s.pool.limit) c.pool = undefined
    else if (c.pool === undefined || c.pool.limit !== limit) c.pool = newPool(limit)
    else if (c.pool.until <= now) c.pool.held = 0
    return c
  }

  /** Spends one held call of the team's window and of the credential's. */
  private spend(s: Team, c: Credential, now: number): RateDecision {
    s.pool.held--
    const cp = c.pool
    if (cp) cp.held--
    // Each window's allowance as this node knows it: what Redis had left at the last lease, and what is held here.
    const p = cp !== undefined && cp.left + cp.held < s.pool.left + s.pool.held ? cp : s.pool
    return {
      allowed: true,
      scope: p === s.pool ? 'team' : 'credential',
      limit: p.limit,
      remaining: p.left + p.held,
      resetS: secondsUntil(p.resetAt, now),
      retryAfterS: 0,
    }
  }

  /** The refusal of a call that lacks a window's calls while that window is known full; else undefined. */
  private refusal(s: Team, c: Credential, now: number): RateDecision | undefined {
    const cp = c.pool
    const p =
      s.pool.held === 0 && s.pool.fullUntil > now
        ? s.pool
        : cp !== undefined && cp.held === 0 && cp.fullUntil > now
          ? cp
          : undefined
    if (p === undefined) return undefined
    return {
      allowed: false,
      scope: p === s.pool ? 'team' : 'credential',
      limit: p.limit,
      remaining: 0,
      resetS: secondsUntil(p.resetAt, now),
      retryAfterS: Math.max(1, secondsUntil(p.fullUntil, now)),
    }
  }

  /** A call while the team's limit is off: through at once; one every OPEN_MS asks the store again. */
  private whileOpen(s: Team, c: Credential, now: number): RateDecision {
    if (s.openUntil! <= now && !s.leasing) {
      s.openUntil = now + OPEN_MS
      void this.lease(s, c)
    }
    return this.unchecked(s, c)
  }

  private unchecked(s: Team, c: Credential): RateDecision {
    const limit = c.pool?.limit ?? s.pool.limit
    return {
      allowed: true,
      scope: c.pool ? 'credential' : 'team',
      limit,
      remaining: limit,
      resetS: 0,
      retryAfterS: 0,
      unchecked: true,
    }
  }

  /**
   * One lease of the team's window and of `c`'s: what the waiting calls lack, or a chunk of a window
   * that runs low. Then serves the calls that wait, and leases again for those still lacking.
   */
  private async lease(s: Team, c: Credential, budget?: WaitBudget): Promise<void> {
    s.leasing = true
    const sent = Date.now()
    const deadline = this.settings.redisCommandTimeoutMs
    // The lease's own budget, from what the call that starts it has left (the call counts its wait itself).
    const own = budget === undefined ? undefined : { waitedMs: budget.waitedMs }
    const left = leftOf(own, deadline) ?? deadline
    s.leaseEnds = left === undefined ? Infinity : sent + left
    const team = s.pool
    const cp = c.pool
    let mine = 0
    for (const w of s.waiting) if (w.cred === c) mine++
    const wantTeam = wanted(team, s.waiting.length - team.held, sent)
    const wantCred = cp ? wanted(cp, mine - cp.held, sent) : 0
    try {
      const r = await this.store.run(
        'leaseRate',
        [this.store.keys.team(s.id).rate, this.store.keys.credentialRate(s.id, c.id)],
        [RATE_PERIOD_MS, team.limit, wantTeam, cp?.limit ?? 0, wantCred, team.held],
        own,
      )
      settle(team, r.team, sent)
      if (cp && r.cred) settle(cp, r.cred, sent)
    } catch (err) {
      s.leasing = false
      const waiting = s.waiting
      s.waiting = []
      waiting.forEach(done)
      if (!this.isStoreFailure(err)) return waiting.forEach((w) => w.reject(err))
      this.opened(s, messageOf(err))
      // A failure that came at once (a shard refusing, Redis full) lets the calls through, unlimited;
      // one that timed out or took a good part of the command deadline (a stalled Redis) is their
      // answer: their own scripts would wait as long again.
      const took = Date.now() - sent
      const slow = left !== undefined && deadline !== undefined && took >= Math.min(deadline / 4, left)
      for (const w of waiting)
        if (slow) w.reject(err)
        else w.resolve(this.unchecked(s, w.cred))
      return
    }
    s.leasing = false
    this.closed(s)
    this.serve(s)
  }

  /** Serves the waiting calls from what is held, refuses those a full window refuses; leases for the rest. */
  private serve(s: Team): void {
    if (s.waiting.length === 0) return
    const now = Date.now()
    const rest: Waiter[] = []
    for (const w of s.waiting) {
      const cp = w.cred.pool
      if (s.pool.held > 0 && (cp === undefined || cp.held > 0)) {
        done(w)
        w.resolve(this.spend(s, w.cred, now))
      } else {
        const refused = this.refusal(s, w.cred, now)
        if (refused) {
          done(w)
          w.resolve(refused)
        } else rest.push(w)
      }
    }
    s.waiting = rest
    if (rest.length > 0) void this.lease(s, rest[0]!.cred, rest[0]!.budget)
  }

  private isStoreFailure(err: unknown): boolean {
    return err instanceof AppError && (err.code === 'unavailable' || err.code === 'store_full')
  }

  private closed(s: Team): void {
    if (s.openUntil === undefined) return
    s.openUntil = undefined
    this.log.info({ team: s.id }, "rate limit store answers again; the team's limit applies")
  }

  private opened(s: Team, reason: string): void {
    const was = s.openUntil !== undefined
    s.openUntil = Date.now() + OPEN_MS
    if (!was)
      this.log.warn(
        { team: s.id, reason },
        `rate limit store failed; the team's calls go unlimited until it answers (checked again every ${OPEN_MS} ms)`,
      )
  }

  /** Forgets teams and credentials that hold nothing and are not waiting (once a period). */
  private sweep(now: number): void {
    this.nextSweep = now + RATE_PERIOD_MS
    for (const [id, s] of this.teams) {
      for (const [cid, c] of s.creds) if (!c.pool || c.pool.until <= now) s.creds.delete(cid)
      const idle = !s.leasing && s.waiting.length === 0 && s.openUntil === undefined
      if (idle && s.pool.until <= now && s.pool.fullUntil <= now && s.creds.size === 0) this.teams.delete(id)
    }
  }

  /** The RateLimit-* headers of a decision (and Retry-After when refused). */
  static headers(d: RateDecision): Record<string, string> {
    if (d.unchecked) return {}
    const h: Record<string, string> = {
      'RateLimit-Limit': String(d.limit),
      'RateLimit-Remaining': String(d.remaining),
      'RateLimit-Reset': String(d.resetS),
    }
    if (!d.allowed) h['Retry-After'] = String(Math.max(1, d.retryAfterS))
    return h
  }
}
