// The plan: tasks with status, assignee, dependencies, priority and order, and the atomic claim.
// Rules that need the room's state (claims, cycles, limits) run inside the Lua scripts; this
// module validates input, shapes arguments and decodes results.
import { encode } from '../shared/msgpack.js'
import { z } from 'zod'
import type { CoreSettings } from './settings.js'
import type { StoredPriority, StoredTaskStatus } from '../store/records.js'
import type { Store } from '../store/store.js'
import { blockersIn, page, taskItem } from './compact.js'
import { assignee, requireAgent, taskId, viaArg, type Caller } from './fields.js'
import { viaOf, type Via } from '../shared/fields.js'
import { callOptions, decodeRecord, pairs } from './records.js'
import { withIsoTimes } from '../shared/time.js'
import { list, parse, text } from '../shared/validate.js'

export const TASK_STATUSES = [
  'todo',
  'in_progress',
  'in_review',
  'done',
  'cancelled',
] as const satisfies readonly StoredTaskStatus[]
export const PRIORITIES = ['urgent', 'high', 'normal', 'low'] as const satisfies readonly StoredPriority[]
export type TaskStatus = (typeof TASK_STATUSES)[number]
export type Priority = (typeof PRIORITIES)[number]

export interface Task {
  id: string
  title: string
  status: TaskStatus
  assignee?: string
  depends_on: string[]
  priority: Priority
  order: number
  notes?: string
  created_at: string
  updated_at: string
  created_by?: string
  updated_by?: string
  /** The credentials that added it, last changed it and last claimed it (src/core/fields.ts Via). */
  created_via?: Via
  updated_via?: Via
  claimed_via?: Via
}

const pack = (v: unknown) => Buffer.from(encode(v))

/** Most tasks a task list returns, and the defaults: sized for what one agent turn reads. */
export const TASK_LIST_MAX = 200
export const UNBLOCKED_DEFAULT = 10
export const MY_TASKS_DEFAULT = 20
export const PLAN_DEFAULT = 50
const listLimit = (dflt: number) =>
  z.number().int().min(1, 'must be at least 1').max(TASK_LIST_MAX, `must be at most ${TASK_LIST_MAX}`).default(dflt)

/** A listed task of a script's rows: the stored record, with blocked_by when the script added it. */
function itemOfRow(raw: Buffer) {
  const rec = decodeRecord<Task & { blocked_by?: string[] }>(raw)
  return taskItem(rec, rec.blocked_by)
}

export function planSchemas(s: CoreSettings) {
  const title = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters')
  const order = z.number().int().min(0, 'must be 0 or more').max(1_000_000_000, 'must be at most 1000000000')
  return {
    addTask: z.object({
      title,
      notes: text(s.taskNotesBytes).optional(),
      status: z.enum(['todo', 'in_progress']).default('todo'),
      assignee: assignee.min(1).optional(),
      depends_on: list(taskId, s.dependenciesPerTask).default([]),
      priority: z.enum(PRIORITIES).default('normal'),
      order: order.optional(),
      force: z.boolean().default(false),
    }),
    taskRef: z.object({ task_id: taskId }),
    updateTask: z.object({
      task_id: taskId,
      title: title.optional(),
      notes: text(s.taskNotesBytes).optional(),
      status: z.enum(TASK_STATUSES).optional(),
      assignee: assignee.optional().describe('agent id; "" unassigns'),
      priority: z.enum(PRIORITIES).optional(),
      order: order.optional(),
      force: z.boolean().default(false),
    }),
    setPriority: z
      .object({ task_id: taskId, priority: z.enum(PRIORITIES).optional(), order: order.optional() })
      .refine((v) => v.priority !== undefined || v.order !== undefined, {
        message: 'give priority, order or both',
        path: ['priority'],
      }),
    addDependency: z.object({ task_id: taskId, depends_on: taskId }),
    setDependencies: z.object({ task_id: taskId, depends_on: list(taskId, s.dependenciesPerTask) }),
    listTasks: z.object({ limit: listLimit(UNBLOCKED_DEFAULT) }),
    claimNext: z.object({}),
    myTasks: z.object({ include_done: z.boolean().default(false), limit: listLimit(MY_TASKS_DEFAULT) }),
    readPlan: z.object({
      limit: z
        .number()
        .int()
        .min(1, 'must be at least 1')
        .max(s.tasksPerRoom, `must be at most ${s.tasksPerRoom}`)
        .default(PLAN_DEFAULT),
    }),
  }
}

/** Field order of a task as agents read it: what it is first, bookkeeping last. */
const TASK_FIELDS = [
  'id',
  'title',
  'status',
  'assignee',
  'priority',
  'order',
  'depends_on',
  'notes',
  'created_by',
  'updated_by',
  'created_via',
  'updated_via',
  'claimed_via',
  'created_at',
  'updated_at',
] as const

function ordered(rec: Record<string, unknown>, notes: unknown): Task {
  const src: Record<string, unknown> = {
    ...rec,
    depends_on: rec.depends_on ?? [],
    notes: typeof notes === 'string' && notes !== '' ? notes : undefined,
    created_via: viaOf(rec.created_via),
    updated_via: viaOf(rec.updated_via),
    claimed_via: viaOf(rec.claimed_via),
  }
  const t: Record<string, unknown> = {}
  for (const f of TASK_FIELDS) if (src[f] !== undefined) t[f] = src[f]
  return t as unknown as Task
}

export function toTask(raw: Buffer, notes?: Buffer | string | null): Task {
  return ordered(
    decodeRecord<Record<string, unknown>>(raw),
    notes === undefined || notes === null ? '' : notes.toString(),
  )
}

/** A task that came back decoded inside a script's reply. */
export function taskFromReply(rec: Record<string, unknown>, notes: unknown): Task {
  return ordered(withIsoTimes(rec), notes)
}

export class Plan {
  readonly schemas: ReturnType<typeof planSchemas>

  constructor(
    private readonly store: Store,
    private readonly settings: CoreSettings,
  ) {
    this.schemas = planSchemas(settings)
  }

  async addTask(c: Caller, input: unknown) {
    const v = parse(this.schemas.addTask, input)
    if (v.status === 'in_progress' && v.assignee === undefined) v.assignee = requireAgent(c)
    const rec = {
      title: v.title,
      status: v.status,
      assignee: v.assignee,
      depends_on: [...new Set(v.depends_on)],
      priority: v.priority,
      order: v.order,
    }
    const r = await this.store.room('addTask', c.room, callOptions(c), [
      pack(rec),
      v.notes ?? '',
      this.settings.tasksPerRoom,
      v.force ? '1' : '0',
      viaArg(c),
    ])
    return { task: taskFromReply(r.task, r.notes), unread: r.unread }
  }

  /** `touch` false: a read that is not room activity (the dashboard looking at a task). */
  async getTask(c: Caller, input: unknown, touch = true) {
    const v = parse(this.schemas.taskRef, input)
    const r = await this.store.room('getTask', c.room, callOptions(c, touch), [v.task_id])
    return { task: taskFromReply(r.task, r.notes), blocked_by: r.blocked_by, unread: r.unread }
  }

  /** Changes a task. status in_progress claims it (see updateTask.lua for the rules). */
  async updateTask(c: Caller, input: unknown) {
    const v = parse(this.schemas.updateTask, input)
    if (v.status === 'in_progress' && v.assignee === undefined) requireAgent(c)
    const patch = {
      title: v.title,
      notes: v.notes,
      status: v.status,
      assignee: v.assignee,
      priority: v.priority,
      order: v.order,
    }
    const r = await this.store.room('updateTask', c.room, callOptions(c), [
      v.task_id,
      pack(patch),
      v.force ? '1' : '0',
      this.settings.eventsRetained,
      viaArg(c),
    ])
    const out: { task: Task; changed: string[]; unblocked: string[]; overrode?: string; unread: number | undefined } = {
      task: taskFromReply(r.task!, r.notes), // given a task id, the script answers its task or fails
      changed: r.changed,
      unblocked: r.unblocked,
      unread: r.unread,
    }
    // Whose claim a forced change overrode (a task_overridden event tells them).
    if (r.overrode !== undefined) out.overrode = r.overrode
    return out
  }

  /**
   * Claims the caller's best claimable task (the first unblockedTasks lists), chosen and claimed in
   * one script: two callers never get the same task. Answers the task, or none when nothing is
   * claimable, and `open`: how many tasks are not done or cancelled (0: the plan is finished).
   */
  async claimNext(c: Caller, input: unknown = {}) {
    parse(this.schemas.claimNext, input)
    requireAgent(c)
    const r = await this.store.room('updateTask', c.room, callOptions(c), [
      '',
      pack({ status: 'in_progress' }),
      '0',
      this.settings.eventsRetained,
      viaArg(c),
    ])
    const task = r.task ? { task: taskFromReply(r.task, r.notes) } : {}
    return { ...task, open: r.open ?? 0, unread: r.unread }
  }

  async setTaskPriority(c: Caller, input: unknown) {
    const v = parse(this.schemas.setPriority, input)
    const r = await this.store.room('updateTask', c.room, callOptions(c), [
      v.task_id,
      pack({ priority: v.priority, order: v.order }),
      '0',
      this.settings.eventsRetained,
      viaArg(c),
    ])
    return { task: taskFromReply(r.task!, r.notes), changed: r.changed, unread: r.unread } // as updateTask
  }

  async deleteTask(c: Caller, input: unknown) {
    const v = parse(this.schemas.taskRef, input)
    const r = await this.store.room('deleteTask', c.room, callOptions(c), [v.task_id])
    return { deleted: r.deleted, dependents: r.dependents, reviews_removed: r.reviews_removed, unread: r.unread }
  }

  async addDependency(c: Caller, input: unknown) {
    const v = parse(this.schemas.addDependency, input)
    const r = await this.store.room('addDependency', c.room, callOptions(c), [
      v.task_id,
      v.depends_on,
      this.settings.dependenciesPerTask,
    ])
    return { task: taskFromReply(r.task, undefined), blocked_by: r.blocked_by, added: r.added, unread: r.unread }
  }

  /**
   * Sets what a task depends on, all at once (setDependencies.lua): depends_on becomes exactly the
   * ids given, or nothing changes (an unknown id, the task itself, a cycle, over the limit).
   * Answers what it added and removed.
   */
  async setDependencies(c: Caller, input: unknown) {
    const v = parse(this.schemas.setDependencies, input)
    const r = await this.store.room('setDependencies', c.room, callOptions(c), [
      v.task_id,
      pack(v.depends_on),
      this.settings.dependenciesPerTask,
      viaArg(c),
    ])
    return {
      task: taskFromReply(r.task, r.notes),
      blocked_by: r.blocked_by,
      added: r.added,
      removed: r.removed,
      unread: r.unread,
    }
  }

  /**
   * The plan as compact items (see compact.ts), sorted by priority, order and creation: the first
   * `limit`, with per-status counts of all.
   */
  async readPlan(c: Caller, input: unknown = {}) {
    const v = parse(this.schemas.readPlan, input)
    const r = await this.store.room('readPlan', c.room, callOptions(c))
    const tasks = sortTasks(pairs(r.rows).map(([t]) => toTask(t)))
    const counts: Record<string, number> = {}
    for (const t of tasks) counts[t.status] = (counts[t.status] ?? 0) + 1
    const blockers = blockersIn(tasks)
    const shown = tasks.slice(0, v.limit).map((t) => taskItem(t, blockers.get(t.id)))
    return { tasks: shown, counts, ...page(shown.length, tasks.length, this.settings.tasksPerRoom), unread: r.unread }
  }

  /**
   * Todo tasks whose dependencies are all done or cancelled, best first, as compact items; excludes
   * tasks assigned to other agents.
   */
  async unblockedTasks(c: Caller, input: unknown = {}) {
    const v = parse(this.schemas.listTasks, input)
    const r = await this.store.room('listTasks', c.room, callOptions(c), ['unblocked', v.limit, c.agent ?? '', '0'])
    const tasks = pairs(r.rows).map(([t]) => itemOfRow(t))
    return { tasks, ...page(tasks.length, r.total, TASK_LIST_MAX), unread: r.unread }
  }

  /** Tasks assigned to the caller as compact items, open ones unless include_done. */
  async myTasks(c: Caller, input: unknown = {}) {
    const agent = requireAgent(c)
    const v = parse(this.schemas.myTasks, input)
    const r = await this.store.room('listTasks', c.room, callOptions(c), [
      'mine',
      v.limit,
      agent,
      v.include_done ? '1' : '0',
    ])
    const tasks = pairs(r.rows).map(([t]) => itemOfRow(t))
    return { tasks, ...page(tasks.length, r.total, TASK_LIST_MAX), unread: r.unread }
  }
}

const RANK: Record<Priority, number> = { urgent: 0, high: 1, normal: 2, low: 3 }

/** The plan's order: priority, then order, then creation (same as sortTasks in lua/includes/task.lua). */
export function sortTasks(tasks: Task[]): Task[] {
  return tasks.sort(
    (a, b) => RANK[a.priority] - RANK[b.priority] || a.order - b.order || Number(a.id.slice(1)) - Number(b.id.slice(1)),
  )
}
