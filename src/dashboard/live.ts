// The room page's live stream (GET /live?id=<roomId>): Server-Sent Events on the dashboard's own
// origin, authenticated by the session cookie (a browser cannot put a key on an EventSource, and
// the key stays on the server). One SSE session (src/http/sse-session.ts) per stream, fed by the
// same realtime hub as the API's SSE route:
//   - every new event as `id: <event id>` / `event: room-event`, resumed after Last-Event-ID (the
//     header EventSource sends on reconnect, or ?lastEventId= for the first connection, given by
//     the page: the last event it rendered), so none is lost or repeated;
//   - `?v=<data-part>:<version>,…`: the versions of the parts the page shows, so that a change
//     between its rendering and its joining is not lost (live-room.ts);
//   - `event: changed` on any other change of the room, at most one per CHANGE_COALESCE_MS, and
//     every STALE_CHECK_MS besides: an agent going offline announces nothing, yet it turns its
//     work stale (what needs the person: needs.tsx). What these frames hold, and how the room's
//     open pages on this node share them, is live-room.ts;
//   - `event: signed-out`, and the end of the stream, once the session that opened it has ended
//     (sign-out, idle or absolute expiry, the account or team deleted): checked every
//     SESSION_CHECK_MS, without counting as use of the session.
import type { OpenCaps } from '../auth/open-caps.js'
import { AppError } from '../shared/errors.js'
import { roomId as roomIdField } from '../shared/fields.js'
import type { Rooms } from '../core/rooms.js'
import { INBOX_ROOMS, roomsCursor } from './inbox.js'
import type { Feeds } from '../realtime/feed.js'
import type { Hub } from '../realtime/hub.js'
import { resumeOf, sseFrame, type SseSessions } from '../http/sse-session.js'
import type { Reply, Request } from './page.js'
import type { Viewer } from './layout.js'
import type { RoomRef } from '../store/keys.js'
import type { Web } from './web.js'
import type { RoomPage } from '../core/room-page.js'
import { CHANGE_COALESCE_MS, LiveRooms, STALE_CHECK_MS, type RenderParts } from './live-room.js'

export interface LiveDeps {
  rooms: Pick<Rooms, 'exists' | 'page'>
  roomPage: Pick<RoomPage, 'head'>
  feeds: Pick<Feeds, 'follow'>
  hub: Pick<Hub, 'listen'>
  sse: Pick<SseSessions, 'open'>
  openCaps: Pick<OpenCaps, 'take'>
  /** The person of a session if it is still live (not moving its idle deadline). */
  stillSignedIn: (token: string | undefined) => Promise<{ team: string } | undefined>
  /** The room page's parts as a person sees them at the room's plain address: frames then carry patches. */
  renderParts?: RenderParts
}

/** The most parts a page names in `v`, and the longest `v`. */
const HELD_PARTS = 16
const HELD_CHARS = 2000

/**
 * The versions of the parts a page shows (`?v=<data-part>:<version>,…`, from its `data-v`), by
 * `data-part`: what its live stream checks against the parts' versions now (live-room.ts).
 */
export function heldOf(raw: string | null): Map<string, string> {
  const held = new Map<string, string>()
  if (raw === null || raw === '') return held
  if (raw.length > HELD_CHARS)
    throw new AppError('invalid_request', `v: ${raw.length} characters; the limit is ${HELD_CHARS}`, { field: 'v' })
  const pairs = raw.split(',')
  if (pairs.length > HELD_PARTS)
    throw new AppError('invalid_request', `v: ${pairs.length} parts; the limit is ${HELD_PARTS}`, { field: 'v' })
  for (const pair of pairs) {
    const m = /^([a-z][a-zA-Z0-9_-]{0,127}):([A-Za-z0-9_-]{1,32})$/.exec(pair)
    if (!m)
      throw new AppError('invalid_request', `v: ${JSON.stringify(pair.slice(0, 40))} is not <part>:<version>`, {
        field: 'v',
      })
    held.set(m[1]!, m[2]!)
  }
  return held
}

/** How often an open stream checks that its session is still live. */
export const SESSION_CHECK_MS = 5000

const SIGNED_OUT = sseFrame('signed-out', {})
/** The inbox's frame: the page re-reads itself whole. */
const CHANGED = sseFrame('changed', {})

export class Live {
  private readonly followers: LiveRooms

  constructor(private readonly deps: LiveDeps) {
    this.followers = new LiveRooms({ hub: deps.hub, roomPage: deps.roomPage, renderParts: deps.renderParts })
  }

  /**
   * The parts of a room page just sent to `viewer` at the room's plain address: the base of the
   * first patch when that person's page joins (live-room.ts seed).
   */
  seed(viewer: Viewer, ref: RoomRef, parts: Map<string, string>): void {
    this.followers.seed(viewer, ref, parts)
  }

  /** The parts (by `data-part`) as last rendered for `viewer`'s live pages of the room, if all are held. */
  latest(viewer: Viewer, ref: RoomRef, names: readonly string[]): string[] | undefined {
    return this.followers.latest(ref, viewer, names)
  }

  register(web: Web): void {
    web.page('GET', '/live', true, (r) => this.stream(r))
    web.page('GET', '/live/inbox', true, (r) => this.inbox(r))
  }

  /**
   * The inbox's stream (GET /live/inbox, with the inbox's ?after=&at= cursor): `changed` when
   * any room of that page of the inbox changes (at most one per CHANGE_COALESCE_MS) and every
   * STALE_CHECK_MS; `signed-out` as the room stream. Rooms created after it opened are not
   * followed (the page lists them on its next load).
   */
  private async inbox(r: Request): Promise<Reply> {
    const { ex } = r
    const teamId = r.viewer!.user.team
    const page = await this.deps.rooms.page(teamId, roomsCursor(ex.req.query), INBOX_ROOMS)
    if (ex.aborted) return { status: 0, streamed: true }
    const release = this.deps.openCaps.take({ teamId, credential: `user:${r.viewer!.user.id}` })
    const s = this.deps.sse.open(ex)
    s.onEnd(release)
    s.endUnless(async () => (await this.deps.stillSignedIn(r.session))?.team === teamId, SESSION_CHECK_MS, SIGNED_OUT)
    const changed = this.changes(s)
    for (const room of page.rooms) s.onEnd(this.deps.hub.listen({ teamId, roomId: room.room_id }, changed))
    s.comment(`following ${page.rooms.length} rooms`)
    return { status: 200, streamed: true }
  }

  /** A listener that writes `changed` at most once per CHANGE_COALESCE_MS, and every STALE_CHECK_MS. */
  private changes(s: { write(frame: string): void; onEnd(fn: () => void): void }): () => void {
    let changeTimer: NodeJS.Timeout | undefined
    const tick = setInterval(() => s.write(CHANGED), STALE_CHECK_MS)
    s.onEnd(() => {
      clearTimeout(changeTimer)
      clearInterval(tick)
    })
    return () => {
      changeTimer ??= setTimeout(() => {
        changeTimer = undefined
        s.write(CHANGED)
      }, CHANGE_COALESCE_MS)
    }
  }

  private async stream(r: Request): Promise<Reply> {
    const { ex } = r
    const v = roomIdField.safeParse(ex.req.query.get('id') ?? '')
    if (!v.success) throw new AppError('invalid_request', `id: ${v.error.issues[0]!.message}`, { field: 'id' })
    const room = { teamId: r.viewer!.user.team, roomId: v.data }
    const resume = resumeOf(ex.req)
    const held = heldOf(ex.req.query.get('v'))
    if (!(await this.deps.rooms.exists(room)))
      throw new AppError('not_found', `room ${room.roomId} not found`, { field: 'id' })
    if (ex.aborted) return { status: 0, streamed: true }

    const release = this.deps.openCaps.take({ teamId: room.teamId, credential: `user:${r.viewer!.user.id}` })
    const s = this.deps.sse.open(ex)
    s.onEnd(release)
    const teamId = room.teamId
    s.endUnless(async () => (await this.deps.stillSignedIn(r.session))?.team === teamId, SESSION_CHECK_MS, SIGNED_OUT)
    s.onEnd(this.followers.join(room, s, r.viewer, held))
    await s.attach(
      this.deps.feeds.follow(
        room,
        { after: resume },
        (ev) => s.write(this.followers.eventFrame(room, ev)),
        (gap) => s.gap(gap),
      ),
    )
    s.comment(`connected to ${room.roomId}`)
    return { status: 200, streamed: true }
  }
}
