// Which parts of the room page a change of the room changes: the one table the live stream
// (live.ts) reads to tell each open page what to fetch again (GET /room/part), so that a change
// moves only the parts that show it. Keyed by the room scripts' notice kinds and operations
// (lua/includes/notify.lua: `k`, `op`); a kind or operation not listed changes every part, so a
// change the table does not know of is never missed, only fetched more than needed.
import type { Notice, RoomEvent } from '../core/events.js'
import { PARTS, type PartName } from './room.js'

/**
 * What an event of the feed changes: the feed and the room's head (events posted) always; what
 * needs the person when it may ask, block or answer (a question, a blocker, an answer, any reply).
 * The activity strips and the analytics count posts too, but per five minutes and per day: they
 * follow on the page's periodic re-read (TICK_PARTS), not on every post.
 */
export function eventParts(ev: Pick<RoomEvent, 'type' | 'reply_to'>): PartName[] {
  const asks = ev.type === 'question' || ev.type === 'blocker' || ev.type === 'answer' || ev.reply_to !== undefined
  return asks ? ['events', 'head', 'needs'] : ['events', 'head']
}

/**
 * The parts each kind of notice changes, by operation (`*`: any operation of the kind). The event
 * a notice announces (`event_id`: a post, an agent leaving, a task changed over its holder) comes
 * in its own frame with eventParts(); this table says what the notice changes besides.
 */
export const NOTICE_PARTS: Record<string, Record<string, readonly PartName[]>> = {
  // A post's parts ride with its event frame. A read changes who has read what in the feed: the
  // frame carries the agent's new position (live-room.ts `reads`), and the page updates the lines.
  event: { posted: [], read: [], deleted: ['events', 'head', 'needs'] },
  // Online and offline: the agents list, the head's count online, work turned stale or live again,
  // the strips' last-seen line, the agents the task panel offers as assignee.
  presence: { '*': ['agents', 'head', 'needs', 'activity', 'panel'] },
  // Tasks: the board, the graph, stale work, claims on the strips, completion in the analytics, the
  // task open in the side panel.
  task: { '*': ['plan', 'graph', 'needs', 'activity', 'analytics', 'panel'] },
  // A decision moves a task target (in review to done, or back in progress).
  review: {
    requested: ['reviews', 'needs'],
    approved: ['reviews', 'needs', 'plan', 'graph', 'activity', 'analytics', 'panel'],
    rejected: ['reviews', 'needs', 'plan', 'graph', 'activity', 'analytics', 'panel'],
  },
  lock: { '*': ['locks', 'needs'] },
  var: { '*': ['vars'] },
  // The entries listed, and the one open in the side panel.
  context: { '*': ['context', 'panel'] },
  // File reservations are not shown on the room page.
  reservation: { '*': [] },
}

/**
 * What the page re-reads every STALE_CHECK_MS whatever happened: work turns stale when an agent
 * goes quiet (announced by nothing), locks expire, and the strips and analytics move with time.
 */
export const TICK_PARTS: readonly PartName[] = ['head', 'needs', 'agents', 'activity', 'locks', 'analytics']

/** The parts a notice changes (besides the event it announces, if any), in the page's order. */
export function noticeParts(n: Pick<Notice, 'k' | 'op'>): PartName[] {
  const kind = Object.hasOwn(NOTICE_PARTS, n.k) ? NOTICE_PARTS[n.k]! : undefined
  const parts = kind ? (Object.hasOwn(kind, n.op) ? kind[n.op] : kind['*']) : undefined
  return inPageOrder(parts ?? PARTS)
}

/** `parts` once each, in the page's order (PARTS). */
export function inPageOrder(parts: Iterable<PartName>): PartName[] {
  const set = new Set(parts)
  return PARTS.filter((p) => set.has(p))
}
