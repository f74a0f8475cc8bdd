// Where the Redis processes shared by the whole test run listen, and a Store on each backend.
import { readFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { Cluster, Redis } from 'ioredis'
import { defaultSettings, type Settings } from '../../src/config.js'
import { Store } from '../../src/store/store.js'

/**
 * Where before.ts writes the shared servers' ports. tap spawns before.ts and every test file from
 * one runner process, so the runner's pid names the file: two test runs in one checkout never
 * share (or stop) each other's Redis.
 */
export const SHARED_FILE = `.tap/redis-${process.ppid}.json`

interface Proc {
  port: number
  pid: number
  dir: string
}
export interface SharedRedis {
  standalone: Proc
  cluster: { seeds: string; nodes: Proc[] }
}

export type Backend = 'standalone' | 'cluster'
export const BACKENDS: Backend[] = ['standalone', 'cluster']

/**
 * The shared servers of this run. `npm run test:unit` starts none (test/unit needs no Redis): a
 * file that gets here without them is told where it belongs.
 */
export function sharedRedis(): SharedRedis {
  let text: string
  try {
    text = readFileSync(SHARED_FILE, 'utf8')
  } catch {
    throw new Error(
      `no shared Redis in this run (${SHARED_FILE} is missing): test/helpers/before.ts starts it for tap ` +
        `runs that use .taprc. ` +
        ('npm run test:unit starts none, so a test that needs Redis belongs in test/integration (or ' +
          'test/e2e), not test/unit.'),
    )
  }
  return JSON.parse(text) as SharedRedis
}

/**
 * The command deadline of test nodes: a test process (tsx compiling on import, on a machine that
 * runs other suites beside it) can stall for longer than the service's 2 s default, and a reply
 * read after the deadline's timer fired is a failure that says nothing of the code under test.
 * Tests of the deadline set REDIS_COMMAND_TIMEOUT_MS themselves.
 */
export const TEST_COMMAND_TIMEOUT_MS = 10_000

/** Settings pointing at the shared Redis of `backend`, with `overrides`. */
export function settingsFor(backend: Backend, overrides: Partial<Settings> = {}): Settings {
  const shared = sharedRedis()
  const base =
    backend === 'cluster'
      ? { redisClusterNodes: shared.cluster.seeds, redisUrl: undefined }
      : { redisUrl: `redis://127.0.0.1:${shared.standalone.port}`, redisClusterNodes: undefined }
  return defaultSettings({ redisCommandTimeoutMs: TEST_COMMAND_TIMEOUT_MS, ...base, ...overrides })
}

export function storeFor(backend: Backend, overrides: Partial<Settings> = {}): Store<Settings> {
  return new Store(settingsFor(backend, overrides))
}

/** A raw client on the backend, for assertions that look under the store. */
export function rawClient(backend: Backend): Redis | Cluster {
  return subscriberFor(backend)
}

/** A connection that can SSUBSCRIBE on `backend` (on a cluster, routed to the channel's shard). */
export function subscriberFor(backend: Backend): Redis | Cluster {
  const shared = sharedRedis()
  return backend === 'cluster'
    ? new Cluster(
        shared.cluster.seeds.split(',').map((hp) => ({ host: '127.0.0.1', port: Number(hp.split(':')[1]) })),
        { shardedSubscribers: true },
      )
    : new Redis(shared.standalone.port, '127.0.0.1')
}

/** A fresh id, so every test works in rooms and teams of its own. */
export function uid(prefix = 't'): string {
  return `${prefix}${randomBytes(6).toString('hex')}`
}
