// The node's one route table. Routes come in mounts: a group of routes that share how a request
// is admitted (its Origin rule, the credential kinds it takes, the rate limit) and how a failure
// is answered (JSON for the API and /mcp, HTML for the dashboard's pages). Matching tells apart
// "no such path" (404) from "path exists, other method" (405 with the methods allowed); a path
// without ":name" segments is found by one map lookup.
import type { z } from 'zod'
import type { Action } from '../auth/permissions.js'
import type { Principal } from '../auth/principal.js'
import type { Exchange, RequestInfo } from './exchange.js'

export type Method = 'GET' | 'POST' | 'DELETE'

/**
 * Who may call a route. none: public, no credential read. optional: a credential is read when
 * presented (a page that greets a signed-in person). any: some credential of the mount's kinds.
 * team: a credential that names a whole team (the mount's `permits` says which do).
 */
export type AuthNeed = 'none' | 'optional' | 'any' | 'team'

/** One request as a route and the chain's steps see it. `W` is who a credential names. */
export interface Ctx<W = Principal> {
  ex: Exchange
  params: Record<string, string>
  /** The parsed and validated JSON body (bodyKind 'json'), or undefined. */
  body: unknown
  /** The raw bytes of a body read (bodyKind 'json' or 'raw'). */
  raw: Buffer | undefined
  /** Who the request acts as, once the authentication step ran (undefined on public routes). */
  principal: W | undefined
  /** The validated query string, on routes that declare `query`. */
  query?: unknown
  /** The request id (logs): a proxy's X-Request-Id, or one of this node's. */
  readonly id: string
  /** performance.now() when the request arrived, and when the authentication step finished. */
  readonly started: number
  readonly authenticatedAt: number
}

export interface Route<W = Principal> {
  method: Method
  path: string
  auth: AuthNeed
  summary: string
  /** Default 'none' for GET and DELETE, 'json' for POST. */
  bodyKind?: 'none' | 'json' | 'raw'
  /** Validates the JSON body (and documents it in the OpenAPI document). */
  body?: z.ZodType
  /** Validates the query string (an object of strings; use z.coerce for numbers) and documents it. */
  query?: z.ZodType
  /** Documents the success response in the OpenAPI document. */
  response?: z.ZodType
  /** Success status (default 200). */
  status?: number
  /** Error statuses this route answers besides the common ones (documentation only: OpenAPI). */
  errors?: number[]
  /** Returns the JSON body to send, or undefined when it responded itself (streams, pages). */
  handle(ctx: Ctx<W>): Promise<unknown>
  /**
   * What a credential must be allowed to do (src/auth/permissions.ts) on a `team` route besides
   * reading the admin API; the mount's `permits` checks it. Every `team` route that changes
   * something names one.
   */
  needs?: Action
  /** Documentation-only description (OpenAPI). */
  description?: string
  tag?: string
}

/**
 * One kind of credential (an API key, a dashboard session, an OAuth access token, ...). A mount
 * lists the kinds it takes; the authentication step asks them in order and the first that finds
 * its credential on the request verifies it.
 */
export interface Credential<W> {
  /** Names the kind in logs ('key', 'session', ...). */
  readonly kind: string
  /** False: calls made with it are not charged to a rate limit (default true). */
  readonly charged?: boolean
  /** This kind's credential on the request, or undefined when it carries none. Synchronous and cheap. */
  read(req: RequestInfo): string | undefined
  /**
   * Who the credential names. Throws the refusal a client must see (an AppError such as
   * unauthorized for a revoked key), or returns undefined for "names no one" (an expired
   * session), which a route that needs a credential answers like a missing one.
   */
  verify(credential: string, req: RequestInfo): Promise<W | undefined> | W | undefined
}

/** How a mount admits a request and answers its failures. Every field but `name` is optional. */
export interface MountPolicy<W> {
  /** Names the mount (the router refuses a path under /.well-known/ outside the 'well-known' mount). */
  name: string
  /** Listed by Router.list(): the documented API (docs/http-api.md, /openapi.json). */
  documented?: boolean
  /** The body size limit of its routes in bytes. */
  bodyBytes?: number
  /** Why a request is refused for where it comes from (an Error to answer), or undefined. */
  origin?(req: RequestInfo, route: Route<W>): Error | undefined
  /** The credential kinds its routes take, asked in order. */
  credentials?: readonly Credential<W>[]
  /** The error of a request that needs a credential and presents none (or one that names no one). */
  missing?(req: RequestInfo): Error
  /** Throws when `who` may not call `route` (a room invite key on a team route). */
  permits?(who: W, route: Route<W>): void
  /** Charges a request to a rate limit; throws rate_limited when it is used up. */
  rateLimit?(who: W, ex: Exchange): Promise<void> | void
  /** Answers a failure (default: the JSON error body of docs/errors.md). */
  render?(ex: Exchange, err: unknown, principal: W | undefined): void
}

export interface Mount<W = Principal> extends MountPolicy<W> {
  routes: readonly Route<W>[]
}

/** A route with the mount it belongs to, as the chain runs it. */
export interface Mounted {
  route: Route<any>
  mount: MountPolicy<any>
  /** The route's path split into segments, for matching. */
  segments: string[]
}

/**
 * A request's route: the matched one with its parameters (and, in `undecodable`, the name of a
 * parameter whose percent-escapes are well-formed but not UTF-8: the edge refuses it naming it),
 * the methods the path takes (405), or undefined (404).
 */
export type Match =
  { mounted: Mounted; params: Record<string, string>; undecodable?: string } | { allowed: Method[] } | undefined

/** The reserved mount point: OAuth and other discovery documents (RFC 8615). */
export const WELL_KNOWN = { name: 'well-known', prefix: '/.well-known/' } as const

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>

export class Router {
  /** Paths without parameters: path -> method -> route. */
  private readonly fixed = new Map<string, Map<string, Mounted>>()
  /** Paths with ":name" segments, in mount order. */
  private readonly patterns: Mounted[] = []
  private readonly all: Mounted[] = []

  /** Adds a mount's routes. Throws on a route another mount already serves, or a misplaced well-known path. */
  mount<W>(m: Mount<W>): this {
    const { routes, ...policy } = m
    for (const route of routes) {
      if (route.path.startsWith(WELL_KNOWN.prefix) !== (m.name === WELL_KNOWN.name))
        throw new Error(
          `${route.method} ${route.path}: paths under ${WELL_KNOWN.prefix} belong to the ` +
            `'${WELL_KNOWN.name}' mount, and only they`,
        )
      const taken = this.all.find((c) => c.route.method === route.method && c.route.path === route.path)
      if (taken) throw new Error(`${route.method} ${route.path} is served by mount '${taken.mount.name}' already`)
      const mounted: Mounted = { route, mount: policy, segments: route.path.split('/').filter(Boolean) }
      this.all.push(mounted)
      if (!route.path.includes('/:')) {
        const key = normalize(route.path)
        let byMethod = this.fixed.get(key)
        if (!byMethod) this.fixed.set(key, (byMethod = new Map()))
        byMethod.set(route.method, mounted)
      } else this.patterns.push(mounted)
    }
    return this
  }

  /** The documented API's routes (those of documented mounts), in mount order. */
  list(): readonly Route[] {
    return this.all.filter((c) => c.mount.documented).map((c) => c.route as Route)
  }

  match(method: string, path: string): Match {
    const byMethod = this.fixed.get(normalize(path))
    const hit = byMethod?.get(method)
    if (hit) return { mounted: hit, params: NO_PARAMS }
    let allowed: Method[] | undefined
    if (byMethod) for (const c of byMethod.values()) (allowed ??= []).push(c.route.method)
    if (this.patterns.length > 0) {
      const parts = path.split('/').filter(Boolean)
      for (const c of this.patterns) {
        const m = matchSegments(c.segments, parts)
        if (!m) continue
        if (c.route.method === method) return { mounted: c, ...m }
        ;(allowed ??= []).push(c.route.method)
      }
    }
    return allowed ? { allowed } : undefined
  }
}

/** "/a/b/" and "//a/b" find the route "/a/b", as the segment match does. */
function normalize(path: string): string {
  return path.length > 1 && (path.endsWith('/') || path.includes('//'))
    ? '/' + path.split('/').filter(Boolean).join('/')
    : path
}

/**
 * The parameters of `parts` under `pattern`, or undefined when it does not match (another length,
 * another literal segment, a malformed percent-escape). A parameter whose escapes are well-formed
 * but decode to something that is not UTF-8 still matches, kept as sent and named in
 * `undecodable`: decoding it would turn each invalid sequence into U+FFFD.
 */
function matchSegments(
  pattern: string[],
  parts: string[],
): { params: Record<string, string>; undecodable?: string } | undefined {
  if (pattern.length !== parts.length) return undefined
  const params: Record<string, string> = {}
  let undecodable: string | undefined
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!
    const v = parts[i]!
    if (p.startsWith(':')) {
      let decoded = v
      try {
        decoded = decodeURIComponent(v)
      } catch {
        if (/%(?![0-9A-Fa-f]{2})/.test(v)) return undefined
        undecodable ??= p.slice(1)
      }
      params[p.slice(1)] = decoded
    } else if (p !== v) return undefined
  }
  return undecodable === undefined ? { params } : { params, undecodable }
}
