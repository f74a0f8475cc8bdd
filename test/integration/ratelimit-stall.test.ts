// The rate limit when Redis stalls (src/auth/ratelimit.ts): a call that needs a lease while Redis
// does not answer is answered unavailable within one command deadline, the limit turning off is
// logged once, and it applies again once Redis answers.
import t from 'tap'
import { countLines, killableRedis, recordingLogger } from '../helpers/faults.js'
import { legacyCall, post } from '../helpers/mcp.js'
import { startNode } from '../helpers/node.js'
import { eventually } from '../helpers/realtime.js'
import { uid } from '../helpers/shared.js'

/** Every call here answers within this (ms), or fails naming itself instead of holding the file. */
const CALL_MS = 20_000

t.test('Redis stalled: a call with no lease left answers unavailable, within one command deadline', async (t) => {
  const redis = await killableRedis()
  t.teardown(async () => {
    redis.signal('SIGCONT')
    await redis.remove()
  })
  const { log, lines } = recordingLogger()
  const DEADLINE_MS = 3000
  const teamId = uid('tm')
  const n = await startNode(
    t,
    'standalone',
    {
      redisUrl: `redis://127.0.0.1:${redis.port}`,
      redisClusterNodes: undefined,
      redisCommandTimeoutMs: DEADLINE_MS,
      // 50 a minute: chunks of one call, leased when a call needs one, so no call finds one held.
      rateLimitOverrides: new Map([[teamId, 50]]),
    },
    { log },
  )
  const { key } = (await n.node.teams.create({ teamId, name: 'stall' })) as { key: string }
  const { room } = await n.node.core.rooms.create(teamId, { template: 'blank' }, 'test')
  const args = { room_id: room.room_id, agent_id: 'a' }
  t.equal(
    (await post(n, legacyCall('read_plan', args), {}, { key, timeoutMs: CALL_MS })).status,
    200,
    'a call works before',
  )
  redis.signal('SIGSTOP')
  const started = Date.now()
  // Bounded well past one deadline: a call held by the stall fails here rather than hanging.
  const answered = await post(n, legacyCall('read_plan', args), {}, { key, timeoutMs: 5 * DEADLINE_MS }).catch(
    () => undefined,
  )
  const took = Date.now() - started
  t.ok(answered, 'the call made as Redis stalls is answered, not held')
  t.equal(answered?.status, 503, 'with 503')
  t.match(answered?.json, { error: { code: 'unavailable', details: { retry_after_s: 1 } } }, 'unavailable')
  // Generous: it tells one wait (the lease's, then the answer) from two in a row (the lease's,
  // then the room script's). Timings are in bench/faults.ts.
  t.ok(took < 2 * DEADLINE_MS, `answered in ${took} ms: no second wait after the lease's deadline`)
  t.equal(countLines(lines, 'rate limit store failed'), 1, 'the limit turning off is logged once')
  redis.signal('SIGCONT')
  t.ok(
    await eventually(
      async () =>
        (await post(n, legacyCall('read_plan', args), {}, { key, timeoutMs: CALL_MS })).headers.has('ratelimit-limit'),
      10_000,
    ),
    'after SIGCONT the limit applies again (RateLimit-* headers are back)',
  )
  t.ok(await eventually(() => countLines(lines, 'rate limit store answers again') === 1, 5000), 'logged once')
})
