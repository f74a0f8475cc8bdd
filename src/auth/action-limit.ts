// The budgets a person's dashboard actions count against (docs/accounts.md): every form a
// signed-in person posts is charged to their own per-minute budget (DASHBOARD_ACTIONS_PER_MIN, a
// GCRA in lua/rateLimit-1.lua on a key of its own, exact across nodes) and then to their team's
// rate limit, the one its keys and agents share. Reading pages is not charged: a page read runs
// the same reads as the API's snapshot, and a person's open tabs are capped as open streams.
import { AppError } from '../shared/errors.js'
import type { Store } from '../store/store.js'
import { RATE_PERIOD_MS, type RateLimiter } from './ratelimit.js'

export interface ActionLimitSettings {
  dashboardActionsPerMin: number
}

export class ActionLimiter {
  constructor(
    private readonly store: Pick<Store, 'run' | 'keys'>,
    private readonly settings: ActionLimitSettings,
    private readonly team: Pick<RateLimiter, 'check'>,
  ) {}

  /**
   * Charges one action of person `userId` of team `teamId`: first their own budget, then the
   * team's. Throws rate_limited naming the limit that is used up, with when to retry.
   */
  async charge(userId: string, teamId: string): Promise<void> {
    const perMin = this.settings.dashboardActionsPerMin
    const mine = await this.store.run('rateLimit', [this.store.keys.actionRate(userId)], [perMin, RATE_PERIOD_MS, 1])
    if (mine.allowed <= 0) {
      const retry = Math.max(1, Math.ceil(mine.retry_after_ms / 1000))
      throw new AppError(
        'rate_limited',
        `You have sent ${perMin} forms in the last minute, the most one person may (DASHBOARD_ACTIONS_PER_MIN); ` +
          `try again in ${retry} s.`,
        { limit: perMin, retry_after_s: retry },
      )
    }
    const d = await this.team.check(teamId, `user:${userId}`)
    if (d.allowed) return
    const retry = Math.max(1, d.retryAfterS)
    const whose =
      d.scope === 'team'
        ? `Your team's rate limit of ${d.limit} calls per minute (its keys, agents and pages together)`
        : `Your own rate limit of ${d.limit} calls per minute (RATE_LIMIT_PER_CREDENTIAL_PER_MIN)`
    throw new AppError('rate_limited', `${whose} is used up; try again in ${retry} s.`, {
      limit: d.limit,
      limit_scope: d.scope,
      retry_after_s: retry,
    })
  }
}
