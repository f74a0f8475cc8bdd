// The per-team rate limit: a rolling window in one Lua call (lua/rateLimit-1.lua), exact across nodes because
// the state lives in Redis. Every authenticated HTTP and MCP call passes through check(). A node
// keeps at most one rate call per team in flight; the calls of that team that arrive meanwhile
// go as one batch when it returns. An idle team's call goes at once; under load the round trips
// per call fall towards one, and the outcome is the one n single calls would have had.
import type { Settings } from '../config.js'
import type { Store } from '../store/store.js'

export const RATE_PERIOD_MS = 60_000

export interface RateDecision {
  allowed: boolean
  limit: number
  remaining: number
  /** Seconds until the full allowance is back (RateLimit-Reset). */
  resetS: number
  /** Seconds to wait before the next call is allowed (Retry-After); 0 when allowed. */
  retryAfterS: number
}

interface Waiter {
  resolve(d: RateDecision): void
  reject(err: unknown): void
}

export class RateLimiter {
  /** Per team: the calls waiting for the next batch (present while a batch is in flight). */
  private readonly waiting = new Map<string, Waiter[]>()

  constructor(
    private readonly store: Store,
    private readonly settings: Settings,
  ) {}

  limitFor(teamId: string): number {
    return this.settings.rateLimitOverrides.get(teamId) ?? this.settings.rateLimitPerMin
  }

  check(teamId: string): Promise<RateDecision> {
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(teamId)
      if (queue) queue.push({ resolve, reject })
      else void this.send(teamId, [{ resolve, reject }])
    })
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
      const r = await this.store.run('rateLimit', [this.store.keys.team(teamId).rate], [limit, RATE_PERIOD_MS, batch.length])
      const allowed = r.allowed as number
      const resetS = Math.ceil((r.reset_ms as number) / 1000)
      batch.forEach((w, i) => {
        w.resolve(
          i < allowed
            ? { allowed: true, limit, remaining: (r.remaining as number) + (allowed - 1 - i), resetS, retryAfterS: 0 }
            : { allowed: false, limit, remaining: 0, resetS, retryAfterS: Math.ceil((r.retry_after_ms as number) / 1000) },
        )
      })
    } catch (err) {
      for (const w of batch) w.reject(err)
    }
  }

  /** The RateLimit-* headers of a decision (and Retry-After when refused). */
  static headers(d: RateDecision): Record<string, string> {
    const h: Record<string, string> = {
      'RateLimit-Limit': String(d.limit),
      'RateLimit-Remaining': String(d.remaining),
      'RateLimit-Reset': String(d.resetS),
    }
    if (!d.allowed) h['Retry-After'] = String(Math.max(1, d.retryAfterS))
    return h
  }
}
