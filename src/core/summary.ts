// get_my_summary: the start of an agent's turn in one call — unread events (consumed, like
// get_unread_events), my open tasks, reviews waiting for me, how many tasks are ready to claim.
import { z } from 'zod'
import type { CoreSettings } from './settings.js'
import type { Store } from '../store/store.js'
import { reviewItem, taskItem } from './compact.js'
import { cursorResetOf, lastEventAt } from './events.js'
import { eventFromReply } from '../shared/events.js'
import { requireAgent, type Caller } from './fields.js'
import { callOptions } from './records.js'
import { toReview } from './reviews.js'
import { parse } from '../shared/validate.js'

export const summarySchema = z.object({
  event_limit: z.number().int().min(1).max(100).default(20),
  task_limit: z.number().int().min(1).max(100).default(20),
})

export class Summary {
  constructor(
    private readonly store: Store,
    private readonly settings: CoreSettings,
  ) {}

  /**
   * Consumes up to event_limit unread events: use one of wait_for_events / get_unread_events /
   * get_my_summary per turn.
   */
  async mine(c: Caller, input: unknown = {}) {
    const agent = requireAgent(c)
    const v = parse(summarySchema, input)
    const r = await this.store.room('readSummary', c.room, callOptions(c), [
      v.event_limit,
      v.task_limit,
      this.settings.presenceTtlMs,
    ])
    const out = {
      agent_id: agent,
      events: r.events.map(eventFromReply),
      remaining_unread: r.remaining,
      my_tasks: r.my_tasks.map((t) => taskItem(t, t.blocked_by)),
      my_tasks_total: r.my_tasks_total,
      reviews_for_me: r.reviews_for_me.map((x) => reviewItem(toReview(x))),
      unblocked_tasks: r.unblocked,
      online_agents: r.online,
      unread: r.unread,
    }
    const reset = cursorResetOf(r)
    return { ...out, ...lastEventAt(r), ...(reset ? { cursor_reset: reset } : {}) }
  }
}
