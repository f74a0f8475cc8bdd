// The API's credential kinds and its rate limit, as the edge's authentication and rate-limit
// steps use them (src/http/router.ts Credential and MountPolicy): team and room invite keys in
// `Authorization: Bearer`, and the test-only keyless principal of /mcp.
import { missingKey, type Keyring } from '../auth/keyring.js'
import { requireScope } from '../auth/permissions.js'
import { credentialOf, type Principal } from '../auth/principal.js'
import { RateLimiter, type RateDecision } from '../auth/ratelimit.js'
import { AppError } from '../shared/errors.js'
import type { Metrics } from '../shared/metrics.js'
import type { Exchange } from './exchange.js'
import type { Credential, MountPolicy, Route } from './router.js'

/** What the key credential and the team rate limit use. */
export interface KeyAuthDeps {
  keyring: Pick<Keyring, 'authenticate'>
  rateLimiter: Pick<RateLimiter, 'check'>
  metrics: Pick<Metrics, 'rateLimited'>
}

/** A team key or a room invite key, as `Authorization: Bearer <key>`. */
export function keyCredential(keyring: Pick<Keyring, 'authenticate'>): Credential<Principal> {
  return {
    kind: 'key',
    read: (req) => req.headers.authorization || undefined,
    verify: (header, req) => keyring.authenticate(header, req.budget),
  }
}

/**
 * What a credential may call (src/auth/permissions.ts): `team` routes (the admin API) need a team
 * key with the admin scope, and what the route `needs`; every other route reads a room.
 */
export function permits(who: Principal, route: Route<Principal>): void {
  if (route.auth !== 'team') return requireScope(who, 'room.read')
  if (who.kind !== 'team')
    throw new AppError('forbidden', 'this endpoint needs a team key; a room invite key reaches only its room', {
      needs: { scopes: ['admin'] },
    })
  requireScope(who, 'admin.read')
  if (route.needs) requireScope(who, route.needs)
}

/**
 * Charges a call to its credential's and its team's rate limits; sets the RateLimit-* headers; throws
 * rate_limited, naming the limit, when one is used up. Synchronous while the limiter answers at once.
 */
export function teamRateLimit(deps: Pick<KeyAuthDeps, 'rateLimiter' | 'metrics'>) {
  const charge = (ex: Exchange, decision: RateDecision): void => {
    Object.assign(ex.extraHeaders, RateLimiter.headers(decision))
    if (decision.allowed) return
    deps.metrics.rateLimited.inc()
    throw rateLimited(decision)
  }
  return (who: Principal, ex: Exchange): Promise<void> | void => {
    const decision = deps.rateLimiter.check(who.teamId, credentialOf(who), ex.req.budget)
    if (decision instanceof Promise) return decision.then((d) => charge(ex, d))
    charge(ex, decision)
  }
}

/** The rate_limited error of a refusal: which limit, how many calls a minute, when to retry. */
export function rateLimited(d: RateDecision): AppError {
  const retry = Math.max(1, d.retryAfterS)
  const whose = d.scope === 'team' ? "the team's rate limit" : "this credential's own rate limit"
  return new AppError('rate_limited', `${whose} of ${d.limit} calls per minute is used up; retry in ${retry} s`, {
    limit: d.limit,
    limit_scope: d.scope,
    retry_after_s: retry,
  })
}

/** The policy of the key-authenticated API: keys, team routes for team keys, the team rate limit. */
export function keyPolicy(deps: KeyAuthDeps): Omit<MountPolicy<Principal>, 'name'> {
  return {
    credentials: [keyCredential(deps.keyring)],
    missing: missingKey,
    permits,
    rateLimit: teamRateLimit(deps),
  }
}

/**
 * TEST ONLY (the MCP conformance run): a request without an Authorization header acts as
 * `principal`, not charged to a rate limit. It must name a loopback Host (see loopbackHost);
 * `refuse` is the answer when it does not.
 */
export function keylessCredential(principal: Principal, refuse: () => Error): Credential<Principal> {
  return {
    kind: 'keyless',
    charged: false,
    read: (req) => (req.headers.authorization ? undefined : ''),
    verify: (_, req) => {
      if (!loopbackHost(req.headers.host)) throw refuse()
      return principal
    },
  }
}

/**
 * Whether a Host header names this machine's loopback interface (localhost, 127.x.x.x, [::1]).
 * A request without a key proves nothing about where it comes from: a page whose DNS name was
 * rebound to 127.0.0.1 sends its own name as Host and as a matching Origin, so the same-host
 * Origin rule alone does not stop it. Keys do (a page cannot have one); keyless requests exist
 * only in the test-only mode, which therefore also requires a loopback Host.
 */
export function loopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false
  try {
    const name = new URL(`http://${host}`).hostname
    return name === 'localhost' || name === '[::1]' || /^127(\.\d{1,3}){3}$/.test(name)
  } catch {
    return false
  }
}
