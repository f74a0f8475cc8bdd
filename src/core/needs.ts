// What in a room needs a person: the dashboard's inbox (/inbox) and the block at the top of the
// room page. One bounded read (lua/readNeeds.lua) that does not count as activity: it looks at
// the latest NEEDS_EVENTS events, the latest NEEDS_REVIEWS requested reviews, the first
// NEEDS_TASKS tasks in progress and the room's live locks (at most its lock limit), never at the
// whole history; at most NEEDS_SHOWN items of each kind come back, with exact counts of what was
// found within those bounds.
import type { CoreSettings } from './settings.js'
import type { Store } from '../store/store.js'
import { eventsOf, type RoomEvent } from './events.js'
import type { Caller } from './fields.js'
import { decodeRaw, toLock, type Lock } from './locks.js'
import { toTask, type Task } from './plan.js'
import { callOptions, decodeRecord, luaMap, pairs } from './records.js'
import { toReview, type Review } from './reviews.js'
import { iso } from '../shared/time.js'

/** The latest events looked at for questions and blockers nobody replied to. */
export const NEEDS_EVENTS = 500
/** The latest requested reviews looked at for those pending that wait for a person. */
export const NEEDS_REVIEWS = 200
/** Tasks in progress looked at (in the board's order) for an assignee gone offline. */
export const NEEDS_TASKS = 200
/** Most items of each kind returned. */
export const NEEDS_SHOWN = 20

export interface RoomNeeds {
  /** Questions and blockers posted by agents that no event replies to, newest first. */
  questions: RoomEvent[]
  /** Pending reviews that wait for a person (none or a person named, or the named agent offline), newest first. */
  reviews: Review[]
  /** Tasks in progress whose assignee is offline. */
  tasks: Task[]
  /** Live locks held by an agent offline. */
  locks: Lock[]
  /** How many of each were found (the lists hold at most NEEDS_SHOWN). */
  totals: { questions: number; reviews: number; tasks: number; locks: number }
  /** When each offline agent named here was last seen (absent: never, or forgotten). */
  lastSeen: Record<string, string>
  /** Agents online, most recently seen first (at most NEEDS_SHOWN): whom a task can go to. */
  online: string[]
  /**
   * With `postsWithinMs`: the times (ms, newest first) of the events each agent posted within it,
   * among the NEEDS_EVENTS looked at (the room page's activity strips).
   */
  posts?: Map<string, number[]>
}

/** Everything that needs a person, counted once. */
export const needsCount = (n: RoomNeeds): number =>
  n.totals.questions + n.totals.reviews + n.totals.tasks + n.totals.locks

export class Needs {
  constructor(
    private readonly store: Store,
    private readonly settings: CoreSettings,
  ) {}

  async read(c: Caller, o: { postsWithinMs?: number } = {}): Promise<RoomNeeds> {
    const r = await this.store.room('readNeeds', c.room, callOptions(c, false), [
      this.settings.presenceTtlMs,
      NEEDS_EVENTS,
      NEEDS_REVIEWS,
      NEEDS_TASKS,
      NEEDS_SHOWN,
      o.postsWithinMs ?? 0,
    ])
    const s = r.sections
    let at = 0
    const take = (n: number) => r.rows.slice(at, (at += n))
    const questions = eventsOf(take(s.events * 2))
    const reviews = take(s.reviews).map((raw) => toReview(decodeRecord(raw)))
    const tasks = take(s.tasks).map((raw) => toTask(raw))
    const locks = pairs(take(s.locks * 2))
      .map(([name, raw]) => toLock(name.toString(), decodeRaw(raw), r.now))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const lastSeen = Object.fromEntries(Object.entries(luaMap<number>(r.seen)).map(([a, ms]) => [a, iso(ms)]))
    return {
      questions,
      reviews,
      tasks,
      locks,
      totals: { questions: r.totals.events, reviews: r.totals.reviews, tasks: r.totals.tasks, locks: r.totals.locks },
      lastSeen,
      // Lua packs an empty table as a map, not a list.
      online: Array.isArray(r.online) ? r.online : [],
      ...(r.posts ? { posts: byAgent(Array.isArray(r.posts) ? r.posts : []) } : {}),
    }
  }
}

/** agent, ms, agent, ms, ... as the times of each agent's events, in the order given. */
function byAgent(flat: (string | number)[]): Map<string, number[]> {
  const out = new Map<string, number[]>()
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const agent = String(flat[i])
    const list = out.get(agent) ?? []
    list.push(Number(flat[i + 1]))
    out.set(agent, list)
  }
  return out
}
