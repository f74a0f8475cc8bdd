// Field schemas of the room model (tasks, reviews, events, context), and the caller of an
// operation. The identifiers every layer parses (room, team and agent ids, names) are
// src/shared/fields.ts; they are used here, not re-exported.
import { z } from 'zod'
import type { RoomRef } from '../store/keys.js'
import { AppError } from '../shared/errors.js'
import type { WaitBudget } from '../shared/wait-budget.js'
import { agentId, isAgentId, LONE_SURROGATE, name, NO_CONTROL, WELL_FORMED, type Via } from '../shared/fields.js'

/** Who calls: the room (already authorized), the agent, and an optional idempotency key. */
export interface Caller {
  readonly room: RoomRef
  readonly agent?: string | undefined
  readonly idempotencyKey?: string | undefined
  /** The credential the call came with; writes record it (absent: the service's own calls). */
  readonly via?: Via | undefined
  /** The request's time waiting for Redis, shared by its scripts (absent: each script has the whole deadline). */
  readonly budget?: WaitBudget | undefined
}

/** The `via` argument of a writing room script: the credential as compact JSON, '' for none. */
export const viaArg = (c: Caller): string => (c.via === undefined ? '' : JSON.stringify(c.via))

/** An assignee: an agent id, or "" (unassigns). */
export const assignee = z
  .string()
  .max(128, 'must be at most 128 characters')
  .regex(NO_CONTROL, 'must not contain control characters')
  .refine((v) => !LONE_SURROGATE.test(v), WELL_FORMED)
export const taskId = z.string().regex(/^t[1-9][0-9]{0,8}$/, 'must be a task id like "t7"')
export const reviewId = z.string().regex(/^r[1-9][0-9]{0,8}$/, 'must be a review id like "r3"')
export const eventId = z.string().regex(/^[0-9]{1,15}-[0-9]{1,15}$/, 'must be an event id like "1732263097123-42"')
export const contextType = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be 1-32 lowercase letters, digits, "_" or "-", e.g. "spec"')
export const contextKey = name(200)

/** Validates the caller's identity fields; used by every operation that needs an agent. */
export function requireAgent(c: Caller): string {
  if (c.agent === undefined || c.agent === '') {
    throw new AppError('invalid_request', 'agent_id: required; pass the stable id of the calling agent', {
      field: 'agent_id',
    })
  }
  if (isAgentId(c.agent)) return c.agent
  const r = agentId.safeParse(c.agent)
  throw new AppError('invalid_request', `agent_id: ${r.error?.issues[0]?.message}`, { field: 'agent_id' })
}
