// Per-room event feeds for local followers (SSE streams) and waiters (wait_for_events). One Feeds
// per node, over the Hub and the Store: all followers and waiters of a room on this node share
// one hub listener, and each notice costs at most one read for the whole room.
//
// Delivery is in order, without duplicates or loss, per follower. A notice that announces the
// event right after the room's position carries the event itself (postEvent, leaveRoom) and is
// delivered without a read; any other step (a skipped seq: a lost notice, a deleted event, a
// resync) reads the stream from the room's position in pages of PAGE_SIZE. The work of one room
// runs in one queue, so positions never race; a follower that resumes from an id catches up on
// its own first, then joins the queue. Every follower also keeps its own position and skips what
// it already has, which is what makes joining and catching up exact.
//
// One concern in one file: followers and waiters share one queue per
// room, and that queue's order is the guarantee above. Reading the stream (pages, positions,
// rewinds) is apart, in stream.ts.
import { AppError, RoomNotFound } from '../shared/errors.js'
import { noticeEvent, type Notice, type RoomEvent } from '../core/events.js'
import { eventId } from '../core/fields.js'
import type { RoomRef } from '../store/keys.js'
import type { Store } from '../store/store.js'
import type { Hub, HubLog } from './hub.js'
import { messageOf } from './util.js'
import { later, PAGE_SIZE, positionOf, readHead, readPage, rewound, START, type Page, type Position } from './stream.js'

export interface FollowOptions {
  /** Resume after this event id (exclusive); undefined: only events newer than the call. */
  after?: string | undefined
}

export interface GapInfo {
  /** Events trimmed away before the follower got them (counted by seq, as cursor_reset does). */
  lost: number
  /**
   * The room's history went back (deleted and created again, or Redis restored from an older
   * copy): the events that follow are new although their seqs may repeat ones delivered before.
   */
  rewound?: true
}

export interface FeedsOptions {
  /**
   * How long a room stays subscribed after its last follower or waiter left (ms): waits in a loop
   * do not churn SSUBSCRIBE.
   */
  lingerMs?: number
  /** How long a new room feed waits for its subscription before reading anyway (ms). */
  subscribeTimeoutMs?: number
  /** Delay before a failed stream read is tried again (ms). */
  retryMs?: number
  log?: HubLog
}

/**
 * Where a follower's delivery goes: an object with these two methods (an SSE session is one), so
 * an idle follower costs no closure of its own for them.
 */
export interface FeedSink {
  /** The next event, in order, once. */
  feedEvent(ev: RoomEvent): void
  /** Events lost behind the retained history, or the history went back (GapInfo). */
  feedGap(info: GapInfo): void
}

interface Follower {
  pos: Position
  stopped: boolean
  readonly sink: FeedSink
}

/** A sink of two functions; without `onGap`, gaps are not told. */
function sinkOf(onEvent: (ev: RoomEvent) => void, onGap: ((info: GapInfo) => void) | undefined): FeedSink {
  return { feedEvent: onEvent, feedGap: onGap ?? (() => undefined) }
}

/** A room's shared state on this node. */
interface RoomFeed {
  readonly key: string
  readonly ref: RoomRef
  /** Everything up to here was delivered to the live followers. Set once ready. */
  pos: Position
  /** Resolves to whether the room exists, once subscribed and positioned. */
  ready: Promise<boolean>
  /** The room's work queue. */
  queue: Promise<void>
  readonly live: Set<Follower>
  /** Followers catching up, not yet in `live`. */
  readonly joining: Set<Follower>
  readonly waiters: Set<(woke: boolean) => void>
  unlisten: () => void
  linger: NodeJS.Timeout | undefined
  retry: NodeJS.Timeout | undefined
  closed: boolean
}

const silent: HubLog = { warn: () => {}, info: () => {} }

export class Feeds {
  private readonly rooms = new Map<string, RoomFeed>()
  private readonly lingerMs: number
  private readonly subscribeTimeoutMs: number
  private readonly retryMs: number
  private readonly log: HubLog
  private readonly offResync: () => void

  constructor(
    private readonly hub: Hub,
    private readonly store: Store,
    opts: FeedsOptions = {},
  ) {
    this.lingerMs = opts.lingerMs ?? 10_000
    this.subscribeTimeoutMs = opts.subscribeTimeoutMs ?? 5000
    this.retryMs = opts.retryMs ?? 1000
    this.log = opts.log ?? silent
    this.offResync = hub.onResync(() => {
      for (const room of this.rooms.values()) {
        wake(room, true)
        this.enqueue(room, () => this.readOn(room))
      }
    })
  }

  /**
   * Delivers the room's events to `to` (a FeedSink, or the event function with the gap function
   * as `onGap`), oldest first: those after `opts.after` (read from the stream), then new ones as
   * they come, until the returned function is called. When `after` is behind the trimmed history,
   * the gap gets the number lost and delivery goes on from the oldest retained event. Throws
   * RoomNotFound for a room that does not exist. The catch-up is delivered before this resolves:
   * be ready to write events before calling it.
   */
  async follow(
    ref: RoomRef,
    opts: FollowOptions,
    to: FeedSink | ((ev: RoomEvent) => void),
    onGap?: (info: GapInfo) => void,
  ): Promise<() => void> {
    let from: Position | undefined
    if (opts.after !== undefined) {
      const r = eventId.safeParse(opts.after)
      if (!r.success) throw new AppError('invalid_request', `after: ${r.error.issues[0]?.message}`, { field: 'after' })
      from = positionOf(r.data)
    }
    const room = this.acquire(ref)
    const sink = typeof to === 'function' ? sinkOf(to, onGap) : to
    const f: Follower = { pos: from ?? START, stopped: false, sink }
    room.joining.add(f)
    const stop = this.stopOf(room, f)
    const fresh = from === undefined
    try {
      if (!(await room.ready)) throw new RoomNotFound(ref.roomId)
      if (from) await this.catchUp(room, f)
      await this.enqueue(room, () => this.join(room, f, fresh), true)
    } catch (err) {
      stop()
      throw err
    }
    return stop
  }

  /** The stop of a follow: what an idle follower keeps besides its Follower (no context of follow's). */
  private stopOf(room: RoomFeed, f: Follower): () => void {
    return () => {
      if (f.stopped) return
      f.stopped = true
      room.joining.delete(f)
      room.live.delete(f)
      this.release(room)
    }
  }

  /**
   * Resolves true on the room's next event notice (or after a resync: re-read then), false after
   * `timeoutMs` or when `signal` aborts. Costs no connection and no blocking command: waiters
   * share the room's hub listener. Register before checking for news: on a room this node did
   * not follow yet, an event that lands while the subscription is being made also resolves it.
   */
  waitForNotice(ref: RoomRef, signal: AbortSignal, timeoutMs: number): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false)
    const room = this.acquire(ref)
    return new Promise((resolve) => {
      const done = (woke: boolean) => {
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        room.waiters.delete(done)
        this.release(room)
        resolve(woke)
      }
      const onAbort = () => done(false)
      const timer = setTimeout(() => done(false), timeoutMs)
      signal.addEventListener('abort', onAbort, { once: true })
      room.waiters.add(done)
    })
  }

  stats(): { rooms: number; followers: number; waiters: number } {
    let followers = 0
    let waiters = 0
    for (const r of this.rooms.values()) {
      followers += r.live.size + r.joining.size
      waiters += r.waiters.size
    }
    return { rooms: this.rooms.size, followers, waiters }
  }

  /** Ends every follow and wait (waiters resolve false) and drops every room listener. */
  close(): void {
    this.offResync()
    for (const room of [...this.rooms.values()]) {
      wake(room, false)
      for (const f of [...room.live, ...room.joining]) f.stopped = true
      this.dispose(room)
    }
  }

  /** The room's feed, made on first use: listen first, then position at the head once subscribed. */
  private acquire(ref: RoomRef): RoomFeed {
    const key = this.store.keys.roomTag(ref)
    const known = this.rooms.get(key)
    if (known) {
      if (known.linger) clearTimeout(known.linger)
      known.linger = undefined
      return known
    }
    const room: RoomFeed = {
      key,
      ref,
      pos: START,
      ready: Promise.resolve(false),
      queue: Promise.resolve(),
      live: new Set(),
      joining: new Set(),
      waiters: new Set(),
      unlisten: () => {},
      linger: undefined,
      retry: undefined,
      closed: false,
    }
    this.rooms.set(key, room)
    room.unlisten = this.hub.listen(ref, (n) => this.onNotice(room, n))
    // Read before the caller can check for news, so a waiter learns of an event that lands
    // before the subscription is live (same connection, so this read goes first).
    const before = readHead(this.store, ref)
    before.catch(() => {}) // awaited in position(); this only keeps an early failure from being unhandled
    room.ready = this.position(room, before)
    room.queue = room.ready.then(
      () => {},
      () => {},
    )
    return room
  }

  private async position(room: RoomFeed, before: Promise<{ head: Position }>): Promise<boolean> {
    try {
      if (!(await this.hub.whenSubscribed(room.ref, this.subscribeTimeoutMs))) {
        this.log.warn({ room: room.key }, 'realtime feed: subscription not confirmed in time; reading anyway')
      }
      const [b, now] = [await before, await readHead(this.store, room.ref)]
      room.pos = now.head
      if (now.head.seq !== b.head.seq) wake(room, true)
      if (!now.exists) this.forget(room)
      return now.exists
    } catch (err) {
      this.forget(room)
      throw err
    }
  }

  private onNotice(room: RoomFeed, n: Notice): void {
    if (typeof n.event_id !== 'string') return
    wake(room, true)
    const target = positionOf(n.event_id)
    this.enqueue(room, () => this.advance(room, target, n))
  }

  /** Moves the room to `target`: straight from the notice when it is the next event, else by reading. */
  private async advance(room: RoomFeed, target: Position, n: Notice): Promise<void> {
    if (!later(target, room.pos)) return
    const ev = target.seq === room.pos.seq + 1 ? noticeEvent(n) : undefined
    if (ev && ev.id === target.id) {
      room.pos = target
      for (const f of room.live) this.give(f, ev)
      return
    }
    await this.readOn(room, target)
  }

  /**
   * Reads the stream from the room's position, page by page, until a short page (caught up) or
   * past `target`; delivers to the live followers. A target not found was deleted: the room moves
   * past it anyway.
   */
  private async readOn(room: RoomFeed, target?: Position): Promise<void> {
    if (room.live.size === 0) {
      // Only waiters or joining followers, who read for themselves: just keep the position.
      const head = target ?? (await readHead(this.store, room.ref)).head
      if (later(head, room.pos)) room.pos = head
      return
    }
    for (;;) {
      const page = await readPage(this.store, room.ref, room.pos)
      for (const f of room.live) this.givePage(f, page)
      const last = page.events[page.events.length - 1]
      if (last) room.pos = positionOf(last.id)
      if (page.events.length < PAGE_SIZE || (target && !later(target, room.pos))) break
    }
    if (target && later(target, room.pos)) room.pos = target
    // Seqs up to the room's position that no follower got were deleted: nothing to wait for.
    for (const f of room.live) if (later(room.pos, f.pos) && !rewound(room.pos, f.pos)) f.pos = room.pos
  }

  /** Before joining: a resuming follower reads on its own until a short page. */
  private async catchUp(room: RoomFeed, f: Follower): Promise<void> {
    for (;;) {
      if (f.stopped || room.closed) return
      const page = await readPage(this.store, room.ref, f.pos)
      this.givePage(f, page)
      if (page.events.length < PAGE_SIZE) return
    }
  }

  /** In the room's queue: the follower reads what remains up to the room's position, then goes live. */
  private async join(room: RoomFeed, f: Follower, fresh: boolean): Promise<void> {
    if (fresh) f.pos = room.pos
    while (!f.stopped && later(room.pos, f.pos)) {
      const page = await readPage(this.store, room.ref, f.pos)
      this.givePage(f, page)
      if (page.events.length < PAGE_SIZE) break
    }
    if (later(room.pos, f.pos) && !rewound(room.pos, f.pos)) f.pos = room.pos
    room.joining.delete(f)
    if (!f.stopped) room.live.add(f)
  }

  private givePage(f: Follower, page: Page): void {
    const first = page.events[0]
    if (first && rewound(positionOf(first.id), f.pos)) return this.giveRewound(f, page)
    if (page.trim > f.pos.seq) {
      const lost = page.trim - f.pos.seq
      f.pos = { ...f.pos, seq: page.trim }
      if (!f.stopped) this.safely(() => f.sink.feedGap({ lost }))
    }
    for (const ev of page.events) this.give(f, ev)
  }

  /** The page starts a history that went back: a gap frame saying so, then its events from the first. */
  private giveRewound(f: Follower, page: Page): void {
    if (!f.stopped) this.safely(() => f.sink.feedGap({ lost: 0, rewound: true }))
    f.pos = START
    for (const ev of page.events) this.give(f, ev)
  }

  /**
   * Delivers one event unless the follower already has it (it is not later than the follower's
   * position). An event of a history that went back is announced with a gap first.
   */
  private give(f: Follower, ev: RoomEvent): void {
    const pos = positionOf(ev.id)
    if (f.stopped || !later(pos, f.pos)) return
    if (rewound(pos, f.pos)) this.safely(() => f.sink.feedGap({ lost: 0, rewound: true }))
    f.pos = pos
    this.safely(() => f.sink.feedEvent(ev))
  }

  /**
   * Runs `task` in the room's queue. A failed read is logged and the room reads on after retryMs
   * (its position did not move, so nothing is lost); with `rethrow`, the caller gets the error.
   */
  private enqueue(room: RoomFeed, task: () => Promise<void>, rethrow = false): Promise<void> {
    const run = room.queue.then(() => (room.closed ? undefined : task()))
    room.queue = run.catch((err: unknown) => {
      if (rethrow || room.closed) return
      this.log.warn({ room: room.key, err: messageOf(err) }, 'realtime feed: stream read failed; retrying')
      if (!room.retry) {
        room.retry = setTimeout(() => {
          room.retry = undefined
          this.enqueue(room, () => this.readOn(room))
        }, this.retryMs)
        room.retry.unref()
      }
    })
    return rethrow ? run : room.queue
  }

  /** Drops the room when nobody follows or waits, after the linger time. */
  private release(room: RoomFeed): void {
    if (room.live.size + room.joining.size + room.waiters.size > 0 || room.linger || room.closed) return
    if (this.lingerMs <= 0 || this.rooms.get(room.key) !== room) return this.dispose(room)
    room.linger = setTimeout(() => {
      room.linger = undefined
      if (room.live.size + room.joining.size + room.waiters.size === 0) this.dispose(room)
    }, this.lingerMs)
    room.linger.unref()
  }

  /** New users of the room get a fresh feed; this one lives on until its last user leaves. */
  private forget(room: RoomFeed): void {
    if (this.rooms.get(room.key) === room) this.rooms.delete(room.key)
  }

  private dispose(room: RoomFeed): void {
    room.closed = true
    this.forget(room)
    if (room.linger) clearTimeout(room.linger)
    if (room.retry) clearTimeout(room.retry)
    room.unlisten()
  }

  private safely(fn: () => void): void {
    try {
      fn()
    } catch (err) {
      this.log.warn({ err: messageOf(err) }, 'realtime feed: a follower threw')
    }
  }
}

function wake(room: RoomFeed, woke: boolean): void {
  for (const done of [...room.waiters]) done(woke)
}
