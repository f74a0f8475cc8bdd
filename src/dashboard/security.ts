// Browser security of the dashboard: the session cookie, the same-origin check of every
// state-changing request (CSRF), and the headers of every page.
import type { RequestInfo } from '../http/exchange.js'

/**
 * Headers of every page: a CSP that allows only this origin's assets and no inline script or
 * style, no framing, no referrer (link tokens are in URLs), no sniffing, no caching.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; connect-src 'self'; " +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cache-Control': 'no-store',
}

/**
 * The one kind of place a sign-in returns to besides the home page: a consent request of the
 * authorization server, `/oauth/consent/<uid>` with a uid of URL-safe characters. Anything else
 * (another host, a scheme, "//", a backslash, dot segments, another page) is undefined, so a
 * redirect after sign-in never leaves this site nor goes where someone else's link chose.
 */
export function returnPath(raw: string): string | undefined {
  return /^\/oauth\/consent\/[A-Za-z0-9_-]{1,128}$/.test(raw) ? raw : undefined
}

/** Where the dashboard is served and how its session cookie is named and marked. */
export class Origin {
  /** The origins browser requests may come from (one, or the loopback forms in development). */
  readonly allowed: readonly string[]
  /** https: a __Host- cookie marked Secure. Plain-HTTP localhost: no prefix (it requires Secure), not Secure. */
  readonly secure: boolean
  readonly cookieName: string

  constructor(
    /** The base URL links point to, without a trailing slash. */
    readonly base: string,
    port: number,
    configured: boolean,
  ) {
    const url = new URL(base)
    this.secure = url.protocol === 'https:'
    this.cookieName = this.secure ? '__Host-ar_session' : 'ar_session'
    this.allowed = configured
      ? [url.origin]
      : [`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`]
  }

  /** Set-Cookie of a new session (HttpOnly, SameSite=Lax, Path=/, no Domain; Secure on https). */
  sessionCookie(token: string, maxAgeS: number): string {
    return (
      `${this.cookieName}=${token}; Path=/; HttpOnly; SameSite=Lax; ` +
      `Max-Age=${maxAgeS}${this.secure ? '; Secure' : ''}`
    )
  }

  clearCookie(name = this.cookieName): string {
    return `${name}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${this.secure ? '; Secure' : ''}`
  }

  /** The cookie naming where this browser's next sign-in returns to (returnPath()). */
  get returnCookieName(): string {
    return this.secure ? '__Host-ar_return' : 'ar_return'
  }

  /** Set-Cookie of a return path, for as long as an authorization waits for consent (10 minutes). */
  returnCookie(path: string): string {
    return (
      `${this.returnCookieName}=${encodeURIComponent(path)}; Path=/; HttpOnly; SameSite=Lax; ` +
      `Max-Age=600${this.secure ? '; Secure' : ''}`
    )
  }

  /** Where a sign-in in this browser returns to: a path returnPath() accepts, or undefined. */
  returnTo(req: RequestInfo): string | undefined {
    const raw = cookie(req, this.returnCookieName)
    if (raw === undefined) return undefined
    try {
      return returnPath(decodeURIComponent(raw))
    } catch {
      return undefined
    }
  }

  /** The OAuth flow cookie (state, PKCE verifier, nonce) between redirect and callback: 10 minutes. */
  get flowCookieName(): string {
    return this.secure ? '__Host-ar_oauth' : 'ar_oauth'
  }

  flowCookie(value: string): string {
    return (
      `${this.flowCookieName}=${value}; Path=/; HttpOnly; SameSite=Lax; ` +
      `Max-Age=600${this.secure ? '; Secure' : ''}`
    )
  }

  /** The session token the browser sent, if any. */
  sessionToken(req: RequestInfo): string | undefined {
    return cookie(req, this.cookieName)
  }

  flowToken(req: RequestInfo): string | undefined {
    return cookie(req, this.flowCookieName)
  }

  /**
   * Why a state-changing request is refused as cross-site, or undefined when it comes from this
   * origin: Sec-Fetch-Site must be same-origin; without it (older browsers, other clients) the
   * Origin header must be this origin exactly. A request with neither is refused.
   */
  crossSite(req: RequestInfo): string | undefined {
    const site = req.headers['sec-fetch-site']
    if (site !== undefined)
      return site === 'same-origin' ? undefined : `the request came from another site (Sec-Fetch-Site: ${site})`
    const origin = req.headers.origin
    if (origin === undefined) return 'the request carries neither Sec-Fetch-Site nor Origin'
    return this.allowed.includes(origin) ? undefined : `the request came from another origin (${origin})`
  }
}

function cookie(req: RequestInfo, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}
