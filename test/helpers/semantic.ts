// Semantic search on the Redis engine in tests: an engine with an embedder (the test embedding
// server), its vector indexer quick to retry, rooms written through another connection (another
// node), and where a Redis 8 server (vector sets) is, when one was built (scripts/redis8.sh).
import type { Test } from 'tap'
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { defaultSettings, type Settings } from '../../src/config.js'
import type { Hub } from '../../src/realtime/hub.js'
import { createEmbedder } from '../../src/search/embed/index.js'
import { RedisSearchEngine } from '../../src/search/redis/engine.js'
import { Store } from '../../src/store/store.js'
import { roomThrough, type TestRoom } from './core.js'
import { TEST_MODEL } from './embedder.js'
import { startHub } from './realtime.js'
import { uid } from './shared.js'

/** The Redis 8 server scripts/redis8.sh built, if any ($REDIS8_SERVER, else its default places). */
export function redis8Server(): string | undefined {
  const candidates = [
    process.env.REDIS8_SERVER,
    process.env.REDIS8_DIR && join(process.env.REDIS8_DIR, 'redis-server'),
    '/var/cache/agentrooms/redis-8.0.2/redis-server',
    join(homedir(), '.cache/agentrooms/redis-8.0.2/redis-server'),
  ]
  return candidates.find((p): p is string => typeof p === 'string' && p !== '' && existsSync(p))
}

/**
 * Settings of a semantic engine on `redis` (settings naming a Redis), with the embedder at `url`,
 * under a key prefix of their own: the vector indexers of every node on one prefix share their
 * work, as a deployment's nodes do, so nodes of other tests (other settings) must not share it.
 */
export function semanticSettings(redis: Partial<Settings>, url: string, overrides: Partial<Settings> = {}): Settings {
  return defaultSettings({
    ...redis,
    keyPrefix: uid('s'),
    embedderUrl: url,
    embedderModel: TEST_MODEL,
    embedderRetries: 0,
    embedderTimeoutMs: 2000,
    ...overrides,
  })
}

export interface SemanticNode {
  engine: RedisSearchEngine
  store: Store
  hub: Hub
}

/** A Redis engine with semantic search on its own store and hub (a node of its own), stopped with the test. */
export async function semanticNode(t: Test, settings: Settings): Promise<SemanticNode> {
  return engineOn(t, new Store(settings), {
    embedder: createEmbedder(settings)!,
    indexer: { sweepMs: 0, retryMs: 100, pollMs: 50 },
  })
}

/** A Redis engine (`options` as its constructor takes) over `store` and a hub of its own, stopped with the test. */
export async function engineOn(
  t: Test,
  store: Store<Settings>,
  options?: ConstructorParameters<typeof RedisSearchEngine>[3],
): Promise<SemanticNode> {
  const hub = await startHub(t, store)
  const engine = new RedisSearchEngine(store, hub, store.settings, options)
  await engine.start()
  t.teardown(async () => {
    await engine.stop()
    await hub.stop()
    await store.close()
  })
  return { engine, store, hub }
}

/** A room written through a Core on another connection than the engine's (another node). */
export async function roomWith(
  t: Test,
  settings: Settings,
  opts: { teamId?: string; roomId?: string } = {},
): Promise<TestRoom> {
  return roomThrough(t, new Store(settings), opts)
}
