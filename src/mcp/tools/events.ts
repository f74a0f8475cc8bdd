// Event tools: the append-only feed with a read cursor per agent, and wait_for_events, the
// long-poll that parks on the node's realtime feed instead of holding a Redis connection.
import { z } from 'zod'
import { revokedError, type Keyring } from '../../auth/keyring.js'
import { holderOf, type OpenCaps } from '../../auth/open-caps.js'
import { eventSchemas } from '../../core/events.js'
import { parse } from '../../shared/validate.js'
import type { Core } from '../../core/index.js'
import type { Feeds } from '../../realtime/feed.js'
import type { Lifecycle } from '../../shared/lifecycle.js'
import type { Metrics } from '../../shared/metrics.js'
import { coreArgs, coreJsonText, CORE_SETTINGS, fromJsonText } from '../args.js'
import { toolsOf, type ToolContext, type ToolDef } from '../tool.js'
import * as o from '../outputs.js'

/**
 * What the event tools use: the core's events and, for wait_for_events, the feed it parks on, the
 * drain and the revocations that end it, and the gauge that counts it.
 */
export interface EventToolDeps {
  core: Pick<Core, 'events'>
  feeds: Pick<Feeds, 'waitForNotice'>
  keyring: Pick<Keyring, 'hold'>
  lifecycle: Pick<Lifecycle, 'onDrain'>
  metrics: Pick<Metrics, 'parkedWaiters'>
  openCaps: Pick<OpenCaps, 'take'>
}

const tool = toolsOf<EventToolDeps>()

/** Longest park of wait_for_events, and its default (docs/mcp.md, Consuming tools). */
export const WAIT_MAX_S = 30

/** wait_for_events arguments; the core has no operation of its own for it, so the tool validates. */
export const waitSchema = z.object({
  timeout_s: z
    .number()
    .int('must be whole seconds')
    .min(1, 'must be at least 1')
    .max(WAIT_MAX_S, `must be at most ${WAIT_MAX_S}`)
    .default(WAIT_MAX_S),
  limit: z.number().int().min(1, 'must be at least 1').max(100, 'must be at most 100').default(50),
})

const events = eventSchemas(CORE_SETTINGS)
const id = coreArgs(events.eventRef, { event_id: 'Event id' })
/** Event data: JSON; listed as its text, which every strict-mode model can send. */
const DATA = 'JSON object as text, e.g. {"pr": 12}'

/**
 * Consumes the caller's unread events, parking until some arrive or the timeout. Race-free: each
 * round registers its wait on the room's feed before it looks (consumes), so an event landing
 * between the look and the park still wakes it. A wake-up that finds nothing (the caller's own
 * event, a deleted one) parks again until the deadline; at the deadline it looks once more, so
 * a lost notice costs latency, never events. Client gone or node draining: returns at once with
 * what it has (nothing) and consumes no more. Key revoked meanwhile (any node): fails with
 * unauthorized and consumes no more.
 */
async function waitForEvents(ctx: ToolContext<EventToolDeps>, input: unknown) {
  const { deps, caller, signal } = ctx
  const v = parse(waitSchema, input)
  const events = deps.core.events
  const deadline = Date.now() + v.timeout_s * 1000
  const stop = new AbortController()
  const onStop = () => stop.abort()
  signal.addEventListener('abort', onStop, { once: true })
  if (signal.aborted) stop.abort()
  const offDrain = deps.lifecycle.onDrain(onStop)
  let revoked = false
  const unhold = deps.keyring.hold(ctx.principal, () => {
    revoked = true
    stop.abort()
  })
  const live = () => {
    if (revoked) throw revokedError()
  }
  let parked = false
  let release = () => {}
  try {
    if (stop.signal.aborted) {
      // Gone or draining before the first look: consume nothing, report the count.
      const n = await events.peekUnread(caller)
      return { events: [], remaining: n, unread: n }
    }
    for (;;) {
      const round = new AbortController()
      const endRound = () => round.abort()
      stop.signal.addEventListener('abort', endRound, { once: true })
      try {
        const notice = deps.feeds.waitForNotice(caller.room, round.signal, Math.max(0, deadline - Date.now()))
        const r = await events.consume(caller, v.limit)
        live()
        if (r.events.length > 0 || r.cursor_reset !== undefined || stop.signal.aborted || Date.now() >= deadline)
          return r
        if (!parked) {
          // Refused past the caps before it parks: nothing was consumed (r is empty).
          release = deps.openCaps.take(holderOf(ctx.principal))
          parked = true
          ctx.longRunning()
          deps.metrics.parkedWaiters.inc()
        }
        const woke = await notice // true: an event notice; false: deadline, client gone, draining or revoked
        live()
        if (stop.signal.aborted) return r
        if (!woke) return await events.consume(caller, v.limit) // one last look at the deadline
      } finally {
        round.abort() // ends this round's registration when it did not fire
        stop.signal.removeEventListener('abort', endRound)
      }
    }
  } finally {
    if (parked) deps.metrics.parkedWaiters.dec()
    release()
    unhold()
    offDrain()
    signal.removeEventListener('abort', onStop)
  }
}

export const eventTools: ToolDef<EventToolDeps>[] = [
  tool({
    name: 'post_event',
    title: 'Post event',
    description: 'Posts a short signal to the feed, unread for others; long text goes in context.',
    scope: 'room',
    args: {
      ...coreArgs(events.post, {
        type: 'message, status, question, answer, blocker, ...',
        text: 'The message',
        data: undefined,
        reply_to: 'Event id this answers',
      }),
      data: coreJsonText(events.post, 'data', DATA),
    },
    output: { event: o.postedEvent },
    mutates: true,
    core: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: ({ deps, caller }, a) =>
      deps.core.events.post(caller, { ...a, data: fromJsonText(a.data, 'data') }).then(o.withPostedEvent),
  }),
  tool({
    name: 'read_events',
    title: 'Read events',
    description: 'A page of the feed, oldest first, consuming nothing.',
    scope: 'room',
    args: coreArgs(events.read, {
      before: 'Older than this event id',
      after: 'Newer than this event id',
      limit: '1-100, default 20',
      type: 'Only this type',
    }),
    output: { events: z.array(o.event), prev: o.str.optional(), next: o.str.optional() },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ deps, caller }, a) => deps.core.events.read(caller, a),
  }),
  tool({
    name: 'get_unread_events',
    title: 'Get unread events',
    description: 'Consumes your unread events, oldest first.',
    scope: 'room',
    args: coreArgs(events.unread, { limit: '1-100, default 50' }),
    output: o.consumed,
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: ({ deps, caller }, a) => deps.core.events.unread(caller, a),
  }),
  tool({
    name: 'mark_event_read',
    title: 'Mark event read',
    description: 'Moves your read cursor forward to an event.',
    scope: 'room',
    args: id,
    output: { moved: z.boolean(), cursor: o.str },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ deps, caller }, a) => deps.core.events.markRead(caller, a),
  }),
  tool({
    name: 'get_event_reads',
    title: 'Get event reads',
    description: 'Which agents have read an event.',
    scope: 'room',
    args: id,
    output: { event_id: o.str, author: o.str, read_by: o.strs },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ deps, caller }, a) => deps.core.events.reads(caller, a),
  }),
  tool({
    name: 'reply_to_event',
    title: 'Reply to event',
    description: 'Posts an event answering another (threaded by reply_to).',
    scope: 'room',
    args: {
      ...coreArgs(events.reply, {
        event_id: 'Event to answer',
        text: 'The answer',
        type: 'Default message',
        data: undefined,
      }),
      data: coreJsonText(events.reply, 'data', DATA),
    },
    output: { event: o.postedEvent },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: ({ deps, caller }, a) =>
      deps.core.events.reply(caller, { ...a, data: fromJsonText(a.data, 'data') }).then(o.withPostedEvent),
  }),
  tool({
    name: 'delete_event',
    title: 'Delete event',
    description: 'Deletes an event you posted, for good.',
    scope: 'room',
    args: id,
    output: { deleted: o.str },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    run: ({ deps, caller }, a) => deps.core.events.delete(caller, a),
  }),
  tool({
    name: 'wait_for_events',
    title: 'Wait for events',
    description: 'Waits up to timeout_s for unread events and consumes them.',
    scope: 'room',
    args: coreArgs(waitSchema, { timeout_s: '1-30, default 30', limit: '1-100, default 50' }),
    output: o.consumed,
    mutates: true,
    core: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: (ctx, a) => waitForEvents(ctx, a),
  }),
]
