// Plan tools: tasks, claims, dependencies, priority.
import { planSchemas } from '../../core/plan.js'
import { summarySchema } from '../../core/summary.js'
import type { Core } from '../../core/index.js'
import { coreArgs, CORE_SETTINGS } from '../args.js'
import { toolsOf, type ToolDef } from '../tool.js'
import { AppError } from '../../shared/errors.js'
import * as o from '../outputs.js'
import { z } from 'zod'

const plan = planSchemas(CORE_SETTINGS)
const id = coreArgs(plan.taskRef, { task_id: 'Task id like t3' })
/** The listing shows no bound (limits stay in the core), so a model learns it here. */
const ORDER = 'Rank within a priority, 0 or more, low first'

/** How many claimable tasks get_unblocked_tasks lists by default: a turn claims one. */
const UNBLOCKED_LIMIT = 5

/** What the plan tools use. */
export interface PlanToolDeps {
  core: Pick<Core, 'plan' | 'summary'>
}

const tool = toolsOf<PlanToolDeps>()

export const planTools: ToolDef<PlanToolDeps>[] = [
  tool({
    name: 'read_plan',
    title: 'Read plan',
    description: 'Every task, best first, with counts per status; a turn needs only get_unblocked_tasks.',
    scope: 'room',
    args: coreArgs(plan.readPlan, { limit: 'Default 50' }),
    output: { tasks: z.array(o.taskItem), counts: o.counts, ...o.page },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ deps, caller }, a) => deps.core.plan.readPlan(caller, a),
  }),
  tool({
    name: 'add_task',
    title: 'Add task',
    description: 'Adds a task (ids t1, t2, ...).',
    scope: 'room',
    args: coreArgs(plan.addTask, {
      title: 'Short imperative title',
      notes: 'Details, acceptance criteria',
      status: 'in_progress claims it for assignee',
      assignee: 'Agent id; default you if in_progress',
      depends_on: 'Task ids to finish first',
      priority: 'Default normal',
      order: ORDER,
    }),
    output: { task: o.changedTask },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: ({ deps, caller }, a) => deps.core.plan.addTask(caller, a).then(o.withChangedTask),
  }),
  tool({
    name: 'get_task',
    title: 'Get task',
    description: 'One whole task: notes, dependencies, history, blocked_by.',
    scope: 'room',
    args: id,
    output: { task: o.task, blocked_by: o.strs },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ deps, caller }, a) => deps.core.plan.getTask(caller, a),
  }),
  tool({
    name: 'update_task',
    title: 'Update task / claim',
    description: 'Changes a task. status in_progress claims it atomically: a conflict if held or blocked.',
    scope: 'room',
    args: coreArgs(plan.updateTask, {
      task_id: 'Task id like t3',
      status: 'New status',
      assignee: 'Agent id; "" unassigns',
      title: 'New title',
      notes: 'New notes',
      force: 'Override a conflict; only when told to',
    }),
    output: { task: o.changedTask, changed: o.strs, unblocked: o.strs, overrode: o.str.optional() },
    mutates: true,
    core: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ deps, caller }, a) =>
      deps.core.plan
        .updateTask(caller, a)
        .then(o.withChangedTask)
        .catch((err: unknown) => {
          throw claimHint(err)
        }),
  }),
  tool({
    name: 'get_unblocked_tasks',
    title: 'Get unblocked tasks',
    description: 'Todo tasks you can start now, best first. Claim one with update_task.',
    scope: 'room',
    args: coreArgs(plan.listTasks, { limit: `1-200, default ${UNBLOCKED_LIMIT}` }),
    output: { tasks: z.array(o.claimableItem), ...o.page },
    mutates: false,
    // Not in the core profile: claim_next_task is its list and claim in one atomic call.
    annotations: { readOnlyHint: true },
    run: async ({ deps, caller }, a) => {
      const r = await deps.core.plan.unblockedTasks(caller, { ...a, limit: a.limit ?? UNBLOCKED_LIMIT })
      return { ...r, tasks: r.tasks.map((t) => o.without(t, ['status'])) }
    },
  }),
  tool({
    name: 'claim_next_task',
    title: 'Claim next task',
    description: 'Claims your best unblocked task atomically. No task: none claimable now; open 0: the plan is done.',
    scope: 'room',
    args: coreArgs(plan.claimNext, {}),
    output: { task: o.changedTask.optional(), open: o.int.describe('Tasks not done or cancelled') },
    mutates: true,
    core: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: ({ deps, caller }, a) =>
      deps.core.plan.claimNext(caller, a).then((r) => (r.task ? o.withChangedTask({ ...r, task: r.task }) : r)),
  }),
  tool({
    name: 'get_my_tasks',
    title: 'Get my tasks',
    description: 'Your open tasks and their blockers.',
    scope: 'room',
    args: coreArgs(plan.myTasks, { include_done: 'Also done and cancelled', limit: '1-200, default 20' }),
    output: { tasks: z.array(o.taskItem), ...o.page },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ deps, caller }, a) => deps.core.plan.myTasks(caller, a),
  }),
  tool({
    name: 'get_my_summary',
    title: 'Get my summary',
    description: 'Start of a turn: consumes your unread events; your tasks, reviews for you, claimable count.',
    scope: 'room',
    args: coreArgs(summarySchema, { event_limit: '1-100, default 20', task_limit: '1-100, default 20' }),
    output: {
      agent_id: o.str,
      events: z.array(o.event),
      remaining_unread: o.int,
      my_tasks: z.array(o.taskItem),
      my_tasks_total: o.int,
      reviews_for_me: z.array(o.reviewItem),
      unblocked_tasks: o.int,
      online_agents: o.int,
      last_event_at: o.time.optional(),
      cursor_reset: o.cursorReset.optional(),
    },
    mutates: true,
    core: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: ({ deps, caller }, a) => deps.core.summary.mine(caller, a),
  }),
  tool({
    name: 'delete_task',
    title: 'Delete task',
    description: 'Deletes a task and its pending reviews for good; prefer status cancelled.',
    scope: 'room',
    args: id,
    output: { deleted: o.str, dependents: o.strs, reviews_removed: o.strs },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    run: ({ deps, caller }, a) => deps.core.plan.deleteTask(caller, a),
  }),
  tool({
    name: 'set_task_priority',
    title: 'Set task priority',
    description: 'Sets priority and/or order of a task.',
    scope: 'room',
    args: coreArgs(plan.setPriority, { task_id: 'Task id like t3', priority: 'New priority', order: ORDER }),
    output: { task: o.changedTask, changed: o.strs },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ deps, caller }, a) => deps.core.plan.setTaskPriority(caller, a).then(o.withChangedTask),
  }),
  tool({
    name: 'add_dependency',
    title: 'Add dependency',
    description: 'Makes task_id wait for depends_on; a cycle is refused.',
    scope: 'room',
    args: coreArgs(plan.addDependency, { task_id: 'Task that waits', depends_on: 'Task to finish first' }),
    output: { task: o.changedTask, blocked_by: o.strs, added: z.boolean() },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ deps, caller }, a) => deps.core.plan.addDependency(caller, a).then(o.withChangedTask),
  }),
]

/**
 * A refused claim tells the agent what to do next, in the tools' words: the core's conflict names
 * the holder or the blockers (message and details); the hint points at the tools for other work.
 */
function claimHint(err: unknown): unknown {
  if (!(err instanceof AppError) || err.code !== 'conflict') return err
  const d = err.details ?? {}
  if (typeof d.holder === 'string') {
    return new AppError(
      err.code,
      err.message,
      d,
      `${d.holder} holds it: call claim_next_task for another task, or post_event to ask ${d.holder}.`,
    )
  }
  if (Array.isArray(d.blocked_by)) {
    return new AppError(
      err.code,
      err.message,
      d,
      `Wait for ${d.blocked_by.join(', ')} to be done, or call claim_next_task for a task you can claim now.`,
    )
  }
  return err
}
