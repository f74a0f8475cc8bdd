// Room analytics (get_room_analytics, and the HTTP room stats): completion rate, tasks by status,
// record counts, online agents, events and finished tasks per day. Counted in one script; days
// are UTC.
import { z } from 'zod'
import type { CoreSettings } from './settings.js'
import type { Store } from '../store/store.js'
import type { Caller } from './fields.js'
import { TASK_STATUSES } from './plan.js'
import { callOptions, luaMap } from './records.js'
import { parse } from '../shared/validate.js'

export const analyticsSchema = z.object({ days: z.number().int().min(1).max(30).default(7) })

export interface DayCount {
  date: string
  events: number
  tasks_done: number
}

const dayDate = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10)

/** done / (all tasks - cancelled), null when there is nothing to complete. */
export function completionRate(byStatus: Record<string, number>): number | null {
  const total = Object.values(byStatus).reduce((a, b) => a + b, 0)
  const countable = total - (byStatus.cancelled ?? 0)
  return countable > 0 ? Math.round(((byStatus.done ?? 0) / countable) * 1000) / 1000 : null
}

/** Every day of the window ending `today` (days since the epoch, UTC), oldest first, zeros included. */
export function perDay(
  today: number,
  days: number,
  events: Record<string, number>,
  done: Record<string, number>,
): DayCount[] {
  const out: DayCount[] = []
  for (let d = today - days + 1; d <= today; d++)
    out.push({ date: dayDate(d), events: events[String(d)] ?? 0, tasks_done: done[String(d)] ?? 0 })
  return out
}

export class Analytics {
  constructor(
    private readonly store: Store,
    private readonly settings: CoreSettings,
  ) {}

  /**
   * completion_rate = done / (all tasks - cancelled), null when there is nothing to complete.
   * per_day lists every day of the window, oldest first, zeros included.
   */
  async room(c: Caller, input: unknown = {}, touch = true) {
    const v = parse(analyticsSchema, input)
    const r = await this.store.room('roomAnalytics', c.room, callOptions(c, touch), [
      this.settings.presenceTtlMs,
      v.days,
    ])
    const raw = luaMap<number>(r.status)
    const byStatus = Object.fromEntries(TASK_STATUSES.map((s) => [s, raw[s] ?? 0])) as Record<
      (typeof TASK_STATUSES)[number],
      number
    >
    const total = Object.values(byStatus).reduce((a, b) => a + b, 0)
    return {
      tasks: { total, by_status: byStatus },
      /** Retained events, events ever posted, context entries, vars, reviews. */
      counts: r.counts as { context: number; events: number; events_total: number; vars: number; reviews: number },
      completion_rate: completionRate(byStatus),
      online_agents: r.online.sort(),
      online_count: r.online.length,
      events_per_day: perDay(r.today, v.days, luaMap(r.events_by_day), luaMap(r.done_by_day)),
      unread: r.unread,
    }
  }
}
