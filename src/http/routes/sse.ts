// GET /rooms/:roomId/stream — Server-Sent Events of a room's new events. Frames:
//   id: <event id>\nevent: <type>\ndata: <event JSON>\n\n
// A comment every SSE_KEEPALIVE_S keeps proxies from cutting the stream. Last-Event-ID (header,
// or ?lastEventId= for clients that cannot set it) resumes after that event within retention;
// events trimmed away meanwhile are announced with an `event: gap` frame {"lost": n}. A consumer
// that stops reading is dropped after SSE_BUFFER_BYTES wait for it. A stream whose key is revoked
// ends with an `event: revoked` frame carrying the unauthorized error (on every node, with the
// revocation notice).
import { revokedError, type Keyring } from '../../auth/keyring.js'
import { AppError } from '../../shared/errors.js'
import { eventId } from '../../core/fields.js'
import type { RoomEvent } from '../../core/events.js'
import type { Core } from '../../core/index.js'
import type { Feeds } from '../../realtime/feed.js'
import type { Lifecycle } from '../../shared/lifecycle.js'
import type { Metrics } from '../../shared/metrics.js'
import type { Route } from '../router.js'
import { roomOf } from './access.js'

const frames = new WeakMap<RoomEvent, string>()

/** The SSE frame of an event, made once however many local streams follow the room. */
export function frame(ev: RoomEvent): string {
  let f = frames.get(ev)
  if (f === undefined) frames.set(ev, (f = `id: ${ev.id}\nevent: ${ev.type}\ndata: ${JSON.stringify(ev)}\n\n`))
  return f
}

/** What the stream uses: the room check, the feed it follows, the drain and revocations that end it, its gauge. */
export interface SseDeps {
  core: Pick<Core, 'rooms'>
  feeds: Pick<Feeds, 'follow'>
  keyring: Pick<Keyring, 'hold'>
  lifecycle: Pick<Lifecycle, 'onDrain'>
  metrics: Pick<Metrics, 'sseConnections'>
  settings: { sseKeepaliveMs: number; sseBufferBytes: number }
}

export function sseRoute(deps: SseDeps): Route {
  return {
    method: 'GET',
    path: '/rooms/:roomId/stream',
    auth: 'any',
    tag: 'rooms',
    summary: "SSE stream of the room's new events (text/event-stream). Send Last-Event-ID to resume.",
    description:
      'Frames: "id: <event id>", "event: <type>", "data: <event JSON>". A ": keep-alive" comment every 15 s. ' +
      '"event: gap" with {"lost": n} when resuming behind the retained history, {"lost": 0, "rewound": true} ' +
      'when the room\'s history went back (recreated, restored). On shutdown: "event: shutdown" with a retry ' +
      'hint, then the stream ends. When the key is revoked: "event: revoked" with the unauthorized error, ' +
      'then the stream ends.',
    handle: async ({ ex, ...ctx }) => {
      const ref = roomOf({ ex, ...ctx })
      const principal = ctx.principal!
      const resume = ex.req.headers['last-event-id'] ?? ex.req.query.get('lastEventId') ?? undefined
      if (resume !== undefined && !eventId.safeParse(resume).success) {
        throw new AppError('invalid_request', 'Last-Event-ID: must be an event id like "1732263097123-42"', {
          field: 'Last-Event-ID',
        })
      }
      if (!(await deps.core.rooms.exists(ref)))
        throw new AppError('not_found', `room ${ref.roomId} not found`, { field: 'roomId' })
      if (ex.aborted) return undefined

      const out = ex.stream(
        200,
        {
          'Content-Type': 'text/event-stream',
          'Cache-Control': 'no-cache, no-transform',
          'X-Accel-Buffering': 'no',
          Connection: 'keep-alive',
        },
        deps.settings.sseBufferBytes,
      )
      deps.metrics.sseConnections.inc()
      out.write('retry: 2000\n\n')
      const following: { stop?: () => void } = {}
      let closed = false
      const close = (last?: string) => {
        if (closed) return
        closed = true
        clearInterval(keepalive)
        following.stop?.()
        undrain()
        unhold()
        deps.metrics.sseConnections.dec()
        out.end(last)
      }
      const keepalive = setInterval(() => {
        if (!out.write(': keep-alive\n\n')) close()
      }, deps.settings.sseKeepaliveMs)
      const undrain = deps.lifecycle.onDrain(() => close('retry: 1000\nevent: shutdown\ndata: {}\n\n'))
      const unhold = deps.keyring.hold(principal, () =>
        close(`event: revoked\ndata: ${JSON.stringify({ error: revokedError().toJSON() })}\n\n`),
      )
      ex.onAbort(() => close())
      try {
        following.stop = await deps.feeds.follow(
          ref,
          { after: resume },
          (ev) => {
            if (!out.write(frame(ev))) close()
          },
          (gap) => {
            if (!out.write(`event: gap\ndata: ${JSON.stringify(gap)}\n\n`)) close()
          },
        )
      } catch (err) {
        // The stream has started, so an error can no longer be answered: end it, and the client
        // reconnects (with Last-Event-ID) after the retry delay.
        close()
        throw err
      }
      // Live from here: every event posted after this comment reaches the client.
      out.write(`: connected to ${ref.roomId}\n\n`)
      if (closed) following.stop()
      return undefined
    },
  }
}
