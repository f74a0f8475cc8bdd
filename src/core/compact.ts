// Compact list items: what an agent decides with, not whole records. Agents pay for every token
// of every reply on every turn, so the list reads (get_unblocked_tasks, get_my_tasks, read_plan,
// list_context, list_reviews, get_my_summary) give these, and omit a field that is empty or at
// its default; get_task and read_context give the whole record. The HTTP snapshot keeps whole
// records: the dashboard shows them. docs/mcp.md shows every shape.
import type { ContextEntry } from './context.js'
import type { Task } from './plan.js'
import type { Review } from './reviews.js'

/** A task in a list: priority only when not normal, assignee and blocked_by only when set. */
export interface TaskItem {
  id: string
  title: string
  status: Task['status']
  priority?: Task['priority']
  assignee?: string
  /** Dependencies not yet done or cancelled. */
  blocked_by?: string[]
}

export function taskItem(
  t: Pick<Task, 'id' | 'title' | 'status' | 'priority' | 'assignee'>,
  blockedBy: readonly string[] = [],
): TaskItem {
  const item: TaskItem = { id: t.id, title: t.title, status: t.status }
  if (t.priority !== 'normal') item.priority = t.priority
  if (t.assignee !== undefined && t.assignee !== '') item.assignee = t.assignee
  if (blockedBy.length > 0) item.blocked_by = [...blockedBy]
  return item
}

/** The tasks each task waits for: its dependencies that exist and are not done or cancelled. */
export function blockersIn(tasks: readonly Task[]): Map<string, string[]> {
  const status = new Map(tasks.map((t) => [t.id, t.status]))
  const out = new Map<string, string[]>()
  for (const t of tasks) {
    const open = t.depends_on.filter((d) => {
      const s = status.get(d)
      return s !== undefined && s !== 'done' && s !== 'cancelled'
    })
    if (open.length > 0) out.set(t.id, open)
  }
  return out
}

/** A context entry in a list: no creation fields (read_context has them). */
export type EntryItem = Pick<ContextEntry, 'type' | 'key' | 'version' | 'size' | 'updated_by' | 'updated_at'>

export function entryItem(e: ContextEntry): EntryItem {
  const item: EntryItem = { type: e.type, key: e.key, version: e.version, size: e.size, updated_at: e.updated_at }
  if (e.updated_by !== undefined) item.updated_by = e.updated_by
  return item
}

/** A review in a list: its id first, no times. */
export type ReviewItem = Omit<Review, 'created_at' | 'decided_at'>

export function reviewItem(r: Review): ReviewItem {
  const item: ReviewItem = { id: r.id, target: r.target, status: r.status, requested_by: r.requested_by }
  if (r.reviewer !== undefined) item.reviewer = r.reviewer
  if (r.note !== undefined) item.note = r.note
  if (r.decided_by !== undefined) item.decided_by = r.decided_by
  if (r.decision_note !== undefined) item.decision_note = r.decision_note
  return item
}

/**
 * What a limited list says besides its items: `total` matches, and when some were left out,
 * `more` telling how many and how to get them (a larger limit, up to `max`).
 */
export function page(shown: number, total: number, max: number): { total: number; more?: string } {
  if (shown >= total) return { total }
  return { total, more: `${total - shown} more: pass limit (at most ${max})` }
}
