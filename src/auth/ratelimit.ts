// The per-team rate limit: a rolling window in one Lua call (lua/rateLimit-1.lua), exact across nodes because
// the state lives in Redis. Every authenticated HTTP and MCP call passes through check(). A node
// keeps at most one rate call per team in flight; the calls of that team that arrive meanwhile
// go as one batch when it returns. An idle team's call goes at once; under load the round trips
// per call fall towards one, and the outcome is the one n single calls would have had.
//
// The limit fails open: when the team's rate key cannot be written (its Redis shard unreachable
// or failing over, Redis full) or does not answer within RATE_WAIT_MS, the call goes through
// unlimited, without RateLimit-* headers, and so do the team's next calls, at once, while one
// of them every OPEN_MS asks the store again in the background. A limiter must not be what takes
// the rooms down: a room on a healthy shard keeps working while the shard of its team's rate key
// fails over, and reads go on while Redis is full. One log line when a team's limit turns off, one
// when it is back.
import { AppError } from '../shared/errors.js'
import type { Store } from '../store/store.js'

export const RATE_PERIOD_MS = 60_000
/** How long a call waits for its rate decision before it goes through unlimited (ms). */
export const RATE_WAIT_MS = 1000
/** While a team's limit is off, how often one of its calls asks the store again, in the background (ms). */
export const OPEN_MS = 1000

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err))

export interface RateLog {
  warn(obj: object, msg: string): void
  info(obj: object, msg: string): void
}

export interface RateDecision {
  allowed: boolean
  limit: number
  remaining: number
  /** Seconds until the full allowance is back (RateLimit-Reset). */
  resetS: number
  /** Seconds to wait before the next call is allowed (Retry-After); 0 when allowed. */
  retryAfterS: number
  /** The limit could not be checked (its store failed) and the call went through: no RateLimit-* headers. */
  unchecked?: true
}

interface Waiter {
  resolve(d: RateDecision): void
  reject(err: unknown): void
}

/** The settings the limiter reads (src/config.ts has them, with their environment names). */
export interface RateLimitSettings {
  rateLimitPerMin: number
  /** Per-team limits that replace rateLimitPerMin (tests change them while a node runs). */
  rateLimitOverrides: Map<string, number>
}

export class RateLimiter {
  /** Per team: the calls waiting for the next batch (present while a batch is in flight). */
  private readonly waiting = new Map<string, Waiter[]>()
  /** Teams whose limit is off (their rate key failed), until when (ms). */
  private readonly open = new Map<string, number>()

  constructor(
    private readonly store: Store,
    private readonly settings: RateLimitSettings,
    private readonly log: RateLog = { warn: () => {}, info: () => {} },
  ) {}

  limitFor(teamId: string): number {
    return this.settings.rateLimitOverrides.get(teamId) ?? this.settings.rateLimitPerMin
  }

  check(teamId: string): Promise<RateDecision> {
    const until = this.open.get(teamId)
    if (until !== undefined) {
      // Off: every call goes through at once; one asks the store again every OPEN_MS, in the background.
      if (until <= Date.now()) {
        this.open.set(teamId, Date.now() + OPEN_MS)
        this.ask(teamId).then(
          () => this.closed(teamId),
          (err: unknown) => (this.isStoreFailure(err) ? this.opened(teamId, messageOf(err)) : undefined),
        )
      }
      return Promise.resolve(this.unchecked(teamId))
    }
    return new Promise((resolve, reject) => {
      let settled = false
      const timer = setTimeout(() => {
        settled = true
        this.opened(teamId, `no rate decision within ${RATE_WAIT_MS} ms`)
        resolve(this.unchecked(teamId))
      }, RATE_WAIT_MS)
      this.ask(teamId).then(
        (d) => {
          clearTimeout(timer)
          if (settled) return this.closed(teamId)
          resolve(d)
        },
        (err: unknown) => {
          clearTimeout(timer)
          if (!this.isStoreFailure(err)) return settled ? undefined : reject(err)
          this.opened(teamId, messageOf(err))
          if (!settled) resolve(this.unchecked(teamId))
        },
      )
    })
  }

  /** One call's decision, batched with the team's other calls of this tick. */
  private ask(teamId: string): Promise<RateDecision> {
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(teamId)
      if (queue) queue.push({ resolve, reject })
      else void this.send(teamId, [{ resolve, reject }])
    })
  }

  private isStoreFailure(err: unknown): boolean {
    return err instanceof AppError && (err.code === 'unavailable' || err.code === 'store_full')
  }

  private closed(teamId: string): void {
    if (this.open.delete(teamId))
      this.log.info({ team: teamId }, "rate limit store answers again; the team's limit applies")
  }

  private unchecked(teamId: string): RateDecision {
    const limit = this.limitFor(teamId)
    return { allowed: true, limit, remaining: limit, resetS: 0, retryAfterS: 0, unchecked: true }
  }

  private opened(teamId: string, reason: string): void {
    const was = this.open.has(teamId)
    this.open.set(teamId, Date.now() + OPEN_MS)
    if (!was)
      this.log.warn(
        { team: teamId, reason },
        `rate limit store failed; the team's calls go unlimited until it answers (checked again every ${OPEN_MS} ms)`,
      )
  }

  /** Sends one batch; calls that arrive meanwhile wait and form the next one. */
  private async send(teamId: string, batch: Waiter[]): Promise<void> {
    this.waiting.set(teamId, [])
    await this.decide(teamId, batch)
    const next = this.waiting.get(teamId)!
    if (next.length > 0) void this.send(teamId, next)
    else this.waiting.delete(teamId)
  }

  private async decide(teamId: string, batch: Waiter[]): Promise<void> {
    const limit = this.limitFor(teamId)
    try {
      const r = await this.store.run(
        'rateLimit',
        [this.store.keys.team(teamId).rate],
        [limit, RATE_PERIOD_MS, batch.length],
      )
      const allowed = r.allowed
      const resetS = Math.ceil(r.reset_ms / 1000)
      batch.forEach((w, i) => {
        w.resolve(
          i < allowed
            ? { allowed: true, limit, remaining: r.remaining + (allowed - 1 - i), resetS, retryAfterS: 0 }
            : { allowed: false, limit, remaining: 0, resetS, retryAfterS: Math.ceil(r.retry_after_ms / 1000) },
        )
      })
    } catch (err) {
      for (const w of batch) w.reject(err)
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
