// The realtime hub's pub/sub connection, over ioredis (src/realtime/hub.ts owns what to subscribe
// and when to rebuild; this owns how). Standalone: one connection that never reconnects or
// resubscribes by itself. Cluster: ioredis' sharded subscribers, one connection per master that
// owns a subscribed channel (createSubscriber).
import { createRequire } from 'node:module'
import { Cluster } from 'ioredis'
import { createSubscriber, type RedisClient, type RedisSettings } from './store.js'

// The slot function ioredis itself uses (declared at the version ioredis pins), CommonJS without types.
const slotOf = createRequire(import.meta.url)('cluster-key-slot') as (key: string) => number

export class Subscriber {
  private readonly conn: RedisClient

  /** A not yet connected subscriber; `name` is the CLIENT SETNAME of its connections. */
  constructor(settings: RedisSettings, name: string) {
    this.conn = createSubscriber(settings, name)
    this.conn.on('error', () => {}) // failures surface as failed commands, 'end' or lost probes
  }

  /** Calls `fn` with every message of a subscribed channel. */
  onMessage(fn: (channel: string, message: Buffer) => void): void {
    this.conn.on('smessageBuffer', (channel: Buffer, message: Buffer) => fn(channel.toString('utf8'), message))
  }

  connect(): Promise<void> {
    return this.conn.connect()
  }

  /**
   * Calls `fn` when the connection ends or, on a cluster, a node is lost: notices may be missed
   * from then on. Watch only once connected (a cluster swaps its seed nodes for the discovered
   * ones first).
   */
  onLost(fn: (why: string) => void): void {
    if (this.conn instanceof Cluster) this.conn.on('-node', () => fn('a cluster node was lost'))
    this.conn.on('end', () => fn('the subscriber connection ended'))
  }

  async subscribe(channel: string): Promise<void> {
    await this.conn.ssubscribe(channel)
  }

  async unsubscribe(channel: string): Promise<void> {
    await this.conn.sunsubscribe(channel)
  }

  /** The master that serves a channel's slot (one connection each); standalone has one shard. */
  shardOf(channel: string): string {
    if (!(this.conn instanceof Cluster)) return 'standalone'
    return this.conn.slots[slotOf(channel)]?.[0] ?? 'unknown'
  }

  /** Open connections, given the shards with a subscribed channel (a cluster has one per shard). */
  connections(shards: number): number {
    if (this.conn instanceof Cluster) return shards
    return this.conn.status === 'ready' ? 1 : 0
  }

  /** Closes the connection without telling the listeners it ended. */
  async close(): Promise<void> {
    this.conn.removeAllListeners('smessageBuffer')
    this.conn.removeAllListeners('end')
    this.conn.removeAllListeners('-node')
    this.conn.disconnect()
  }
}
