// An MCP client that signs in with OAuth, for the authorization tests: the SDK 1.x and 2.x
// clients' own auth provider interfaces kept in memory, and a browser of fetch() calls with a cookie jar that
// follows the authorization server's redirects until they leave it (the client's redirect URI).
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
