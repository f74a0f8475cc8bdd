// The node's realtime hub: ONE pub/sub subscription per node, shared by every local listener of
// every room (SSE streams, waiters, dashboards) and by the control channel (key revocations).
// Standalone: one connection. Cluster: ioredis' sharded subscribers, one connection per master
// that owns a subscribed channel. A room's channel is subscribed while it has a local listener.
//
// Pub/sub can die silently (after a failover, Centrifugo#1189), so the hub probes itself: every
// probe interval it publishes a probe on the control channel and on one subscribed room channel
// per shard, and when one does not come back in time it drops the connection(s), subscribes
// everything again on new ones and emits resync: notices may have been missed, so listeners
// re-read the truth from Redis. The hub owns recovery (the standalone connection never
// reconnects by itself), so it always knows when to say resync.
//
// One concern in one file: subscribing, connecting, rebuilding and
// probing all act on the same state (the live connection and its generation, each channel's
// confirmed subscription and the operation in flight) and must agree on it across every await.
// What is not that state is apart: the connection itself (src/store/subscriber.ts), helpers
// (util.ts), the feeds that listen (feed.ts).
import { randomBytes } from 'node:crypto'
import { decode, encode } from '../shared/msgpack.js'
import { toNotice, type Notice } from '../core/events.js'
import type { RoomRef } from '../store/keys.js'
import type { ControlNotice, Store } from '../store/store.js'
import { Subscriber } from '../store/subscriber.js'
import { addTo, messageOf, once, withTimeout } from './util.js'

export interface HubLog {
  warn(obj: object, msg: string): void
  info(obj: object, msg: string): void
}

export interface HubOptions {
  /** How often the hub probes its own subscription (ms). */
  probeIntervalMs?: number
  /** A probe not back within this long means the subscription is dead (ms). */
  probeTimeoutMs?: number
  log?: HubLog
}

export interface HubStats {
  /** Room channels subscribed. */
  channels: number
  /** Local room listeners. */
  listeners: number
  /** Rebuild attempts since start (a failed attempt is retried, and counted, every probe interval). */
  rebuilds: number
  /** Subscriber connections (cluster: masters owning a subscribed channel, the control one included). */
  connections: number
  /** Channels with an SSUBSCRIBE or SUNSUBSCRIBE in flight; 0: Redis has what the listeners want. */
  settling: number
  /** Probe rounds that came back whole since start: each one found the subscription alive. */
  probesBack: number
}

interface Channel {
  readonly name: string
  /** The control channel: subscribed for as long as the hub runs. */
  readonly pinned: boolean
  readonly listeners: Set<{ fn: (n: Notice) => void }>
  /** Confirmed by Redis on the current connection. */
  subscribed: boolean
  /** The SSUBSCRIBE / SUNSUBSCRIBE in flight, if any; at most one per channel. */
  op: Promise<boolean> | undefined
  /** whenSubscribed() callers, told whether the channel got subscribed. */
  readonly waiting: Set<(ok: boolean) => void>
}

interface ProbeRound {
  n: number
  pending: Set<string>
  timer: NodeJS.Timeout
}

const silent: HubLog = { warn: () => {}, info: () => {} }

export class Hub {
  /** Names this node in its probes; other nodes ignore probes that are not theirs. */
  readonly nodeId = randomBytes(8).toString('hex')
  /** CLIENT SETNAME of the hub's connections (cluster: prefixed by ioredis). */
  readonly connectionName: string
  private readonly channels = new Map<string, Channel>()
  private readonly controlListeners = new Set<{ fn: (n: ControlNotice) => void }>()
  private readonly resyncListeners = new Set<{ fn: () => void }>()
  private readonly control: string
  private readonly interval: number
  private readonly timeout: number
  private readonly log: HubLog
  /** The live connection; undefined while (re)connecting and after stop. */
  private sub: Subscriber | undefined
  private connecting: Subscriber | undefined
  /** Bumped with every new connection: replies and events of older ones are ignored. */
  private gen = 0
  private started = false
  private stopped = false
  private rebuilding = false
  /** Why the subscription must be rebuilt; undefined while it is healthy. */
  private broken: string | undefined
  private lastRebuildAt = 0
  private rebuilds = 0
  private probes = 0
  private probesBack = 0
  private round: ProbeRound | undefined
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly store: Store,
    opts: HubOptions = {},
  ) {
    this.control = store.keys.controlChannel()
    this.connectionName = `${store.keys.prefix}-hub-${this.nodeId}`
    this.interval = opts.probeIntervalMs ?? 2000
    this.timeout = opts.probeTimeoutMs ?? 1500
    this.log = opts.log ?? silent
  }

  /**
   * Connects, subscribes the control channel (and any channel listened to already), starts probing.
   * Throws when Redis cannot be reached.
   */
  async start(): Promise<void> {
    if (this.started) throw new Error('Hub.start: already started')
    this.started = true
    this.channelNamed(this.control, true)
    try {
      await this.open()
    } catch (err) {
      this.started = false // start() may be called again
      throw err
    }
    this.timer = setInterval(() => this.tick(), this.interval)
    this.timer.unref()
  }

  /**
   * Calls `fn` with every notice of the room (probes excepted) while the returned remover is not
   * called. The first local listener of a room subscribes its channel; the last one to leave
   * unsubscribes it.
   */
  listen(ref: RoomRef, fn: (n: Notice) => void): () => void {
    const ch = this.channelNamed(this.channelOf(ref), false)
    const entry = { fn }
    ch.listeners.add(entry)
    void this.sync(ch)
    return once(() => {
      ch.listeners.delete(entry)
      void this.sync(ch)
    })
  }

  /**
   * Resolves true once the room's channel is subscribed on the live connection (at once when it
   * is), false after `timeoutMs` or when nobody listens to the room. Notices published after it
   * resolved true reach the listeners, barring a failure that the probe detects.
   */
  whenSubscribed(ref: RoomRef, timeoutMs: number = this.timeout): Promise<boolean> {
    const ch = this.channels.get(this.channelOf(ref))
    if (!ch || ch.listeners.size === 0) return Promise.resolve(false)
    if (ch.subscribed && !ch.op) return Promise.resolve(true) // with an op in flight, the state is about to change
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer)
        ch.waiting.delete(done)
        resolve(ok)
      }
      const timer = setTimeout(() => done(false), timeoutMs)
      ch.waiting.add(done)
    })
  }

  /** Calls `fn` with every control notice (key revocations, ...), probes excepted. */
  onControl(fn: (n: ControlNotice) => void): () => void {
    return addTo(this.controlListeners, { fn })
  }

  /** Calls `fn` after the subscription was rebuilt: notices may have been missed, re-read the truth. */
  onResync(fn: () => void): () => void {
    return addTo(this.resyncListeners, { fn })
  }

  stats(): HubStats {
    let channels = 0
    let listeners = 0
    let settling = 0
    const shards = new Set<string>()
    for (const ch of this.channels.values()) {
      if (ch.subscribed) shards.add(this.shardOf(ch.name))
      if (ch.op) settling++
      if (ch.pinned) continue
      if (ch.subscribed) channels++
      listeners += ch.listeners.size
    }
    const connections = this.sub?.connections(shards.size) ?? 0
    return { channels, listeners, rebuilds: this.rebuilds, connections, settling, probesBack: this.probesBack }
  }

  /** Stops probing and closes the subscriber connection(s). Listeners get nothing more. */
  async stop(): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    this.gen++
    if (this.timer) clearInterval(this.timer)
    this.endRound()
    for (const ch of this.channels.values()) for (const done of [...ch.waiting]) done(false)
    const subs = [this.sub, this.connecting].filter((s): s is Subscriber => s !== undefined)
    this.sub = undefined
    this.connecting = undefined
    await Promise.all(subs.map((s) => s.close()))
  }

  private channelOf(ref: RoomRef): string {
    return this.store.keys.room(ref).channel
  }

  private channelNamed(name: string, pinned: boolean): Channel {
    let ch = this.channels.get(name)
    if (!ch) {
      ch = { name, pinned, listeners: new Set(), subscribed: false, op: undefined, waiting: new Set() }
      this.channels.set(name, ch)
    }
    return ch
  }

  /**
   * Brings one channel to its wanted state (subscribed iff pinned or listened to), one command at
   * a time, and again after each command, so listen/unlisten races settle on the state of the
   * moment. Resolves false when a command failed: the connection is then rebuilt, which
   * subscribes every wanted channel again.
   */
  private sync(ch: Channel): Promise<boolean> {
    if (ch.op) return ch.op
    const want = ch.pinned || ch.listeners.size > 0
    if (!want && !ch.subscribed) {
      if (this.channels.get(ch.name) === ch) this.channels.delete(ch.name)
      return Promise.resolve(true)
    }
    if (want === ch.subscribed) return Promise.resolve(true)
    const sub = this.sub
    if (!sub) return Promise.resolve(false) // (re)connecting: open() subscribes it
    const gen = this.gen
    const command = want ? sub.subscribe(ch.name) : sub.unsubscribe(ch.name)
    const op: Promise<boolean> = command.then(
      () => {
        if (gen !== this.gen) return false
        ch.op = undefined
        ch.subscribed = want
        if (want) for (const done of [...ch.waiting]) done(true)
        return this.sync(ch)
      },
      (err: unknown) => {
        if (gen !== this.gen) return false
        ch.op = undefined
        this.fail(gen, `${want ? 'SSUBSCRIBE' : 'SUNSUBSCRIBE'} ${ch.name} failed: ${messageOf(err)}`)
        return false
      },
    )
    ch.op = op
    return op
  }

  /** Opens a new connection and subscribes every wanted channel on it. Throws on failure. */
  private async open(): Promise<void> {
    const gen = ++this.gen
    for (const ch of this.channels.values()) {
      ch.subscribed = false
      ch.op = undefined
    }
    const sub = new Subscriber(this.store.settings, this.connectionName)
    this.connecting = sub
    sub.onMessage((channel, message) => {
      if (gen === this.gen) this.onMessage(channel, message)
    })
    const limit = Math.max(2 * this.timeout, 2000)
    try {
      await withTimeout(sub.connect(), limit, 'connecting the subscriber')
    } catch (err) {
      await sub.close()
      throw err
    } finally {
      if (this.connecting === sub) this.connecting = undefined
    }
    if (gen !== this.gen) {
      await sub.close()
      throw new Error('the hub stopped while connecting')
    }
    sub.onLost((why) => this.fail(gen, why))
    this.sub = sub
    try {
      const results = await withTimeout(
        Promise.all([...this.channels.values()].map((ch) => this.sync(ch))),
        limit,
        'subscribing',
      )
      if (results.includes(false) || gen !== this.gen) throw new Error('a channel could not be subscribed')
    } catch (err) {
      if (this.sub === sub) this.sub = undefined
      await sub.close()
      throw err
    }
  }

  private onMessage(channel: string, message: Buffer): void {
    let msg: unknown
    try {
      msg = decode(message)
    } catch {
      return
    }
    if (typeof msg !== 'object' || msg === null || typeof (msg as ControlNotice).k !== 'string') return
    if ((msg as ControlNotice).k === 'probe') return this.probeBack(channel, msg as ControlNotice)
    if (channel === this.control) {
      for (const l of [...this.controlListeners]) this.safely(() => l.fn(msg as ControlNotice))
      return
    }
    const notice = toNotice(msg)
    const ch = this.channels.get(channel)
    if (!notice || !ch) return
    for (const l of [...ch.listeners]) this.safely(() => l.fn(notice))
  }

  /** Marks the subscription of connection `gen` as dead and rebuilds it (at most once per probe interval). */
  private fail(gen: number, reason: string): void {
    if (this.stopped || gen !== this.gen) return
    this.broken ??= reason
    void this.rebuildWhenDue()
  }

  private async rebuildWhenDue(): Promise<void> {
    if (!this.broken || this.rebuilding || this.stopped) return
    if (Date.now() - this.lastRebuildAt < this.interval) return // the next tick tries again
    const reason = this.broken
    this.rebuilding = true
    this.lastRebuildAt = Date.now()
    this.rebuilds++
    this.endRound()
    this.log.warn(
      { reason, channels: this.channels.size, rebuild: this.rebuilds },
      'realtime hub: pub/sub subscription lost, rebuilding it',
    )
    const old = this.sub
    this.sub = undefined
    if (old) void old.close()
    this.broken = undefined
    try {
      await this.open()
      if (this.broken) throw new Error(this.broken)
      this.log.info(
        { channels: this.channels.size, rebuild: this.rebuilds },
        'realtime hub: subscription rebuilt; listeners resync',
      )
      for (const l of [...this.resyncListeners]) this.safely(() => l.fn())
    } catch (err) {
      if (this.stopped) return
      this.broken ??= messageOf(err)
      this.log.warn(
        { reason: messageOf(err), rebuild: this.rebuilds },
        'realtime hub: rebuild failed; retrying after the probe interval',
      )
    } finally {
      this.rebuilding = false
    }
  }

  private tick(): void {
    if (this.stopped || this.rebuilding) return
    if (this.broken) {
      void this.rebuildWhenDue()
      return
    }
    if (!this.round) this.sendProbes()
  }

  /** One probe round: the control channel and one subscribed room channel per shard (rotating). */
  private sendProbes(): void {
    if (!this.sub) return
    const n = ++this.probes
    const byShard = new Map<string, string[]>()
    for (const ch of this.channels.values()) {
      if (ch.pinned || !ch.subscribed || ch.listeners.size === 0) continue
      const shard = this.shardOf(ch.name)
      const list = byShard.get(shard)
      if (list) list.push(ch.name)
      else byShard.set(shard, [ch.name])
    }
    const targets = [this.control, ...[...byShard.values()].map((names) => names[n % names.length]!)]
    const gen = this.gen
    const round: ProbeRound = {
      n,
      pending: new Set(targets),
      timer: setTimeout(() => {
        if (this.round !== round) return
        this.round = undefined
        this.fail(gen, `probe ${n} on ${[...round.pending].join(', ')} not back within ${this.timeout} ms`)
      }, this.timeout),
    }
    round.timer.unref()
    this.round = round
    const probe = Buffer.from(encode({ k: 'probe', node: this.nodeId, n }))
    // A failed publish leaves the probe pending: it counts as lost when the round times out.
    for (const channel of targets) this.store.publish(channel, probe).catch(() => {})
  }

  private probeBack(channel: string, msg: ControlNotice): void {
    const round = this.round
    if (!round || msg.node !== this.nodeId || msg.n !== round.n) return
    round.pending.delete(channel)
    if (round.pending.size === 0) {
      this.probesBack++
      this.endRound()
    }
  }

  private endRound(): void {
    if (this.round) clearTimeout(this.round.timer)
    this.round = undefined
  }

  /** The master that serves a channel's slot (one connection each); standalone has one shard. */
  private shardOf(channel: string): string {
    return this.sub?.shardOf(channel) ?? 'standalone'
  }

  private safely(fn: () => void): void {
    try {
      fn()
    } catch (err) {
      this.log.warn({ err: messageOf(err) }, 'realtime hub: a listener threw')
    }
  }
}
