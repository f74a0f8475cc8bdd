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
//   - With a renderer (`renderParts`), the parts a change changed are rendered once per person
//     following the room, as the page at the room's plain address shows them (?id= alone), and
//     each goes in the frame as a patch from the version rendered before (`v`: patch.ts), or as
//     unchanged; a page at that version applies it, any other fetches the part. What needs the
//     person, which an event may change, comes the same way rather than with the event's frame.
//     The first rendering, when a person's first page joins, is the base of the next patch.
//   - A page joins with the versions of the parts it shows (`held`, from its `data-v`), so that no
//     change is lost between its rendering and its joining, whenever it comes (before the join,
//     during a flush in flight): a person's first page makes the next flush render every patched
//     part and send each (a patch from the page's own rendering when it was seeded, else its
//     version now, which a page holding another fetches); a page joining a person already
//     followed gets, after the next flush, the version now of each part it holds at another.
import { h } from 'preact'
import { render } from 'preact-render-to-string'
import type { Notice, RoomEvent } from '../core/events.js'
import type { RoomPage } from '../core/room-page.js'
import type { Hub } from '../realtime/hub.js'
import type { RoomRef } from '../store/keys.js'
import { sseFrame } from '../http/sse-session.js'
import { eventParts, inPageOrder, noticeParts, TICK_PARTS } from './live-parts.js'
import { EventsCount, NewEvent } from './room-feed.js'
import { HeadLine, Here, PARTS, type PartName } from './room.js'
import type { Viewer } from './layout.js'
import { diffPart, type PatchOp, versionOf } from './patch.js'

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

/**
 * Renders `parts` of the room page at the room's plain address as `viewer` sees it: each part's
 * root element by its `data-part` value (what needs you is `needs-<roomId>`), unstamped.
 */
export type RenderParts = (viewer: Viewer, ref: RoomRef, parts: readonly PartName[]) => Promise<Map<string, string>>

export interface LiveRoomsDeps {
  hub: Pick<Hub, 'listen'>
  roomPage: Pick<RoomPage, 'head'>
  renderParts?: RenderParts | undefined
  log?: { warn(obj: object, msg: string): void }
}

/** The parts a frame may patch: all but those that come rendered (head) or by item (the feed). */
export const PATCHED: readonly PartName[] = PARTS.filter((p) => p !== 'head' && p !== 'events')

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
  /**
   * Parts rendered for the page at the room's plain address, by `data-part`: [the version before,
   * the version now, the operations from one to the other] (none when unchanged).
   */
  v?: Record<string, [string, string, PatchOp[]?]>
}

/** The data of a `room-event` frame. */
export interface EventFrame {
  parts: PartName[]
  /** The feed item of an event that replies to none, as the latest page of the feed shows it. */
  item?: string
}

/** How long a page's parts wait for the page to join as the base of its first patch. */
export const SEED_MS = 60_000
/** Bytes of pages' parts waiting to join, at most (the oldest dropped first). */
export const SEED_BYTES = 8 * 1024 * 1024

/**
 * Pages' parts waiting for their page to join, by key: each taken at most once, none older than
 * SEED_MS, and at most `maxBytes` of part text held in all (the oldest dropped first, so a room
 * page at the limits, ~470 kB of parts, leaves room for ~17 pages in flight).
 */
export class Seeds {
  private readonly held = new Map<string, { at: number; bytes: number; parts: Map<string, string> }>()
  private total = 0

  constructor(private readonly maxBytes = SEED_BYTES) {}

  get bytes(): number {
    return this.total
  }

  put(key: string, parts: Map<string, string>, now = Date.now()): void {
    this.drop(key)
    let bytes = 0
    for (const html of parts.values()) bytes += html.length
    if (bytes > this.maxBytes) return
    this.held.set(key, { at: now, bytes, parts })
    this.total += bytes
    for (const [k, s] of this.held) {
      if (this.total <= this.maxBytes && now - s.at <= SEED_MS) break
      this.drop(k)
    }
  }

  take(key: string, now = Date.now()): Map<string, string> | undefined {
    const s = this.held.get(key)
    this.drop(key)
    return s && now - s.at <= SEED_MS ? s.parts : undefined
  }

  private drop(key: string): void {
    const s = this.held.get(key)
    if (!s) return
    this.held.delete(key)
    this.total -= s.bytes
  }
}

export class LiveRooms {
  private readonly rooms = new Map<string, RoomLive>()
  /** By `<team>/<room>/<user>`: the parts of the page last sent, and when. */
  private readonly seeds = new Seeds()

  constructor(private readonly deps: LiveRoomsDeps) {}

  /**
   * The parts of a room page just sent to `viewer` at the room's plain address: when that person's
   * page joins within SEED_MS (and no page of theirs follows the room yet), the base of the first
   * patch is what that page shows, not a later rendering.
   */
  seed(viewer: Viewer, ref: RoomRef, parts: Map<string, string>): void {
    if (!this.deps.renderParts) return
    this.seeds.put(`${ref.teamId}/${ref.roomId}/${viewer.user.id}`, parts)
  }

  /**
   * The parts `names` (by `data-part`) as last rendered for `viewer`'s pages of the room, if every
   * one is held: what a page of theirs at the plain address fetches, so that it holds the version
   * the next patch starts from.
   */
  latest(ref: RoomRef, viewer: Viewer, names: readonly string[]): string[] | undefined {
    return this.rooms.get(`${ref.teamId}/${ref.roomId}`)?.latest(viewer, names)
  }

  private seedOf(ref: RoomRef, viewer: Viewer | undefined): Map<string, string> | undefined {
    if (!viewer) return undefined
    return this.seeds.take(`${ref.teamId}/${ref.roomId}/${viewer.user.id}`)
  }

  /**
   * Adds a page's stream, opened by `viewer`, to the room's followers until the returned remover is
   * called; `held`: the versions of the parts the page shows, by `data-part`.
   */
  join(ref: RoomRef, tab: Tab, viewer?: Viewer, held?: ReadonlyMap<string, string>): () => void {
    const key = `${ref.teamId}/${ref.roomId}`
    let room = this.rooms.get(key)
    if (!room) {
      room = new RoomLive(ref, this.deps)
      this.rooms.set(key, room)
    }
    const r = room
    r.enter(tab, viewer, this.seedOf(ref, viewer), held)
    return () => {
      r.leave(tab)
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

/**
 * The head comes rendered in the `changed` frame that follows an event: the event's own frame
 * leaves it out, and the parts in `patched` (which that frame patches).
 */
function eventFrameOf(ref: RoomRef, ev: RoomEvent, patched: readonly PartName[] = []): string {
  const data: EventFrame = { parts: eventParts(ev).filter((p) => p !== 'head' && !patched.includes(p)) }
  if (ev.reply_to === undefined)
    data.item = render(h(NewEvent, { here: new Here(ref.roomId, new URLSearchParams()), e: ev }))
  return sseFrame('room-event', data, ev.id)
}

/** One person following the room: their pages, and the parts as last rendered for them. */
interface Follower {
  viewer: Viewer
  tabs: Set<Tab>
  /** By `data-part`: the rendering and its version. */
  parts: Map<string, { html: string; v: string }>
  /**
   * The person's first page joined: the next flush renders every patched part and sends each, as
   * a patch from the base held (the page's seed) or as its version now.
   */
  recheck: boolean
  /** Pages that joined since the last flush, with the versions of the parts they show. */
  joining: Map<Tab, ReadonlyMap<string, string>>
}

class RoomLive {
  readonly tabs = new Set<Tab>()
  /** Tabs by the person who opened them (with a renderer). */
  private readonly people = new Map<string, Follower>()
  private readonly frames = new Map<string, string>()
  private pending = new Set<PartName>()
  private reads = new Map<string, string>()
  private timer: NodeJS.Timeout | undefined
  /** A page joined since the flush in flight started: the next flush checks it. */
  private due = false
  private readonly ticking: NodeJS.Timeout
  private readonly unlisten: () => void

  constructor(
    private readonly ref: RoomRef,
    private readonly deps: LiveRoomsDeps,
  ) {
    this.unlisten = deps.hub.listen(ref, (n) => this.notice(n))
    this.ticking = setInterval(() => this.add(TICK_PARTS), STALE_CHECK_MS)
  }

  latest(viewer: Viewer, names: readonly string[]): string[] | undefined {
    const f = this.people.get(viewer.user.id)
    if (!f || f.viewer.user.role !== viewer.user.role) return undefined
    const out: string[] = []
    for (const n of names) {
      const p = f.parts.get(n)
      if (!p) return undefined
      out.push(p.html)
    }
    return out
  }

  /**
   * A page joins; `seed`: the parts it shows (LiveRooms.seed), the base of its person's first
   * patch; `held`: the versions of the parts it shows.
   */
  enter(tab: Tab, viewer: Viewer | undefined, seed?: Map<string, string>, held?: ReadonlyMap<string, string>): void {
    this.tabs.add(tab)
    if (!viewer || !this.deps.renderParts) return
    let f = this.people.get(viewer.user.id)
    if (!f) {
      const parts = new Map([...(seed ?? [])].map(([name, html]) => [name, { html, v: versionOf(html) }]))
      f = { viewer, tabs: new Set(), parts, recheck: true, joining: new Map() }
      this.people.set(viewer.user.id, f)
    }
    f.viewer = viewer
    f.tabs.add(tab)
    if (held && held.size > 0) f.joining.set(tab, held)
    this.due = true
    this.add([])
  }

  leave(tab: Tab): void {
    this.tabs.delete(tab)
    for (const [id, f] of this.people) {
      f.joining.delete(tab)
      if (!f.tabs.delete(tab)) continue
      if (f.tabs.size === 0) this.people.delete(id)
    }
  }

  stop(): void {
    this.unlisten()
    clearInterval(this.ticking)
    clearTimeout(this.timer)
  }

  eventFrame(ev: RoomEvent): string {
    let frame = this.frames.get(ev.id)
    if (frame === undefined) {
      // What needs the person, when the event may change it, comes patched in the next frame.
      const patched = this.people.size > 0 && eventParts(ev).includes('needs') ? (['needs'] as const) : []
      frame = eventFrameOf(this.ref, ev, patched)
      if (patched.length > 0) this.add(patched)
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
    this.due = false
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
    // Tabs of no person followed (no renderer) get the parts to fetch; each person's the patches.
    const plain = new Set(this.tabs)
    for (const f of [...this.people.values()]) {
      for (const tab of f.tabs) plain.delete(tab)
      const { frame, joined } = await this.patched(f, data)
      for (const tab of f.tabs) {
        const own = joined.get(tab)
        if (own !== undefined) tab.write(own)
        else if (frame) tab.write(frame)
      }
    }
    if (plain.size > 0 && (data.parts.length > 0 || data.html || data.reads)) {
      const frame = sseFrame('changed', data)
      for (const tab of plain) tab.write(frame)
    }
    this.timer = undefined
    // Changes that came during the read go in the next frame, and pages that joined meanwhile.
    if (this.pending.size > 0 || this.reads.size > 0 || this.due) this.add([])
  }

  /**
   * The frame for one person's pages: the parts of `data` rendered once for them and sent as
   * patches (or as unchanged); a part without an earlier rendering, or that failed to render, is
   * left for the pages to fetch. With `recheck`, every patched part is rendered and sent, as a
   * patch from the base held or as its version now. `frame` is undefined when there is nothing to
   * send; `joined`, the frame of each page that joined since the last flush: `frame` and the
   * version now of each part it holds at another version.
   */
  private async patched(
    f: Follower,
    data: ChangedFrame,
  ): Promise<{ frame: string | undefined; joined: Map<Tab, string> }> {
    const recheck = f.recheck
    const wanted = recheck ? PATCHED : data.parts.filter((p) => PATCHED.includes(p))
    const out: ChangedFrame = { ...data, parts: data.parts.filter((p) => !PATCHED.includes(p)) }
    const v: NonNullable<ChangedFrame['v']> = {}
    if (wanted.length > 0) {
      let got: Map<string, string> | undefined
      try {
        got = await this.deps.renderParts!(f.viewer, this.ref, wanted)
        f.recheck = false
      } catch (err) {
        this.deps.log?.warn({ err, room: this.ref.roomId }, 'live: parts could not be rendered')
      }
      for (const part of wanted) {
        const name = part === 'needs' ? `needs-${this.ref.roomId}` : part
        const html = got?.get(name)
        const before = f.parts.get(name)
        if (html === undefined) {
          f.parts.delete(name)
          if (data.parts.includes(part)) out.parts.push(part)
          continue
        }
        const now = { html, v: before?.html === html ? before.v : versionOf(html) }
        f.parts.set(name, now)
        if (!before) {
          // No base to patch from: the version now, which a page holding another fetches.
          if (recheck) v[name] = [now.v, now.v]
          else out.parts.push(part)
        } else if (before.v === now.v) v[name] = [before.v, now.v]
        else {
          const ops = diffPart(before.html, html)
          if (ops) v[name] = [before.v, now.v, ops]
          else out.parts.push(part)
        }
      }
      out.parts = inPageOrder(out.parts)
    }
    if (Object.keys(v).length > 0) out.v = v
    const joined = new Map<Tab, string>()
    for (const [tab, held] of f.joining) {
      // The parts a page holds at another version than the one now, and that the frame does not
      // name: a change it missed between its rendering and its joining.
      const missed: NonNullable<ChangedFrame['v']> = {}
      for (const [name, hv] of held) {
        const now = f.parts.get(name)
        if (now && now.v !== hv && !(name in v)) missed[name] = [now.v, now.v]
      }
      if (Object.keys(missed).length > 0) joined.set(tab, sseFrame('changed', { ...out, v: { ...out.v, ...missed } }))
    }
    f.joining.clear()
    const empty = out.parts.length === 0 && !out.html && !out.reads && !out.v
    return { frame: empty ? undefined : sseFrame('changed', out), joined }
  }
}
