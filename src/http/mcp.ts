// MCP over HTTP: the routes of /mcp, a thin transport in front of the MCP request pipeline
// (src/mcp/pipeline.ts). POST hands the pipeline the headers, ?profile= and the raw body, and
// answers through the Exchange: the key and rate limit checked by admit() (its AppError answered
// by the dispatcher like any route's), whole bodies, and JSON or SSE replies (mcp-reply.ts). GET
// and DELETE answer 405: there is no session and no standalone stream to open or close.
import type { Principal } from '../auth/principal.js'
import { mcpPipeline, refuse, type EndpointHost, type McpExchange, type ReplyShape } from '../mcp/pipeline.js'
import { REFUSE } from '../mcp/wire.js'
import { admit, type AdmitDeps } from './dispatch.js'
import type { Exchange } from './exchange.js'
import { HttpReply, type SseSettings } from './mcp-reply.js'
import type { Route } from './router.js'

/** What the endpoint uses: keys and rate limits for admit(), allowed origins, SSE reply settings. */
export interface McpRouteDeps extends AdmitDeps {
  settings: { mcpAllowedOrigins: readonly string[]; sseKeepaliveMs: number; sseBufferBytes: number }
}

/** One POST as the pipeline sees it (a class: one allocation a call, on the hot path). */
class HttpMcpExchange implements McpExchange {
  constructor(
    private readonly ex: Exchange,
    private readonly deps: AdmitDeps,
    private readonly sse: SseSettings,
  ) {}

  authenticate(): Promise<Principal> {
    return admit(this.deps, this.ex, 'any')
  }

  send(status: number, body: string, headers?: Record<string, string>): void {
    this.ex.send(status, body, headers)
  }

  openReply(shape: ReplyShape): HttpReply {
    return new HttpReply(this.ex, shape, this.sse)
  }

  get aborted(): boolean {
    return this.ex.aborted
  }

  onAbort(fn: () => void): void {
    this.ex.onAbort(fn)
  }
}

export function mcpRoutes(deps: McpRouteDeps, host: EndpointHost, opts: { anonymous?: Principal } = {}): Route[] {
  const serve = mcpPipeline(host, { allowedOrigins: deps.settings.mcpAllowedOrigins, anonymous: opts.anonymous })
  const sse: SseSettings = { keepaliveMs: deps.settings.sseKeepaliveMs, bufferBytes: deps.settings.sseBufferBytes }
  const methodNotAllowed = async ({ ex }: { ex: Exchange }) => refuse(ex, REFUSE.httpMethod)
  const post = async ({ ex, raw }: { ex: Exchange; raw?: Buffer }) => {
    await serve(
      { headers: ex.req.headers, profile: ex.req.query.get('profile') ?? undefined, body: raw },
      new HttpMcpExchange(ex, deps, sse),
    )
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
      summary:
        'MCP Streamable HTTP endpoint (protocol 2026-07-28 stateless, and 2025-11-25 / 2025-06-18 / ' +
        '2025-03-26). ?profile=core lists only the typical-turn tools.',
      description:
        "Bearer key required (team key, or a room invite key for that room's tools). Replies are " +
        'application/json, or text/event-stream when the client accepts only that or a call runs long.',
      handle: post,
    },
    {
      method: 'GET',
      path: '/mcp',
      auth: 'none',
      tag: 'mcp',
      summary: '405: no standalone stream (stateless server).',
      handle: methodNotAllowed,
    },
    {
      method: 'DELETE',
      path: '/mcp',
      auth: 'none',
      tag: 'mcp',
      summary: '405: no sessions to end (stateless server).',
      handle: methodNotAllowed,
    },
  ]
}
