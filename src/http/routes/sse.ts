// GET /rooms/:roomId/stream — Server-Sent Events of a room's new events, one SSE session
// (../sse-session.ts: headers, retry hint, keep-alives, the slow-consumer cap, the drain) per
// stream. Frames:
//   id: <event id>\nevent: <type>\ndata: <event JSON>\n\n
// Last-Event-ID (header, or ?lastEventId= for clients that cannot set it) resumes after that
// event within retention; events trimmed away meanwhile are announced with an `event: gap` frame
// {"lost": n}. A stream whose key is revoked ends with an `event: revoked` frame carrying the
// unauthorized error (on every node, with the revocation notice).
import type { Keyring } from '../../auth/keyring.js'
import { holderOf, type OpenCaps } from '../../auth/open-caps.js'
import { RoomNotFound } from '../../shared/errors.js'
import type { Core } from '../../core/index.js'
import type { Feeds } from '../../realtime/feed.js'
import type { Route } from '../router.js'
import { resumeOf, type SseSessions } from '../sse-session.js'
import { roomOf } from './access.js'

/** What the stream uses: the room check, the feed it follows, the revocations that end it, the SSE sessions. */
export interface SseDeps {
  core: Pick<Core, 'rooms'>
  feeds: Pick<Feeds, 'follow'>
  keyring: Pick<Keyring, 'hold'>
  sse: Pick<SseSessions, 'open'>
  openCaps: Pick<OpenCaps, 'take'>
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
      const resume = resumeOf(ex.req)
      if (!(await deps.core.rooms.exists(ref, ex.req.budget))) throw new RoomNotFound(ref.roomId)
      if (ex.aborted) return undefined

      const release = deps.openCaps.take(holderOf(ctx.principal!))
      const s = deps.sse.open(ex)
      s.onEnd(release)
      s.endOnRevocation(deps.keyring, ctx.principal!)
      // The session is the feed's sink: its events as eventFrame, its gaps as `gap` frames.
      await s.attach(deps.feeds.follow(ref, { after: resume }, s))
      // Live from here: every event posted after this comment reaches the client.
      s.comment(`connected to ${ref.roomId}`)
      return undefined
    },
  }
}
