// What the tools answer, as zod: each tool's `output` is built from these records, and the runner
// lists it as the tool's outputSchema (room tools gain room_id first and unread last). The text
// reply and structuredContent are the same object, so one schema describes both; the integration
// test test/integration/mcp-structured.test.ts validates every success of the tool matrix against
// it. Times are ISO-8601 strings; a field marked optional is left out when empty or at its default
// (compact list items, src/core/compact.ts).
import { z } from 'zod'
import { PRIORITIES, TASK_STATUSES } from '../core/plan.js'
import { REVIEW_STATUSES } from '../core/reviews.js'
import { SEARCH_KINDS } from '../search/engine.js'

const str = z.string()
const int = z.number().int()
const strs = z.array(z.string())
const time = z.string()
const status = z.enum(TASK_STATUSES)
const priority = z.enum(PRIORITIES)

/** The credential a write was made with: a key, an invite key, a connected agent's grant, a person. */
export const via = z
  .object({
    kind: z.enum(['key', 'invite', 'grant', 'person']),
    id: str,
    label: str.optional(),
    person: str.optional(),
  })
  .optional()

/** A whole task (get_task, and what a change answers). */
export const task = z.object({
  id: str,
  title: str,
  status,
  assignee: str.optional(),
  priority,
  order: int,
  depends_on: strs,
  notes: str.optional(),
  created_by: str.optional(),
  updated_by: str.optional(),
  created_via: via,
  updated_via: via,
  claimed_via: via,
  created_at: time,
  updated_at: time,
})

/**
 * A task as a change answers it (add_task, update_task, set_task_priority, add_dependency): what
 * the caller works from. Who made it, with which credential and when stay in get_task.
 */
export const changedTask = task.omit({
  created_by: true,
  updated_by: true,
  created_via: true,
  updated_via: true,
  claimed_via: true,
  created_at: true,
  updated_at: true,
})

/** A task in a list: priority only when not normal; assignee and blocked_by only when set. */
export const taskItem = z.object({
  id: str,
  title: str,
  status,
  priority: priority.optional(),
  assignee: str.optional(),
  blocked_by: strs.optional(),
})

/** A claimable task (get_unblocked_tasks): a list item without its status, which is always todo. */
export const claimableItem = taskItem.omit({ status: true })

/** What a limited list says besides its items: how many match, and how to get those left out. */
export const page = { total: int, more: str.optional() }

export const entry = z.object({
  type: str,
  key: str,
  version: int,
  size: int,
  updated_by: str.optional(),
  updated_at: time,
  created_at: time,
  created_by: str.optional(),
  created_via: via,
  updated_via: via,
})
export const entryItem = entry.omit({ created_at: true, created_by: true, created_via: true, updated_via: true })
export const entryVersion = z.object({ version: int, updated_by: str.optional(), via, updated_at: time, size: int })

export const event = z.object({
  id: str,
  type: str,
  agent_id: str,
  text: str,
  data: z.record(z.string(), z.unknown()).optional(),
  reply_to: str.optional(),
  via,
  created_at: time,
})

/** An event as posting it answers: the poster's own agent id and credential left out. */
export const postedEvent = event.omit({ agent_id: true, via: true })

/** Events trimmed away before the caller read them, or a history that went back (rewound). */
export const cursorReset = z.object({ lost: int, rewound: z.literal(true).optional(), reset_to: str.optional() })

/** What a consuming read answers besides its events. */
export const consumed = {
  events: z.array(event),
  remaining: int,
  last_event_at: time.optional(),
  cursor_reset: cursorReset.optional(),
}

export const lock = z.object({
  name: str,
  owner: str,
  token: int,
  acquired_at: time,
  expires_at: time,
  expires_in_s: int,
})

/** A lock as acquire_lock answers it: the time left in seconds, not as instants. */
export const heldLock = lock.omit({ acquired_at: true, expires_at: true })

export const reservation = z.object({
  pattern: str,
  agent: str,
  exclusive: z.boolean(),
  token: int,
  reason: str.optional(),
  acquired_at: time,
  expires_at: time,
  expires_in_s: int,
})

export const sharedVar = z.object({ name: str, value: str, version: int, updated_by: str.optional(), updated_at: time })

export const reviewTarget = z.union([
  z.object({ kind: z.literal('task'), task_id: str }),
  z.object({ kind: z.literal('context'), type: str, key: str }),
])

export const review = z.object({
  id: str,
  target: reviewTarget,
  requested_by: str,
  reviewer: str.optional(),
  status: z.enum(REVIEW_STATUSES),
  note: str.optional(),
  decision_note: str.optional(),
  decided_by: str.optional(),
  overrode: str.optional(),
  created_at: time,
  decided_at: time.optional(),
})
export const reviewItem = review.omit({ created_at: true, decided_at: true })

/** A review answer: the review, and its task's status when the target is a task. */
export const decided = { review, task_status: status.optional() }

export const roomSummary = z.object({
  room_id: str,
  name: str,
  template: str,
  created_at: time,
  created_by: str.optional(),
  last_active_at: time,
})

export const presenceEntry = z.object({ agent_id: str, last_seen_at: time })

export const searchHit = z.object({
  ref: str,
  kind: z.enum(SEARCH_KINDS),
  id: str,
  title: str.optional(),
  status: str.optional(),
  type: str.optional(),
  key: str.optional(),
  version: int.optional(),
  agent_id: str.optional(),
  at: time,
  field: str,
  snippet: str,
  score: z.number(),
  words: strs.optional(),
  match: z.enum(['lexical', 'semantic', 'both']).optional(),
  similarity: z.number().optional(),
})

export const templateItem = z.object({
  id: str,
  title: str,
  description: str,
  tasks: int,
  context_entries: int,
})

/** Counts by name (statuses, record kinds). */
export const counts = z.record(z.string(), int)

export { int, str, strs, time }

/** `record` without `keys`, the other fields in their order: a reply trimmed to its output schema. */
export function without<T extends object, K extends keyof T>(record: T, keys: readonly K[]): Omit<T, K> {
  // Copied key by key: a deleted key would turn the copy into a slower dictionary-mode object.
  const out: Record<string, unknown> = {}
  const from = record as Record<string, unknown>
  for (const k in from) if (Object.hasOwn(from, k) && !(keys as readonly PropertyKey[]).includes(k)) out[k] = from[k]
  return out as Omit<T, K>
}

/** The fields of `whole` that its trimmed form `part` leaves out. */
const leftOut = (whole: z.ZodObject, part: z.ZodObject) => Object.keys(whole.shape).filter((k) => !(k in part.shape))
const TASK_LEFT_OUT = leftOut(task, changedTask)
const EVENT_LEFT_OUT = leftOut(event, postedEvent)
const LOCK_LEFT_OUT = leftOut(lock, heldLock)

/** A change's reply with its task as changedTask. */
export function withChangedTask<R extends { task: object }>(reply: R): R {
  return { ...reply, task: without(reply.task as Record<string, unknown>, TASK_LEFT_OUT) }
}

/** A post's reply with its event as postedEvent. */
export function withPostedEvent<R extends { event: object }>(reply: R): R {
  return { ...reply, event: without(reply.event as Record<string, unknown>, EVENT_LEFT_OUT) }
}

/** acquire_lock's reply with its lock as heldLock. */
export function withHeldLock<R extends { lock: object }>(reply: R): R {
  return { ...reply, lock: without(reply.lock as Record<string, unknown>, LOCK_LEFT_OUT) }
}
