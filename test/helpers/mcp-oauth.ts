// An MCP client that signs in with OAuth, for the authorization tests: the SDK 1.x and 2.x
// clients' own auth provider interfaces kept in memory, and a browser of fetch() calls with a cookie jar that
// follows the authorization server's redirects until they leave it (the client's redirect URI).
import { createHash, randomBytes } from 'node:crypto'
import type {
  OAuthClientProvider as ModernOAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client'
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js'
import type { Consent, OAuthServer } from '../../src/http/oauth/server.js'

/**
 * The OAuth state both SDKs' client providers keep, in memory: the client's registration, its
 * tokens, the PKCE verifier, and the authorization URL the client would open in a browser.
 */
class MemoryState<Info, Tokens> {
  info: Info | undefined
  saved: Tokens | undefined
  verifier = ''
  /** The authorization URL the client would open in a browser. */
  authorizationUrl: URL | undefined

  constructor(
    readonly redirect: string,
    readonly clientMetadataUrl: string | undefined,
    readonly name: string,
  ) {}

  get redirectUrl(): string {
    return this.redirect
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }

  clientInformation() {
    return this.info
  }
  saveClientInformation(info: Info) {
    this.info = info
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: Tokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(v: string) {
    this.verifier = v
  }
  codeVerifier() {
    return this.verifier
  }
}

/** The SDK 1.x client's OAuth state, in memory. */
export class MemoryAuthProvider
  extends MemoryState<OAuthClientInformationMixed, OAuthTokens>
  implements OAuthClientProvider
{
  constructor(redirect: string, clientMetadataUrl?: string, name = 'Test Agent') {
    super(redirect, clientMetadataUrl, name)
  }
}

/** A browser's cookies and redirects, as fetch() calls. */
export class Jar {
  readonly cookies = new Map<string, string>()

  constructor(readonly origin: string) {}

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    if (this.cookies.size > 0) headers.set('Cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '))
    const res = await fetch(new URL(url, this.origin), { ...init, headers, redirect: 'manual' })
    for (const c of res.headers.getSetCookie()) {
      const pair = c.split(';')[0]!
      const name = pair.slice(0, pair.indexOf('='))
      const value = pair.slice(pair.indexOf('=') + 1)
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(c)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    return res
  }

  /**
   * Follows redirects from `url` while they stay on this origin. Returns the first answer that is
   * not such a redirect: a redirect elsewhere (its Location), or a page.
   */
  async follow(url: string, init: RequestInit = {}): Promise<{ res: Response; location?: URL }> {
    let next = url
    let opts = init
    for (let hop = 0; hop < 10; hop++) {
      const res = await this.fetch(next, opts)
      const to = res.headers.get('location')
      if (!to || res.status < 300 || res.status >= 400) return { res }
      const location = new URL(to, new URL(next, this.origin))
      if (location.origin !== this.origin) return { res, location }
      next = location.toString()
      opts = {}
    }
    throw new Error('too many redirects')
  }
}

/**
 * The SDK 2.x client's OAuth state, in memory. With `clientMetadataUrl` the client registers by
 * its Client ID Metadata Document (the URL is its client id); without, by Dynamic Client Registration.
 */
export class ModernAuthProvider
  extends MemoryState<StoredOAuthClientInformation, StoredOAuthTokens>
  implements ModernOAuthClientProvider
{
  discovery: OAuthDiscoveryState | undefined

  constructor(redirect: string, clientMetadataUrl?: string, name = 'Test Agent 2.x') {
    super(redirect, clientMetadataUrl, name)
  }

  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state
  }
  discoveryState() {
    return this.discovery
  }
  /** What the client drops when the server refused it (a revoked grant: its tokens). */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'client') this.info = undefined
    if (scope === 'all' || scope === 'tokens') this.saved = undefined
    if (scope === 'all' || scope === 'verifier') this.verifier = ''
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined
  }
}

/**
 * A client of the service's authorization server driven by hand, as the tests of what the RFCs
 * refuse and the benches need it: registered by Dynamic Client Registration, with one PKCE
 * verifier for all its authorizations.
 */
export class HandClient {
  readonly verifier = randomBytes(32).toString('base64url')

  private constructor(
    /** Where it registered: the service's public URL (the issuer) or a node's own. */
    readonly base: string,
    readonly clientId: string,
    readonly redirect: string,
  ) {}

  /** Registers a client named `name` with one redirect URI at `base`. */
  static async register(base: string, name: string, redirect: string): Promise<HandClient> {
    const reg = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: name, redirect_uris: [redirect] }),
    })
    return new HandClient(base, ((await reg.json()) as { client_id: string }).client_id, redirect)
  }

  /**
   * The authorization request at `issuer` (this client's registration base by default): code,
   * PKCE S256, the issuer's /mcp as resource, scope mcp, state st; `over` replaces a parameter,
   * or leaves it out when undefined.
   */
  authorizeUrl(over: Record<string, string | undefined> = {}, issuer = this.base): URL {
    const all: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: this.clientId,
      redirect_uri: this.redirect,
      code_challenge: createHash('sha256').update(this.verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: `${issuer}/mcp`,
      scope: 'mcp',
      state: 'st',
      ...over,
    }
    const q = new URLSearchParams()
    for (const [k, v] of Object.entries(all)) if (v !== undefined) q.set(k, v)
    return new URL(`${issuer}/oauth/authorize?${q}`)
  }

  /** A form posted to the token endpoint at `at` (this client's registration base by default). */
  token(form: Record<string, string>, at = this.base): Promise<Response> {
    return fetch(`${at}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    })
  }

  /** Redeems an authorization code of this client (its verifier) at `at`. */
  redeem(code: string, at = this.base): Promise<Response> {
    const form = { code, redirect_uri: this.redirect, code_verifier: this.verifier, client_id: this.clientId }
    return this.token({ grant_type: 'authorization_code', ...form }, at)
  }

  /** Exchanges a refresh token of this client at `at`. */
  refresh(refreshToken: string, at = this.base): Promise<Response> {
    return this.token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: this.clientId }, at)
  }
}

/**
 * The browser part of an authorization: from `url` (the authorization request) to the consent
 * page, the consent given by the service's own call, then back: the URL the client is sent to
 * (its redirect URI, with the code). `base` is the origin the browser talks to.
 */
export async function authorize(
  server: Pick<OAuthServer, 'consent'>,
  base: string,
  url: URL | string,
  consent: Omit<Consent, 'userId'> & { userId?: string },
): Promise<URL> {
  const jar = new Jar(base)
  const toConsent = await jar.fetch(url.toString())
  const page = toConsent.headers.get('location') ?? ''
  const uid = /\/oauth\/consent\/([^/?#]+)/.exec(page)?.[1]
  if (!uid) throw new Error(`no consent redirect: ${toConsent.status} ${page} ${await toConsent.text()}`)
  const { returnTo } = await server.consent(decodeURIComponent(uid), { userId: 'u_test', ...consent })
  const back = await jar.follow(returnTo)
  if (!back.location) throw new Error(`no redirect to the client: ${back.res.status} ${await back.res.text()}`)
  return back.location
}
