// The MCP SDK 2.x client's own OAuth support against a real node, in both protocol eras (the
// initialize era, and 2026-07-28 pinned): discovery from the 401, registration by a Client ID
// Metadata Document that a loopback HTTPS server serves with a certificate of a test CA (the
// node trusts that CA through its test-only loopback CA setting, the SSRF guard's one exception),
// authorization in a browser with a signed-in person who consents on the dashboard, the code
// exchanged with `iss` checked, tools/call as the consented agent, a refresh the client makes
// itself when its access token is refused (rotated), and revocation (RFC 7009), after which the
// client is refused and sent back to authorize.
import { createServer } from 'node:https'
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client'
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'
import { callTool, MODERN } from '../helpers/mcp.js'
import { ModernAuthProvider } from '../helpers/mcp-oauth.js'
import { uid } from '../helpers/shared.js'
import { makeTestCa } from '../helpers/webhooks.js'

const REDIRECT = 'http://127.0.0.1:40555/callback'

t.test('the SDK 2.x client signs in with a Client ID Metadata Document', async (t) => {
  const ca = await makeTestCa(t)
  const fetched: string[] = []
  const docs = createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    fetched.push(req.url ?? '')
    const era = /^\/clients\/(legacy|modern)\.json$/.exec(req.url ?? '')?.[1]
    if (!era) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'max-age=60' })
    res.end(
      JSON.stringify({
        client_id: `${docsBase}${req.url}`,
        client_name: `Agent 2.x ${era}`,
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    )
  })
  await new Promise<void>((resolve) => docs.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => docs.close(() => resolve())))
  const docsBase = `https://localhost:${(docs.address() as { port: number }).port}`

  const { n, b } = await signedInOperator(t, { webhookTestLoopbackCa: ca.caFile })
  const base = n.base.replace('127.0.0.1', 'localhost')
  const issuer = n.node.baseUrl
  b.base = base
  const teamId = (await n.node.accounts.session(b.jar.get('ar_session')!))!.team
  const roomId = uid('room')
  await n.node.core.rooms.create(teamId, { room_id: roomId }, 'test')

  for (const era of ['legacy', 'modern'] as const) {
    t.test(`${era} era`, async (t) => {
      const docUrl = `${docsBase}/clients/${era}.json`
      const agent = `agent-${era}`
      const provider = new ModernAuthProvider(REDIRECT, docUrl, `Agent 2.x ${era}`)
      const client = () =>
        new ModernClient(
          { name: 'oauth-2x', version: '2.0.0' },
          era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
        )
      const transport = () => new ModernTransport(new URL(`${base}/mcp`), { authProvider: provider })

      // Discovery happens inside connect(); it stops at the browser step.
      const first = transport()
      await t.rejects(client().connect(first), UnauthorizedError)
      const url = provider.authorizationUrl!
      t.equal(url.origin + url.pathname, `${issuer}/oauth/authorize`, 'discovered from the 401')
      t.equal(url.searchParams.get('client_id'), docUrl, 'the document URL is the client id: no registration')
      t.equal(provider.info?.client_id, docUrl)
      t.equal(url.searchParams.get('code_challenge_method'), 'S256')
      t.equal(url.searchParams.get('resource'), `${issuer}/mcp`)

      const toConsent = await b.get(url.toString())
      t.equal(toConsent.status, 303)
      t.ok(fetched.includes(`/clients/${era}.json`), 'the node fetched the document over HTTPS')
      const page = await b.get(toConsent.location!)
      t.match(page.body, new RegExp(`<strong>Agent 2\\.x ${era}</strong> asks to act`), "the document's name")
      const answered = await b.post(toConsent.location!, {
        team: teamId,
        room: roomId,
        agent,
        access: 'write',
        decision: 'allow',
      })
      t.equal(answered.status, 303, 'consented')
      const back = new URL((await b.get(answered.location!)).location!)
      t.equal(back.origin + back.pathname, REDIRECT)
      await first.finishAuth(back.searchParams) // checks iss (RFC 9207) against the server's metadata
      const issued = provider.saved!
      t.type(issued.refresh_token, 'string')

      const c = client()
      await c.connect(transport())
      t.teardown(() => c.close())
      const posted = await callTool(c, 'post_event', { room_id: roomId, agent_id: agent, type: 'note', text: era })
      t.equal(posted.isError, false, JSON.stringify(posted.body))
      const [grant] = (await n.node.grants.list(teamId)).filter((g) => g.agent_id === agent)
      t.equal(grant?.client_id, docUrl, 'the connected agent names the document as its client')

      // The access token is refused: the client refreshes by itself and calls again.
      provider.saved = { ...issued, access_token: 'no-such-token' }
      const again = await callTool(c, 'read_events', { room_id: roomId, agent_id: agent })
      t.equal(again.isError, false, 'the call succeeds after the refresh')
      t.not(provider.saved.access_token, 'no-such-token', 'a new access token')
      t.not(provider.saved.refresh_token, issued.refresh_token, 'and a new refresh token (rotation)')

      const revoked = await fetch(`${base}/oauth/revoke`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: provider.saved.access_token, client_id: docUrl }),
      })
      t.equal(revoked.status, 200, 'revoked (RFC 7009)')
      provider.authorizationUrl = undefined
      await t.rejects(
        callTool(c, 'read_events', { room_id: roomId, agent_id: agent }),
        UnauthorizedError,
        'the client is refused: its refresh token went with the grant',
      )
      t.ok(provider.authorizationUrl, 'and it is sent back to authorize')
      t.ok((await n.node.grants.get(grant!.id))?.revoked_at, 'the connected agent is revoked')
    })
  }
})
