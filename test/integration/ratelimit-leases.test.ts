// The rate limits as leases (src/auth/ratelimit.ts): a node leases chunks of the team's and the
// credential's windows and spends them locally, so a call in steady state runs one Redis script,
// its own; the limits still hold across nodes; each credential's quota is its own, inside the
// team's ceiling; a 429 names the limit it hit. A stalled Redis: ratelimit-stall.test.ts.
import t from 'tap'
import { Redis } from 'ioredis'
import { legacyCall, post } from '../helpers/mcp.js'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { startRedis } from '../helpers/redis.js'
import { BACKENDS, uid } from '../helpers/shared.js'
import { waitFor } from '../helpers/wait.js'

/**
 * Scripts that run on timers, whatever the calls: a key's lookup once its cache entry is a second
 * old (src/auth/keyring.ts), and the workers' schedules (webhooks, search, leases).
 */
const TIMED = new Set(['lookupKey', 'claimTeams', 'claimSearchRooms', 'renewLeases', 'claimDeliveries'])

/** Every call here answers within this (ms), or fails naming itself instead of holding the file. */
const CALL_MS = 20_000

t.test('one Redis script per call in steady state', async (t) => {
  // A Redis of this test's own, watched with MONITOR: nothing else talks to it.
  const redis = await startRedis()
  t.teardown(() => redis.stop())
  const n = await startNode(t, 'standalone', {
    redisUrl: `redis://127.0.0.1:${redis.port}`,
    redisClusterNodes: undefined,
    rateLimitPerMin: 1_000_000,
    rateLimitPerCredentialPerMin: 100_000,
  })
  const names = new Map([...n.node.store.scripts.values()].map((s) => [s.sha, s.script.name]))
  const { teamId, key } = await newTeam(n)
  const { room } = await n.node.core.rooms.create(teamId, { template: 'web-app' }, 'test')
  const a = { room_id: room.room_id, agent_id: 'a' }
  const calls: [string, Record<string, unknown>][] = [
    ['heartbeat', a],
    ['post_event', { ...a, type: 'status', text: 'hi' }],
    ['get_unread_events', a],
    ['read_plan', a],
    ['add_task', { ...a, title: 'x' }],
  ]
  // Warm: the key verified, every script loaded, the first leases taken.
  for (const [name, args] of calls)
    t.equal((await post(n, legacyCall(name, args), {}, { key, timeoutMs: CALL_MS })).status, 200, name)
  const base = new Redis(redis.port, '127.0.0.1')
  const monitor = await base.monitor()
  const fencer = new Redis(redis.port, '127.0.0.1')
  t.teardown(() => {
    monitor.disconnect()
    base.disconnect()
    fencer.disconnect()
  })
  let run: string[] = []
  let fenced = ''
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    const cmd = args[0]?.toLowerCase()
    if (cmd === 'echo') fenced = args[1]!
    else if (source !== 'lua' && (cmd === 'evalsha' || cmd === 'eval')) run.push(names.get(args[1]!) ?? 'eval')
  })
  /** Once MONITOR reports an ECHO sent after the calls, it has reported everything they ran. */
  const settle = async (fence: string) => {
    await fencer.echo(fence)
    await waitFor(() => fenced === fence, 5000, `MONITOR to report ${fence}`)
  }
  const ROUNDS = 20
  for (const [name, args] of calls) {
    await settle(`${name}-before`)
    run = []
    for (let i = 0; i < ROUNDS; i++) {
      const r = await post(n, legacyCall(name, args), {}, { key, timeoutMs: CALL_MS })
      if (r.status !== 200 || r.json?.error) t.fail(`${name}: ${r.status} ${r.text}`)
    }
    await settle(`${name}-after`)
    const perCall = run.filter((s) => !TIMED.has(s))
    const leases = perCall.filter((s) => s === 'leaseRate').length
    t.comment(`${name}: ${run.length} scripts in ${ROUNDS} sequential calls: ${[...new Set(run)].join(', ')}`)
    // A chunk of these limits is 10,000 and 1,000 calls: at most one lease among these calls.
    t.ok(leases <= 1, `${name}: ${leases} lease(s) in ${ROUNDS} calls`)
    t.equal(perCall.length - leases, ROUNDS, `${name}: one script of its own per call`)
  }
})

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test("a credential's own quota: separate from another key of its team, inside the team's", async (t) => {
      const teamId = uid('tm')
      const n = await startNode(t, backend, {
        rateLimitOverrides: new Map([[teamId, 5]]),
        rateLimitPerCredentialPerMin: 3,
      })
      const one = (await n.node.teams.create({ teamId, name: 'quota' })).key!
      const two = (await n.node.teams.mintTeamKey(teamId, { scope: 'admin' })).key
      const status = async (key: string) => {
        const r = await n.call('/admin/me', { key, signal: AbortSignal.timeout(CALL_MS) })
        return { status: r.status, r }
      }
      const seq: number[] = []
      for (let i = 0; i < 3; i++) seq.push((await status(one)).status)
      t.same(seq, [200, 200, 200], "the first key's three calls")
      const over = await status(one)
      t.equal(over.status, 429, 'its fourth is refused: its own limit')
      const body = (await over.r.json()) as { error: { message: string; details: Record<string, unknown> } }
      t.match(body.error, {
        message: /this credential's own rate limit of 3 calls per minute/,
        details: { limit: 3, limit_scope: 'credential' },
      })
      t.equal(over.r.headers.get('ratelimit-limit'), '3', 'RateLimit-Limit: the limit it hit')
      t.ok(Number(over.r.headers.get('retry-after')) >= 59, 'Retry-After: until its calls leave the minute')
      const other = await status(two)
      t.equal(other.status, 200, 'another key of the same team is still served')
      t.equal((await status(two)).status, 200, 'twice: the team has made 5 calls, its ceiling')
      const ceiling = await status(two)
      t.equal(ceiling.status, 429, "then the team's ceiling refuses it")
      const b2 = (await ceiling.r.json()) as { error: { message: string; details: Record<string, unknown> } }
      t.match(b2.error, { message: /the team's rate limit of 5 calls/, details: { limit: 5, limit_scope: 'team' } })
      t.equal(ceiling.r.headers.get('ratelimit-limit'), '5')
      t.equal((await status(one)).status, 429, 'and the first key stays refused')
    })

    t.test('across two nodes with chunks of many calls: never over the limit in a window', async (t) => {
      const teamId = uid('tm')
      // 300 a minute: chunks of 3 calls, leased ahead. All calls of this test fall in one rolling
      // minute, so the nodes together may spend at most what Redis leased them: the limit.
      const settings = { rateLimitOverrides: new Map([[teamId, 300]]) }
      const a = await startNode(t, backend, settings)
      const b = await startNode(t, backend, settings)
      const { key } = (await a.node.teams.create({ teamId, name: 'split' })) as { key: string }
      const nodes: TestNode[] = [a, b]
      const statuses: number[] = []
      // 8 callers a node, each sequential: leases are taken ahead while calls keep coming.
      await Promise.all(
        Array.from({ length: 16 }, async (_, i) => {
          const n = nodes[i % 2]!
          for (let j = 0; j < 22; j++)
            statuses.push((await n.call('/admin/me', { key, signal: AbortSignal.timeout(CALL_MS) })).status)
        }),
      )
      const allowed = statuses.filter((s) => s === 200).length
      t.equal(statuses.length, 352)
      t.ok(allowed <= 300, `${allowed} of 352 allowed: never more than the limit`)
      // Calls leased and not spent when the window filled count for nothing: under 2 chunks a node.
      t.ok(allowed >= 300 - 2 * 2 * 3, `${allowed} allowed: at most what two nodes hold short of it`)
      t.equal(statuses.filter((s) => s === 429).length, 352 - allowed, 'the rest refused')
    })
  })
}
