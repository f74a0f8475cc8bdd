// Helpers of the realtime tests: started hubs that stop with the test, sharded-subscription
// counts as Redis sees them, CLIENT KILL of one hub's connections, and a TCP proxy that can make
// connections go silent (a pub/sub death that no socket event reveals).
import { createServer, connect, type Socket } from 'node:net'
import type { Test } from 'tap'
import { Cluster, type Redis } from 'ioredis'
import { defaultSettings } from '../../src/config.js'
import { Hub, type HubOptions } from '../../src/realtime/hub.js'
import { startRedis, type RedisProcess } from './redis.js'
import { Store, createClient } from '../../src/store/store.js'

export const FAST: HubOptions = { probeIntervalMs: 200, probeTimeoutMs: 150 }

/** A started hub over `store`, stopped when the test ends. */
export async function startHub(t: Test, store: Store, opts: HubOptions = FAST): Promise<Hub> {
  const hub = new Hub(store, opts)
  t.teardown(() => hub.stop())
  await hub.start()
  return hub
}

/** Masters of `raw` (itself on standalone). */
export function mastersOf(raw: Redis | Cluster): Redis[] {
  return raw instanceof Cluster ? raw.nodes('master') : [raw]
}

/** Subscribers of a sharded channel, as PUBSUB SHARDNUMSUB counts them on every master. */
export async function shardNumSub(raw: Redis | Cluster, channel: string): Promise<number> {
  let n = 0
  for (const node of mastersOf(raw)) {
    const reply = (await node.call('PUBSUB', 'SHARDNUMSUB', channel)) as [string, number]
    n += Number(reply[1])
  }
  return n
}

/** Kills every connection whose CLIENT SETNAME contains `name`, on every master; returns how many. */
export async function killConnections(raw: Redis | Cluster, name: string): Promise<number> {
  let killed = 0
  for (const node of mastersOf(raw)) {
    const list = (await node.call('CLIENT', 'LIST')) as string
    for (const line of list.split('\n')) {
      const id = /(?:^|\s)id=(\d+)/.exec(line)?.[1]
      const cname = /(?:^|\s)name=(\S*)/.exec(line)?.[1] ?? ''
      if (id && cname.includes(name)) killed += Number(await node.call('CLIENT', 'KILL', 'ID', id))
    }
  }
  return killed
}

export { eventually, sleep } from './wait.js'

export interface SilencingProxy {
  port: number
  /** From now on, connections open at this moment get nothing more from Redis (they stay open). */
  silenceOpen(): void
  close(): Promise<void>
}

/** A TCP proxy to 127.0.0.1:`target` whose open connections can be silenced. */
export async function silencingProxy(target: number): Promise<SilencingProxy> {
  const open = new Set<{ client: Socket; upstream: Socket; silent: boolean }>()
  const server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1')
    const c = { client, upstream, silent: false }
    open.add(c)
    const end = () => {
      open.delete(c)
      client.destroy()
      upstream.destroy()
    }
    upstream.on('data', (d) => {
      if (!c.silent) client.write(d)
    })
    client.on('data', (d) => upstream.write(d))
    for (const s of [client, upstream]) {
      s.on('error', end)
      s.on('close', end)
    }
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const addr = server.address()
  return {
    port: typeof addr === 'object' && addr ? addr.port : 0,
    silenceOpen() {
      for (const c of open) c.silent = true
    },
    async close() {
      for (const c of open) {
        c.client.destroy()
        c.upstream.destroy()
      }
      await new Promise<void>((r) => server.close(() => r()))
    },
  }
}

/**
 * A Redis of the test's own, and a Store whose hub subscribes through a silencing proxy while
 * its reads, writes and probes go straight to Redis: the proxy can make the subscription die
 * without any socket event.
 */
export async function proxiedStore(
  t: Test,
): Promise<{ redis: RedisProcess; proxy: Awaited<ReturnType<typeof silencingProxy>>; store: Store }> {
  const redis = await startRedis()
  t.teardown(() => redis.stop())
  const proxy = await silencingProxy(redis.port)
  t.teardown(() => proxy.close())
  const direct = defaultSettings({ redisUrl: `redis://127.0.0.1:${redis.port}`, redisClusterNodes: undefined })
  const viaProxy = defaultSettings({ redisUrl: `redis://127.0.0.1:${proxy.port}`, redisClusterNodes: undefined })
  const store = new Store(viaProxy, createClient(direct))
  t.teardown(() => store.close())
  return { redis, proxy, store }
}
