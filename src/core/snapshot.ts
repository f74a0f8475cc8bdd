// The dashboard snapshot (GET /room/:roomId): everything a room view shows (who has read what
// included), in one read that does not count as activity. Records are decoded with each piece's
// own decoder. readRoom() is that read, shared with the dashboard's paged room page (room-page.ts).
import type { CoreSettings } from './settings.js'
import type { Store } from '../store/store.js'
import { byTypeThenKey, toEntry } from './context.js'
import { eventsOf } from './events.js'
import type { Caller } from './fields.js'
import { decodeRaw, toLock } from './locks.js'
import { sortTasks, toTask } from './plan.js'
import { PRESENCE_FORGET_MS, PRESENCE_LIST_MAX } from './presence.js'
import { callOptions, decodeRecord } from './records.js'
import { iso } from '../shared/time.js'
import { toReview } from './reviews.js'
import { summaryOf } from './rooms.js'
import { toVar } from './vars.js'

/** Latest events shown by a snapshot. */
export const SNAPSHOT_EVENTS = 50

type Pair = [string, number]
export const presence = (list: Pair[]) => list.map(([agent_id, ms]) => ({ agent_id, last_seen_at: iso(ms) }))

/**
 * Who has read what: each agent's last read event as stored, and read_seq, the seq up to which it
 * has read by the tools' rule (an event is read by every agent whose read_seq is at least its seq,
 * as get_event_reads answers; after the room's history went back the stored id alone misleads).
 */
export function readsOf(cursors: string[] | Record<string, never>, readSeqs: number[] | Record<string, never>) {
  // Lua packs an empty table as a map, not a list.
  const flat = Array.isArray(cursors) ? cursors : []
  const seqs = Array.isArray(readSeqs) ? readSeqs : []
  const reads: { agent_id: string; last_read_event_id: string; read_seq: number }[] = []
  for (let i = 0; i + 1 < flat.length; i += 2)
    reads.push({ agent_id: flat[i]!, last_read_event_id: flat[i + 1]!, read_seq: seqs[i / 2] ?? 0 })
  return reads.sort((a, b) => (a.agent_id < b.agent_id ? -1 : 1))
}

/** Interleaved (name, record) rows as pairs. */
export function named(rows: Buffer[]): [string, Buffer][] {
  const out: [string, Buffer][] = []
  for (let i = 0; i + 1 < rows.length; i += 2) out.push([rows[i]!.toString(), rows[i + 1]!])
  return out
}

export const byName = (a: [string, unknown], b: [string, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)

/** The board's pages: cards a column, most ids a card lists, where each column's page starts (TASK_STATUSES order). */
export interface BoardPages {
  size: number
  ids: number
  from: [number, number, number, number, number]
}

/**
 * The whole room in one read (readSnapshot.lua), records raw, in sections: context, vars and
 * reviews as (name, raw) pairs, or with `namesOnly` as names (one row each); the whole plan, or
 * with `board` the tasks of each column's page only (r.board says which, with each card's links).
 */
export async function readRoom(
  store: Store,
  settings: CoreSettings,
  c: Caller,
  o: { before?: string; days?: number; namesOnly?: boolean; board?: BoardPages } = {},
) {
  const common = [
    settings.presenceTtlMs,
    PRESENCE_FORGET_MS,
    SNAPSHOT_EVENTS,
    PRESENCE_LIST_MAX,
    o.before ?? '',
    o.days ?? 0,
    o.namesOnly ? '1' : '0',
  ] as const
  const b = o.board
  const r = await store.room(
    'readSnapshot',
    c.room,
    callOptions(c, false),
    b ? [...common, b.size, b.ids, ...b.from] : [...common],
  )
  const s = r.sections
  const per = o.namesOnly ? 1 : 2
  let at = 0
  const take = (n: number) => r.rows.slice(at, (at += n))
  return {
    r,
    room: r.room,
    tasks: take(s.tasks),
    context: take(s.context * per),
    events: eventsOf(take(s.events * 2)),
    vars: take(s.vars * per),
    reviews: take(s.reviews * per),
    locks: named(take(s.locks * 2)),
    online: presence(r.online),
    offline: presence(r.offline),
    reads: readsOf(r.cursors, r.read_seqs),
    now: r.now,
  }
}

export class Snapshot {
  constructor(
    private readonly store: Store,
    private readonly settings: CoreSettings,
  ) {}

  async room(c: Caller) {
    const x = await readRoom(this.store, this.settings, c)
    const tasks = sortTasks(x.tasks.map((raw) => toTask(raw)))
    const byStatus: Record<string, number> = {}
    for (const t of tasks) byStatus[t.status] = (byStatus[t.status] ?? 0) + 1
    return {
      room: summaryOf(x.room),
      counts: { tasks_by_status: byStatus, events: Number(x.room.eseq ?? 0) },
      tasks,
      context: named(x.context)
        .map(([, raw]) => toEntry(decodeRecord(raw)))
        .sort(byTypeThenKey),
      events: x.events,
      presence: { online: x.online, offline: x.offline },
      reads: x.reads,
      locks: x.locks.sort(byName).map(([name, raw]) => toLock(name, decodeRaw(raw), x.now)),
      vars: named(x.vars)
        .sort(byName)
        .map(([name, raw]) => toVar(name, decodeRecord(raw))),
      reviews: named(x.reviews)
        .map(([, raw]) => toReview(decodeRecord(raw)))
        .sort((a, b) => (a.created_at < b.created_at ? 1 : -1)),
      generated_at: iso(x.now),
    }
  }
}
