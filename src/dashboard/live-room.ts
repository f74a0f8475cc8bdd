// What the open room pages of one room on this node share (live.ts): one listener on the room's
// notices, one timer, and every frame rendered and serialised once for all of them, so that a
// change costs each open page the write of a frame already made, plus the parts it must fetch.
//   - An event's frame (`room-event`) names the parts the event changes and, for an event that
//     replies to none, carries its feed item rendered (`item`): a page showing the latest events
//     puts it first in its feed without a fetch.
//   - Other changes gather for CHANGE_COALESCE_MS into one `changed` frame naming the parts they
//     changed (live-parts.ts). When the head is among them (any new event, presence, ...), the
//     frame carries it rendered from one small read (readHead), with the feed heading's count
//     (`html`), and does not ask for it. Read positions that moved ride as `reads` ({agent: id}):
//     the page updates its feed's "read by" lines itself.
//   - Every STALE_CHECK_MS, the same frame for TICK_PARTS.
import { h } from 'preact'
import { render } from 'preact-render-to-string'
import type { Notice, RoomEvent } from '../core/events.js'
import type { RoomPage } from '../core/room-page.js'
import type { Hub } from '../realtime/hub.js'
import type { RoomRef } from '../store/keys.js'
import { sseFrame } from '../http/sse-session.js'
import { eventParts, inPageOrder, noticeParts, TICK_PARTS } from './live-parts.js'
import { EventsCount, NewEvent } from './room-feed.js'
import { HeadLine, Here, type PartName } from './room.js'

/** Changes other than events are announced at most this often (the page re-reads on each). */
export const CHANGE_COALESCE_MS = 150

/** How often a page is told to re-read anyway: work turns stale when its agent goes quiet, unannounced. */
export const STALE_CHECK_MS = 30_000

/** Event frames kept per room, rendered, for pages that are behind (the latest first dropped last). */
const FRAMES_KEPT = 64

/** A page's stream, as the room's followers write to it. */
export interface Tab {
  write(frame: string): void
}

export interface LiveRoomsDeps {
  hub: Pick<Hub, 'listen'>
  roomPage: Pick<RoomPage, 'head'>
  log?: { warn(obj: object, msg: string): void }
}

/** What the parts pushed rendered are called in a frame's `html`. */
export type Pushed = 'head' | 'events-count'

/** The data of a `changed` frame. */
export interface ChangedFrame {
  /** The parts to fetch again (GET /room/part). */
  parts: PartName[]
  /** Parts rendered already, by their `data-part`: swapped in as they are. */
  html?: Partial<Record<Pushed, string>>
  /** Read positions that moved: agent id → the event id it has read up to. */
  reads?: Record<string, string>
}

/** The data of a `room-event` frame. */
export interface EventFrame {
  parts: PartName[]
  /** The feed item of an event that replies to none, as the latest page of the feed shows it. */
  item?: string
}

export class LiveRooms {
  private readonly rooms = new Map<string, RoomLive>()

  constructor(private readonly deps: LiveRoomsDeps) {}

  /** Adds a page's stream to the room's followers until the returned remover is called. */
  join(ref: RoomRef, tab: Tab): () => void {
    const key = `${ref.teamId}/${ref.roomId}`
    let room = this.rooms.get(key)
    if (!room) {
      room = new RoomLive(ref, this.deps)
      this.rooms.set(key, room)
    }
    room.tabs.add(tab)
    const r = room
    return () => {
      r.tabs.delete(tab)
      if (r.tabs.size > 0) return
      r.stop()
      this.rooms.delete(key)
    }
  }

  /** The frame of one of the room's events: rendered and serialised once, whatever the number of pages. */
  eventFrame(ref: RoomRef, ev: RoomEvent): string {
    const room = this.rooms.get(`${ref.teamId}/${ref.roomId}`)
    return room ? room.eventFrame(ev) : eventFrameOf(ref, ev)
  }

  /** Rooms followed and pages following them (tests, stats). */
  stats(): { rooms: number; tabs: number } {
    let tabs = 0
    for (const r of this.rooms.values()) tabs += r.tabs.size
    return { rooms: this.rooms.size, tabs }
  }
}

/** The head comes rendered in the `changed` frame that follows an event: the event's own frame leaves it out. */
function eventFrameOf(ref: RoomRef, ev: RoomEvent): string {
  const data: EventFrame = { parts: eventParts(ev).filter((p) => p !== 'head') }
  if (ev.reply_to === undefined)
    data.item = render(h(NewEvent, { here: new Here(ref.roomId, new URLSearchParams()), e: ev }))
  return sseFrame('room-event', data, ev.id)
}

class RoomLive {
  readonly tabs = new Set<Tab>()
  private readonly frames = new Map<string, string>()
  private pending = new Set<PartName>()
  private reads = new Map<string, string>()
  private timer: NodeJS.Timeout | undefined
  private readonly ticking: NodeJS.Timeout
  private readonly unlisten: () => void

  constructor(
    private readonly ref: RoomRef,
    private readonly deps: LiveRoomsDeps,
  ) {
    this.unlisten = deps.hub.listen(ref, (n) => this.notice(n))
    this.ticking = setInterval(() => this.add(TICK_PARTS), STALE_CHECK_MS)
  }

  stop(): void {
    this.unlisten()
    clearInterval(this.ticking)
    clearTimeout(this.timer)
  }

  eventFrame(ev: RoomEvent): string {
    let frame = this.frames.get(ev.id)
    if (frame === undefined) {
      frame = eventFrameOf(this.ref, ev)
      this.frames.set(ev.id, frame)
      if (this.frames.size > FRAMES_KEPT) this.frames.delete(this.frames.keys().next().value!)
    }
    return frame
  }

  private notice(n: Notice): void {
    if (n.k === 'event' && n.op === 'read' && typeof n.agent === 'string' && typeof n.id === 'string') {
      this.reads.set(n.agent, n.id)
      this.add([])
      return
    }
    const parts = noticeParts(n)
    // A new event moves the head (events posted); its frame carries the rest.
    if (n.event_id !== undefined) parts.push('head')
    if (parts.length > 0) this.add(parts)
  }

  private add(parts: readonly PartName[]): void {
    for (const p of parts) this.pending.add(p)
    this.timer ??= setTimeout(() => void this.flush(), CHANGE_COALESCE_MS)
  }

  private async flush(): Promise<void> {
    const parts = inPageOrder(this.pending)
    const reads = this.reads
    this.pending = new Set()
    this.reads = new Map()
    const data: ChangedFrame = { parts }
    if (parts.includes('head')) {
      try {
        const head = await this.deps.roomPage.head({ room: this.ref })
        data.html = {
          head: render(h(HeadLine, { room: head.room, events: head.events, online: head.online_count })),
          'events-count': render(h(EventsCount, { events: head.events, kept: head.events_kept })),
        }
        data.parts = parts.filter((p) => p !== 'head')
      } catch (err) {
        // The pages fetch the head themselves (and say what went wrong, if anything did).
        this.deps.log?.warn({ err, room: this.ref.roomId }, 'live: the head could not be read')
      }
    }
    if (reads.size > 0) data.reads = Object.fromEntries(reads)
    const frame = sseFrame('changed', data)
    for (const tab of this.tabs) tab.write(frame)
    this.timer = undefined
    // Changes that came during the read go in the next frame.
    if (this.pending.size > 0 || this.reads.size > 0) this.add([])
  }
}
