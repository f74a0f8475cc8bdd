// OAuth across nodes: two nodes of one service (one public URL, one Redis), on both backends. A
// token revoked through node A (RFC 7009, or on the Keys page) is refused by node B at once, and
// the stream and the parked wait B holds for it end with unauthorized; another client cannot
// revoke it. An authorization code
// redeemed at A and again at B, or at both at the same moment, yields one set of tokens, and the
// second redemption gets invalid_grant and revokes the grant; so does a rotated refresh token used
// again at the other node. Each revocation is in the team's audit trail with its cause.
import { createServer } from 'node:net'
import t, { type Test } from 'tap'
import { legacyCall, modernBody, modernHeaders, post, sseMessages, streamedPost } from '../helpers/mcp.js'
import { authorize, HandClient } from '../helpers/mcp-oauth.js'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { BACKENDS, uid } from '../helpers/shared.js'
import { eventually, sleep } from '../helpers/wait.js'

const REDIRECT = 'http://127.0.0.1:40333/callback'
const DEADLINE_MS = 1000

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })

const form = (body: Record<string, string>) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(body),
})

interface Tokens {
  access_token: string
  refresh_token: string
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const port = await freePort()
    const publicUrl = `http://localhost:${port}`
    const a = await startNode(t, backend, { port, publicUrl })
    const b = await startNode(t, backend, { publicUrl })
    const { teamId } = await newTeam(a)
    const roomId = uid('room')
    await a.node.core.rooms.create(teamId, { room_id: roomId }, 'test')
    const client = await HandClient.register(publicUrl, 'Two Nodes', REDIRECT)
    const { clientId } = client

    /** A code for a new connection of `agent`: the authorization at node A, consented. */
    const codeFor = async (agent: string): Promise<string> => {
      const url = client.authorizeUrl({ scope: 'mcp offline_access', state: agent })
      const back = await authorize(a.node.oauth.server!, publicUrl, url, {
        teamId,
        roomId,
        agentId: agent,
        access: 'write',
      })
      const code = back.searchParams.get('code')
      if (!code) throw new Error(`no code: ${back.toString()}`)
      return code
    }
    const redeem = (n: TestNode, code: string) => client.redeem(code, n.base)
    const connect = async (agent: string): Promise<Tokens> =>
      (await (await redeem(a, await codeFor(agent))).json()) as Tokens
    const refresh = (n: TestNode, rt: string) => client.refresh(rt, n.base)
    const toolsList = async (n: TestNode, token: string) =>
      (await post(n, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, {}, { key: token })).status
    /** Ms until `n` refuses `token` (polled every 50 ms), or Infinity after 3 s. */
    const refusedAfter = async (n: TestNode, token: string, since: number) => {
      for (;;) {
        if ((await toolsList(n, token)) === 401) return Date.now() - since
        if (Date.now() - since > 3 * DEADLINE_MS) return Infinity
        await sleep(50)
      }
    }
    const grantOf = async (agent: string) => (await a.node.grants.list(teamId)).find((g) => g.agent_id === agent)!
    const trail = async () => (await a.node.audit.read(teamId, 50)).map((e) => `${e.action}: ${e.target ?? ''}`)
    /** An open stream and a parked wait of `token` at node B. */
    const holdAtB = async (t: Test, token: string, agent: string) => {
      const stream = streamedPost(
        b,
        modernBody('subscriptions/listen', { notifications: { resourcesListChanged: true } }, 'L1'),
        {
          ...modernHeaders('subscriptions/listen'),
          Accept: 'application/json, text/event-stream',
          Authorization: `Bearer ${token}`,
        },
      )
      t.equal((await stream.response).status, 200, 'B holds a stream for the token')
      const text = () => stream.chunks.map((c) => c.text).join('')
      t.ok(await eventually(() => sseMessages(text()).length >= 1), 'acknowledged')
      const before = (await b.node.metrics.parkedWaiters.get()).values[0]?.value ?? 0
      const wait = post(
        b,
        legacyCall('wait_for_events', { room_id: roomId, agent_id: agent, timeout_s: 25 }),
        {},
        {
          key: token,
          timeoutMs: 20_000,
        },
      )
      t.ok(
        await eventually(async () => ((await b.node.metrics.parkedWaiters.get()).values[0]?.value ?? 0) > before),
        'and a parked wait',
      )
      return { stream, wait }
    }
    const endedUnauthorized = async (t: Test, held: Awaited<ReturnType<typeof holdAtB>>, since: number) => {
      const body = await Promise.race([held.stream.done, sleep(5000).then(() => 'timeout')])
      t.not(body, 'timeout', 'the stream at B ends')
      t.match(JSON.stringify(sseMessages(body).at(-1)), /unauthorized/, 'with unauthorized')
      const waited = await held.wait
      t.match(waited.text, /unauthorized/, 'the parked wait at B ends with unauthorized')
      t.ok(Date.now() - since < 5000, 'at once')
    }

    t.test('a token revoked at node A (RFC 7009) is refused at node B at once', async (t) => {
      const tokens = await connect('rfc7009')
      t.equal(await toolsList(b, tokens.access_token), 200, 'B accepts the token (and caches it)')
      const held = await holdAtB(t, tokens.access_token, 'rfc7009')
      const another = (await HandClient.register(publicUrl, 'Another', REDIRECT)).clientId
      const foreign = await fetch(`${a.base}/oauth/revoke`, form({ token: tokens.access_token, client_id: another }))
      t.equal(foreign.status, 200, 'another client revoking it is answered 200 (RFC 7009 §2.2)')
      t.equal(await toolsList(b, tokens.access_token), 200, 'and changes nothing')
      t.equal((await grantOf('rfc7009')).revoked_at, undefined)
      const revoked = await fetch(`${a.base}/oauth/revoke`, form({ token: tokens.access_token, client_id: clientId }))
      const since = Date.now()
      t.equal(revoked.status, 200, 'A revokes it')
      const ms = await refusedAfter(b, tokens.access_token, since)
      t.ok(ms < DEADLINE_MS, `B refused it ${ms} ms after the revocation (< ${DEADLINE_MS} ms)`)
      await endedUnauthorized(t, held, since)
      const refreshed = await refresh(b, tokens.refresh_token)
      t.equal(refreshed.status, 400, 'its refresh token is gone too')
      t.match(await refreshed.json(), { error: 'invalid_grant' })
      t.ok((await grantOf('rfc7009')).revoked_at, 'the connected agent is listed as revoked')
      t.ok(
        await eventually(async () =>
          (await trail()).some((e) =>
            /^revoked connected agent: .*agent rfc7009\): its client revoked a token/.test(e),
          ),
        ),
        'audited with its cause',
      )
    })

    t.test('a grant revoked on the Keys page through node A is refused at node B at once', async (t) => {
      const tokens = await connect('keys-page')
      t.equal(await toolsList(b, tokens.access_token), 200, 'B accepts the token')
      const held = await holdAtB(t, tokens.access_token, 'keys-page')
      await a.node.grants.revoke(teamId, (await grantOf('keys-page')).id)
      const since = Date.now()
      const ms = await refusedAfter(b, tokens.access_token, since)
      t.ok(ms < DEADLINE_MS, `B refused it ${ms} ms after the revocation (< ${DEADLINE_MS} ms)`)
      await endedUnauthorized(t, held, since)
    })

    t.test('a code redeemed at node A and again at node B', async (t) => {
      const code = await codeFor('code-twice')
      const first = await redeem(a, code)
      t.equal(first.status, 200, 'redeemed at A')
      const tokens = (await first.json()) as Tokens
      t.equal(await toolsList(b, tokens.access_token), 200, 'its token works at B')
      const again = await redeem(b, code)
      t.equal(again.status, 400)
      t.match(await again.json(), { error: 'invalid_grant' }, 'again at B: invalid_grant')
      t.equal((await refusedAfter(b, tokens.access_token, Date.now())) < DEADLINE_MS, true, 'the first tokens end')
      t.ok((await grantOf('code-twice')).revoked_at, 'the grant is revoked')
      t.ok(
        await eventually(async () =>
          (await trail()).some((e) => /agent code-twice\): its authorization code was redeemed again/.test(e)),
        ),
        'audited with its cause',
      )
    })

    t.test('a code redeemed at both nodes at the same moment: one set of tokens, then none', async (t) => {
      for (let round = 0; round < 5; round++) {
        const agent = `race-${round}`
        const code = await codeFor(agent)
        const answers = await Promise.all([redeem(a, code), redeem(b, code)])
        const statuses = answers.map((r) => r.status).sort()
        t.same(statuses, [200, 400], `round ${round}: one redemption succeeds`)
        const bodies = (await Promise.all(answers.map((r) => r.json()))) as (Tokens & { error?: string })[]
        const won = bodies.find((x) => x.access_token !== undefined)!
        t.match(
          bodies.find((x) => x.error !== undefined),
          { error: 'invalid_grant' },
        )
        t.ok((await refusedAfter(b, won.access_token, Date.now())) < DEADLINE_MS, 'and its tokens end')
        t.ok((await grantOf(agent)).revoked_at, 'the grant is revoked')
      }
    })

    t.test('a rotated refresh token used again at the other node', async (t) => {
      const tokens = await connect('refresh-twice')
      const rotated = await refresh(a, tokens.refresh_token)
      t.equal(rotated.status, 200, 'rotated at A')
      const next = (await rotated.json()) as Tokens
      t.not(next.refresh_token, tokens.refresh_token)
      t.equal(await toolsList(b, next.access_token), 200, 'the new access token works at B')
      const reused = await refresh(b, tokens.refresh_token)
      t.equal(reused.status, 400)
      t.match(await reused.json(), { error: 'invalid_grant' }, 'the old one at B: invalid_grant')
      t.ok((await refusedAfter(b, next.access_token, Date.now())) < DEADLINE_MS, 'the new access token ends')
      const after = await refresh(a, next.refresh_token)
      t.match(await after.json(), { error: 'invalid_grant' }, 'and the new refresh token')
      t.ok((await grantOf('refresh-twice')).revoked_at, 'the grant is revoked (RFC 9700)')
      t.ok(
        await eventually(async () =>
          (await trail()).some((e) => /agent refresh-twice\): a rotated refresh token was used again/.test(e)),
        ),
        'audited with its cause',
      )
    })
  })
}
