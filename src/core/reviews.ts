// Reviews: an agent asks for a review of a task or a context entry; another agent approves or
// rejects it with an optional note. Reviews of tasks drive the task's status (in_progress ->
// in_review -> done, or back to in_progress). Who may decide, and the status moves, are checked
// in lua/requestReview.lua and lua/includes/decideReview.lua.
import { encode } from '../shared/msgpack.js'
import { z } from 'zod'
import type { CoreSettings } from './settings.js'
import type { Store } from '../store/store.js'
import { AppError } from '../shared/errors.js'
import { page, reviewItem } from './compact.js'
import { contextKey, contextType, requireAgent, reviewId, taskId, type Caller } from './fields.js'
import { agentId } from '../shared/fields.js'
import type { TaskStatus } from './plan.js'
import { callOptions, decodeRecord } from './records.js'
import { withIsoTimes } from '../shared/time.js'
import { parse, text } from '../shared/validate.js'

export const REVIEW_STATUSES = ['pending', 'approved', 'rejected'] as const
export type ReviewStatus = (typeof REVIEW_STATUSES)[number]

/** Most reviews list_reviews returns. */
export const REVIEW_LIST_MAX = 200

/** Largest request or decision note (UTF-8). */
export const REVIEW_NOTE_BYTES = 2000

export type ReviewTarget = { kind: 'task'; task_id: string } | { kind: 'context'; type: string; key: string }

export interface Review {
  id: string
  target: ReviewTarget
  requested_by: string
  reviewer?: string
  status: ReviewStatus
  note?: string
  decision_note?: string
  decided_by?: string
  /** The named reviewer a person decided in place of. */
  overrode?: string
  created_at: string
  decided_at?: string
}

/** As stored: a task target carries its id as `id` (see lua/requestReview.lua). */
type StoredTarget = { kind: 'task'; id: string } | { kind: 'context'; type: string; key: string }

const target = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('task'), task_id: taskId }),
  z.object({ kind: z.literal('context'), type: contextType, key: contextKey }),
])

export const reviewSchemas = {
  request: z.object({ target, reviewer: agentId.optional(), note: text(REVIEW_NOTE_BYTES).optional() }),
  decide: z.object({ review_id: reviewId, note: text(REVIEW_NOTE_BYTES).optional() }),
  list: z.object({
    status: z.enum(REVIEW_STATUSES).optional(),
    reviewer: agentId.optional(),
    requested_by: agentId.optional(),
    target_kind: z.enum(['task', 'context']).optional(),
    task_id: taskId.optional(),
    limit: z
      .number()
      .int()
      .min(1, 'must be at least 1')
      .max(REVIEW_LIST_MAX, `must be at most ${REVIEW_LIST_MAX}`)
      .default(20),
  }),
}
type ListFilter = z.output<typeof reviewSchemas.list>

const pack = (v: unknown) => Buffer.from(encode(v))

export function toReview(rec: Record<string, unknown>): Review {
  const r = withIsoTimes(rec) as unknown as Omit<Review, 'target'> & { target: StoredTarget }
  const t = r.target
  return { ...r, target: t.kind === 'task' ? { kind: 'task', task_id: t.id } : t }
}

function matches(r: Review, f: ListFilter): boolean {
  return (
    (f.status === undefined || r.status === f.status) &&
    (f.reviewer === undefined || r.reviewer === f.reviewer) &&
    (f.requested_by === undefined || r.requested_by === f.requested_by) &&
    (f.target_kind === undefined || r.target.kind === f.target_kind) &&
    (f.task_id === undefined || (r.target.kind === 'task' && r.target.task_id === f.task_id))
  )
}

/** How a review is decided: `override`, by a person in place of the reviewer the review names. */
export interface Decide {
  override?: boolean
}

const seq = (id: string) => Number(id.slice(1))

export class Reviews {
  constructor(
    private readonly store: Store,
    private readonly settings: CoreSettings,
  ) {}

  /** Opens a review; a task target in_progress moves to in_review. */
  async request(c: Caller, input: unknown) {
    const agent = requireAgent(c)
    const v = parse(reviewSchemas.request, input)
    if (v.reviewer === agent) {
      throw new AppError(
        'invalid_request',
        'reviewer: must be another agent; the requester may not decide their own review',
        { field: 'reviewer' },
      )
    }
    const stored: StoredTarget = v.target.kind === 'task' ? { kind: 'task', id: v.target.task_id } : v.target
    const r = await this.store.room('requestReview', c.room, callOptions(c), [
      pack({ target: stored, reviewer: v.reviewer, note: v.note }),
      this.settings.reviewsPerRoom,
    ])
    return this.decided(r)
  }

  /**
   * Approves a pending review; a task target in_review moves to done. `override`: a person (the
   * dashboard, never an agent's tool) decides a review that names another reviewer.
   */
  async approve(c: Caller, input: unknown, opts: Decide = {}) {
    return this.decide('approved', c, input, opts)
  }

  /** Rejects a pending review; a task target in_review goes back to in_progress. `override` as for approve. */
  async reject(c: Caller, input: unknown, opts: Decide = {}) {
    return this.decide('rejected', c, input, opts)
  }

  /** Reviews matching every given filter, newest first, as compact items. */
  async list(c: Caller, input: unknown = {}) {
    const f = parse(reviewSchemas.list, input)
    const r = await this.store.room('listReviews', c.room, callOptions(c))
    const all = r.rows
      .map((raw) => toReview(decodeRecord(raw)))
      .filter((x) => matches(x, f))
      .sort((a, b) => seq(b.id) - seq(a.id))
    const reviews = all.slice(0, f.limit).map(reviewItem)
    return { reviews, ...page(reviews.length, all.length, REVIEW_LIST_MAX), unread: r.unread }
  }

  private async decide(decision: 'approved' | 'rejected', c: Caller, input: unknown, opts: Decide) {
    requireAgent(c)
    const v = parse(reviewSchemas.decide, input)
    const r = await this.store.room('decideReview', c.room, callOptions(c), [
      decision,
      v.review_id,
      v.note ?? '',
      opts.override ? '1' : '',
    ])
    return this.decided(r)
  }

  private decided(r: Record<string, any>) {
    const out: { review: Review; task_status?: TaskStatus; unread: number | undefined } = {
      review: toReview(r.review),
      unread: r.unread,
    }
    if (r.task_status !== undefined) out.task_status = r.task_status
    return out
  }
}
