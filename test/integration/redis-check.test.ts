// What a node checks of its Redis at start (src/ops/redis-check.ts): a Redis older than 7.0 is
// refused with a message naming the version found and what to install (checked on INFO replies:
// no Redis 6 can be installed beside Redis 7 here), real Redis 7 servers pass, standalone and
// every master of a Cluster, and a policy that may evict keys is warned about.
import t, { type Test } from 'tap'
import { createLogger } from '../../src/shared/logger.js'
import { ServiceNode } from '../../src/node.js'
import { probeRedis } from '../../src/ops/local-redis.js'
import { INSTALL_HINT, checkRedis, infoField, versionProblem } from '../../src/ops/redis-check.js'
import { createClient } from '../../src/store/store.js'
import { eventually } from '../helpers/realtime.js'
import { spawnRedis } from '../helpers/redis.js'
import { settingsFor } from '../helpers/shared.js'

/** An INFO reply as Redis writes it (CRLF lines, section headers). */
const info = (fields: Record<string, string>) =>
  ['# Server', ...Object.entries(fields).map(([k, v]) => `${k}:${v}`), ''].join('\r\n')

/** A logger that keeps its warnings. */
function recordingLog() {
  const warnings: { obj: Record<string, unknown>; msg: string }[] = []
  const log = createLogger('silent')
  log.warn = ((obj: Record<string, unknown>, msg: string) =>
    void warnings.push({ obj, msg })) as unknown as typeof log.warn
  return { log, warnings }
}

t.test('versionProblem: Redis 6 is refused by name, 7 and later (and Valkey) pass', async (t) => {
  t.equal(
    infoField(info({ redis_version: '7.0.15', redis_mode: 'standalone' }), 'redis_version'),
    '7.0.15',
    'reads a CRLF INFO reply',
  )
  const problem = versionProblem(info({ redis_version: '6.2.14' }), '127.0.0.1:6379')
  t.equal(
    problem,
    `the Redis at 127.0.0.1:6379 is version 6.2.14; agentrooms needs Redis 7.0 or newer (it publishes with ` +
      `SPUBLISH, which older versions lack, so every write would fail): ${INSTALL_HINT}`,
  )
  t.match(
    INSTALL_HINT,
    /Debian 12, Ubuntu 24\.04 and later: sudo apt-get install -y redis-server/,
    'it says what to install where',
  )
  t.match(versionProblem(info({ redis_version: '5.0.7' }), 'h:1'), /is version 5\.0\.7;/)
  for (const v of ['7.0.0', '7.2.4', '8.0.2', '10.1.0'])
    t.equal(versionProblem(info({ redis_version: v }), 'h:1'), undefined, `${v} passes`)
  t.equal(
    versionProblem(info({ redis_version: '7.2.4', valkey_version: '8.0.1', server_name: 'valkey' }), 'h:1'),
    undefined,
    'Valkey (it reports a Redis version too)',
  )
  t.equal(
    versionProblem(info({ redis_mode: 'standalone' }), 'h:1'),
    undefined,
    'no redis_version (a proxy hiding it): let through',
  )
})

t.test(
  'checkRedis against the real servers: standalone and every master of the Cluster are checked and pass',
  async (t) => {
    for (const backend of ['standalone', 'cluster'] as const) {
      const client = createClient(settingsFor(backend))
      t.teardown(() => void client.disconnect())
      const { log, warnings } = recordingLog()
      const checked = await checkRedis(client, log)
      const expected = backend === 'cluster' ? 3 : 1
      t.equal(new Set(checked).size, expected, `${backend}: ${expected} server(s) checked: ${checked.join(', ')}`)
      t.same(warnings, [], `${backend}: Redis 7 with noeviction: no error, no warning`)
    }
  },
)

/** A real redis-server with `extra` config; stopped when the test ends. */
async function redisWith(t: Test, extra: string[]): Promise<number> {
  const port = await spawnRedis(t, extra)
  t.ok(
    await eventually(async () => (await probeRedis('127.0.0.1', port)) === 'pong', 10_000),
    `a real redis-server with ${extra.join(' ')}`,
  )
  return port
}

/**
 * Starts a node on the Redis at `port`; resolves with its warnings about Redis (it may warn of
 * other things too: no SMTP_URL).
 */
async function startWarned(t: Test, port: number): Promise<{ obj: Record<string, unknown>; msg: string }[]> {
  const { log, warnings } = recordingLog()
  const node = new ServiceNode(
    settingsFor('standalone', { redisUrl: `redis://127.0.0.1:${port}`, port: 0, host: '127.0.0.1' }),
    { log, defaultMetrics: false },
  )
  t.teardown(() => node.stop(500))
  t.ok((await node.start()) > 0, 'the node starts')
  return warnings.filter((w) => /redis/i.test(w.msg ?? ''))
}

t.test('a Redis without maxmemory: the node starts and warns, saying what to set', async (t) => {
  const port = await redisWith(t, ['--maxmemory-policy', 'noeviction'])
  const redis = await startWarned(t, port)
  t.equal(redis.length, 1, 'one warning about Redis')
  t.match(redis[0], {
    obj: { redis: `127.0.0.1:${port}`, maxmemory: 0 },
    msg: /^Redis has no maxmemory: .*set maxmemory/,
  })
})

t.test('a Redis whose policy may evict keys: the node starts and warns, naming the policy', async (t) => {
  const port = await redisWith(t, ['--maxmemory-policy', 'allkeys-lru', '--maxmemory', '1gb'])
  const redis = await startWarned(t, port)
  t.equal(redis.length, 1, 'one warning about Redis')
  t.match(
    redis,
    [{ obj: { redis: `127.0.0.1:${port}`, maxmemory_policy: 'allkeys-lru' }, msg: /set maxmemory-policy noeviction/ }],
    'and warns once',
  )
})
