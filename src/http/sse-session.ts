// One Server-Sent Events session: the only code that writes an event stream. The room stream
// (routes/sse.ts), the dashboard's live view (src/dashboard/live.ts) and MCP replies sent as SSE
// (mcp-reply.ts) open one here; so does any later long-lived stream. A session owns, for every
// stream alike:
//   - the headers: text/event-stream, `Cache-Control: no-store, no-transform` (nothing may keep a
//     copy of private room content, and no proxy may recompress or buffer it),
//     `X-Accel-Buffering: no` (nginx), `X-Content-Type-Options: nosniff`;
//   - the reconnection hint (`retry: SSE_RETRY_MS`) as its first bytes, unless the stream cannot
//     be resumed;
//   - a `: keep-alive` comment every SSE_KEEPALIVE_S (one timer of the node's for all its streams:
//     the first comes within that time of the stream's start), so proxies do not cut an idle stream;
//   - the back-pressure cap: a client that stops reading is dropped once SSE_BUFFER_BYTES wait for
//     it (Exchange.stream), and any failed write ends the session;
//   - one socket write per turn of the event loop: frames written in one turn (the notices of one
//     read from Redis, the keep-alives of every stream) leave together once the loop has polled,
//     one write per stream however many frames, so a node that fell behind catches up with a
//     write per stream, not per frame; a lone frame waits for nothing but the rest of its turn;
//   - its end: on drain (a `shutdown` frame with a short retry hint; one drain hook of the node's
//     for all its streams), on whatever the stream ends on (revocation of its key, sign-out:
//     endOn), on the client going away; every clean-up registered with onEnd runs once,
//     whichever comes first;
//   - the frames a follower of a room's feed needs: events, and `gap` (events lost behind the
//     retained history, or the history reset);
//   - the node's gauge of open streams (agentrooms_sse_connections).
// Frames are built by sseFrame, which refuses CR or LF in an event name or id (a field with one
// would split the frame); data is JSON, which never holds a raw line break.
import { revokedError, type Keyring } from '../auth/keyring.js'
import type { Principal } from '../auth/principal.js'
import type { RoomEvent } from '../core/events.js'
import type { FeedSink, GapInfo } from '../realtime/feed.js'
import { eventId } from '../core/fields.js'
import { AppError } from '../shared/errors.js'
import type { Lifecycle } from '../shared/lifecycle.js'
import type { Metrics } from '../shared/metrics.js'
import type { Exchange, RequestInfo, StreamWriter } from './exchange.js'

/** How long a client waits before it reconnects a stream that dropped, or that a draining node ended (ms). */
export const SSE_RETRY_MS = 1000

const HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-store, no-transform',
  'X-Accel-Buffering': 'no',
  'X-Content-Type-Options': 'nosniff',
}

const KEEPALIVE = ': keep-alive\n\n'
const NO_BREAK = /^[^\r\n]*$/

/** One frame: `id:` (when given), `event:`, `data:` the JSON of `data`. */
export function sseFrame(event: string, data: unknown, id?: string): string {
  if (!NO_BREAK.test(event)) throw new Error(`SSE event name with a line break: ${JSON.stringify(event)}`)
  if (id === undefined) return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
  if (!NO_BREAK.test(id)) throw new Error(`SSE id with a line break: ${JSON.stringify(id)}`)
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`
}

const eventFrames = new WeakMap<RoomEvent, string>()

/** The SSE frame of a room event (`id:` its id, `event:` its type), made once however many streams write it. */
export function eventFrame(ev: RoomEvent): string {
  let f = eventFrames.get(ev)
  if (f === undefined) eventFrames.set(ev, (f = sseFrame(ev.type, ev, ev.id)))
  return f
}

/** The last frame of a stream the node ends because it drains: reconnect soon, to another node. */
export const SHUTDOWN_FRAME = `retry: ${SSE_RETRY_MS}\n${sseFrame('shutdown', {})}`

/** The last frame of a stream whose key was revoked: the unauthorized error of docs/errors.md. */
export const revokedFrame = (): string => sseFrame('revoked', { error: revokedError().toJSON() })

/**
 * The event id a client resumes after: the Last-Event-ID header (EventSource sends it on
 * reconnect), else `?lastEventId=` (a first connection cannot set the header); empty is none.
 * A malformed one is refused (400, field Last-Event-ID).
 */
export function resumeOf(req: RequestInfo): string | undefined {
  const given = req.headers['last-event-id'] || req.query.get('lastEventId') || undefined
  if (given !== undefined && !eventId.safeParse(given).success) {
    throw new AppError('invalid_request', 'Last-Event-ID: must be an event id like "1732263097123-42"', {
      field: 'Last-Event-ID',
    })
  }
  return given
}

/** What sessions use: the drain that ends them, the gauge that counts them, the node's SSE settings. */
export interface SseSessionDeps {
  lifecycle: Pick<Lifecycle, 'onDrain'>
  metrics: Pick<Metrics, 'sseConnections'>
  settings: { sseKeepaliveMs: number; sseBufferBytes: number }
}

export interface SseOpenOptions {
  /** The reconnection hint sent first (ms; SSE_RETRY_MS by default); 0: none, for a stream no client resumes. */
  retryMs?: number
  /**
   * The node's drain ends the session with this last frame (SHUTDOWN_FRAME by default); false: the
   * drain leaves it to finish by itself (a reply the drain waits for).
   */
  onDrain?: string | false
}

/**
 * Opens the node's SSE sessions (one per node: its settings, drain and gauge). The sessions share
 * one keep-alive timer and one drain hook: an idle session costs its objects and no timer or
 * closure of its own for either.
 */
export class SseSessions {
  private readonly live = new Set<SseSession>()
  private ticker: NodeJS.Timeout | undefined
  private draining = false
  /** Sessions holding frames of this turn, flushed once the loop has polled (setImmediate). */
  private pending: SseSession[] = []
  private readonly flush = () => {
    const sessions = this.pending
    this.pending = []
    for (const s of sessions) s.flush()
  }

  constructor(private readonly deps: SseSessionDeps) {
    deps.lifecycle.onDrain(() => {
      this.draining = true
      for (const s of [...this.live]) s.drained()
    })
  }

  /** Starts the event stream on `ex` (status 200). */
  open(ex: Exchange, opts: SseOpenOptions = {}): SseSession {
    const s = new SseSession(ex, this, opts)
    if (this.draining) s.drained()
    return s
  }

  /** @internal A session started: counted, kept alive. */
  added(s: SseSession): void {
    this.live.add(s)
    this.deps.metrics.sseConnections.inc()
    this.ticker ??= setInterval(() => {
      for (const one of this.live) one.write(KEEPALIVE)
    }, this.deps.settings.sseKeepaliveMs)
  }

  /** @internal A session ended. */
  removed(s: SseSession): void {
    if (!this.live.delete(s)) return
    this.deps.metrics.sseConnections.dec()
    if (this.live.size > 0) return
    clearInterval(this.ticker)
    this.ticker = undefined
  }

  /** @internal `s` holds its first frame of this turn. */
  later(s: SseSession): void {
    if (this.pending.push(s) === 1) setImmediate(this.flush)
  }

  /** @internal */
  get bufferBytes(): number {
    return this.deps.settings.sseBufferBytes
  }
}

/** A session is a feed's sink as it is: a room stream follows its room with no closure of its own. */
export class SseSession implements FeedSink {
  private readonly out: StreamWriter
  private ends: (() => void)[] | undefined
  /** The last frame the node's drain ends the session with; false: the drain leaves it. */
  private readonly drainFrame: string | false
  private ended = false
  /** Frames written this turn, not yet sent (SseSessions.later). */
  private held: string | undefined = undefined

  constructor(
    ex: Exchange,
    private readonly sessions: SseSessions,
    opts: SseOpenOptions,
  ) {
    this.drainFrame = opts.onDrain ?? SHUTDOWN_FRAME
    this.out = ex.stream(200, HEADERS, sessions.bufferBytes)
    if (this.out.closed) {
      // HEAD, or a client already gone: nothing was opened, nothing to count or end.
      this.ended = true
      return
    }
    sessions.added(this)
    ex.onAbort(() => this.end())
    const retry = opts.retryMs ?? SSE_RETRY_MS
    if (retry > 0) this.write(`retry: ${retry}\n\n`)
  }

  /** @internal The node drains: the session ends with its drain frame, unless it has none. */
  drained(): void {
    if (this.drainFrame !== false) this.end(this.drainFrame)
  }

  /** True once the session ended (by end(), the client, the drain, or a dropped slow consumer). */
  get closed(): boolean {
    return this.ended
  }

  /**
   * Writes a prepared frame (sseFrame), sent with the others of this turn: false when the session
   * ended. A stream found gone or too far behind when they are sent ends the session then.
   */
  write(frame: string): boolean {
    if (this.ended) return false
    if (this.held === undefined) {
      this.held = frame
      this.sessions.later(this)
    } else this.held += frame
    return true
  }

  /** @internal Sends this turn's frames in one write; a failed write ends the session. */
  flush(): void {
    const chunk = this.held
    this.held = undefined
    if (chunk === undefined || this.ended) return
    if (!this.out.write(chunk)) this.end()
  }

  /** Writes one event frame. */
  event(event: string, data: unknown, id?: string): boolean {
    return this.write(sseFrame(event, data, id))
  }

  /** Writes a comment line (ignored by clients; `text` is one line). */
  comment(text: string): boolean {
    return this.write(`: ${text.replace(/[\r\n]/g, ' ')}\n\n`)
  }

  /**
   * A `gap` frame: `{"lost": n}` when n events were trimmed away before this stream got them,
   * `{"lost": 0, "rewound": true}` when the room's history was reset (the room recreated, Redis
   * restored): what the client holds of it no longer follows on. The frame has no id, so it
   * moves no resume point.
   */
  gap(info: GapInfo): boolean {
    return this.write(sseFrame('gap', info.rewound ? { lost: 0, rewound: true } : { lost: info.lost }))
  }

  /** A room event (FeedSink): its frame (eventFrame). */
  feedEvent(ev: RoomEvent): void {
    this.write(eventFrame(ev))
  }

  /** A gap in the room's events (FeedSink): the `gap` frame. */
  feedGap(info: GapInfo): void {
    this.gap(info)
  }

  /** Runs `fn` once when the session ends (at once if it has). */
  onEnd(fn: () => void): void {
    if (this.ended) fn()
    // A new array of the exact size each time: a push would reserve room for 17 (136 bytes more
    // for each of thousands of idle streams), and a session has a handful of clean-ups.
    else this.ends = this.ends ? this.ends.concat(fn) : [fn]
  }

  /**
   * Ends the session with `last` (a frame, or what makes it, called then) when `subscribe`'s
   * callback is called; `subscribe` returns its own remover, run when the session ends first.
   */
  endOn(subscribe: (end: () => void) => () => void, last?: string | (() => string)): void {
    if (this.ended) return
    this.onEnd(subscribe(() => this.end(typeof last === 'function' ? last() : last)))
  }

  /** Ends the session with a `revoked` frame when `principal`'s key is revoked, on any node. */
  endOnRevocation(keyring: Pick<Keyring, 'hold'>, principal: Principal): void {
    this.endOn((end) => keyring.hold(principal, end), revokedFrame)
  }

  /**
   * Ends the session with `last` once `live()` resolves false, asked every `everyMs`. A check that
   * fails (Redis unreachable) ends nothing: it is asked again at the next tick.
   */
  endUnless(live: () => Promise<boolean>, everyMs: number, last?: string | (() => string)): void {
    this.endOn((end) => {
      const timer = setInterval(() => {
        live().then(
          (ok) => ok || end(),
          () => undefined,
        )
      }, everyMs)
      return () => clearInterval(timer)
    }, last)
  }

  /**
   * Ties a subscription being made (a feed's follow, which delivers through this session before
   * it resolves) to the session: its stop runs when the session ends. When it fails, the session
   * ends (an error can no longer be answered once the stream started; the client reconnects after
   * the retry hint) and the error is rethrown.
   */
  async attach(subscribing: Promise<() => void>): Promise<void> {
    try {
      this.onEnd(await subscribing)
    } catch (err) {
      this.end()
      throw err
    }
  }

  /** Ends the stream, after `last` when given; runs every clean-up once. */
  end(last?: string): void {
    if (this.ended) return
    this.ended = true
    const held = this.held
    this.held = undefined
    const ends = this.ends
    this.ends = undefined
    if (ends) for (let i = ends.length - 1; i >= 0; i--) ends[i]!()
    this.sessions.removed(this)
    this.out.end(held === undefined ? last : held + (last ?? ''))
  }
}
