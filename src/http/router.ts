// Routes: method + path pattern (":name" segments) -> route. Matching tells apart "no such path"
// (404) from "path exists, other method" (405 with the methods allowed).
import type { z } from 'zod'
import type { Principal } from '../auth/principal.js'
import type { Exchange } from './exchange.js'

export type Method = 'GET' | 'POST' | 'DELETE'

export interface Ctx {
  ex: Exchange
  params: Record<string, string>
  /** The parsed and validated JSON body (bodyKind 'json'), or the raw bytes (bodyKind 'raw'). */
  body: unknown
  raw: Buffer | undefined
  principal: Principal | undefined
  /** The validated query string, on routes that declare `query`. */
  query?: unknown
}

export interface Route {
  method: Method
  path: string
  /** none: public; team: a team key; any: a team key or a room invite key (the handler checks the room). */
  auth: 'none' | 'team' | 'any'
  /** The handler authenticates itself (POST /mcp checks Origin first); `auth` still documents what it needs. */
  authInHandler?: boolean
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
  /** Returns the JSON body to send, or undefined when it responded itself (streams). */
  handle(ctx: Ctx): Promise<unknown>
  /** Documentation-only description (OpenAPI). */
  description?: string
  tag?: string
}

interface Compiled {
  route: Route
  segments: string[]
}

export type Match = { route: Route; params: Record<string, string> } | { allowed: Method[] } | undefined

export class Router {
  private readonly routes: Compiled[] = []

  add(...routes: Route[]): this {
    for (const route of routes) this.routes.push({ route, segments: route.path.split('/').filter(Boolean) })
    return this
  }

  list(): readonly Route[] {
    return this.routes.map((c) => c.route)
  }

  match(method: string, path: string): Match {
    const parts = path.split('/').filter(Boolean)
    const allowed: Method[] = []
    for (const c of this.routes) {
      const params = matchSegments(c.segments, parts)
      if (!params) continue
      if (c.route.method === method) return { route: c.route, params }
      allowed.push(c.route.method)
    }
    return allowed.length > 0 ? { allowed } : undefined
  }
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!
    const v = parts[i]!
    if (p.startsWith(':')) {
      let decoded: string
      try {
        decoded = decodeURIComponent(v)
      } catch {
        return undefined
      }
      params[p.slice(1)] = decoded
    } else if (p !== v) return undefined
  }
  return params
}
