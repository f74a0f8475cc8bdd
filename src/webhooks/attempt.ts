// One attempt of one webhook delivery, end to end: its body, its signature (signing.ts), its
// target resolved and checked (guard.ts) within the attempt's deadline, the POST (send.ts), and
// what to do next (decide: done, retry after a delay, give up, or disable the webhook). The
// dispatcher (dispatcher.ts) decides which deliveries to attempt, and when.
import type { Agent } from 'node:https'
import { eventFromReply } from '../shared/events.js'
import { VERSION } from '../shared/version.js'
import type { Delivery, HookTarget, Outcome } from '../store/webhooks.js'
import { parseTargetUrl, resolveTarget, type Resolver } from './guard.js'
import { deliverTo, type Attempt } from './send.js'
import { secretsOf, signedHeaders } from './signing.js'

/** The request body of a delivery: JSON {id, type, team_id, room_id, event, sent_at}. */
export function deliveryBody(team: string, d: Delivery, sentAt: Date): Buffer {
  const event = eventFromReply({ ...d.e, id: d.ev })
  return Buffer.from(
    JSON.stringify({
      id: d.id,
      type: 'room.event',
      team_id: team,
      room_id: d.room,
      event,
      sent_at: sentAt.toISOString(),
    }),
  )
}

/** How an attempt is made: Dispatcher's settings, agent and stop signal. */
export interface AttemptOptions {
  timeoutMs: number
  agent: Agent
  /** Extra trusted CA; with it, loopback targets are allowed (test only). */
  ca?: Buffer | undefined
  resolve?: Resolver | undefined
  signal: AbortSignal
}

/** One signed POST of `body` to the webhook, started at `started` (ms), within the timeout, DNS included. */
export async function signedAttempt(
  hook: HookTarget,
  id: string,
  body: Buffer,
  started: number,
  o: AttemptOptions,
): Promise<Attempt> {
  const headers = signedHeaders(secretsOf(hook), id, Math.floor(started / 1000), body)
  try {
    const url = parseTargetUrl(hook.url)
    const target = await withDeadline(
      resolveTarget(url, { resolve: o.resolve, allowLoopback: o.ca !== undefined }),
      o.timeoutMs,
      'DNS',
    )
    const left = o.timeoutMs - (Date.now() - started)
    return await deliverTo(
      target,
      body,
      headers,
      {
        timeoutMs: o.timeoutMs,
        agent: o.agent,
        ca: o.ca,
        userAgent: `agentrooms-webhooks/${VERSION}`,
        signal: o.signal,
      },
      left,
    )
  } catch (err) {
    return { error: (err as Error).message }
  }
}

/** What to do after an attempt: the outcome and, for a retry, the delay. */
export function decide(
  a: Attempt,
  attempts: number,
  scheduleMs: readonly number[],
  jitter: number,
  random = Math.random,
): { outcome: Outcome; delayMs: number } {
  if (a.status !== undefined && a.status >= 200 && a.status < 300) return { outcome: 'ok', delayMs: 0 }
  if (a.status === 410) return { outcome: 'gone', delayMs: 0 }
  if (attempts > scheduleMs.length) return { outcome: 'fail', delayMs: 0 }
  const longest = Math.max(...scheduleMs)
  // Retry-After is honoured as asked (never sooner), up to the schedule's longest delay.
  if (a.retryAfterMs !== undefined) return { outcome: 'retry', delayMs: Math.min(a.retryAfterMs, longest) }
  const base = scheduleMs[attempts - 1]!
  return { outcome: 'retry', delayMs: Math.max(0, Math.round(base * (1 + (random() * 2 - 1) * jitter))) }
}

/** `p`, or a rejection naming `what` after `ms`. */
function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)
  })
  return Promise.race([p, late]).finally(() => clearTimeout(timer))
}
