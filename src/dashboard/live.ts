// The room page's live stream (GET /live?id=<roomId>): Server-Sent Events on the dashboard's own
// origin, authenticated by the session cookie (a browser cannot put a key on an EventSource, and
// the key stays on the server). Fed by the same realtime hub as the API's SSE route:
//   - every new event as `id: <event id>` / `event: room-event`, resumed after Last-Event-ID (the
//     header EventSource sends on reconnect, or ?lastEventId= for the first connection, given by
//     the page: the last event it rendered), so none is lost or repeated;
//   - `event: changed` on any other change of the room (plan, context, presence, ...), at most
//     one per CHANGE_COALESCE_MS, so the page re-reads what it shows;
//   - `event: signed-out`, and the end of the stream, once the session that opened it has ended
//     (sign-out, idle or absolute expiry, the account or team deleted): checked every
//     SESSION_CHECK_MS, without counting as use of the session.
import { AppError } from '../shared/errors.js'
import type { RoomEvent } from '../core/events.js'
import { eventId, roomId as roomIdField } from '../core/fields.js'
import type { Rooms } from '../core/rooms.js'
import type { Lifecycle } from '../shared/lifecycle.js'
import type { Feeds } from '../realtime/feed.js'
import type { Hub } from '../realtime/hub.js'
import type { Reply, Request } from './page.js'
import type { Web } from './web.js'

export interface LiveDeps {
  rooms: Pick<Rooms, 'exists'>
  feeds: Pick<Feeds, 'follow'>
  hub: Pick<Hub, 'listen'>
  lifecycle: Pick<Lifecycle, 'onDrain'>
  settings: { sseBufferBytes: number; sseKeepaliveMs: number }
  /** The person of a session if it is still live (not moving its idle deadline). */
  stillSignedIn: (token: string | undefined) => Promise<{ team: string } | undefined>
}

/** How often an open stream checks that its session is still live. */
export const SESSION_CHECK_MS = 5000

/** Changes other than events are announced at most this often (the page re-reads on each). */
export const CHANGE_COALESCE_MS = 150

const eventFrame = (ev: RoomEvent) => `id: ${ev.id}\nevent: room-event\ndata: ${JSON.stringify(ev)}\n\n`

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
    const resume = ex.req.headers['last-event-id'] || ex.req.query.get('lastEventId') || undefined
    if (resume !== undefined && !eventId.safeParse(resume).success) {
      throw new AppError('invalid_request', 'Last-Event-ID: must be an event id like "1732263097123-42"', {
        field: 'Last-Event-ID',
      })
    }
    if (!(await this.deps.rooms.exists(room)))
      throw new AppError('not_found', `room ${room.roomId} not found`, { field: 'id' })
    if (ex.aborted) return { status: 0, streamed: true }

    const out = ex.stream(
      200,
      {
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-store, no-transform',
        'X-Accel-Buffering': 'no',
        'X-Content-Type-Options': 'nosniff',
      },
      this.deps.settings.sseBufferBytes,
    )
    out.write('retry: 1000\n\n')
    let closed = false
    let changeTimer: NodeJS.Timeout | undefined
    const stops: (() => void)[] = []
    const send = (chunk: string) => {
      if (!closed && !out.write(chunk)) close()
    }
    const close = (last?: string) => {
      if (closed) return
      closed = true
      clearInterval(keepalive)
      clearInterval(sessionCheck)
      clearTimeout(changeTimer)
      for (const stop of stops) stop()
      out.end(last)
    }
    const keepalive = setInterval(() => send(': keep-alive\n\n'), this.deps.settings.sseKeepaliveMs)
    const teamId = room.teamId
    const sessionCheck = setInterval(() => {
      this.deps.stillSignedIn(r.session).then(
        (user) => {
          if (!user || user.team !== teamId) close('event: signed-out\ndata: {}\n\n')
        },
        () => undefined, // Redis unreachable: checked again at the next tick
      )
    }, SESSION_CHECK_MS)
    stops.push(this.deps.lifecycle.onDrain(() => close('retry: 1000\nevent: shutdown\ndata: {}\n\n')))
    ex.onAbort(() => close())
    stops.push(
      this.deps.hub.listen(room, () => {
        changeTimer ??= setTimeout(() => {
          changeTimer = undefined
          send('event: changed\ndata: {}\n\n')
        }, CHANGE_COALESCE_MS)
      }),
    )
    try {
      stops.push(
        await this.deps.feeds.follow(
          room,
          { after: resume },
          (ev) => send(eventFrame(ev)),
          (gap) => send(`event: gap\ndata: ${JSON.stringify({ lost: gap.lost })}\n\n`),
        ),
      )
    } catch (err) {
      close()
      throw err
    }
    if (closed) for (const stop of stops) stop()
    else send(`: connected to ${room.roomId}\n\n`)
    return { status: 200, streamed: true }
  }
}
