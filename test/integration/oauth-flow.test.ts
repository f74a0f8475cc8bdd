// An agent signs in with OAuth on a real node, with the MCP SDK 1.x client's own OAuth support:
// discovery from the 401, Dynamic Client Registration, authorization (PKCE S256, `resource`),
// consent, code → tokens, tools/call as the consented agent, refresh with rotation, revocation.
// And what the RFCs refuse, with their errors: a wrong redirect URI, missing or plain PKCE, a
// reused code, a rotated refresh token used again, a resource that is not this server's /mcp, a
// token issued for another server.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Redis } from 'ioredis'
import t from 'tap'
import { callTool } from '../helpers/mcp.js'
import { authorize, HandClient, Jar, MemoryAuthProvider } from '../helpers/mcp-oauth.js'
import { newTeam, startNode } from '../helpers/node.js'
import { rawClient, uid } from '../helpers/shared.js'

const REDIRECT = 'http://127.0.0.1:40111/callback'

t.test('the MCP SDK client signs in, calls tools, refreshes, is revoked', async (t) => {
  const n = await startNode(t, 'standalone')
  const base = n.base.replace('127.0.0.1', 'localhost')
  const issuer = n.node.baseUrl
  const { teamId } = await newTeam(n)
  const roomId = uid('room')
  await n.node.core.rooms.create(teamId, { room_id: roomId }, 'test')

  const provider = new MemoryAuthProvider(REDIRECT)
  const connect = async () => {
    const client = new Client({ name: 'oauth-test', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider })
    await client.connect(transport)
    t.teardown(() => client.close())
    return { client, transport }
  }

  // Discovery and registration happen inside connect(); it stops at the browser step.
  const first = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider })
  await t.rejects(new Client({ name: 'oauth-test', version: '1.0.0' }).connect(first), /Unauthorized/)
  t.type(provider.info?.client_id, 'string', 'registered by DCR')
  const url = provider.authorizationUrl!
  t.equal(url.origin + url.pathname, `${issuer}/oauth/authorize`)
  t.equal(url.searchParams.get('code_challenge_method'), 'S256')
  t.equal(url.searchParams.get('resource'), `${issuer}/mcp`, 'the client names this resource (RFC 8707)')

  const back = await authorize(n.node.oauth.server!, base, url, { teamId, roomId, agentId: 'planner', access: 'write' })
  t.equal(back.origin + back.pathname, REDIRECT)
  t.equal(back.searchParams.get('iss'), issuer, 'the authorization response names the issuer (RFC 9207)')
  t.equal(back.searchParams.get('state'), url.searchParams.get('state'))
  await first.finishAuth(back.searchParams.get('code')!)
  const tokens = provider.saved!
  t.type(tokens.access_token, 'string')
  t.type(tokens.refresh_token, 'string')
  t.ok(tokens.expires_in! <= 900, 'a short-lived access token')
  t.notMatch(tokens.access_token, /\./, 'a token has no "." (a key always has)')

  const { client } = await connect()
  const raw = rawClient('standalone') as Redis
  t.teardown(() => raw.disconnect())
  const held: string[] = []
  for await (const keys of raw.scanStream({ match: `${n.node.settings.keyPrefix}:oauth:*`, count: 500 })) {
    for (const key of keys as string[]) if ((await raw.type(key)) === 'string') held.push((await raw.get(key)) ?? '')
  }
  t.ok(held.length >= 3, `the authorization server's records are in Redis (${held.length})`)
  const secrets = {
    'authorization code': back.searchParams.get('code')!,
    'access token': tokens.access_token,
    'refresh token': tokens.refresh_token!,
  }
  for (const [what, value] of Object.entries(secrets)) {
    t.notOk(
      held.some((v) => v.includes(value)),
      `no record holds the ${what} itself`,
    )
  }
  const posted = await callTool(client, 'post_event', {
    room_id: roomId,
    agent_id: 'planner',
    type: 'note',
    text: 'hi',
  })
  t.equal(posted.isError, false, JSON.stringify(posted.body))
  const read = await callTool(client, 'read_events', { room_id: roomId, agent_id: 'planner' })
  t.equal(read.isError, false)
  const other = await callTool(client, 'read_events', { room_id: uid('elsewhere'), agent_id: 'planner' })
  t.equal(other.body.error?.code, 'not_found', 'another room of the team is out of reach')
  const team = await callTool(client, 'list_rooms', {})
  t.equal(team.body.error?.code, 'forbidden', 'no team tools')
  const listed = await client.listTools()
  t.notOk(
    listed.tools.some((x) => x.name === 'list_rooms'),
    'tools/list leaves out the team tools',
  )

  t.test('refresh rotates; the old refresh token used again revokes the grant', async (t) => {
    const refresh = (rt: string) =>
      fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: rt,
          client_id: provider.info!.client_id,
        }),
      })
    const r1 = await refresh(tokens.refresh_token!)
    t.equal(r1.status, 200)
    const next = (await r1.json()) as { access_token: string; refresh_token: string }
    t.not(next.refresh_token, tokens.refresh_token, 'a new refresh token')
    const ok = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${next.access_token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    t.not(ok.status, 401, 'the refreshed access token works')
    const again = await refresh(tokens.refresh_token!)
    t.equal(again.status, 400)
    t.match(await again.json(), { error: 'invalid_grant' })
    const after = await refresh(next.refresh_token)
    t.equal(after.status, 400, 'reuse detected: the whole grant is gone')
    t.match(await after.json(), { error: 'invalid_grant' })
  })
})

t.test('what the RFCs refuse', async (t) => {
  const n = await startNode(t, 'standalone')
  const base = n.base.replace('127.0.0.1', 'localhost')
  const issuer = n.node.baseUrl
  const { teamId } = await newTeam(n)
  const client = await HandClient.register(base, 'Bad Agent', REDIRECT)
  const { verifier } = client
  const params = (over: Record<string, string | undefined> = {}) => client.authorizeUrl(over, issuer)
  const errorOf = async (url: URL) => {
    const r = await new Jar(base).follow(url.toString())
    return r.location ? r.location.searchParams.get('error') : `page ${r.res.status}`
  }

  t.equal(
    await errorOf(params({ redirect_uri: 'http://127.0.0.1:40111/other' })),
    'page 400',
    'wrong redirect URI: no redirect',
  )
  const otherPort = await new Jar(base).fetch(params({ redirect_uri: 'http://127.0.0.1:40999/callback' }).toString())
  t.match(
    otherPort.headers.get('location'),
    /\/oauth\/consent\//,
    'a loopback redirect may use another port (RFC 8252)',
  )
  t.equal(await errorOf(params({ code_challenge: undefined, code_challenge_method: undefined })), 'invalid_request')
  t.equal(await errorOf(params({ code_challenge_method: 'plain', code_challenge: verifier })), 'invalid_request')
  t.equal(await errorOf(params({ resource: 'https://elsewhere.example/mcp' })), 'invalid_target')

  const back = await authorize(n.node.oauth.server!, base, params(), {
    teamId,
    roomId: undefined,
    agentId: 'a1',
    access: 'read',
  })
  const code = back.searchParams.get('code')!
  const redeem = () => client.redeem(code)
  const wrongVerifier = await client.redeem('not-a-code')
  t.match(await wrongVerifier.json(), { error: 'invalid_grant' })
  const ok = await redeem()
  t.equal(ok.status, 200)
  const { access_token } = (await ok.json()) as { access_token: string }
  const reused = await redeem()
  t.equal(reused.status, 400)
  t.match(await reused.json(), { error: 'invalid_grant' }, 'a reused code')

  const mcp = (token: string, n2 = base) =>
    fetch(`${n2}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
  t.equal((await mcp(access_token)).status, 401, 'a reused code revokes the tokens issued from it')

  t.test('a token of another server (same Redis) is refused here', async (t) => {
    const other = await startNode(t, 'standalone')
    const otherBase = other.base.replace('127.0.0.1', 'localhost')
    const back2 = await authorize(n.node.oauth.server!, base, params({ state: 's2' }), {
      teamId,
      roomId: undefined,
      agentId: 'a2',
      access: 'write',
    })
    const r = (await (await client.redeem(back2.searchParams.get('code')!)).json()) as { access_token: string }
    t.not((await mcp(r.access_token)).status, 401, 'works at its own server')
    const there = await mcp(r.access_token, otherBase)
    t.equal(there.status, 401)
    t.match(await there.text(), /not for/)
  })
})
