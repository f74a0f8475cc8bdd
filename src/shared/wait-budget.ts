// One call's time spent waiting for Redis. A call (one HTTP request: its key lookup, its rate
// lease and its scripts) waits for Redis at most the command deadline (REDIS_COMMAND_TIMEOUT_MS)
// in total, not that long per command: each command is given what the call has left of it, and a
// call with nothing left fails as unavailable without sending. Time spent elsewhere (parked in
// wait_for_events, reading the body) is not counted.

/** How long a call has waited for Redis so far; the store and the rate limiter add to it. */
export interface WaitBudget {
  waitedMs: number
}

/** A budget with nothing spent yet: one per request. */
export const newWaitBudget = (): WaitBudget => ({ waitedMs: 0 })

/**
 * What a call may still wait (ms) under a command deadline of `deadlineMs`: undefined when there
 * is no deadline or no budget (the command's own deadline applies), else at most `deadlineMs`.
 */
export function leftOf(budget: WaitBudget | undefined, deadlineMs: number | undefined): number | undefined {
  if (budget === undefined || deadlineMs === undefined) return undefined
  return deadlineMs - budget.waitedMs
}
