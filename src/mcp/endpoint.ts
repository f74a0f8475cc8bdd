// POST /mcp: Streamable HTTP for both protocol eras on one endpoint, stateless across nodes.
// Order of checks: Origin (403) -> key and rate limit (401/403/429) -> Accept (406) -> JSON
// (-32700) -> era classification and the 2026-07-28 header rules (src/mcp/era.ts) -> a plain
// tools/call straight to the tool table (McpHost.fastCall), anything else to the node's one MCP
// server through the MuxTransport. GET and DELETE answer 405: there is no session and no
// standalone stream to open or close.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Principal } from '../auth/principal.js'
import { AppError } from '../core/errors.js'
import { admit, sendError } from '../http/dispatch.js'
import type { Exchange } from '../http/exchange.js'
import type { Route } from '../http/router.js'
import type { ServiceNode } from '../node.js'
import * as era from './era.js'
import type { McpRequestData, Profile } from './host.js'
import { HttpReply } from './reply.js'
import type { MuxTransport } from './transport.js'

/**
 * What the endpoint needs from the MCP server behind it: the MuxTransport the server is connected
 * to, and what server/discover reports (SDK 1.32 has no discover handler). McpHost is the node's;
 * test/mcp-fixtures serves the conformance fixture server through the same endpoint.
 */
export interface EndpointHost {
  readonly transport: MuxTransport
  readonly serverInfo: era.Implementation
  readonly capabilities: era.JsonObject
  readonly instructions?: string
  /**
   * Answers a request without the SDK server when it can (McpHost: plain tools/call), else
   * undefined. A rejection carrying a numeric `code` is answered as that JSON-RPC error.
   */
  fastCall?(message: { method: string; params?: unknown }, data: McpRequestData, abort: LazyAbort): Promise<unknown> | undefined
}

/** The node parts the endpoint uses: settings, and keys and rate limits for admit(). */
export type EndpointNode = Pick<ServiceNode, 'settings' | 'keyring' | 'rateLimiter' | 'metrics'>

type Rejection = { httpStatus: number; error: { code: number; message: string; data?: unknown }; headers?: Record<string, string> }

function rpcError(ex: Exchange, r: Rejection, id: era.RequestId | null = null): void {
  ex.send(r.httpStatus, JSON.stringify({ jsonrpc: '2.0', id, error: r.error }), { 'Content-Type': 'application/json', ...r.headers })
}

/** Origins allowed to call: none but the node's own host unless configured (DNS-rebinding protection). */
export function originAllowed(origin: string | undefined, host: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined || origin === 'null') return origin === undefined
  if (allowed.includes('*') || allowed.includes(origin)) return true
  try {
    return host !== undefined && new URL(origin).host === host
  } catch {
    return false
  }
}

/**
 * Whether a Host header names this machine's loopback interface (localhost, 127.x.x.x, [::1]).
 * A request without a key proves nothing about where it comes from: a page whose DNS name was
 * rebound to 127.0.0.1 sends its own name as Host and as a matching Origin, so the same-host
 * Origin rule alone does not stop it. Keys do (a page cannot have one); keyless requests exist
 * only in the test-only anonymous mode, which therefore also requires a loopback Host.
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

/** The request's AbortSignal, made on first use: most calls never ask for it, and each one costs. */
export interface LazyAbort {
  /** Aborted when the client goes away before the response. */
  readonly signal: AbortSignal
}

function lazyAbort(ex: Exchange): LazyAbort {
  let ctl: AbortController | undefined
  ex.onAbort(() => ctl?.abort())
  return {
    get signal() {
      if (!ctl) {
        ctl = new AbortController()
        if (ex.aborted) ctl.abort()
      }
      return ctl.signal
    },
  }
}

function acceptOf(accept: string | undefined): { canStream: boolean; streamOnly: boolean; ok: boolean } {
  if (!accept) return { canStream: false, streamOnly: false, ok: true }
  const a = accept.toLowerCase()
  const json = a.includes('application/json') || a.includes('*/*') || a.includes('application/*')
  const sse = a.includes('text/event-stream')
  return { canStream: sse, streamOnly: sse && !json, ok: json || sse }
}

export function mcpRoutes(node: EndpointNode, host: EndpointHost, opts: { anonymous?: Principal } = {}): Route[] {
  const methodNotAllowed = async ({ ex }: { ex: Exchange }) => {
    rpcError(ex, era.METHOD_NOT_ALLOWED)
    return undefined
  }

  const handle = async (ex: Exchange, raw: Buffer | undefined): Promise<undefined> => {
    const h = ex.req.headers
    if (!originAllowed(h.origin, h.host, node.settings.mcpAllowedOrigins)) {
      rpcError(ex, { httpStatus: 403, error: { code: era.ERROR.transport, message: 'Forbidden: Origin not allowed' } })
      return undefined
    }
    const anonymous = h.authorization ? undefined : opts.anonymous
    if (anonymous && !loopbackHost(h.host)) {
      rpcError(ex, { httpStatus: 403, error: { code: era.ERROR.transport, message: 'Forbidden: requests without a key must name a loopback Host' } })
      return undefined
    }
    let principal: Principal
    try {
      principal = anonymous ?? (await admit(node, ex, 'any'))
    } catch (err) {
      if (err instanceof AppError) sendError(ex, err)
      else throw err
      return undefined
    }
    const profileParam = ex.req.query.get('profile') ?? 'full'
    if (profileParam !== 'full' && profileParam !== 'core') {
      throw new AppError('invalid_request', 'profile: must be "core" or "full"', { field: 'profile' })
    }
    const profile = profileParam as Profile
    const accept = acceptOf(h.accept)
    if (!accept.ok) {
      rpcError(ex, { httpStatus: 406, error: { code: era.ERROR.transport, message: 'Not Acceptable: the client must accept application/json or text/event-stream' } })
      return undefined
    }
    const contentType = h['content-type']
    if (contentType !== undefined && !/^application\/json\s*(;|$)/i.test(contentType)) {
      rpcError(ex, { httpStatus: 415, error: { code: era.ERROR.transport, message: 'Unsupported Media Type: Content-Type must be application/json' } })
      return undefined
    }
    let body: unknown
    try {
      body = JSON.parse((raw ?? Buffer.alloc(0)).toString('utf8'))
    } catch {
      rpcError(ex, era.PARSE_ERROR)
      return undefined
    }
    if (Array.isArray(body)) {
      rpcError(ex, { httpStatus: 400, error: { code: era.ERROR.invalidRequest, message: 'Bad Request: JSON-RPC batches are not supported' } })
      return undefined
    }
    const route = era.classify({
      httpMethod: 'POST',
      protocolVersionHeader: h['mcp-protocol-version'],
      mcpMethodHeader: h['mcp-method'],
      mcpNameHeader: h['mcp-name'],
      body,
    })
    if (route.kind === 'reject') {
      rpcError(ex, route, route.id)
      return undefined
    }

    let modern: era.ModernRoute | undefined
    if (route.kind === 'modern') {
      const bad = era.validateStandardHeaders({ protocolVersionHeader: h['mcp-protocol-version'], mcpMethodHeader: h['mcp-method'], mcpNameHeader: h['mcp-name'] }, route)
      if (bad) {
        rpcError(ex, bad, bad.id)
        return undefined
      }
      const action = era.modernDispatch(route)
      if (action.action === 'reject') {
        rpcError(ex, action, action.id)
        return undefined
      }
      if (action.action === 'drop') {
        ex.send(202, '')
        return undefined
      }
      if (action.action === 'discover') {
        const id = (route.message as era.JsonRpcRequest).id
        ex.json(200, { jsonrpc: '2.0', id, result: era.discoverResult(host.serverInfo, host.capabilities, host.instructions) })
        return undefined
      }
      modern = route
    }

    const message = (modern ? modern.message : body) as { id?: era.RequestId; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown }
    const replyTo: { out?: HttpReply } = {}
    const data: McpRequestData = { principal, profile, longRunning: () => replyTo.out?.startStream() }
    if (message.method === undefined) {
      // A client's answer to a request the server sent during a call (legacy era only).
      host.transport.response(message as { id: era.RequestId }, data)
      ex.send(202, '')
      return undefined
    }
    if (message.id === undefined) {
      host.transport.notification(message as { method: string; params?: Record<string, unknown> }, data)
      ex.send(202, '')
      return undefined
    }

    let synchronous = true
    const method = message.method
    const out = new HttpReply(ex, {
      canStream: accept.canStream,
      streamOnly: accept.streamOnly,
      keepaliveMs: node.settings.sseKeepaliveMs,
      bufferBytes: node.settings.sseBufferBytes,
      statusOf: (m) => ('error' in m && modern ? era.httpStatusForError(m.error.code, synchronous) : 200),
      decorate: modern
        ? (m) => ('result' in m ? ({ ...m, result: era.decorateModernResult(method, m.result as era.JsonObject, host.serverInfo) } as JSONRPCMessage) : m)
        : undefined,
    })
    replyTo.out = out
    const abort = lazyAbort(ex)
    const fast = host.fastCall?.(message as { method: string; params?: unknown }, data, abort)
    if (fast) {
      let reply: JSONRPCMessage
      try {
        reply = { jsonrpc: '2.0', id: message.id, result: await fast } as JSONRPCMessage
      } catch (err) {
        // A JSON-RPC error the host chose (a malformed tools/call); anything else is a bug.
        const code = (err as { code?: unknown }).code
        if (typeof code !== 'number') throw err
        reply = { jsonrpc: '2.0', id: message.id, error: { code, message: (err as Error).message } } as JSONRPCMessage
      }
      if (!ex.aborted) out.reply(reply)
      return undefined
    }
    await new Promise<void>((resolve) => {
      const sink = {
        reply: (m: JSONRPCMessage) => {
          out.reply(m)
          resolve()
        },
        notify: (m: JSONRPCMessage) => out.notify(m),
      }
      ex.onAbort(resolve)
      host.transport.request(message as { id: era.RequestId; method: string; params?: unknown }, data, sink, abort.signal)
      synchronous = false
    })
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
      handle: async ({ ex, raw }) => handle(ex, raw),
    },
    { method: 'GET', path: '/mcp', auth: 'none', tag: 'mcp', summary: '405: no standalone stream (stateless server).', handle: methodNotAllowed },
    { method: 'DELETE', path: '/mcp', auth: 'none', tag: 'mcp', summary: '405: no sessions to end (stateless server).', handle: methodNotAllowed },
  ]
}
