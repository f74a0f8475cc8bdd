// The dashboard snapshot (GET /room/:roomId): everything a room view shows (who has read what
// included), in one read that does not count as activity. Records are decoded with each piece's own decoder.
import type { Settings } from '../config.js'
import type { Store } from '../store/store.js'
import { byTypeThenKey, toEntry } from './context.js'
import { eventsOf } from './events.js'
import type { Caller } from './fields.js'
import { decodeRaw, toLock } from './locks.js'
import { sortTasks, toTask } from './plan.js'
import { PRESENCE_FORGET_MS, PRESENCE_LIST_MAX } from './presence.js'
import { callOptions, decodeRecord, iso } from './records.js'
import { toReview } from './reviews.js'
import { summaryOf } from './rooms.js'
import { toVar } from './vars.js'

/** Latest events shown by a snapshot. */
export const SNAPSHOT_EVENTS = 50

export class Snapshot {
  constructor(
    private readonly store: Store,
    private readonly settings: Settings,
  ) {}

  async room(c: Caller) {
    const r = await this.store.room('readSnapshot', c.room, callOptions(c, false), [
      this.settings.presenceTtlS * 1000,
      PRESENCE_FORGET_MS,
      SNAPSHOT_EVENTS,
      PRESENCE_LIST_MAX,
    ])
    const s = r.sections
    let at = 0
    const take = (n: number) => r.rows.slice(at, (at += n))
    const tasks = sortTasks(take(s.tasks).map((raw) => toTask(raw)))
    const context = take(s.context).map((raw) => toEntry(decodeRecord(raw)))
    const events = eventsOf(take(s.events * 2))
    const varRows = take(s.vars * 2)
    const vars = []
    for (let i = 0; i < varRows.length; i += 2) vars.push(toVar(varRows[i]!.toString(), decodeRecord(varRows[i + 1]!)))
    const reviews = take(s.reviews).map((raw) => toReview(decodeRecord(raw)))
    const lockRows = take(s.locks * 2)
    const locks = []
    for (let i = 0; i < lockRows.length; i += 2) locks.push(toLock(lockRows[i]!.toString(), decodeRaw(lockRows[i + 1]!), r.now))
    const byStatus: Record<string, number> = {}
    for (const t of tasks) byStatus[t.status] = (byStatus[t.status] ?? 0) + 1
    const presence = (list: [string, number][]) => list.map(([agent_id, ms]) => ({ agent_id, last_seen_at: iso(ms) }))
    const flat = r.cursors
    const reads: { agent_id: string; last_read_event_id: string }[] = []
    for (let i = 0; i + 1 < flat.length; i += 2) reads.push({ agent_id: flat[i]!, last_read_event_id: flat[i + 1]! })
    return {
      room: summaryOf(r.room),
      counts: { tasks_by_status: byStatus, events: Number(r.room.eseq ?? 0) },
      tasks,
      context: context.sort(byTypeThenKey),
      events,
      presence: { online: presence(r.online), offline: presence(r.offline) },
      // Who has read what: an event is read by every agent whose last read event is it or a later one.
      reads: reads.sort((a, b) => (a.agent_id < b.agent_id ? -1 : 1)),
      locks: locks.sort((a, b) => (a.name < b.name ? -1 : 1)),
      vars: vars.sort((a, b) => (a.name < b.name ? -1 : 1)),
      reviews: reviews.sort((a, b) => (a.created_at < b.created_at ? 1 : -1)),
      generated_at: iso(r.now),
    }
  }
}
