// The picture of a room's plan (its open tasks and their dependencies, with the critical path)
// and of the tasks its agents took and finished lately, for the dashboard's room page. One
// bounded read (lua/readGraph.lua) that does not count as activity: at most GRAPH_TASKS open
// tasks (in review, then in progress, then to do, each in the board's order) and the tasks done
// within the last ACTIVITY_HOURS (at most ACTIVITY_DONE); never the whole plan. The agents'
// events of those hours come with what needs a person (Needs.read with postsWithinMs), whose
// read looks at the latest events already.
import { decode } from '../shared/msgpack.js'
import type { Store } from '../store/store.js'
import type { Caller } from './fields.js'
import { toTask, type Task } from './plan.js'
import { callOptions } from './records.js'
import { iso } from '../shared/time.js'

/** Most open tasks the graph holds (the cap): each one costs the layout about a millisecond. */
export const GRAPH_TASKS = 50
/** The activity strips' span. */
export const ACTIVITY_HOURS = 2
export const ACTIVITY_SPAN_MS = ACTIVITY_HOURS * 3_600_000
/** Most tasks done within the span looked at for the strips. */
export const ACTIVITY_DONE = 200

/** A dependency: `to` waits for `from`. */
export interface Edge {
  from: string
  to: string
}

export interface PlanPicture {
  /** The open tasks shown (in review, in progress, to do; each in the board's order). */
  tasks: Task[]
  /** Dependencies between the tasks shown. */
  edges: Edge[]
  /** The longest chain of the shown tasks by dependency, first to last (empty without tasks). */
  critical: string[]
  /** Open tasks in the room (the graph shows at most GRAPH_TASKS of them). */
  open: number
  /** Open tasks left out by the cap that a shown task depends on. */
  outside: string[]
  activity: Activity
}

export interface Activity {
  since: string
  now: string
  /** Tasks in progress or in review with an assignee, at their last change (a claim, or after it). */
  held: { agent: string; ms: number; id: string }[]
  /** Tasks done within the span, by who last changed them. */
  done: { agent: string; ms: number; id: string }[]
}

/**
 * The longest chain of `ids` by dependency (counted in tasks), first to last. Ties go to the chain
 * that ends, then starts, earliest in `ids`' order, so the same plan always marks the same path.
 * A dependency cycle (which the plan scripts refuse) leaves its tasks off every chain.
 */
export function criticalPath(ids: string[], edges: Edge[]): string[] {
  const index = new Map(ids.map((id, i) => [id, i]))
  const deps = new Map<string, string[]>(ids.map((id) => [id, []]))
  const dependents = new Map<string, string[]>(ids.map((id) => [id, []]))
  const waiting = new Map<string, number>(ids.map((id) => [id, 0]))
  for (const e of edges) {
    if (!index.has(e.from) || !index.has(e.to)) continue
    deps.get(e.to)!.push(e.from)
    dependents.get(e.from)!.push(e.to)
    waiting.set(e.to, waiting.get(e.to)! + 1)
  }
  const length = new Map<string, number>()
  const prev = new Map<string, string>()
  const ready = ids.filter((id) => waiting.get(id) === 0)
  while (ready.length > 0) {
    const id = ready.shift()!
    let best = 0
    for (const d of deps.get(id)!) {
      const l = length.get(d)!
      if (l > best || (l === best && index.get(d)! < index.get(prev.get(id)!)!)) {
        best = l
        prev.set(id, d)
      }
    }
    length.set(id, best + 1)
    for (const n of dependents.get(id)!) {
      const left = waiting.get(n)! - 1
      waiting.set(n, left)
      if (left === 0) ready.push(n)
    }
  }
  let end: string | undefined
  for (const id of ids) if (length.has(id) && (end === undefined || length.get(id)! > length.get(end)!)) end = id
  const chain: string[] = []
  for (let at = end; at !== undefined; at = prev.get(at)) chain.unshift(at)
  return chain
}

export class PlanGraph {
  constructor(private readonly store: Store) {}

  async read(c: Caller, o: { tasks?: number } = {}): Promise<PlanPicture> {
    const spanMs = ACTIVITY_SPAN_MS
    const r = await this.store.room('readGraph', c.room, callOptions(c, false), [
      o.tasks ?? GRAPH_TASKS,
      spanMs,
      ACTIVITY_DONE,
    ])
    const tasks = r.rows.slice(0, r.tasks).map((raw) => toTask(raw))
    // Only who and when of a task done: its record decoded as stored (times in ms), no more.
    const finished = r.rows
      .slice(r.tasks, r.tasks + r.done)
      .map((raw) => decode(raw) as { id: string; updated_at: number; updated_by?: string; assignee?: string })
    const shown = new Set(tasks.map((t) => t.id))
    const edges = tasks.flatMap((t) => t.depends_on.filter((d) => shown.has(d)).map((d) => ({ from: d, to: t.id })))
    const since = r.now - spanMs
    const at = (iso: string) => Date.parse(iso)
    const held = tasks
      .filter((t) => t.status !== 'todo' && t.assignee)
      .map((t) => ({ agent: t.assignee!, ms: at(t.updated_at), id: t.id }))
      .filter((h) => h.ms >= since)
    const done = finished.flatMap((t) => {
      const agent = t.updated_by ?? t.assignee
      return agent ? [{ agent, ms: t.updated_at, id: t.id }] : []
    })
    return {
      tasks,
      edges,
      critical: criticalPath(
        tasks.map((t) => t.id),
        edges,
      ),
      open: r.open,
      outside: Array.isArray(r.outside) ? r.outside : [],
      activity: {
        since: iso(since),
        now: iso(r.now),
        held,
        done,
      },
    }
  }
}
