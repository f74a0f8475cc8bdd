// The team rate limit over HTTP: a rolling window in one Lua call, so exact across nodes. A burst over the
// limit gets 429 with Retry-After and RateLimit-Limit/Remaining/Reset; waiting Retry-After
// seconds is enough to be served again.
import t, { type Test } from 'tap'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { BACKENDS, uid } from '../helpers/shared.js'

const limits = (res: Response) => ({
  limit: Number(res.headers.get('ratelimit-limit')),
  remaining: Number(res.headers.get('ratelimit-remaining')),
  reset: Number(res.headers.get('ratelimit-reset')),
  retryAfter: res.headers.has('retry-after') ? Number(res.headers.get('retry-after')) : undefined,
})

/**
 * Has every node verify the key once (so a burst measures the limiter, not cold caches and
 * connections), then gives the team its whole allowance back by dropping its limiter state.
 */
async function warm(t: Test, nodes: TestNode[], key: string, teamId: string): Promise<void> {
  for (const n of nodes) t.equal((await n.call('/admin/me', { key })).status, 200, 'warm-up call')
  await nodes[0]!.node.store.client.del(nodes[0]!.node.store.keys.team(teamId).rate)
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('a burst over the limit: headers, 429, Retry-After', async (t) => {
      const teamId = uid('tm')
      const n = await startNode(t, backend, { rateLimitOverrides: new Map([[teamId, 10]]) })
      const { key } = (await n.node.teams.create({ teamId, name: 'burst' })) as { key: string }
      const seen: ReturnType<typeof limits>[] = []
      for (let i = 0; i < 10; i++) {
        const res = await n.call('/admin/me', { key })
        t.equal(res.status, 200, `call ${i + 1} of 10 is allowed`)
        seen.push(limits(res))
        await res.arrayBuffer()
      }
      t.same(
        seen.map((s) => s.remaining),
        [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
        'RateLimit-Remaining counts down to 0',
      )
      t.ok(
        seen.every((s) => s.limit === 10 && s.retryAfter === undefined),
        "RateLimit-Limit is the team's limit; no Retry-After while allowed",
      )
      t.ok(
        seen.every((s) => s.reset >= 59 && s.reset <= 62),
        'RateLimit-Reset: seconds until the allowance is full again (the calls of now leave the window in a minute)',
      )

      const refused = await n.call('/admin/me', { key })
      t.equal(refused.status, 429, 'call 11 is refused')
      const h = limits(refused)
      // 10 calls a minute, all used now: none comes back until they leave the rolling minute.
      t.ok(
        h.retryAfter !== undefined && h.retryAfter >= 59 && h.retryAfter <= 62,
        `Retry-After is ${h.retryAfter} s (until the burst leaves the rolling minute)`,
      )
      t.match(h, { limit: 10, remaining: 0 })
      t.ok(h.reset >= 59 && h.reset <= 62, `RateLimit-Reset is ${h.reset} s (the whole allowance)`)
      t.match(await refused.json(), {
        error: {
          code: 'rate_limited',
          message: /10 calls per minute/,
          hint: String,
          details: { limit: 10, retry_after_s: h.retryAfter },
        },
      })
      t.equal((await n.call('/health')).status, 200, 'public endpoints are not rate limited')
      t.equal((await n.call('/admin/me', { key: key.slice(0, -1) })).status, 401, 'a bad key is 401, not 429')
    })

    t.test('a true per-minute limit: after a full burst, the next call waits for the minute', async (t) => {
      const teamId = uid('tm')
      const n = await startNode(t, backend, { rateLimitOverrides: new Map([[teamId, 60]]) })
      const { key } = (await n.node.teams.create({ teamId, name: 'rolling' })) as { key: string }
      await warm(t, [n], key, teamId)
      const burst = await Promise.all(
        Array.from({ length: 65 }, () => n.call('/admin/me', { key }).then((r) => r.status)),
      )
      t.equal(burst.filter((s) => s === 200).length, 60, 'exactly the limit is allowed in a burst')
      const refused = await n.call('/admin/me', { key })
      t.equal(refused.status, 429)
      const wait = Number(refused.headers.get('retry-after'))
      // A refill (GCRA with the minute as burst) said 1 here, and so let 120 through in a rolling minute.
      t.ok(wait >= 59 && wait <= 62, `Retry-After ${wait}: the burst's calls count until a minute has passed`)
    })

    t.test('waiting Retry-After seconds is enough: calls come back as the window rolls on', async (t) => {
      const teamId = uid('tm')
      const n = await startNode(t, backend, { rateLimitOverrides: new Map([[teamId, 60]]) })
      const { key } = (await n.node.teams.create({ teamId, name: 'retry' })) as { key: string }
      await warm(t, [n], key, teamId)
      // The whole allowance used 59 s ago (second bucket of the window, by Redis' clock): every
      // call now is refused, for the second or two until that bucket leaves the window.
      const client = n.node.store.client
      const [s] = await client.time()
      await client.hset(n.node.store.keys.team(teamId).rate, String(Number(s) - 59), '60')
      const refused = await n.call('/admin/me', { key })
      t.equal(refused.status, 429, 'calls of 59 s ago still count')
      const wait = Number(refused.headers.get('retry-after'))
      t.ok(wait >= 1 && wait <= 2, `Retry-After ${wait}: until that second leaves the window`)
      // time passes on purpose: the claim is that this wait is enough
      await new Promise((r) => setTimeout(r, wait * 1000))
      t.equal((await n.call('/admin/me', { key })).status, 200, 'served again after Retry-After seconds')
    })

    t.test('the count is exact across two nodes', async (t) => {
      const teamId = uid('tm')
      const settings = { rateLimitOverrides: new Map([[teamId, 50]]) }
      const a = await startNode(t, backend, settings)
      const b = await startNode(t, backend, settings)
      const { key } = (await a.node.teams.create({ teamId, name: 'split' })) as { key: string }
      await warm(t, [a, b], key, teamId)
      const started = Date.now()
      const statuses = await Promise.all(
        Array.from({ length: 80 }, (_, i) => (i % 2 ? a : b).call('/admin/me', { key }).then((r) => r.status)),
      )
      t.comment(`80 calls over two nodes took ${Date.now() - started} ms (one call comes back every 1200 ms)`)
      t.equal(statuses.filter((s) => s === 200).length, 50, '80 concurrent calls over two nodes: exactly 50 allowed')
      t.equal(statuses.filter((s) => s === 429).length, 30, 'and 30 refused')
    })

    t.test('a key left by the GCRA limiter (a string) is taken over, not a WRONGTYPE error', async (t) => {
      const store = (await startNode(t, backend)).node.store
      const key = store.keys.team(uid('tm')).rate
      await store.client.set(key, '1732263097123.000')
      const r = await store.run('rateLimit', [key], [5, 60_000, 1])
      t.match(r, { allowed: 1, remaining: 4 }, 'the first call of a fresh window')
      t.equal(await store.client.type(key), 'hash')
    })

    t.test("by default each key has 400 calls a minute of its own, inside the team's 1,200", async (t) => {
      const n = await startNode(t, backend)
      const { teamId, key } = await newTeam(n)
      const second = (await n.node.teams.mintTeamKey(teamId, { scope: 'admin' })).key
      const res = await n.call('/admin/me', { key })
      t.match(await res.json(), { rateLimitPerMinute: 1200, credentialRateLimitPerMinute: 400 })
      t.equal(res.headers.get('ratelimit-limit'), '400', "RateLimit-Limit: the key's own, the one with less left")
      // A burst of 400 from one key: the next is refused by its own limit; another key is served.
      const burst = await Promise.all(Array.from({ length: 400 }, () => n.call('/admin/me', { key })))
      const statuses = burst.map((r) => r.status)
      await Promise.all(burst.map((r) => r.arrayBuffer()))
      t.equal(statuses.filter((s) => s === 200).length, 399, 'the rest of its 400 are served')
      t.equal(statuses.filter((s) => s === 429).length, 1, 'and one over them is refused')
      const refused = burst.find((r) => r.status === 429)!
      t.equal(refused.headers.get('ratelimit-limit'), '400')
      const other = await n.call('/admin/me', { key: second })
      t.equal(other.status, 200, 'another key of the team is served: the team has used 401 of its 1,200')
      t.equal(other.headers.get('ratelimit-limit'), '400')
    })

    t.test('teams have separate allowances; keys of one team share one', async (t) => {
      const one = uid('tm')
      const two = uid('tm')
      const n = await startNode(t, backend, {
        rateLimitOverrides: new Map([
          [one, 3],
          [two, 3],
        ]),
      })
      const k1 = (await n.node.teams.create({ teamId: one, name: 'one' })).key!
      const k1b = (await n.node.teams.mintTeamKey(one, { scope: 'admin' })).key
      const k2 = (await n.node.teams.create({ teamId: two, name: 'two' })).key!
      const seq = []
      for (const key of [k1, k1b, k1, k1b]) seq.push((await n.call('/admin/me', { key })).status)
      t.same(seq, [200, 200, 200, 429], 'two keys of one team draw on one allowance')
      t.equal((await n.call('/admin/me', { key: k2 })).status, 200, 'another team is unaffected')
      const me = (await (await n.call('/admin/me', { key: k2 })).json()) as {
        rateLimitPerMinute: number
        credentialRateLimitPerMinute: number
      }
      t.equal(me.rateLimitPerMinute, 3, "/admin/me reports the team's limit")
      t.equal(me.credentialRateLimitPerMinute, 3, "and the key's own: the team's, as the default 400 is not below it")
    })
  })
}
