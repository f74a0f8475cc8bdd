// A person who is not signed in when an agent's authorization reaches the consent page is asked
// to sign in, and comes back to that same consent request afterwards: by a mailed link, and by
// an OpenID Connect provider (where a first sign-in shows the new team's key once, with the way
// back). Only a consent path is ever returned to: a return cookie naming anything else (another
// site, "//", dot segments, another page) ends at the home page.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import t, { type Test } from 'tap'
import { operatorNode, testPrefix } from '../helpers/accounts.js'
import { Browser, keyIn, linkIn } from '../helpers/mail.js'
import { callTool } from '../helpers/mcp.js'
import { MemoryAuthProvider } from '../helpers/mcp-oauth.js'
import { startNode, type TestNode } from '../helpers/node.js'
import { startOidc } from '../helpers/oauth.js'
import { uid } from '../helpers/shared.js'

const REDIRECT = 'http://127.0.0.1:40666/callback'

/** An SDK client up to its browser step, the browser sent from it to the consent page: the consent path. */
async function toConsent(t: Test, base: string, c: Browser, provider: MemoryAuthProvider) {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider })
  await t.rejects(new Client({ name: 'return-test', version: '1.0.0' }).connect(transport), /Unauthorized/)
  const sent = await c.get(provider.authorizationUrl!.toString())
  t.equal(sent.status, 303)
  const consentPath = sent.location!
  t.match(consentPath, /^\/oauth\/consent\/[A-Za-z0-9_-]+$/)
  const page = await c.get(consentPath)
  t.equal(page.status, 200)
  t.match(page.body, /Sign in to connect an agent/, 'signed out: asked to sign in')
  t.ok(c.jar.get('ar_return'), 'the way back is kept in this browser')
  return { transport, consentPath }
}

/** Allows the connection on the consent page and finishes the client's authorization; a tool call works. */
async function allow(
  t: Test,
  n: TestNode,
  base: string,
  c: Browser,
  provider: MemoryAuthProvider,
  at: {
    transport: StreamableHTTPClientTransport
    consentPath: string
  },
) {
  const teamId = (await n.node.accounts.session(c.jar.get('ar_session')!))!.team
  const roomId = uid('room')
  await n.node.core.rooms.create(teamId, { room_id: roomId }, 'test')
  const answered = await c.post(at.consentPath, {
    team: teamId,
    room: roomId,
    agent: 'back',
    access: 'write',
    decision: 'allow',
  })
  t.equal(answered.status, 303, 'consented')
  const to = new URL((await c.get(answered.location!)).location!)
  await at.transport.finishAuth(to.searchParams.get('code')!)
  const client = new Client({ name: 'return-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }))
  t.teardown(() => client.close())
  const posted = await callTool(client, 'post_event', { room_id: roomId, agent_id: 'back', type: 'note', text: 'x' })
  t.equal(posted.isError, false, 'the agent is connected')
}

t.test('by a mailed link', async (t) => {
  const { inbox, op, n } = await operatorNode(t, { signInRatePerAddress: 1000, signInRatePerIp: 1000 })
  const base = n.base.replace('127.0.0.1', 'localhost')
  const first = new Browser(base)
  await first.post('/signin', { email: op })
  t.ok(keyIn(await first.follow(linkIn(await inbox.next(op)))), 'the person has a team (first sign-in)')

  const c = new Browser(base)
  const provider = new MemoryAuthProvider(REDIRECT, undefined, 'Link Agent')
  const at = await toConsent(t, base, c, provider)
  await c.post('/signin', { email: op })
  const back = await c.follow(linkIn(await inbox.next(op)))
  t.equal(back.location, at.consentPath, 'after the link: back to the same consent request')
  t.match((await c.get(back.location!)).body, /<strong>Link Agent<\/strong> asks to act/)
  t.notOk(c.jar.get('ar_return'), 'the way back is used once')
  await allow(t, n, base, c, provider, at)

  t.test('never anywhere else', async (t) => {
    for (const target of [
      'https://evil.example/',
      '//evil.example/oauth/consent/x',
      '/\\evil.example',
      '/oauth/consent/../../team/keys',
      '/oauth/consent/x/../../signout',
      '/team/keys',
      '/oauth/consent/',
    ]) {
      const d = new Browser(base)
      d.cookie = `ar_return=${encodeURIComponent(target)}`
      await d.post('/signin', { email: op })
      const signed = await d.follow(linkIn(await inbox.next(op)))
      t.equal(signed.location, '/', `a return to ${JSON.stringify(target)} ends at the home page`)
    }
  })
})

t.test('by OpenID Connect, on a first sign-in', async (t) => {
  const issuer = await startOidc(t)
  const op = `${uid('op')}@example.com`
  const n = await startNode(t, 'standalone', {
    keyPrefix: testPrefix(),
    adminEmails: [op],
    oidcIssuer: issuer.url,
    oidcClientId: 'rooms',
    oidcClientSecret: 'rooms-secret',
    oidcName: 'Acme SSO',
    authLinkByEmail: ['oidc'],
  })
  issuer.ready(`${n.node.baseUrl}/auth/oidc/callback`, 'rooms', 'rooms-secret')
  const base = n.base.replace('127.0.0.1', 'localhost')
  issuer.as = { sub: 'opsub', email: op, verified: true, name: 'Op' }

  const c = new Browser(base)
  const provider = new MemoryAuthProvider(REDIRECT, undefined, 'SSO Agent')
  const at = await toConsent(t, base, c, provider)
  const start = await c.get('/auth/oidc')
  t.equal(start.status, 303)
  const callback = new URL(await issuer.authorize(start.location!))
  const page = await c.get(callback.pathname + callback.search)
  t.equal(page.status, 200)
  t.ok(keyIn(page), "a first sign-in: the new team's key, shown once")
  t.match(page.body, `<a href="${at.consentPath}">Continue connecting the agent</a>`, 'with the way back')
  t.notOk(c.jar.get('ar_return'))
  t.match((await c.get(at.consentPath)).body, /<strong>SSO Agent<\/strong> asks to act/)
  await allow(t, n, base, c, provider, at)

  t.test('a later sign-in goes straight back', async (t) => {
    const d = new Browser(base)
    const p2 = new MemoryAuthProvider(REDIRECT, undefined, 'SSO Agent 2')
    const at2 = await toConsent(t, base, d, p2)
    const s2 = await d.get('/auth/oidc')
    const cb2 = new URL(await issuer.authorize(s2.location!))
    const back = await d.get(cb2.pathname + cb2.search)
    t.equal(back.status, 303)
    t.equal(back.location, at2.consentPath, 'after the provider: back to the same consent request')
  })
})
