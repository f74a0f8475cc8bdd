// The room page's live stream (GET /live?id=<roomId>): Server-Sent Events on the dashboard's own
// origin, authenticated by the session cookie (a browser cannot put a key on an EventSource, and
// the key stays on the server). One SSE session (src/http/sse-session.ts) per stream, fed by the
// same realtime hub as the API's SSE route:
//   - every new event as `id: <event id>` / `event: room-event`, resumed after Last-Event-ID (the
//     header EventSource sends on reconnect, or ?lastEventId= for the first connection, given by
//     the page: the last event it rendered), so none is lost or repeated;
//   - `event: changed` on any other change of the room (plan, context, presence, ...), at most
//     one per CHANGE_COALESCE_MS, so the page re-reads what it shows;
//   - `event: signed-out`, and the end of the stream, once the session that opened it has ended
//     (sign-out, idle or absolute expiry, the account or team deleted): checked every
//     SESSION_CHECK_MS, without counting as use of the session.
import type { OpenCaps } from '../auth/open-caps.js'
import { AppError } from '../shared/errors.js'
import type { RoomEvent } from '../core/events.js'
import { roomId as roomIdField } from '../shared/fields.js'
import type { Rooms } from '../core/rooms.js'
import type { Feeds } from '../realtime/feed.js'
import type { Hub } from '../realtime/hub.js'
import { resumeOf, sseFrame, type SseSessions } from '../http/sse-session.js'
import type { Reply, Request } from './page.js'
import type { Web } from './web.js'

export interface LiveDeps {
  rooms: Pick<Rooms, 'exists'>
  feeds: Pick<Feeds, 'follow'>
  hub: Pick<Hub, 'listen'>
  sse: Pick<SseSessions, 'open'>
  openCaps: Pick<OpenCaps, 'take'>
  /** The person of a session if it is still live (not moving its idle deadline). */
  stillSignedIn: (token: string | undefined) => Promise<{ team: string } | undefined>
}

/** How often an open stream checks that its session is still live. */
export const SESSION_CHECK_MS = 5000

/** Changes other than events are announced at most this often (the page re-reads on each). */
export const CHANGE_COALESCE_MS = 150

const SIGNED_OUT = sseFrame('signed-out', {})
const CHANGED = sseFrame('changed', {})
const eventFrame = (ev: RoomEvent) => sseFrame('room-event', ev, ev.id)

export class Live {
  constructor(private readonly deps: LiveDeps) {}

  register(web: Web): void {
    web.page('GET', '/live', true, (r) => this.stream(r))
  }

  private async stream(r: Request): Promise<Reply> {
    const { ex } = r
    const v = roomIdField.safeParse(ex.req.query.get('id') ?? '')
    if (!v.success) throw new AppError('invalid_request', `id: ${v.error.issues[0]!.message}`, { field: 'id' })
    const room = { teamId: r.viewer!.user.team, roomId: v.data }
    const resume = resumeOf(ex.req)
    if (!(await this.deps.rooms.exists(room)))
      throw new AppError('not_found', `room ${room.roomId} not found`, { field: 'id' })
    if (ex.aborted) return { status: 0, streamed: true }

    const release = this.deps.openCaps.take({ teamId: room.teamId, credential: `user:${r.viewer!.user.id}` })
    const s = this.deps.sse.open(ex)
    s.onEnd(release)
    const teamId = room.teamId
    s.endUnless(async () => (await this.deps.stillSignedIn(r.session))?.team === teamId, SESSION_CHECK_MS, SIGNED_OUT)
    let changeTimer: NodeJS.Timeout | undefined
    s.onEnd(() => clearTimeout(changeTimer))
    s.onEnd(
      this.deps.hub.listen(room, () => {
        changeTimer ??= setTimeout(() => {
          changeTimer = undefined
          s.write(CHANGED)
        }, CHANGE_COALESCE_MS)
      }),
    )
    await s.attach(
      this.deps.feeds.follow(
        room,
        { after: resume },
        (ev) => s.write(eventFrame(ev)),
        (gap) => s.gap(gap),
      ),
    )
    s.comment(`connected to ${room.roomId}`)
    return { status: 200, streamed: true }
  }
}
