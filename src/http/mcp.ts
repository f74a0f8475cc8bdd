// MCP over HTTP: the routes of /mcp, a thin transport in front of the MCP request pipeline
// (src/mcp/pipeline.ts). POST hands the pipeline the headers, ?profile= and the raw body, and
// answers through the Exchange: the key and rate limit checked by admit() (its AppError answered
// by the dispatcher like any route's), whole bodies, and JSON or SSE replies (mcp-reply.ts). GET
// and DELETE answer 405: there is no session and no standalone stream to open or close.
import type { Principal } from '../auth/principal.js'
import { mcpPipeline, refuse, type EndpointHost, type McpExchange } from '../mcp/pipeline.js'
import { REFUSE } from '../mcp/wire.js'
import type { ServiceNode } from '../node.js'
import { admit } from './dispatch.js'
import type { Exchange } from './exchange.js'
import { HttpReply } from './mcp-reply.js'
import type { Route } from './router.js'

/** The node parts the endpoint uses: settings, and keys and rate limits for admit(). */
export type EndpointNode = Pick<ServiceNode, 'settings' | 'keyring' | 'rateLimiter' | 'metrics'>

function exchangeOf(ex: Exchange, node: EndpointNode): McpExchange {
  const { sseKeepaliveS, sseBufferBytes } = node.settings
  return {
    authenticate: () => admit(node, ex, 'any'),
    send: (status, body, headers) => ex.send(status, body, headers),
    openReply: (shape) => new HttpReply(ex, { ...shape, keepaliveMs: sseKeepaliveS * 1000, bufferBytes: sseBufferBytes }),
    get aborted() {
      return ex.aborted
    },
    onAbort: (fn) => ex.onAbort(fn),
  }
}

export function mcpRoutes(node: EndpointNode, host: EndpointHost, opts: { anonymous?: Principal } = {}): Route[] {
  const serve = mcpPipeline(host, { allowedOrigins: node.settings.mcpAllowedOrigins, anonymous: opts.anonymous })
  const methodNotAllowed = async ({ ex }: { ex: Exchange }) => refuse(ex, REFUSE.httpMethod)
  const post = async ({ ex, raw }: { ex: Exchange; raw?: Buffer }) => {
    await serve({ headers: ex.req.headers, profile: ex.req.query.get('profile') ?? undefined, body: raw }, exchangeOf(ex, node))
    return undefined
  }
  return [
    {
      method: 'POST',
      path: '/mcp',
      auth: 'any',
      authInHandler: true,
      bodyKind: 'raw',
      tag: 'mcp',
      summary: 'MCP Streamable HTTP endpoint (protocol 2026-07-28 stateless, and 2025-11-25 / 2025-06-18 / 2025-03-26). ?profile=core lists only the typical-turn tools.',
      description: 'Bearer key required (team key, or a room invite key for that room\'s tools). Replies are application/json, or text/event-stream when the client accepts only that or a call runs long.',
      handle: post,
    },
    { method: 'GET', path: '/mcp', auth: 'none', tag: 'mcp', summary: '405: no standalone stream (stateless server).', handle: methodNotAllowed },
    { method: 'DELETE', path: '/mcp', auth: 'none', tag: 'mcp', summary: '405: no sessions to end (stateless server).', handle: methodNotAllowed },
  ]
}
