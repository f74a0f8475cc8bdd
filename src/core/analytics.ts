// Room analytics (get_room_analytics, and the HTTP room stats): completion rate, tasks by status,
// record counts, online agents, events and finished tasks per day. Counted in one script; days
// are UTC.
import { z } from 'zod'
import type { Settings } from '../config.js'
import type { Store } from '../store/store.js'
import type { Caller } from './fields.js'
import { TASK_STATUSES } from './plan.js'
import { callOptions } from './records.js'
import { parse } from './validate.js'

export const analyticsSchema = z.object({ days: z.number().int().min(1).max(30).default(7) })

export interface DayCount {
  date: string
  events: number
  tasks_done: number
}

const dayDate = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10)

export class Analytics {
  constructor(
    private readonly store: Store,
    private readonly settings: Settings,
  ) {}

  /**
   * completion_rate = done / (all tasks - cancelled), null when there is nothing to complete.
   * per_day lists every day of the window, oldest first, zeros included.
   */
  async room(c: Caller, input: unknown = {}, touch = true) {
    const v = parse(analyticsSchema, input)
    const r = await this.store.room('roomAnalytics', c.room, callOptions(c, touch), [this.settings.presenceTtlS * 1000, v.days])
    const raw = Array.isArray(r.status) ? {} : r.status
    const byStatus = Object.fromEntries(TASK_STATUSES.map((s) => [s, raw[s] ?? 0])) as Record<(typeof TASK_STATUSES)[number], number>
    const total = Object.values(byStatus).reduce((a, b) => a + b, 0)
    const countable = total - byStatus.cancelled
    const events = Array.isArray(r.events_by_day) ? {} : r.events_by_day
    const done = Array.isArray(r.done_by_day) ? {} : r.done_by_day
    const today = r.today
    const perDay: DayCount[] = []
    for (let d = today - v.days + 1; d <= today; d++) {
      perDay.push({ date: dayDate(d), events: events[String(d)] ?? 0, tasks_done: done[String(d)] ?? 0 })
    }
    return {
      tasks: { total, by_status: byStatus },
      /** Retained events, events ever posted, context entries, vars, reviews. */
      counts: r.counts,
      completion_rate: countable > 0 ? Math.round((byStatus.done / countable) * 1000) / 1000 : null,
      online_agents: r.online.sort(),
      online_count: r.online.length,
      events_per_day: perDay,
      unread: r.unread,
    }
  }
}
