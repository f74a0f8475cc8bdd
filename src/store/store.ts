// One interface over standalone Redis and Redis Cluster. The domain core calls `room()` with a
// script name, a room and the script's arguments; the store adds the room's keys and the common
// arguments, runs the script in one round trip and decodes its msgpack reply. What callers read
// or write outside scripts goes through the store's repositories (rooms, auth; the webhook
// queue, the search index state, the subscriber): nothing outside src/store talks to ioredis.
// `client` is for the composition root and operator tools (src/node.ts, src/ops) and for tests;
// lint refuses it elsewhere.
import { Cluster, Redis, type RedisOptions } from 'ioredis'
import { decode, encode } from '../shared/msgpack.js'
import { AppError, isErrorCode, KeyReused, RoomExists, RoomNotFound } from '../shared/errors.js'
import { AuthRecords } from './auth.js'
import { OAuthRecords } from './oauth.js'
import { Keys, type RoomRef } from './keys.js'
import { RoomRecords } from './rooms.js'
import { LoadedScript, type Arg } from './evalsha.js'
import { StoreHealth, toStoreError, unavailable } from './health.js'
import { leftOf, type WaitBudget } from '../shared/wait-budget.js'
import type { AccountScripts, KeyedScripts, ReplyOf, RoomCall, RoomReply, RoomScripts } from './script-map/index.js'
import type { Effects } from './effects.js'
import { loadScripts } from './scripts.js'

export type RedisClient = Redis | Cluster
export type { Arg }

/** A notice of the control channel, e.g. {k: 'revoked', hash}: every node's hub hears it. */
export interface ControlNotice {
  k: string
  [field: string]: unknown
}

/** Per-call options common to every room script (ARGV[1..5]). */
export interface CallOptions {
  /** The calling agent; its unread count comes back with the result. Empty: none. */
  agent?: string | undefined
  /** Replays the first result of a mutation sent again with the same key. */
  idempotencyKey?: string | undefined
  /** False for reads that must not count as room activity (dashboard snapshots). */
  touch?: boolean
  /** The call's time waiting for Redis (src/shared/wait-budget.ts): the script gets what is left of it. */
  budget?: WaitBudget | undefined
}

/**
 * A script's reply as decoded, before the script map types it (src/store/script-map): the result
 * fields, the caller's unread count (room scripts), and for reads that return raw records
 * (finishRows in Lua) the records themselves, undecoded, in `rows`.
 */
type RawReply = Record<string, unknown> & { rows: Buffer[] }

interface ScriptError {
  err: string
  msg: string
  details?: Record<string, unknown>
}

/** How often a room's keys have their TTL refreshed by activity: a tenth of the TTL, at most 5 min. */
export function touchEveryMs(roomTtlMs: number): number {
  return Math.min(300_000, Math.floor(roomTtlMs / 10))
}

/**
 * The plain-command repositories, each command of which asks the health gate first; `reads(budget)`
 * gives ones whose commands also draw on a call's wait budget.
 */
export interface Reads {
  readonly rooms: RoomRecords
  readonly auth: AuthRecords
  readonly oauth: OAuthRecords
}

/** How to reach Redis (src/config.ts reads them from REDIS_URL, REDIS_CLUSTER_NODES, ...). */
export interface RedisSettings {
  redisUrl?: string | undefined
  redisClusterNodes?: string | undefined
  redisPassword?: string | undefined
  redisAutoPipelining: boolean
  /** A command unanswered this long fails and is never sent again (REDIS_COMMAND_TIMEOUT_MS); unset: no deadline. */
  redisCommandTimeoutMs?: number | undefined
}

/**
 * The settings the store reads. The composition root's Settings (src/config.ts) has every one of
 * them under the same name; the store declares only what it uses, so it never imports the root.
 */
export interface StoreSettings extends RedisSettings {
  keyPrefix: string
  roomTtlMs: number
  idempotencyTtlMs: number
}

export function connectionOptions(settings: Pick<RedisSettings, 'redisUrl' | 'redisClusterNodes'>): {
  mode: 'standalone' | 'cluster'
  nodes: { host: string; port: number }[]
} {
  if (settings.redisClusterNodes) {
    const nodes = settings.redisClusterNodes.split(',').map((hp) => {
      const [host, port] = hp.trim().split(':')
      return { host: host || '127.0.0.1', port: Number(port || 6379) }
    })
    return { mode: 'cluster', nodes }
  }
  const url = new URL(settings.redisUrl ?? 'redis://127.0.0.1:6379')
  return { mode: 'standalone', nodes: [{ host: url.hostname, port: Number(url.port || 6379) }] }
}

/**
 * A script that succeeded through this store, with what it may have changed: its header's
 * Effects (src/store/effects.ts). The search indexer follows `effects.content`, webhooks follow
 * `events`; neither knows which scripts those are.
 */
export interface Committed {
  readonly script: string
  readonly effects: Effects
  /** The room, for a room script. */
  readonly ref?: RoomRef
}

const NONE: readonly never[] = Object.freeze([])
/** The rows of a reply that has none (read only, as every reply's rows are). */
const NO_ROWS = NONE as never[]

/**
 * `S`: the settings as given (the node's whole Settings), kept as `settings` for whoever made the
 * store; the store itself reads only StoreSettings.
 */
export class Store<S extends StoreSettings = StoreSettings> {
  readonly keys: Keys
  /**
   * The connection for the repositories' plain commands: every command first asks the health
   * gate, so that once Redis is known to be unreachable a read fails at once with `unavailable`
   * rather than waiting for its deadline (REDIS_COMMAND_TIMEOUT_MS) in ioredis' queue.
   */
  readonly client: RedisClient
  /** The same connection ungated: scripts (gated in exec), health checks, events, shutdown. */
  private readonly redis: RedisClient
  readonly mode: 'standalone' | 'cluster'
  readonly scripts: ReadonlyMap<string, LoadedScript>
  /** Reachable and full or not, between calls: calls fail at once while Redis is known to be down. */
  readonly health: StoreHealth
  /** Plain reads of rooms and team room indexes (no script, not room activity). */
  readonly rooms: RoomRecords
  /** Auth's records outside its scripts: team directory, credential listings, audit trail, accounts. */
  readonly auth: AuthRecords
  /** The OAuth authorization server's records (src/http/oauth/) and the teams' connected agents. */
  readonly oauth: OAuthRecords
  private readonly ttlMs: string
  private readonly touchEvery: string
  private readonly idemTtlMs: string
  private readonly committedListeners: ((c: Committed) => void)[] = []
  /**
   * The client pipelines by itself (REDIS_AUTO_PIPELINING): scripts then go through ioredis' own
   * script commands, the only ones its auto-pipelining takes in, rather than our ready frames.
   */
  private readonly viaIoredis: boolean
  /** The standalone connection's socket while it is corked (see coalesce). */
  private corked: Redis['stream'] | undefined
  private readonly uncork = () => {
    const s = this.corked
    this.corked = undefined
    s?.uncork()
  }

  constructor(
    readonly settings: S,
    client?: RedisClient,
  ) {
    this.keys = new Keys(settings.keyPrefix)
    this.redis = client ?? createClient(settings)
    // Connection errors also reject the commands they affect; without a listener ioredis would
    // print them as unhandled. The node adds its own listener for logs and metrics.
    this.redis.on('error', () => undefined)
    this.mode = this.redis instanceof Cluster ? 'cluster' : 'standalone'
    this.health = new StoreHealth(this.redis)
    this.client = gated(this.redis, this.health, undefined, undefined)
    this.rooms = new RoomRecords(this.client, this.keys)
    this.auth = new AuthRecords(this.client, this.keys)
    this.oauth = new OAuthRecords(this.client, this.keys)
    this.ttlMs = String(settings.roomTtlMs)
    this.touchEvery = String(touchEveryMs(settings.roomTtlMs))
    this.idemTtlMs = String(settings.idempotencyTtlMs)
    this.scripts = new Map(loadScripts().map((s) => [s.name, new LoadedScript(s)]))
    this.viaIoredis = this.redis.options.enableAutoPipelining === true
    if (this.viaIoredis)
      for (const { script: s } of this.scripts.values())
        this.redis.defineCommand(s.name, { numberOfKeys: s.numberOfKeys, lua: s.source })
  }

  /**
   * The repositories for one call: with a `budget` (src/shared/wait-budget.ts), each of their
   * commands, the wait for the health gate included, is given what the call has left of the command
   * deadline and adds its time to the budget, as the call's scripts do; a command with nothing left
   * fails as unavailable without sending. Without one, the store's own (each command has the whole
   * deadline: background work, operator tools).
   */
  reads(budget: WaitBudget | undefined): Reads {
    if (budget === undefined || this.settings.redisCommandTimeoutMs === undefined) return this
    const client = gated(this.redis, this.health, budget, this.settings.redisCommandTimeoutMs)
    return {
      rooms: new RoomRecords(client, this.keys),
      auth: new AuthRecords(client, this.keys),
      oauth: new OAuthRecords(client, this.keys),
    }
  }

  /**
   * Runs a room script: KEYS = the room's fixed keys then `extraKeys`; ARGV = agent, idempotency
   * key, room TTL (ms), touch interval (ms), touch flag, idempotency TTL (ms), then `args`. Throws AppError for errors
   * the script reports and for Redis being unreachable.
   */
  room<S extends keyof RoomScripts>(
    script: S,
    ref: RoomRef,
    opts: CallOptions,
    ...call: RoomCall<S>
  ): Promise<RoomReply<S>>
  // The overload above types `args` and `extraKeys` per script (RoomCall); TypeScript relates its
  // conditional tuple to no narrower parameters than these.
  room(script: string, ref: RoomRef, opts: CallOptions, args?: any, extraKeys?: any): Promise<RawReply> {
    // Not an async function, one promise fewer a call: whatever fails before the send is a rejection too.
    try {
      const own: readonly Arg[] = args ?? NONE
      const more: readonly string[] = extraKeys ?? NONE
      const keys = this.keys.room(ref).list
      // Filled by index: a spread of the script's own arguments goes through the iterator protocol.
      const argv = new Array<Arg>(6 + own.length)
      argv[0] = opts.agent ?? ''
      argv[1] = opts.idempotencyKey ?? ''
      argv[2] = this.ttlMs
      argv[3] = this.touchEvery
      argv[4] = opts.touch === false ? '0' : '1'
      argv[5] = this.idemTtlMs
      for (let i = 0; i < own.length; i++) argv[6 + i] = own[i]!
      const def = this.script(script, keys.length + more.length)
      return this.exec(def, more.length === 0 ? keys : [...keys, ...more], argv, opts.budget, ref)
    } catch (err) {
      return Promise.reject(err)
    }
  }

  /**
   * Calls `fn` after every script through this store that succeeded and declares effects (a
   * read declares none): what it may have changed, and its room. Listeners must not throw.
   */
  onCommitted(fn: (c: Committed) => void): void {
    this.committedListeners.push(fn)
  }

  private committed(def: LoadedScript, ref?: RoomRef): void {
    const { effects, name } = def.script
    if (effects.words.size === 0 || this.committedListeners.length === 0) return
    const c: Committed = ref ? { script: name, effects, ref } : { script: name, effects }
    // The write has committed: a listener that throws must not turn it into a failure the
    // caller would retry (listeners must not throw; this only guards).
    for (const fn of this.committedListeners) {
      try {
        fn(c)
      } catch {
        // ignored, see above
      }
    }
  }

  /**
   * Runs a script with explicit keys and arguments and decodes its msgpack reply; `budget`: the
   * calling request's time waiting for Redis (src/shared/wait-budget.ts), of which it gets what is left.
   */
  run<S extends keyof KeyedScripts>(
    script: S,
    keys: KeyedScripts[S]['keys'],
    argv: KeyedScripts[S]['args'],
    budget?: WaitBudget,
  ): Promise<ReplyOf<KeyedScripts[S]>>
  async run(script: string, keys: readonly string[], argv: readonly Arg[], budget?: WaitBudget): Promise<RawReply> {
    return this.exec(this.script(script, keys.length), keys, argv, budget)
  }

  /** Runs an account script: KEYS = the accounts directory (Keys.accounts); `budget` as for run(). */
  account<S extends keyof AccountScripts>(
    script: S,
    args: AccountScripts[S]['args'],
    budget?: WaitBudget,
  ): Promise<ReplyOf<AccountScripts[S]>>
  async account(script: string, args: readonly Arg[], budget?: WaitBudget): Promise<RawReply> {
    const keys = this.keys.accounts().list
    return this.exec(this.script(script, keys.length), keys, args, budget)
  }

  private script(name: string, keyCount: number): LoadedScript {
    const def = this.scripts.get(name)
    if (!def) throw new Error(`unknown script ${name}`)
    if (keyCount !== def.script.numberOfKeys)
      throw new Error(`script ${name} takes ${def.script.numberOfKeys} keys, given ${keyCount}`)
    return def
  }

  /**
   * Sends a script, decodes its reply and tells the committed listeners (see onCommitted). With a
   * `budget`, the command (the wait for the health gate included) is given what the call has left
   * of the command deadline instead of all of it, the time it took is added to the budget, and a
   * call with nothing left fails as unavailable without sending. `ref`: the room of a room script,
   * whose refusals about the room are its domain errors (roomError).
   */
  private async exec(
    def: LoadedScript,
    keys: readonly string[],
    argv: readonly Arg[],
    budget: WaitBudget | undefined,
    ref?: RoomRef,
  ): Promise<RawReply> {
    const left = leftOf(budget, this.settings.redisCommandTimeoutMs)
    if (left !== undefined && left <= 0) throw unavailable()
    const sent = left === undefined ? 0 : Date.now()
    let raw: Buffer | Buffer[]
    try {
      const admitted = this.health.admit()
      if (admitted) await admitted
      const ms = left === undefined ? undefined : Math.max(1, left - (Date.now() - sent))
      if (this.viaIoredis) raw = (await this.sendDefined(def.script.name, keys, argv, ms)) as Buffer | Buffer[]
      else {
        // `ms`: the command's deadline when shorter than the client's (ioredis keeps the first one set).
        const first = def.command(keys, argv)
        if (ms !== undefined) first.setTimeout(ms)
        this.coalesce()
        const at = ms === undefined ? 0 : Date.now()
        try {
          raw = (await this.redis.sendCommand(first)) as Buffer | Buffer[]
        } catch (err) {
          // Redis lost its script cache (restart, failover, SCRIPT FLUSH): this call sends the source.
          if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err
          const cold = def.command(keys, argv, true)
          if (ms !== undefined) cold.setTimeout(Math.max(1, ms - (Date.now() - at)))
          raw = (await this.redis.sendCommand(cold)) as Buffer | Buffer[]
        }
      }
    } catch (err) {
      if (err instanceof AppError) throw err // the health gate's refusal
      this.health.failed(err instanceof Error ? err.message : String(err))
      throw toStoreError(err)
    } finally {
      if (left !== undefined) budget!.waitedMs += Date.now() - sent
    }
    // Most scripts answer one buffer: no array is made for them.
    const head = Array.isArray(raw) ? raw[0]! : raw
    const reply = decode(head) as RawReply | ScriptError
    if (isScriptError(reply)) {
      const code = isErrorCode(reply.err) ? reply.err : 'internal'
      const err = new AppError(code, reply.msg, reply.details)
      throw ref ? roomError(err, ref) : err
    }
    reply.rows = Array.isArray(raw) ? raw.slice(1) : NO_ROWS
    this.committed(def, ref)
    return reply
  }

  /**
   * Standalone: the scripts sent in one turn of the event loop leave in one socket write, not one
   * write per call. The socket is corked at the first and uncorked once the loop has polled (the
   * requests that arrived together have all sent theirs by then): a call's script waits at most for
   * the rest of its turn's work, which for a lone call is none. The write per call was the largest
   * single cost of a call on the node (BENCHMARKS.md). A Cluster's connections are left as they are.
   */
  private coalesce(): void {
    if (this.mode !== 'standalone') return
    const stream = (this.redis as Redis).stream
    if (stream === undefined || this.corked === stream || !stream.writable) return
    stream.cork()
    this.corked = stream
    setImmediate(this.uncork)
  }

  /**
   * Through ioredis' defineCommand (EVALSHA, EVAL on NOSCRIPT), replies as Buffers. Its commands
   * cannot be given their own deadline: a shorter `ms` fails the call as a timed-out command does
   * (the command itself may still be answered later, and is not sent again).
   */
  private sendDefined(script: string, keys: readonly string[], argv: readonly Arg[], ms?: number): Promise<unknown> {
    const fn = (this.redis as unknown as Record<string, (...a: Arg[]) => Promise<unknown>>)[`${script}Buffer`]!
    const p = fn.call(this.redis, ...keys, ...argv)
    const own = this.settings.redisCommandTimeoutMs
    if (ms === undefined || own === undefined || ms >= own) return p
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Command timed out')), ms)
    })
    return Promise.race([p, late]).finally(() => clearTimeout(timer))
  }

  /** Calls `fn` on every connection error (they also reject the commands they affect). */
  onConnectionError(fn: (err: Error) => void): void {
    this.redis.on('error', fn)
  }

  /** Publishes a notice on the control channel (sharded pub/sub), to every node's hub. */
  async control(notice: ControlNotice): Promise<void> {
    await this.client.spublish(this.keys.controlChannel(), Buffer.from(encode(notice)))
  }

  /** Publishes a message on a channel (sharded pub/sub): the hub's probes of its own subscription. */
  async publish(channel: string, message: Buffer): Promise<void> {
    await this.client.spublish(channel, message)
  }

  async ping(): Promise<boolean> {
    try {
      if (this.redis instanceof Cluster) {
        await Promise.all(this.redis.nodes('master').map((n) => n.ping()))
      } else {
        await this.redis.ping()
      }
      return true
    } catch {
      return false
    }
  }

  /** A fresh connection with the same settings (the realtime hub's subscriber). */
  duplicate(): RedisClient {
    return this.redis.duplicate()
  }

  async close(): Promise<void> {
    this.health.stop()
    await this.redis.quit().catch(() => this.redis.disconnect())
  }
}

function isScriptError(r: unknown): r is ScriptError {
  return typeof r === 'object' && r !== null && typeof (r as ScriptError).err === 'string'
}

/**
 * `client` whose Redis commands (and their …Buffer forms) first ask `health.admit()`: a command
 * made while Redis is known to be unreachable waits for one quick check and is refused with
 * `unavailable` when it fails (multi() cannot wait: it throws at once). A command that fails, and
 * a transaction's exec(), rejects with what toStoreError makes of the failure, and the failure is
 * counted by `health` as a script's is: nothing above the store sees an ioredis error. With a
 * `budget`, a command (or a transaction's exec()) is given what the call has left of `deadlineMs`,
 * counted from before the gate, and adds its time to the budget; one with nothing left is refused
 * as unavailable without sending. Everything else (events, options, pipeline(), sendCommand) is
 * the client's own.
 */
function gated(
  client: RedisClient,
  health: StoreHealth,
  budget: WaitBudget | undefined,
  deadlineMs: number | undefined,
): RedisClient {
  const commands = new Set(client.getBuiltinCommands().flatMap((c) => [c, `${c}Buffer`]))
  const wrapped = new Map<string, (...args: unknown[]) => unknown>()
  const mapped = (err: unknown): never => {
    health.failed(err instanceof Error ? err.message : String(err))
    throw toStoreError(err)
  }
  /** `send` within what the budget has left (the command may still be answered later; it is not sent again). */
  const within = (send: () => Promise<unknown>): Promise<unknown> => {
    const left = leftOf(budget, deadlineMs)
    if (left === undefined) return send()
    if (left <= 0) return Promise.reject(unavailable())
    const sent = Date.now()
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Command timed out')), left)
    })
    return Promise.race([send(), late]).finally(() => {
      clearTimeout(timer)
      budget!.waitedMs += Date.now() - sent
    })
  }
  return new Proxy(client, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown
      if (typeof prop !== 'string' || typeof value !== 'function' || !commands.has(prop)) return value
      let fn = wrapped.get(prop)
      if (!fn) {
        const command = value as (...args: unknown[]) => unknown
        // multi() answers a transaction to chain commands on, not a promise: it throws instead
        // (every caller is an async function, so the throw is its rejection), and its exec()
        // rejects as a command does. The replies of the commands inside are read by execResults.
        fn =
          prop === 'multi'
            ? (...args: unknown[]) => {
                health.gate()
                const tx = command.apply(target, args) as { exec: (...a: unknown[]) => Promise<unknown> }
                const exec = tx.exec.bind(tx)
                tx.exec = (...a: unknown[]) => within(() => exec(...a)).catch(mapped)
                return tx
              }
            : (...args: unknown[]) =>
                within(() => {
                  const admitted = health.admit()
                  return admitted
                    ? admitted.then(() => command.apply(target, args) as Promise<unknown>)
                    : (command.apply(target, args) as Promise<unknown>)
                }).catch(mapped)
        wrapped.set(prop, fn)
      }
      return fn
    },
  })
}

export function createClient(settings: RedisSettings, extra: Partial<RedisOptions> = {}): RedisClient {
  const { mode, nodes } = connectionOptions(settings)
  // Auto-pipelining is off unless asked for: see REDIS_AUTO_PIPELINING in docs/configuration.md.
  // Reconnect attempts at most 500 ms apart (ioredis' default grows to 2 s): a Redis that is back
  // is used again within about half a second (StoreHealth lets a call in once a check passes).
  const base: RedisOptions = {
    enableAutoPipelining: settings.redisAutoPipelining,
    maxRetriesPerRequest: 3,
    retryStrategy: (times) => Math.min(times * 50, 500),
    // A command past its deadline was already answered (unavailable): ioredis must not send it
    // again after a reconnect, which it does by default with the commands left unanswered.
    ...(settings.redisCommandTimeoutMs
      ? { commandTimeout: settings.redisCommandTimeoutMs, autoResendUnfulfilledCommands: false }
      : {}),
    ...extra,
  }
  if (mode === 'cluster') {
    return new Cluster(nodes, {
      enableAutoPipelining: settings.redisAutoPipelining,
      redisOptions: { ...base, password: settings.redisPassword },
    })
  }
  return new Redis(settings.redisUrl ?? 'redis://127.0.0.1:6379', base)
}

/**
 * A not yet connected pub/sub connection for the realtime hub, with the same connection settings
 * as createClient. Standalone: one connection that never reconnects or resubscribes by itself
 * (the hub owns recovery, so it knows when notices may have been missed). Cluster: ioredis'
 * sharded subscribers, one connection per master that owns a subscribed channel. `name` is the
 * CLIENT SETNAME of its connections, so CLIENT LIST tells which node they belong to.
 */
export function createSubscriber(settings: RedisSettings, name?: string): RedisClient {
  const { mode, nodes } = connectionOptions(settings)
  if (mode === 'cluster') {
    return new Cluster(nodes, {
      shardedSubscribers: true,
      lazyConnect: true,
      redisOptions: { password: settings.redisPassword, connectionName: name },
    })
  }
  return new Redis(settings.redisUrl ?? 'redis://127.0.0.1:6379', {
    connectionName: name,
    lazyConnect: true,
    autoResubscribe: false,
    retryStrategy: () => null,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
  })
}

/**
 * A room script's refusal about the room itself (lua/includes/openRoom.lua, lua/createRoom.lua
 * name the room's record field) as the domain error that carries the room, a reused idempotency
 * key (lua/includes/idem.lua: `idempotency_key "<key>" was already used <reason>`) as KeyReused;
 * any other as it is.
 */
function roomError(err: unknown, ref: RoomRef): unknown {
  if (!(err instanceof AppError)) return err
  if (err.code === 'room_archived') {
    const at = Number(err.details?.archived_at)
    return new AppError(
      'room_archived',
      `room ${ref.roomId} is archived, so it is read-only: reading, searching and exporting it still work; ` +
        'an owner or admin can restore it',
      { room_id: ref.roomId, state: 'archived', ...(at > 0 ? { archived_at: new Date(at).toISOString() } : {}) },
    )
  }
  const key = err.details?.key
  if (err.code === 'conflict' && err.details?.field === 'idempotency_key' && typeof key === 'string')
    return new KeyReused(key, err.message.slice(`idempotency_key ${JSON.stringify(key)} was already used `.length))
  if (err.details?.field !== 'room_id') return err
  if (err.code === 'not_found') return new RoomNotFound(ref.roomId)
  if (err.code === 'conflict') return new RoomExists(ref.roomId)
  return err
}
