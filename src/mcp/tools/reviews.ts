// Review tools: ask another agent to review a task or a context entry; approve or reject it.
import { z } from 'zod'
import { REVIEW_STATUSES } from '../../core/reviews.js'
import { taskId } from '../../core/fields.js'
import { tool, type ToolDef } from '../tool.js'

const reviewRef = { review_id: z.string().describe('Review id, e.g. "r2"') }
const note = z.string().optional().describe('Optional note for the requester')

export const reviewTools: ToolDef[] = [
  tool({
    name: 'request_review',
    title: 'Request review',
    description:
      'Asks for a review of a task (an in_progress task moves to in_review) or a context entry. Name a reviewer or leave it open to any other agent. The reviewer answers with approve or reject.',
    scope: 'room',
    args: {
      target: z
        .object({
          kind: z.enum(['task', 'context']),
          task_id: z.string().optional().describe('With kind task'),
          type: z.string().optional().describe('With kind context'),
          key: z.string().optional().describe('With kind context'),
        })
        .describe('{kind: "task", task_id} or {kind: "context", type, key}'),
      reviewer: z.string().optional().describe('agent_id of the reviewer; default anyone'),
      note: z.string().optional().describe('What to check'),
    },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: ({ node, caller }, a) => node.core.reviews.request(caller, a),
  }),
  tool({
    name: 'approve',
    title: 'Approve review',
    description: 'Approves a pending review (not your own); a task under review becomes done.',
    scope: 'room',
    args: { ...reviewRef, note },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ node, caller }, a) => node.core.reviews.approve(caller, a),
  }),
  tool({
    name: 'reject',
    title: 'Reject review',
    description: 'Rejects a pending review (not your own); a task under review goes back to in_progress. Say what to fix in note.',
    scope: 'room',
    args: { ...reviewRef, note },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ node, caller }, a) => node.core.reviews.reject(caller, a),
  }),
  tool({
    name: 'list_reviews',
    title: 'List reviews',
    description: 'Reviews matching every given filter, newest first (e.g. status pending, reviewer = you).',
    scope: 'room',
    args: {
      status: z.enum(REVIEW_STATUSES).optional(),
      reviewer: z.string().optional().describe('agent_id'),
      requested_by: z.string().optional().describe('agent_id'),
      target_kind: z.enum(['task', 'context']).optional(),
      task_id: taskId.optional().describe('Reviews of this task'),
      limit: z.number().int().optional().describe('1-200, default 20'),
    },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ node, caller }, a) => node.core.reviews.list(caller, a),
  }),
]
