// The team's inbox (GET /inbox): what needs a person across the team's rooms, room by room, most
// recently active first, each with the forms that settle it in place (needs.tsx). The rooms are
// those of the rooms page, 100 a page in the order they were created (the same "Next rooms"
// cursor); each room costs one bounded read (src/core/needs.ts), never a scan of its history.
// Its live stream (/live/inbox, live.ts) follows the rooms of the page shown.
import type { Core } from '../core/index.js'
import { needsCount, type RoomNeeds } from '../core/needs.js'
import type { RoomSummary } from '../core/rooms.js'
import { roomId as roomIdField } from '../shared/fields.js'
import { AppError } from '../shared/errors.js'
import type { Kept } from './kept.js'
import { Layout, num, type Viewer } from './layout.js'
import { NeedsBlock } from './needs.js'
import { html, type Reply, type Request } from './page.js'
import type { Web } from './web.js'

/** Rooms looked at on one page of the inbox (as the rooms page lists them). */
export const INBOX_ROOMS = 100

export interface InboxDeps {
  core: Pick<Core, 'rooms' | 'needs'>
}

interface InboxRoom {
  room: RoomSummary
  needs: RoomNeeds
}

/** The rooms page's cursor (?after=<roomId>&at=<ms>), checked. */
export function roomsCursor(q: URLSearchParams): { id: string; at?: number } | undefined {
  const afterId = q.get('after') ?? undefined
  if (afterId !== undefined && !roomIdField.safeParse(afterId).success)
    throw new AppError('invalid_request', 'after: must be a room id, as the "Next rooms" link gives it', {
      field: 'after',
    })
  const at = q.get('at') ?? undefined
  if (at !== undefined && !/^\d{1,16}$/.test(at))
    throw new AppError('invalid_request', 'at: must be a whole number, as the "Next rooms" link gives it', {
      field: 'at',
    })
  return afterId === undefined ? undefined : { id: afterId, ...(at !== undefined ? { at: Number(at) } : {}) }
}

export class InboxPages {
  constructor(private readonly deps: InboxDeps) {}

  register(web: Web): void {
    web.page('GET', '/inbox', true, (r) => this.page(r))
  }

  /** The rooms of one page of the inbox and what each needs; a room that expired since it was listed is left out. */
  async rooms(
    teamId: string,
    after: { id: string; at?: number } | undefined,
  ): Promise<{ rooms: InboxRoom[]; next: { id: string; at: number } | undefined }> {
    const page = await this.deps.core.rooms.page(teamId, after, INBOX_ROOMS)
    const read = await Promise.all(
      page.rooms.map(async (room) => {
        const needs = await this.deps.core.needs.read({ room: { teamId, roomId: room.room_id } }).catch((err) => {
          if (err instanceof AppError && err.code === 'not_found') return undefined
          throw err
        })
        return needs && { room, needs }
      }),
    )
    const rooms = read.filter((x): x is InboxRoom => x !== undefined)
    rooms.sort((a, b) => (a.room.last_active_at < b.room.last_active_at ? 1 : -1))
    return { rooms, next: page.next }
  }

  async page(r: Request, extra: { kept?: Kept } = {}, status = 200): Promise<Reply> {
    const viewer = r.viewer!
    const after = roomsCursor(r.ex.req.query)
    const { rooms, next } = await this.rooms(viewer.user.team, after)
    return html(InboxPage({ viewer, rooms, next, after: after?.id, ...extra }), status)
  }
}

export function InboxPage(p: {
  viewer: Viewer
  rooms: InboxRoom[]
  next: { id: string; at: number } | undefined
  after: string | undefined
  kept?: Kept | undefined
}) {
  const waiting = p.rooms.filter((x) => needsCount(x.needs) > 0)
  const count = waiting.reduce((n, x) => n + needsCount(x.needs), 0)
  const quiet = p.rooms.length - waiting.length
  const live = `/live/inbox${p.after ? `?${new URLSearchParams({ after: p.after }).toString()}` : ''}`
  return (
    <Layout title="Inbox" viewer={p.viewer} count={count} wide>
      <div class="room-head">
        <h1>What needs you</h1>
        <p class="live small" id="live-status" data-state="static" role="status" aria-live="polite">
          Updates when you reload the page.
        </p>
      </div>
      <div data-live={live} data-now={Date.now()} hidden />
      <p class="muted" data-part="inbox-head">
        {count === 0
          ? `Nothing waits for you in the team's ${num(p.rooms.length)} rooms.`
          : `${num(count)} ${count === 1 ? 'thing waits' : 'things wait'} for you in ` +
            (p.rooms.length === 1 ? 'your one room' : `${num(waiting.length)} of ${num(p.rooms.length)} rooms`) +
            ': questions and blockers nobody answered, reviews waiting for a person, and work held by agents ' +
            'gone offline.'}
      </p>
      <p class="small">
        <button type="button" class="secondary" id="notify" hidden>
          Notify me when agents need me
        </button>
      </p>
      <div data-part="inbox">
        {waiting.map((x) => (
          <NeedsBlock
            key={x.room.room_id}
            roomId={x.room.room_id}
            title={x.room.name}
            needs={x.needs}
            on="inbox"
            kept={p.kept}
          />
        ))}
        {quiet > 0 ? (
          <p class="small muted">
            {`${num(quiet)} other ${quiet === 1 ? 'room needs' : 'rooms need'} nothing from you.`}{' '}
            <a href="/">All rooms</a>
          </p>
        ) : null}
      </div>
      {p.next ? (
        <p>
          <a href={`/inbox?${new URLSearchParams({ after: p.next.id, at: String(p.next.at) }).toString()}`}>
            Next rooms
          </a>
        </p>
      ) : null}
    </Layout>
  )
}
