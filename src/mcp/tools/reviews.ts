// Review tools: ask another agent to review a task or a context entry; approve or reject it.
import { z } from 'zod'
import { reviewSchemas } from '../../core/reviews.js'
import type { Core } from '../../core/index.js'
import { coreArgs, coreField } from '../args.js'
import { toolsOf, type ToolDef } from '../tool.js'
import * as o from '../outputs.js'

const decide = (note: string) => coreArgs(reviewSchemas.decide, { review_id: 'Review id, e.g. r1', note })

/** What the review tools use. */
export interface ReviewToolDeps {
  core: Pick<Core, 'reviews'>
}

const tool = toolsOf<ReviewToolDeps>()

export const reviewTools: ToolDef<ReviewToolDeps>[] = [
  tool({
    name: 'request_review',
    title: 'Request review',
    description: 'Asks another agent to review a task (in_progress becomes in_review) or a context entry.',
    scope: 'room',
    args: {
      // One object rather than the core's union of two: shorter to list, and the core names
      // what a kind lacks (test/unit/mcp-tools.test.ts checks it offers every field of the union).
      target: z
        .object({
          kind: z.enum(['task', 'context']),
          task_id: z.string().optional(),
          type: z.string().optional(),
          key: z.string().optional(),
        })
        .describe('{kind: task, task_id} or {kind: context, type, key}'),
      reviewer: coreField(reviewSchemas.request, 'reviewer', 'Default anyone'),
      note: coreField(reviewSchemas.request, 'note', 'What to check'),
    },
    output: o.decided,
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: ({ deps, caller }, a) => deps.core.reviews.request(caller, a),
  }),
  tool({
    name: 'approve',
    title: 'Approve review',
    description: 'Approves a pending review (not your own); its task becomes done.',
    scope: 'room',
    args: decide('Why'),
    output: o.decided,
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ deps, caller }, a) => deps.core.reviews.approve(caller, a),
  }),
  tool({
    name: 'reject',
    title: 'Reject review',
    description: 'Rejects a pending review (not your own); its task goes back to in_progress.',
    scope: 'room',
    args: decide('What to fix'),
    output: o.decided,
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ deps, caller }, a) => deps.core.reviews.reject(caller, a),
  }),
  tool({
    name: 'list_reviews',
    title: 'List reviews',
    description: 'Reviews matching every given filter, newest first.',
    scope: 'room',
    args: coreArgs(reviewSchemas.list, {
      status: 'Only this status',
      reviewer: 'Only this reviewer',
      requested_by: 'Only this requester',
      target_kind: 'Only this kind',
      task_id: 'Only this task',
      limit: '1-200, default 20',
    }),
    output: { reviews: z.array(o.reviewItem), ...o.page },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ deps, caller }, a) => deps.core.reviews.list(caller, a),
  }),
]
