// Identity providers for the sign-in tests, real servers on loopback: a stand-in for GitHub that
// speaks its OAuth endpoints (authorize, access_token with PKCE checked) and the two API endpoints
// the service reads (/user, /user/emails).
import { createHash, randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { Test } from 'tap'

export interface GitHubUser {
  id: number
  login: string
  name: string
  emails: { email: string; primary: boolean; verified: boolean }[]
}

export interface GitHubStandIn {
  url: string
  /** Who the next authorization signs in as. */
  as: GitHubUser | undefined
}

export async function startGitHub(t: Test, clientId: string, clientSecret: string): Promise<GitHubStandIn> {
  const codes = new Map<string, { user: GitHubUser; challenge: string; redirect: string }>()
  const tokens = new Map<string, GitHubUser>()
  const gh: GitHubStandIn = { url: '', as: undefined }
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (url.pathname === '/login/oauth/authorize') {
      if (url.searchParams.get('client_id') !== clientId || !gh.as) return json(400, { error: 'bad_request' })
      const code = randomBytes(8).toString('hex')
      codes.set(code, {
        user: gh.as,
        challenge: url.searchParams.get('code_challenge') ?? '',
        redirect: url.searchParams.get('redirect_uri') ?? '',
      })
      res.writeHead(302, {
        Location:
          `${url.searchParams.get('redirect_uri')}?code=${code}` +
          `&state=${encodeURIComponent(url.searchParams.get('state') ?? '')}`,
      })
      return res.end()
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      let body = ''
      req.on('data', (c: Buffer) => (body += c.toString()))
      req.on('end', () => {
        const form = new URLSearchParams(body)
        const basic = Buffer.from(`${clientId}:${clientSecret}`).toString('base64')
        const grant = codes.get(form.get('code') ?? '')
        codes.delete(form.get('code') ?? '')
        const verifier = form.get('code_verifier') ?? ''
        const ok =
          req.headers.authorization === `Basic ${basic}` &&
          grant !== undefined &&
          grant.redirect === form.get('redirect_uri') &&
          createHash('sha256').update(verifier).digest('base64url') === grant.challenge
        if (!ok) return json(400, { error: 'bad_verification_code' })
        const token = `gho_${randomBytes(12).toString('hex')}`
        tokens.set(token, grant.user)
        json(200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' })
      })
      return
    }
    const user = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''))
    if (!user) return json(401, { message: 'Bad credentials' })
    if (url.pathname === '/user') return json(200, { id: user.id, login: user.login, name: user.name })
    if (url.pathname === '/user/emails')
      return json(
        200,
        user.emails.map((e) => ({ ...e, visibility: null })),
      )
    json(404, { message: 'Not Found' })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  gh.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return gh
}

export interface OidcIssuer {
  url: string
  /** The subject the next login signs in as, with its claims. */
  as: { sub: string; email: string; verified: boolean; name: string } | undefined
  /** Creates the provider once the service's callback URL is known. */
  ready(redirectUri: string, clientId: string, clientSecret: string): void
  /**
   * Follows the provider's redirects from an authorization URL to the redirect back (a browser with
   * its own cookies).
   */
  authorize(url: string): Promise<string>
}

/** A real OpenID Connect provider (oidc-provider) on loopback; logins are granted to `as` without a form. */
export async function startOidc(t: Test): Promise<OidcIssuer> {
  const { default: Provider } = await import('oidc-provider')
  let provider: InstanceType<typeof Provider> | undefined
  const issuer: OidcIssuer = {
    url: '',
    as: undefined,
    ready(redirectUri, clientId, clientSecret) {
      provider = new Provider(issuer.url, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: [redirectUri],
            response_types: ['code'],
            grant_types: ['authorization_code'],
          },
        ],
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        findAccount: async (_ctx: unknown, sub: string) => ({
          accountId: sub,
          claims: async () => ({
            sub,
            email: issuer.as?.email,
            email_verified: issuer.as?.verified,
            name: issuer.as?.name,
          }),
        }),
        features: { devInteractions: { enabled: false } },
        interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
        cookies: { keys: ['oidc-test-cookie-key'] },
        pkce: { required: () => true },
        loadExistingGrant: async (ctx: { oidc: { client: { clientId: string }; session: { accountId: string } } }) => {
          const grant = new provider!.Grant({
            accountId: ctx.oidc.session.accountId,
            clientId: ctx.oidc.client.clientId,
          })
          grant.addOIDCScope('openid email profile')
          await grant.save()
          return grant
        },
      })
    },
    async authorize(url) {
      const jar = new Map<string, string>()
      let next = url
      for (let hop = 0; hop < 10; hop++) {
        if (!next.startsWith(issuer.url)) return next
        const res = await fetch(next, {
          redirect: 'manual',
          headers: { Cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
        })
        for (const c of res.headers.getSetCookie()) {
          const pair = c.split(';')[0]!
          jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1))
        }
        const location = res.headers.get('location')
        if (!location) throw new Error(`the provider answered ${res.status} without a redirect: ${await res.text()}`)
        next = new URL(location, next).toString()
      }
      throw new Error('too many redirects at the provider')
    },
  }
  const server = createServer((req, res) => {
    if (!provider) {
      res.writeHead(503)
      res.end()
      return
    }
    if (req.url?.startsWith('/interaction/')) {
      provider
        .interactionFinished(req, res, { login: { accountId: issuer.as!.sub } }, { mergeWithLastSubmission: false })
        .catch((err: Error) => {
          res.writeHead(500)
          res.end(err.message)
        })
      return
    }
    provider.callback()(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  issuer.url = `http://localhost:${(server.address() as { port: number }).port}`
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return issuer
}
