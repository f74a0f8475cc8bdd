// Sign-in through OAuth: GitHub's flow against a local stand-in that speaks its token and user
// endpoints (PKCE checked). An identity links to an account only through a verified address.
import t from 'tap'
import { operatorNode, testPrefix, traces } from '../helpers/accounts.js'
import { Browser, keyIn, linkIn, type Page } from '../helpers/mail.js'
import { startNode } from '../helpers/node.js'
import { startGitHub, startOidc } from '../helpers/oauth.js'
import { rawClient, uid } from '../helpers/shared.js'

/** Signs in with a provider the way a browser does: start, the provider's redirect, the callback. */
async function viaProvider(b: Browser, provider: string, authorize: (url: string) => Promise<string>): Promise<Page> {
  const start = await b.get(`/auth/${provider}`)
  if (start.status !== 303) return start
  const callback = new URL(await authorize(start.location!))
  return b.get(callback.pathname + callback.search)
}

/** The stand-in's authorize answer: a redirect to the callback. */
async function ghAuthorize(url: string): Promise<string> {
  const res = await fetch(url, { redirect: 'manual' })
  return res.headers.get('location')!
}

t.test('GitHub', async (t) => {
  const gh = await startGitHub(t, 'gh-client', 'gh-secret')
  const { inbox, op, prefix, n } = await operatorNode(t, {
    githubClientId: 'gh-client',
    githubClientSecret: 'gh-secret',
    githubUrl: gh.url,
    githubApiUrl: gh.url,
  })
  const raw = rawClient('standalone')
  t.teardown(() => raw.disconnect())

  t.match(
    (await new Browser(n.base).get('/signin')).body,
    '<a href="/auth/github">Sign in with GitHub</a>',
    'the sign-in page offers GitHub',
  )

  t.test('an address that is not admitted is refused, and nothing is created', async (t) => {
    const stranger = `${uid('s')}@example.com`
    gh.as = { id: 1001, login: 'stranger', name: 'S', emails: [{ email: stranger, primary: true, verified: true }] }
    const page = await viaProvider(new Browser(n.base), 'github', ghAuthorize)
    t.equal(page.status, 403)
    t.match(page.body, 'is not admitted')
    t.same(await traces(raw, prefix, [stranger, 'github:1001']), [], 'nothing of the stranger in Redis')
  })

  t.test('an operator signs in with GitHub: a new team, its key shown once; the identity signs in again', async (t) => {
    gh.as = {
      id: 1002,
      login: 'op',
      name: 'Op Erator',
      emails: [{ email: op.toUpperCase(), primary: true, verified: true }],
    }
    const b = new Browser(n.base)
    const page = await viaProvider(b, 'github', ghAuthorize)
    t.equal(page.status, 200)
    const key = keyIn(page)
    t.ok(key, 'key shown once')
    t.equal((await n.call('/admin/me', { key })).status, 200, 'the key works')
    t.equal(b.jar.has('ar_oauth'), false, 'the flow cookie is cleared')
    const again = await viaProvider(new Browser(n.base), 'github', ghAuthorize)
    t.equal(again.status, 303, 'the linked identity signs in again, no new team')
  })

  t.test('an identity links to an existing account only through a verified address', async (t) => {
    const person = `${uid('p')}@example.com`
    const b = new Browser(n.base)
    await b.post('/waitlist', { email: person })
    const o = new Browser(n.base)
    gh.as = { id: 1002, login: 'op', name: 'Op', emails: [{ email: op, primary: true, verified: true }] }
    await viaProvider(o, 'github', ghAuthorize)
    await o.send('/operator/waitlist', { email: person, decision: 'approve' })
    t.ok(keyIn(await b.follow(linkIn(await inbox.next(person)))), 'the person has an account (by e-mail)')

    gh.as = { id: 1003, login: 'p', name: 'P', emails: [{ email: person, primary: true, verified: false }] }
    const unverified = await viaProvider(new Browser(n.base), 'github', ghAuthorize)
    t.equal(unverified.status, 403, 'an unverified address does not link')
    t.match(unverified.body, 'no verified e-mail address')

    gh.as = { id: 1003, login: 'p', name: 'P', emails: [{ email: person, primary: true, verified: true }] }
    const linked = await viaProvider(new Browser(n.base), 'github', ghAuthorize)
    t.equal(linked.status, 303, 'a verified address links the identity to the account')
    const home = await new Browser(n.base).get('/')
    t.equal(home.location, '/signin')
    const nb = new Browser(n.base)
    await viaProvider(nb, 'github', ghAuthorize)
    t.match((await nb.get('/team')).body, `Signed in as <strong>${person}</strong>`, 'the same person')
    t.match((await nb.get('/team')).body, 'signed in with GitHub', 'the audit trail says how')
    const teamName = /Type the team name, <strong>([^<]+)<\/strong>/
      .exec((await nb.get('/account/delete')).body)![1]!
      .replaceAll('&#39;', "'")
    t.equal((await nb.send('/account/delete', { confirm: teamName })).status, 200, 'the person deletes the account')
    t.same(await traces(raw, prefix, [person, 'github:1003']), [], 'the linked identity goes with it')
    t.equal(
      (await viaProvider(new Browser(n.base), 'github', ghAuthorize)).status,
      403,
      'and no longer signs anyone in',
    )
  })

  t.test('a callback whose state was altered, or without the flow cookie, is refused', async (t) => {
    gh.as = { id: 1002, login: 'op', name: 'Op', emails: [{ email: op, primary: true, verified: true }] }
    const b = new Browser(n.base)
    const start = await b.get('/auth/github')
    const callback = new URL(await ghAuthorize(start.location!))
    callback.searchParams.set('state', 'forged')
    t.equal((await b.get(callback.pathname + callback.search)).status, 403, 'altered state')
    const fresh = new Browser(n.base)
    const start2 = await b.get('/auth/github')
    const cb2 = new URL(await ghAuthorize(start2.location!))
    t.equal((await fresh.get(cb2.pathname + cb2.search)).status, 403, 'another browser (no flow cookie)')
  })
})

t.test('OpenID Connect (a real oidc-provider) trusted to link by verified address', async (t) => {
  const issuer = await startOidc(t)
  const prefix = testPrefix()
  const op = `${uid('op')}@example.com`
  const n = await startNode(t, 'standalone', {
    keyPrefix: prefix,
    adminEmails: [op],
    authLinkByEmail: ['github', 'oidc'],
    oidcIssuer: issuer.url,
    oidcClientId: 'rooms',
    oidcClientSecret: 'rooms-secret',
    oidcName: 'Acme SSO',
  })
  issuer.ready(`${n.node.baseUrl}/auth/oidc/callback`, 'rooms', 'rooms-secret')
  const raw = rawClient('standalone')
  t.teardown(() => raw.disconnect())
  t.match((await new Browser(n.base).get('/signin')).body, 'Sign in with Acme SSO')

  issuer.as = { sub: 'alice', email: `${uid('x')}@example.com`, verified: true, name: 'Alice' }
  const refused = await viaProvider(new Browser(n.base), 'oidc', (u) => issuer.authorize(u))
  t.equal(refused.status, 403, 'an address that is not admitted is refused')
  t.same(await traces(raw, prefix, ['alice']), [], 'and nothing is stored')

  issuer.as = { sub: 'opsub', email: op, verified: false, name: 'Op' }
  t.equal(
    (await viaProvider(new Browser(n.base), 'oidc', (u) => issuer.authorize(u))).status,
    403,
    'an unverified address is refused',
  )

  issuer.as = { sub: 'opsub', email: op, verified: true, name: 'Op' }
  const b = new Browser(n.base)
  const page = await viaProvider(b, 'oidc', (u) => issuer.authorize(u))
  t.equal(page.status, 200, 'code + PKCE + state + nonce, then userinfo: signed in')
  t.ok(keyIn(page), 'a new team and its key, shown once')
  t.match((await b.get('/team')).body, `Signed in as <strong>${op}</strong>`)
  t.equal(
    (await viaProvider(new Browser(n.base), 'oidc', (u) => issuer.authorize(u))).status,
    303,
    'the identity signs in again',
  )
})

t.test('OpenID Connect not trusted to link by address (the default): only a signed-in person links it', async (t) => {
  const issuer = await startOidc(t)
  const { inbox, op, prefix, n } = await operatorNode(t, {
    oidcIssuer: issuer.url,
    oidcClientId: 'rooms',
    oidcClientSecret: 'rooms-secret',
  })
  issuer.ready(`${n.node.baseUrl}/auth/oidc/callback`, 'rooms', 'rooms-secret')
  const raw = rawClient('standalone')
  t.teardown(() => raw.disconnect())

  // A provider that asserts an operator's address as verified does not make its holder the operator.
  issuer.as = { sub: 'opsub', email: op, verified: true, name: 'Op' }
  const refused = await viaProvider(new Browser(n.base), 'oidc', (u) => issuer.authorize(u))
  t.equal(refused.status, 403, "an operator's verified address from an untrusted provider is refused")
  t.match(refused.body, 'not trusted to link accounts by e-mail address')
  t.same(await traces(raw, prefix, ['opsub']), [], 'and nothing is stored')

  const b = new Browser(n.base)
  await b.post('/signin', { email: op })
  t.ok(keyIn(await b.follow(linkIn(await inbox.next(op)))), 'the operator signs in by e-mail link')
  const linked = await viaProvider(b, 'oidc', (u) => issuer.authorize(u))
  t.equal(linked.status, 303, 'signed in, they sign in with the provider once: it links to them')
  const fresh = new Browser(n.base)
  t.equal((await viaProvider(fresh, 'oidc', (u) => issuer.authorize(u))).status, 303, 'then it signs them in alone')
  t.match((await fresh.get('/team')).body, `Signed in as <strong>${op}</strong>`)
})
