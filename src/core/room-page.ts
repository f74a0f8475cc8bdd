// The dashboard's room page, read so that it stays small and quick at any room size: each column
// of the board and each long list (context, vars, locks, reviews) comes one page at a time, with
// exact counts, and the analytics the page draws come along. Two reads that do not count as
// activity: the room with the board's pages and context, vars and reviews as names only
// (readSnapshot), then the records of the pages shown (readRecords). The board is counted,
// ordered and paged on the plan's indexes in Redis (lua/includes/board.lua): only the tasks shown
// are read and decoded, whatever the plan's size; the rest only as far as it is shown
// (bench/dashboard-render.ts).
import { decode } from '../shared/msgpack.js'
import type { CoreSettings } from './settings.js'
import type { RoomReply } from '../store/script-map/index.js'
import type { Store } from '../store/store.js'
import { completionRate, perDay } from './analytics.js'
import { toEntry, type ContextEntry } from './context.js'
import type { Caller } from './fields.js'
import { eventsOf, type RoomEvent } from './events.js'
import { decodeRaw, toLock, type Lock } from './locks.js'
import { TASK_STATUSES, taskFromReply, type Task, type TaskStatus } from './plan.js'
import { callOptions, decodeRecord, luaMap } from './records.js'
import { iso } from '../shared/time.js'
import { toReview, type Review } from './reviews.js'
import { summaryOf } from './rooms.js'
import { byName, readRoom, type BoardPages } from './snapshot.js'
import { toVar, type SharedVar } from './vars.js'

/** The parts of the room page that come a page at a time. */
export const PAGED = [...TASK_STATUSES, 'context', 'vars', 'locks', 'reviews'] as const
export type Paged = (typeof PAGED)[number]

export interface PageOptions {
  /** Cards per column, rows per list. */
  size: number
  /** Where each paged part starts (0-based; rounded down to a page, past the end: its last page). */
  from?: Partial<Record<Paged, number>>
  /** Show the events before this event id instead of the latest. */
  before?: string
  /** Days of the events-per-day chart. */
  days: number
  /** Most task ids listed in a card's "blocked by" and "blocks". */
  ids: number
  /** List only the pending reviews (every review is then read and decoded to know). */
  pendingReviews?: boolean
}

/** Most events one filtered page of the feed looks through (readFeed.lua). */
export const FEED_SCAN_LIMIT = 5000

/** Which events the feed shows: those of a type, of an agent, or the open questions (no reply yet). */
export interface FeedFilter {
  type?: string | undefined
  agent?: string | undefined
  open?: boolean | undefined
}

export interface FeedPage {
  /** Oldest first. */
  events: RoomEvent[]
  /** Pass as `before` for the next (older) page; absent when no older event matches. */
  next?: string
  /** The page looked through FEED_SCAN_LIMIT events and stopped before the feed's start. */
  exhausted: boolean
}

/** One page of a list: where it starts, how many there are in all, and the items. */
export interface Slice<T> {
  from: number
  total: number
  items: T[]
}

export interface Card {
  task: Task
  /** Open dependencies of a task to do (at most `ids` of them). */
  blocked_by: string[]
  /** Tasks that depend on it (at most `ids`), and how many do. */
  blocks: string[]
  blocks_total: number
}

const idNumber = (id: string) => Number(id.slice(1))

/** Context entries are named type/key: by type, then key (as list_context). */
function byTypeThenKey(names: string[]): string[] {
  const keyed = names.map((n) => ({ n, type: n.slice(0, n.indexOf('/')), key: n.slice(n.indexOf('/') + 1) }))
  keyed.sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  return keyed.map((k) => k.n)
}

/** The page of `all` that starts at `from` (rounded down to a page; past the end: the last page). */
function pageOf<T>(all: T[], from: number, size: number): { from: number; items: T[] } {
  const first = Math.floor(Math.min(from, Math.max(0, all.length - 1)) / size) * size
  return { from: first, items: all.slice(first, first + size) }
}

export class RoomPage {
  constructor(
    private readonly store: Store,
    private readonly settings: CoreSettings,
  ) {}

  async read(c: Caller, o: PageOptions) {
    const from = (p: Paged) => Math.max(0, Math.floor(o.from?.[p] ?? 0))
    const board = { size: o.size, ids: o.ids, from: TASK_STATUSES.map(from) as BoardPages['from'] }
    const x = await readRoom(this.store, this.settings, c, { before: o.before, days: o.days, namesOnly: true, board })
    const names = (rows: Buffer[]) => rows.map((b) => b.toString())

    const ctx = pageOf(byTypeThenKey(names(x.context)), from('context'), o.size)
    const vars = pageOf(names(x.vars).sort(), from('vars'), o.size)
    // Reviews newest first (their ids count up); only pending ones when asked.
    const reviewIds = names(x.reviews)
      .map((id) => ({ id, n: idNumber(id) }))
      .sort((a, b) => b.n - a.n)
      .map((r) => r.id)
    const reviewPage = pageOf(reviewIds, from('reviews'), o.size)
    const wanted = o.pendingReviews ? reviewIds : reviewPage.items
    const records = await this.records(c, ctx.items, vars.items, wanted)
    let reviews = {
      from: reviewPage.from,
      total: reviewIds.length,
      items: records.reviews.map((raw) => toReview(decodeRecord(raw))),
    }
    if (o.pendingReviews) {
      const pending = records.reviews.filter((raw) => (decode(raw) as { status: string }).status === 'pending')
      const pg = pageOf(pending, from('reviews'), o.size)
      reviews = { from: pg.from, total: pending.length, items: pg.items.map((raw) => toReview(decodeRecord(raw))) }
    }

    const locks = pageOf(x.locks.sort(byName), from('locks'), o.size)
    const { columns, byStatus } = boardOf(x.tasks, x.r.board!, o.size)
    const online = x.r.online_count
    return {
      room: summaryOf(x.room),
      columns,
      context: {
        from: ctx.from,
        total: x.context.length,
        items: records.context.map((raw): ContextEntry => toEntry(decodeRecord(raw))),
      },
      /** The latest events (or those before `before`), oldest first; `older`: earlier ones exist. */
      events: x.events,
      older: x.r.older === true,
      vars: {
        from: vars.from,
        total: x.vars.length,
        items: records.vars.map((raw, i): SharedVar => toVar(records.varNames[i]!, decodeRecord(raw))),
      },
      locks: {
        from: locks.from,
        total: x.locks.length,
        items: locks.items.map(([name, raw]): Lock => toLock(name, decodeRaw(raw), x.now)),
      },
      reviews: { ...reviews, pending_only: o.pendingReviews === true } as Slice<Review> & { pending_only: boolean },
      presence: { online: x.online, offline: x.offline, online_count: online, offline_count: x.r.offline_count },
      reads: x.reads,
      /** events: ever posted; events_kept: those the feed holds, which paging back through it shows. */
      counts: { tasks_by_status: byStatus, events: Number(x.room.eseq ?? 0), events_kept: x.r.events_kept },
      analytics: {
        completion_rate: completionRate(byStatus),
        online_count: online,
        events_per_day: perDay(x.r.today, o.days, luaMap(x.r.events_by_day), luaMap(x.r.board!.done_by_day)),
      },
      generated_at: iso(x.now),
    }
  }

  /**
   * The page's head alone (readHead), without counting as activity: the room, the events ever
   * posted and those the feed holds, the agents online, as read() counts them.
   */
  async head(c: Caller) {
    const r = await this.store.room('readHead', c.room, callOptions(c, false), [this.settings.presenceTtlMs])
    return {
      room: summaryOf(r.room),
      events: Number(r.room.eseq ?? 0),
      events_kept: r.events_kept,
      online_count: r.online_count,
    }
  }

  /**
   * A page of the feed with a filter, newest first from `before` (or the latest), without
   * counting as activity: at most `limit` events, looking through at most FEED_SCAN_LIMIT.
   */
  async feed(c: Caller, f: FeedFilter & { before?: string | undefined; limit: number }): Promise<FeedPage> {
    const r = await this.store.room('readFeed', c.room, callOptions(c, false), [
      f.before ?? '',
      f.limit,
      f.type ?? '',
      f.agent ?? '',
      f.open ? '1' : '0',
      FEED_SCAN_LIMIT,
    ])
    return { events: eventsOf(r.rows), exhausted: r.exhausted, ...(r.next ? { next: r.next } : {}) }
  }

  /** The records of the names shown (readRecords.lua); a record deleted since the first read is left out. */
  private async records(c: Caller, context: string[], vars: string[], reviews: string[]) {
    if (context.length + vars.length + reviews.length === 0) return { context: [], vars: [], varNames: [], reviews: [] }
    const r = await this.store.room('readRecords', c.room, callOptions(c, false), [
      context.length,
      vars.length,
      reviews.length,
      ...context,
      ...vars,
      ...reviews,
    ])
    const present = (rows: Buffer[], ns: string[]) =>
      rows.map((raw, i) => ({ raw, name: ns[i]! })).filter((e) => e.raw.length > 0)
    const v = present(r.rows.slice(context.length, context.length + vars.length), vars)
    return {
      context: present(r.rows.slice(0, context.length), context).map((e) => e.raw),
      vars: v.map((e) => e.raw),
      varNames: v.map((e) => e.name),
      reviews: present(r.rows.slice(context.length + vars.length), reviews).map((e) => e.raw),
    }
  }
}

/** Every column's page of cards (the rows: the tasks of each page, column after column) and exact count. */
function boardOf(rows: Buffer[], board: NonNullable<RoomReply<'readSnapshot'>['board']>, size: number) {
  const columns = {} as Record<TaskStatus, Slice<Card>>
  let at = 0
  for (const st of TASK_STATUSES) {
    const { from, total } = board.columns[st]
    const shown = Math.min(size, total - from)
    const items = rows.slice(at, at + shown).map((raw, i): Card => {
      const links = board.cards[at + i]!
      return {
        task: taskFromReply(decode(raw) as Record<string, unknown>, undefined),
        blocked_by: links.blocked_by ?? [],
        blocks: links.blocks ?? [],
        blocks_total: links.blocks_total,
      }
    })
    at += shown
    columns[st] = { from, total, items }
  }
  const byStatus = Object.fromEntries(TASK_STATUSES.map((st) => [st, columns[st].total])) as Record<TaskStatus, number>
  return { columns, byStatus }
}
