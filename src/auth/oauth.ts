// Sign-in through OAuth providers: GitHub (arctic's OAuth 2.0 client, against GITHUB_URL and
// GITHUB_API_URL, so GitHub Enterprise Server works too) and any OpenID Connect provider
// (openid-client: discovery, PKCE, state and nonce). Each provider turns a callback into an
// identity — subject, verified address (if any), name — and the accounts model decides who that
// is (lua/signInIdentity.lua): a new identity links to the person signed in on the browser, or
// through a verified address of a provider trusted for it (AUTH_LINK_BY_EMAIL).
// The state, PKCE verifier and nonce travel in a short-lived HttpOnly cookie, so any node can
// take the callback.
import { CodeChallengeMethod, OAuth2Client, generateCodeVerifier, generateState } from 'arctic'
import * as oidc from 'openid-client'
import { AppError } from '../shared/errors.js'

/** The settings sign-in providers read (src/config.ts has them all, with their environment names). */
export interface OAuthSettings {
  githubClientId?: string | undefined
  githubClientSecret?: string | undefined
  githubUrl: string
  githubApiUrl: string
  oidcIssuer?: string | undefined
  oidcClientId?: string | undefined
  oidcClientSecret?: string | undefined
  oidcName: string
}

export interface Identity {
  /** "<provider>:<subject>" */
  ident: string
  email: string | undefined
  name: string
}

/** What the browser keeps between the redirect and the callback (in the flow cookie). */
export interface FlowState {
  state: string
  verifier: string
  nonce: string
}

export interface Provider {
  readonly id: 'github' | 'oidc'
  readonly label: string
  /** Where to send the browser, and the state to keep in the flow cookie. */
  start(callback: string): Promise<{ url: URL; flow: FlowState }>
  /** The identity behind a callback whose state matched. */
  finish(callback: string, query: URLSearchParams, flow: FlowState): Promise<Identity>
}

const refused = (why: string) => new AppError('forbidden', `Sign-in was not completed: ${why}.`)

class GitHub implements Provider {
  readonly id = 'github'
  readonly label = 'GitHub'

  constructor(private readonly s: OAuthSettings) {}

  private client(callback: string) {
    return new OAuth2Client(this.s.githubClientId!, this.s.githubClientSecret!, callback)
  }

  async start(callback: string) {
    const state = generateState()
    const verifier = generateCodeVerifier()
    const url = this.client(callback).createAuthorizationURLWithPKCE(
      `${trim(this.s.githubUrl)}/login/oauth/authorize`,
      state,
      CodeChallengeMethod.S256,
      verifier,
      ['read:user', 'user:email'],
    )
    return { url, flow: { state, verifier, nonce: '' } }
  }

  async finish(callback: string, query: URLSearchParams, flow: FlowState): Promise<Identity> {
    const code = query.get('code')
    if (!code) throw refused(query.get('error_description') ?? query.get('error') ?? 'GitHub sent no code')
    let token: string
    try {
      token = (
        await this.client(callback).validateAuthorizationCode(
          `${trim(this.s.githubUrl)}/login/oauth/access_token`,
          code,
          flow.verifier,
        )
      ).accessToken()
    } catch (err) {
      throw refused(`GitHub refused the code (${(err as Error).message})`)
    }
    const api = async <T>(path: string): Promise<T> => {
      const res = await fetch(`${trim(this.s.githubApiUrl)}${path}`, {
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'application/vnd.github+json',
          'User-Agent': 'agentrooms',
        },
      })
      if (!res.ok) throw refused(`GitHub answered ${res.status} for ${path}`)
      return (await res.json()) as T
    }
    const user = await api<{ id: number; login: string; name?: string | null }>('/user')
    const emails = await api<{ email: string; primary: boolean; verified: boolean }[]>('/user/emails')
    const primary = emails.find((e) => e.primary && e.verified) ?? emails.find((e) => e.verified)
    return { ident: `github:${user.id}`, email: primary?.email, name: user.name || user.login }
  }
}

class Oidc implements Provider {
  readonly id = 'oidc'
  private config: Promise<oidc.Configuration> | undefined

  constructor(private readonly s: OAuthSettings) {}

  get label(): string {
    return this.s.oidcName
  }

  /** Discovery, once per node (again after a failure). Plain http only for a loopback issuer (tests, development). */
  private configuration(): Promise<oidc.Configuration> {
    if (!this.config) {
      const issuer = new URL(this.s.oidcIssuer!)
      const loopback = issuer.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname)
      this.config = oidc.discovery(
        issuer,
        this.s.oidcClientId!,
        this.s.oidcClientSecret!,
        undefined,
        loopback ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      this.config.catch(() => (this.config = undefined))
    }
    return this.config
  }

  async start(callback: string) {
    const config = await this.configuration()
    const flow = { state: oidc.randomState(), verifier: oidc.randomPKCECodeVerifier(), nonce: oidc.randomNonce() }
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: callback,
      scope: 'openid email profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    })
    return { url, flow }
  }

  async finish(callback: string, query: URLSearchParams, flow: FlowState): Promise<Identity> {
    const config = await this.configuration()
    const current = new URL(callback)
    current.search = query.toString()
    let tokens
    try {
      tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
      })
    } catch (err) {
      throw refused(`the provider's answer did not check out (${(err as Error).message})`)
    }
    const claims = tokens.claims()
    if (!claims) throw refused('the provider sent no ID token')
    let info: Record<string, unknown> = claims
    if (typeof claims.email !== 'string') info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)
    const email = typeof info.email === 'string' && info.email_verified === true ? info.email : undefined
    const name = typeof info.name === 'string' ? info.name : (email?.split('@')[0] ?? '')
    return { ident: `oidc:${config.serverMetadata().issuer}#${claims.sub}`, email, name }
  }
}

const trim = (u: string) => u.replace(/\/+$/, '')

/** The providers the settings configure. */
export function providers(s: OAuthSettings): Provider[] {
  const out: Provider[] = []
  if (s.githubClientId) out.push(new GitHub(s))
  if (s.oidcIssuer) out.push(new Oidc(s))
  return out
}
