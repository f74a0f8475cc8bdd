// The per-team rate limit: GCRA in one Lua call (lua/rateLimit-1.lua), exact across nodes because
// the state lives in Redis. Every authenticated HTTP and MCP call passes through check().
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

export class RateLimiter {
  constructor(
    private readonly store: Store,
    private readonly settings: Settings,
  ) {}

  limitFor(teamId: string): number {
    return this.settings.rateLimitOverrides.get(teamId) ?? this.settings.rateLimitPerMin
  }

  async check(teamId: string): Promise<RateDecision> {
    const limit = this.limitFor(teamId)
    const r = await this.store.run('rateLimit', [this.store.keys.team(teamId).rate], [limit, RATE_PERIOD_MS])
    return {
      allowed: r.allowed as boolean,
      limit,
      remaining: Math.max(0, r.remaining as number),
      resetS: Math.ceil((r.reset_ms as number) / 1000),
      retryAfterS: Math.ceil((r.retry_after_ms as number) / 1000),
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
