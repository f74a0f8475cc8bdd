// What a node checks of its Redis before using it (ServiceNode.start), whichever way it found it
// (REDIS_URL, REDIS_CLUSTER_NODES, or the Redis already answering at LOCAL_REDIS):
// - the version: every mutation publishes its notice with SPUBLISH, which Redis 7.0 introduced.
//   On an older Redis every write would fail with "unknown command", so the node refuses to start
//   and says what it found and what to install;
// - maxmemory-policy: any policy but noeviction may evict a lock, a cursor or a task (silent data
//   loss). Only a warning: a managed Redis may not let the operator change it;
// - maxmemory: 0 (none) lets Redis grow until the machine's memory runs out and the kernel kills
//   it (every room lost since the last save); with a limit, writes fail cleanly when it is full
//   and reads go on. A warning too.
import { Cluster } from 'ioredis'
import type { Logger } from '../shared/logger.js'
import type { RedisClient } from '../store/store.js'

/** The oldest Redis the service runs on (SPUBLISH, sharded pub/sub). */
export const MIN_REDIS_MAJOR = 7

export const INSTALL_HINT =
  'install Redis 7 or newer (Debian 12, Ubuntu 24.04 and later: sudo apt-get install -y redis-server; ' +
  ("older Debian or Ubuntu releases ship Redis 6: use the Redis project's own APT repository, or Docker: " +
    'docker run -d -p 127.0.0.1:6379:6379 redis:7; ') +
  ('macOS: brew install redis), or point the node at a Redis you have: REDIS_URL=redis://host:6379 ' +
    '(REDIS_CLUSTER_NODES for a Redis Cluster)')

/** One field of an INFO reply ("redis_version" → "7.0.15"), or undefined when it is absent. */
export function infoField(info: string, field: string): string | undefined {
  return new RegExp(`^${field}:(.*?)\\r?$`, 'm').exec(info)?.[1]
}

/**
 * Why the server whose INFO is `info` (at `where`, for the message) cannot serve agentrooms, or
 * undefined when it can. A reply without redis_version (a proxy that hides it) is let through:
 * the first write would then tell.
 */
export function versionProblem(info: string, where: string): string | undefined {
  const version = infoField(info, 'redis_version')
  if (version === undefined) return undefined
  const major = Number(version.split('.')[0])
  if (!Number.isInteger(major) || major >= MIN_REDIS_MAJOR) return undefined
  return (
    `the Redis at ${where} is version ${version}; agentrooms needs Redis ${MIN_REDIS_MAJOR}.0 or newer (it ` +
    `publishes with SPUBLISH, which older versions lack, so every write would fail): ${INSTALL_HINT}`
  )
}

/**
 * The INFO replies of every master: one for a standalone Redis. Plain INFO (its default
 * sections hold redis_version and maxmemory_policy): Redis before 7 refuses several section names.
 */
async function infos(client: RedisClient): Promise<{ where: string; info: string }[]> {
  const whereOf = (c: { options: { host?: string; port?: number } }) =>
    `${c.options.host ?? '127.0.0.1'}:${c.options.port ?? 6379}`
  if (!(client instanceof Cluster)) return [{ where: whereOf(client), info: await client.info() }]
  // The first command waits for the cluster's slot map, after which its masters are known.
  await client.info('server')
  return Promise.all(client.nodes('master').map(async (n) => ({ where: whereOf(n), info: await n.info() })))
}

/**
 * Throws when a Redis of `client` is older than 7.0; warns when its policy may evict keys.
 * Resolves with the servers checked ("host:port").
 */
export async function checkRedis(client: RedisClient, log: Logger): Promise<string[]> {
  const all = await infos(client)
  for (const { where, info } of all) {
    const problem = versionProblem(info, where)
    if (problem) throw new Error(problem)
    const policy = infoField(info, 'maxmemory_policy')
    if (policy !== undefined && policy !== 'noeviction') {
      log.warn(
        { redis: where, maxmemory_policy: policy },
        'Redis may evict keys (a lost lock, cursor or task): set maxmemory-policy noeviction',
      )
    }
    if (infoField(info, 'maxmemory') === '0') {
      log.warn(
        { redis: where, maxmemory: 0 },
        'Redis has no maxmemory: it grows until the machine runs out of memory and is killed; set maxmemory ' +
          '(e.g. 75% of the RAM it may use) so that a full Redis refuses writes instead',
      )
    }
  }
  return all.map((s) => s.where)
}
