// What a node knows of its Redis between calls: reachable or not, and full (refusing writes for
// memory) or not. Two sources: the outcome of every call (a connection failure or an OOM reply),
// and a check every CHECK_MS (PING, CLUSTER INFO, INFO memory). The store consults it before each
// call, so that once Redis is known to be unreachable a call fails at once with `unavailable`
// instead of waiting for ioredis' reconnect attempts. The reported state (/ready, the log lines,
// each logged once, not per request) changes with hysteresis: `down` after two failed checks in a
// row (or at once when the connection closes), `up` again only after three good checks in a row,
// so /ready does not flap while a cluster fails over. Calls are not held to that hysteresis: while
// Redis is down, every call first asks Redis again (one quick check shared by the calls that
// arrive while it runs), so a call made once Redis serves again goes through.
import { Cluster } from 'ioredis'
import { AppError } from '../shared/errors.js'
import type { RedisClient } from './store.js'

/** How often the node checks its Redis (ms). */
export const CHECK_MS = 500
/** Failed checks in a row that make a reachable Redis `down`. */
const DOWN_AFTER = 2
/** Good checks in a row that make a `down` Redis `up` again. */
const UP_AFTER = 3
/** How long a full Redis is reported full after the last sign of it (an OOM reply, used_memory over maxmemory). */
const FULL_HOLD_MS = 5000
/** Seconds a client should wait before retrying a call refused because Redis is unreachable. */
export const RETRY_AFTER_S = 1

export interface HealthLog {
  warn(obj: object, msg: string): void
  info(obj: object, msg: string): void
}

export interface HealthState {
  /** Redis answers (standalone: the connection is ready; cluster: the cluster state is ok). */
  reachable: boolean
  /** Redis refuses writes for memory (maxmemory reached with noeviction). */
  full: boolean
  /**
   * Cluster: masters ("host:port") that did not answer two checks in a row while the cluster
   * serves the others (cluster-require-full-coverage no): rooms and teams on their slots fail
   * with unavailable. Back off the list after three good checks in a row.
   */
  unreachableShards: string[]
}

const silent: HealthLog = { warn: () => {}, info: () => {} }

/** The error of a call made while Redis is known to be unreachable, or that failed for it. */
export function unavailable(): AppError {
  return new AppError('unavailable', `Redis is unreachable; retry in ${RETRY_AFTER_S} s`, {
    retry_after_s: RETRY_AFTER_S,
  })
}

/** The error of a write refused because Redis is full. */
export function storeFull(): AppError {
  return new AppError(
    'store_full',
    "the service's storage is full: this call would add data and was refused; reads still work",
    { retry_after_s: 30 },
  )
}

/**
 * ioredis and Redis failures that mean "not reachable right now" (as opposed to a bug or bad
 * input): the connection's errors, and Redis' own transient refusals — a script running past its
 * time (BUSY), a replica loading or read-only after a failover, a cluster reconfiguring, too few
 * replicas to acknowledge a write.
 */
const UNREACHABLE = new RegExp(
  [
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EPIPE',
    'ENOTFOUND',
    'EHOSTUNREACH',
    'Connection is closed',
    'max retries per request',
    'MaxRetriesPerRequest',
    "Stream isn't writeable",
    'enableOfflineQueue',
    '\\bBUSY\\b',
    'CLUSTERDOWN',
    'TRYAGAIN',
    'MASTERDOWN',
    'LOADING',
    'READONLY',
    'NOREPLICAS',
    'Too many Cluster redirections',
    'Cluster is not ready',
    'None of startup nodes is available',
    'Failed to refresh slots cache',
    'All sentinels are unreachable',
    'Command timed out',
    'Redis is unreachable',
  ].join('|'),
)

/** Redis refusing a write for memory ("OOM command not allowed when used memory > 'maxmemory'"). */
export function isOom(message: string): boolean {
  return message.startsWith('OOM ') || message.includes('OOM command not allowed')
}

const isTimeout = (message: string) => message.includes('Command timed out')

export function isUnreachable(message: string): boolean {
  return UNREACHABLE.test(message)
}

/**
 * The AppError of a Redis failure that is not a bug: `unavailable` (unreachable, failing over,
 * loading) and `store_full` (a write refused for memory); an AppError, and any other error, as it
 * is. The store applies it to every call it makes (scripts, repository commands, transactions and
 * their replies), so the layers above see AppErrors and never an ioredis error.
 */
export function toStoreError(err: unknown): Error {
  if (err instanceof AppError) return err
  const message = err instanceof Error ? err.message : String(err)
  if (isOom(message)) return storeFull()
  if (isUnreachable(message)) return unavailable()
  return err instanceof Error ? err : new Error(message)
}

export class StoreHealth {
  private reachable = true
  /** Whether calls go to Redis without asking first: false from a loss until a check passes. */
  private open = true
  /** The quick check of a closed gate under way, and the one the calls that arrived during it share. */
  private recheck: Promise<void> | undefined
  private nextRecheck: Promise<void> | undefined
  private fullUntil = 0
  private goodRun = 0
  private badRun = 0
  private timer: NodeJS.Timeout | undefined
  private checking = false
  private readonly listeners = new Set<(s: HealthState) => void>()
  private last: HealthState = { reachable: true, full: false, unreachableShards: [] }
  /** Cluster masters by "host:port": failed and good checks in a row, and whether listed unreachable. */
  private readonly shards = new Map<string, { bad: number; good: number; down: boolean }>()
  private log: HealthLog = silent
  private stopped = false
  /** The standalone connection was ready once: a connection not ready since is a lost one. */
  private everReady = false

  constructor(
    private readonly client: RedisClient,
    private readonly checkMs = CHECK_MS,
  ) {
    // Standalone: the connection's own state is the fastest signal there is. Until the checks
    // run (start()), a ready connection is the only way back: a bare Store (tools, tests) has no checks.
    if (!(client instanceof Cluster)) {
      this.everReady = client.status === 'ready'
      client.on('close', () => this.lost('the Redis connection closed'))
      client.on('end', () => this.lost('the Redis connection ended'))
      client.on('ready', () => {
        this.everReady = true
        if (!this.timer && !this.reachable) {
          this.reachable = true
          this.open = true
          this.changed()
        }
      })
    }
  }

  /** Starts the periodic check; state changes are logged to `log`. */
  start(log: HealthLog = silent): void {
    this.log = log
    if (this.timer) return
    this.timer = setInterval(() => void this.check(), this.checkMs)
    this.timer.unref()
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
  }

  state(): HealthState {
    const unreachableShards = [...this.shards]
      .filter(([, s]) => s.down)
      .map(([name]) => name)
      .sort()
    return { reachable: this.reachable, full: this.isFull(), unreachableShards }
  }

  /** Calls `fn` on every change of state (after it was logged). */
  onChange(fn: (s: HealthState) => void): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  /**
   * Whether a call may go to Redis now: undefined when it may (the hot path allocates nothing), or
   * a promise that resolves once a check made after the call arrived found Redis serving, and
   * rejects with `unavailable` when it did not. The standalone connection not being ready closes
   * it at once (ioredis would queue the call until it reconnects or gives up).
   */
  admit(): Promise<void> | undefined {
    if (this.open && this.connectionLost()) this.lost(`the Redis connection is ${this.client.status}`)
    return this.open ? undefined : this.recheckSoon()
  }

  /** admit() for a caller that cannot wait (multi() builds a transaction synchronously): throws `unavailable`. */
  gate(): void {
    if (this.open && this.connectionLost()) this.lost(`the Redis connection is ${this.client.status}`)
    if (!this.open) {
      void this.recheckSoon().catch(() => undefined)
      throw unavailable()
    }
  }

  /** The first connection may still be under way: calls wait for it in ioredis' queue. */
  private connectionLost(): boolean {
    const c = this.client
    return !(c instanceof Cluster) && this.everReady && c.status !== 'ready'
  }

  /**
   * A quick check that starts after this call: the one under way began before the call arrived,
   * so the call shares the next one (started when that ends) with the calls that arrive meanwhile.
   */
  private recheckSoon(): Promise<void> {
    if (!this.recheck) return (this.recheck = this.runRecheck())
    if (!this.nextRecheck) {
      const after = () => {
        this.nextRecheck = undefined
        return (this.recheck ??= this.runRecheck())
      }
      this.nextRecheck = this.recheck.then(after, after)
    }
    return this.nextRecheck
  }

  private async runRecheck(): Promise<void> {
    try {
      if (this.open) return
      if (!(await this.serves())) throw unavailable()
      this.open = true
    } finally {
      this.recheck = undefined
    }
  }

  /** Whether Redis serves calls now: the standalone connection answers; a Cluster master says the state is ok. */
  private async serves(): Promise<boolean> {
    const c = this.client
    const timeout = Math.max(250, this.checkMs)
    try {
      if (!(c instanceof Cluster)) return c.status === 'ready' && (await within(c.ping(), timeout)) === 'PONG'
      const states = c.nodes('master').map((m) => within(m.cluster('INFO') as Promise<string>, timeout))
      return /cluster_state:ok/.test(await Promise.any(states))
    } catch {
      return false
    }
  }

  /** A call failed with `message`: counts it as a sign of an unreachable or full Redis when it is one. */
  failed(message: string): void {
    if (isOom(message)) this.sawFull()
    else if (isUnreachable(message) && !isTimeout(message) && !(this.client instanceof Cluster)) this.lost(message)
    // Cluster: one failed call may be one shard in failover; the checks decide for the whole.
    // A command past its deadline (REDIS_COMMAND_TIMEOUT_MS) fails alone: a slow answer, or this
    // process stalled, is not a lost Redis; the checks (two in a row) decide.
  }

  private sawFull(): void {
    const was = this.isFull()
    this.fullUntil = Date.now() + FULL_HOLD_MS
    if (!was) this.changed()
  }

  private isFull(): boolean {
    return this.fullUntil > Date.now()
  }

  private lost(reason: string): void {
    this.goodRun = 0
    if (this.stopped) return
    this.open = false
    if (!this.reachable) return
    this.reachable = false
    this.changed(reason)
  }

  private async check(): Promise<void> {
    if (this.checking) return
    this.checking = true
    try {
      const mem = await this.probe()
      if (mem.full) this.sawFull()
      this.badRun = 0
      this.open = true
      if (!this.reachable && ++this.goodRun >= UP_AFTER) {
        this.reachable = true
        this.goodRun = 0
        this.changed()
      } else if (this.isFull() !== this.last.full) this.changed()
    } catch (err) {
      this.goodRun = 0
      if (this.reachable && ++this.badRun >= DOWN_AFTER) this.lost(err instanceof Error ? err.message : String(err))
      else if (this.isFull() !== this.last.full) this.changed()
    } finally {
      this.checking = false
    }
  }

  /** One check round: resolves with whether a master is full, throws when Redis does not serve. */
  private async probe(): Promise<{ full: boolean }> {
    const timeout = Math.max(250, this.checkMs)
    const c = this.client
    if (!(c instanceof Cluster)) {
      if (c.status !== 'ready') throw new Error(`the Redis connection is ${c.status}`)
      return { full: memoryFull(await within(c.info('memory'), timeout)) }
    }
    const masters = c.nodes('master')
    if (masters.length === 0) throw new Error('no Redis Cluster master is known')
    const infos = await Promise.allSettled(masters.map((m) => within(m.info('memory'), timeout)))
    // The masters are those the slot map names: ioredis drops a node whose connection ended from
    // its pool (nodes()) and adds it back on the next slot refresh, so a lost master comes and
    // goes there; one the map names and the pool lacks has not answered either.
    const answers = new Map(
      masters.map((m, i) => [`${m.options.host ?? ''}:${m.options.port ?? ''}`, infos[i]!.status === 'fulfilled']),
    )
    const owners = new Set<string>()
    for (const nodes of c.slots) if (nodes?.[0]) owners.add(nodes[0])
    this.countShards([...owners].map((name) => ({ name, ok: answers.get(name) === true })))
    const answered = infos.filter((r): r is PromiseFulfilledResult<string> => r.status === 'fulfilled')
    if (answered.length === 0) throw new Error('no Redis Cluster master answers')
    // Every master refuses every command while the cluster state is fail (a master lost, not yet
    // replaced): ask one that answers.
    const state = await within(masters[infos.indexOf(answered[0]!)]!.cluster('INFO') as Promise<string>, timeout)
    if (!/cluster_state:ok/.test(state))
      throw new Error('the Redis Cluster state is fail (a master is lost and not yet replaced)')
    return { full: answered.some((r) => memoryFull(r.value)) }
  }

  /** One check's answers per master: a master is listed after DOWN_AFTER misses, unlisted after UP_AFTER answers. */
  private countShards(results: { name: string; ok: boolean }[]): void {
    const seen = new Set(results.map((r) => r.name))
    let moved = false
    // failed over: no longer a master
    for (const name of [...this.shards.keys()]) if (!seen.has(name)) moved = this.shards.delete(name) || moved
    for (const { name, ok } of results) {
      let s = this.shards.get(name)
      if (!s) this.shards.set(name, (s = { bad: 0, good: 0, down: false }))
      if (ok) {
        s.bad = 0
        if (s.down && ++s.good >= UP_AFTER) {
          s.down = false
          moved = true
        }
      } else {
        s.good = 0
        if (!s.down && ++s.bad >= DOWN_AFTER) {
          s.down = true
          moved = true
        }
      }
    }
    if (moved) this.changed()
  }

  private changed(reason?: string): void {
    const s = this.state()
    const shardsMoved = s.unreachableShards.join(',') !== this.last.unreachableShards.join(',')
    if (shardsMoved) {
      const lost = s.unreachableShards.filter((x) => !this.last.unreachableShards.includes(x))
      const back = this.last.unreachableShards.filter((x) => !s.unreachableShards.includes(x))
      if (lost.length > 0)
        this.log.warn(
          { shards: lost },
          'redis cluster: a master does not answer; calls on its slots fail with unavailable, the other shards serve',
        )
      if (back.length > 0) this.log.info({ shards: back }, 'redis cluster: a master answers again (or was replaced)')
    }
    if (s.reachable === this.last.reachable && s.full === this.last.full) {
      this.last = s
      if (shardsMoved) for (const fn of [...this.listeners]) fn(s)
      return
    }
    if (s.reachable !== this.last.reachable) {
      if (s.reachable) this.log.info({}, 'redis reachable again; calls go through')
      else
        this.log.warn(
          { reason },
          `redis unreachable; calls fail with unavailable (Retry-After: ${RETRY_AFTER_S}) until it answers again`,
        )
    }
    if (s.full !== this.last.full) {
      if (s.full) this.log.warn({}, 'redis is full (maxmemory, noeviction); writes fail with store_full, reads go on')
      else this.log.info({}, 'redis has room again; writes go through')
    }
    this.last = s
    for (const fn of [...this.listeners]) fn(s)
  }
}

/** Whether an INFO memory reply shows used_memory over a set maxmemory. */
function memoryFull(info: string): boolean {
  const used = Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? 0)
  const max = Number(/^maxmemory:(\d+)/m.exec(info)?.[1] ?? 0)
  return max > 0 && used > max
}

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms)
    }),
  ]).finally(() => clearTimeout(timer))
}
