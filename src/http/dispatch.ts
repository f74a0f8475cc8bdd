// Turns a request into a route call: matching (404/405), body reading with the size limit,
// authentication and scopes (401/403), the team rate limit (429 and RateLimit-* headers), JSON
// parsing and validation (400), and error mapping. Handlers only do their work.
import type { Keyring } from '../auth/keyring.js'
import type { Principal } from '../auth/principal.js'
import { RateLimiter } from '../auth/ratelimit.js'
import { AppError } from '../shared/errors.js'
import { toStoreError } from '../store/store.js'
import { parse } from '../core/validate.js'
import type { Logger } from '../shared/logger.js'
import type { Exchange } from './exchange.js'
import type { Lifecycle } from '../shared/lifecycle.js'
import type { Metrics } from '../shared/metrics.js'
import type { Ctx, Router } from './router.js'

/** What admit() uses: the keys, the team rate limit, and the counter of refused calls. */
export interface AdmitDeps {
  keyring: Pick<Keyring, 'authenticate'>
  rateLimiter: Pick<RateLimiter, 'check'>
  metrics: Pick<Metrics, 'rateLimited'>
}

/** What the dispatcher uses besides admit()'s: the routes, the body limit, the counters, the log, the drain. */
export interface DispatchDeps extends AdmitDeps {
  settings: { httpBodyBytes: number }
  router: Pick<Router, 'match'>
  metrics: Pick<Metrics, 'rateLimited' | 'requests' | 'latency'>
  log: Pick<Logger, 'error'>
  lifecycle: Pick<Lifecycle, 'begin' | 'accepting'>
}

const WWW_AUTHENTICATE = { 'WWW-Authenticate': 'Bearer realm="agentrooms"' }

/** Sends an AppError; 401s carry WWW-Authenticate, errors with details.retry_after_s a Retry-After. */
export function sendError(ex: Exchange, err: AppError): void {
  const retry = err.details?.retry_after_s
  const headers: Record<string, string> = err.code === 'unauthorized' ? { ...WWW_AUTHENTICATE } : {}
  if (typeof retry === 'number') headers['Retry-After'] = String(retry)
  ex.error(err, headers)
}

/** Authenticates and rate-limits a request; sets the RateLimit-* headers on `ex`. */
export async function admit(deps: AdmitDeps, ex: Exchange, need: 'team' | 'any'): Promise<Principal> {
  const principal = await deps.keyring.authenticate(ex.req.headers.authorization)
  if (need === 'team' && principal.kind !== 'team') {
    throw new AppError('forbidden', 'this endpoint needs a team key; a room invite key reaches only its room')
  }
  const decision = await deps.rateLimiter.check(principal.teamId)
  Object.assign(ex.extraHeaders, RateLimiter.headers(decision))
  if (!decision.allowed) {
    deps.metrics.rateLimited.inc()
    throw new AppError(
      'rate_limited',
      `the team's rate limit of ${decision.limit} calls per minute is used up; retry in ` +
        `${Math.max(1, decision.retryAfterS)} s`,
      {
        limit: decision.limit,
        retry_after_s: Math.max(1, decision.retryAfterS),
      },
    )
  }
  return principal
}

export function createDispatcher(deps: DispatchDeps) {
  return (ex: Exchange): void => {
    const started = performance.now()
    const done = deps.lifecycle.begin()
    const info = ex.req
    // HEAD is answered like GET without a body (load balancers probe /health with it).
    const match = deps.router.match(info.method === 'HEAD' ? 'GET' : info.method, info.path)
    const routeLabel = match && 'route' in match ? match.route.path : match ? 'method_not_allowed' : 'not_found'
    const finish = () => {
      done()
      deps.metrics.requests.inc({ route: routeLabel, method: info.method, status: String(ex.status ?? 0) })
      deps.metrics.latency.observe({ route: routeLabel, method: info.method }, (performance.now() - started) / 1000)
    }

    if (!match) {
      sendError(ex, new AppError('not_found', `no endpoint ${info.path}; see GET /openapi.json`))
      return finish()
    }
    if (!('route' in match)) {
      ex.error(
        new AppError(
          'method_not_allowed',
          `${info.method} is not allowed on ${info.path}; allowed: ${match.allowed.join(', ')}`,
        ),
        {
          Allow: match.allowed.join(', '),
        },
      )
      return finish()
    }
    const { route, params } = match
    const kind = route.bodyKind ?? (route.method === 'POST' ? 'json' : 'none')
    // The body must be read from the handler's first tick on; a refused request drains it unread.
    const bodyPromise = kind === 'none' ? Promise.resolve(undefined) : ex.readBody(deps.settings.httpBodyBytes)
    bodyPromise.catch(() => undefined)

    void (async () => {
      try {
        if (!deps.lifecycle.accepting)
          throw new AppError('unavailable', 'this node is shutting down; retry on another node')
        const principal = route.auth === 'none' || route.authInHandler ? undefined : await admit(deps, ex, route.auth)
        const raw = await bodyPromise
        let body: unknown
        if (kind === 'json') {
          body = parseJson(raw)
          if (route.body) body = parse(route.body, jsonObject(body))
        }
        const query = route.query ? parse(route.query, Object.fromEntries(ex.req.query)) : undefined
        const ctx: Ctx = { ex, params, body, raw, principal, query }
        const result = await route.handle(ctx)
        if (result !== undefined) ex.json(route.status ?? 200, result)
        else if (!ex.responded && !ex.aborted)
          throw new Error(`route ${route.method} ${route.path} returned without responding`)
      } catch (caught) {
        // A Redis failure that is not a bug (unreachable, full) becomes its AppError, logged once
        // per state change by StoreHealth.
        const err = toStoreError(caught)
        if (err instanceof AppError) sendError(ex, err)
        else if (!ex.aborted) {
          deps.log.error({ err, route: route.path }, 'request failed')
          sendError(ex, new AppError('internal', 'internal error'))
        }
      } finally {
        finish()
      }
    })()
  }
}

/** A body a route validates must be a JSON object (`null`, arrays and scalars are refused). */
function jsonObject(body: unknown): unknown {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body
  const got = body === null ? 'null' : Array.isArray(body) ? 'an array' : `a ${typeof body}`
  throw new AppError('invalid_request', `body: must be a JSON object, got ${got}`, { field: 'body' })
}

/** An empty body is `{}`; anything else must be JSON. */
function parseJson(raw: Buffer | undefined): unknown {
  if (!raw || raw.length === 0) return {}
  try {
    return JSON.parse(raw.toString('utf8'))
  } catch (err) {
    throw new AppError('invalid_request', `body: not valid JSON (${(err as Error).message})`, { field: 'body' })
  }
}
