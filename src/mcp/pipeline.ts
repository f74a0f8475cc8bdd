// One MCP request, whatever carries it: guard -> parse -> classify -> dispatch. Each stage is a
// function that hands its result to the next or ends the request with a refusal (wire.ts REFUSE
// and era.ts build every refusal, one text per fault). Transport-neutral: the HTTP adapter
// (src/http/mcp.ts) passes headers, the ?profile= value and the raw body, and an McpExchange to
// answer through; nothing here knows HTTP beyond status numbers and header names.
//
//   guard     Origin (403), keyless Host (403), key and rate limit (the transport's answer),
//             profile, Accept (406), Content-Type (415)
//   parse     JSON (-32700)
//   classify  era rules (era.ts: batch, JSON-RPC shape, envelope, versions, standard headers),
//             then what the message is: a request, a notification, a client's response, a
//             modern notification to drop, server/discover, or a method the modern era lacks
//   dispatch  202 for notifications and responses; server/discover answered here; a request
//             to the host's fast path (plain tools/call) or else the SDK server via the transport
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Principal } from '../auth/principal.js'
import { AppError } from '../shared/errors.js'
import { classify as eraRules } from './era.js'
import { decorateModernResult, discoverResult, httpStatusForError, modernDispatch } from './modern.js'
import type { MuxTransport, ReplySink, RequestData } from './transport.js'
import { REFUSE, type Implementation, type JsonObject, type Rejection, type RequestId } from './wire.js'

/** Which tools a request sees: all, or the `core` profile's (?profile=core). */
export type Profile = 'full' | 'core'

/** What each request hands its handlers (as extra.authInfo.extra). */
export interface McpRequestData extends RequestData {
  principal: Principal
  profile: Profile
  /** Switches the reply to SSE with keep-alive comments (long calls such as wait_for_events). */
  longRunning: () => void
}

/**
 * What the pipeline needs from the MCP server behind it: the MuxTransport the server is connected
 * to, and what server/discover reports (SDK 1.32 has no discover handler). McpHost is the node's;
 * test/mcp-fixtures serves the conformance fixture server through the same pipeline.
 */
export interface EndpointHost {
  readonly transport: MuxTransport
  readonly serverInfo: Implementation
  readonly capabilities: JsonObject
  readonly instructions?: string
  /**
   * Answers a request without the SDK server when it can (McpHost: tools/call), else undefined.
   * A rejection carrying a numeric `code` is answered as that JSON-RPC error.
   */
  fastCall?(
    message: { method: string; params?: unknown },
    data: McpRequestData,
    abort: LazyAbort,
  ): Promise<unknown> | undefined
}

/** One inbound request as the transport received it. */
export interface McpInbound {
  /** Header values by lower-case name. */
  headers: Readonly<Record<string, string | undefined>>
  /** The `profile` query parameter. */
  profile: string | undefined
  body: Buffer | undefined
}

/** How a request's reply is shaped; the transport adds keep-alives and buffering. */
export interface ReplyShape {
  /** The client accepts text/event-stream. */
  canStream: boolean
  /** The client accepts only text/event-stream. */
  streamOnly: boolean
  /** HTTP status of an error response (protocol-era rules); 200 for results. */
  statusOf(message: JSONRPCMessage): number
  /** Rewrites a response before it is sent (modern-era result decoration). */
  decorate?(message: JSONRPCMessage): JSONRPCMessage
}

/** Where one request's reply goes; startStream switches it to SSE (long calls). */
export interface ReplyChannel extends ReplySink {
  startStream(): void
}

/** What the pipeline needs from the transport that carries the request. */
export interface McpExchange {
  /** Checks the key and the rate limit; throws the AppError the transport answers with. */
  authenticate(): Promise<Principal>
  /** Answers with one whole body. */
  send(status: number, body: string, headers?: Record<string, string>): void
  /** Opens the reply of a request. */
  openReply(shape: ReplyShape): ReplyChannel
  readonly aborted: boolean
  onAbort(fn: () => void): void
}

/** The request's AbortSignal, made on first use: most calls never ask for it, and each one costs. */
export interface LazyAbort {
  /** Aborted when the client goes away before the response. */
  readonly signal: AbortSignal
}

export interface PipelineOptions {
  /** Origins allowed besides the node's own host ('*': any). */
  allowedOrigins: readonly string[]
  /** TEST ONLY: who a request without a key acts as (it must name a loopback Host). */
  anonymous?: Principal
}

const JSON_TYPE = { 'Content-Type': 'application/json' }

/** Origins allowed to call: none but the node's own host unless configured (DNS-rebinding protection). */
export function originAllowed(
  origin: string | undefined,
  host: string | undefined,
  allowed: readonly string[],
): boolean {
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

interface Accept {
  canStream: boolean
  streamOnly: boolean
}

function acceptOf(accept: string | undefined): Accept | undefined {
  if (!accept) return { canStream: false, streamOnly: false }
  const a = accept.toLowerCase()
  const json = a.includes('application/json') || a.includes('*/*') || a.includes('application/*')
  const sse = a.includes('text/event-stream')
  return json || sse ? { canStream: sse, streamOnly: sse && !json } : undefined
}

function profileOf(param: string | undefined): Profile {
  const p = param ?? 'full'
  if (p !== 'full' && p !== 'core')
    throw new AppError('invalid_request', 'profile: must be "core" or "full"', { field: 'profile' })
  return p
}

const refused = (v: object): v is Rejection => (v as { kind?: unknown }).kind === 'reject'

/** Who is calling, with which tool profile, taking which reply forms. */
interface Admitted {
  kind: 'admitted'
  principal: Principal
  profile: Profile
  accept: Accept
}

async function guard(req: McpInbound, io: McpExchange, opts: PipelineOptions): Promise<Admitted | Rejection> {
  const h = req.headers
  if (!originAllowed(h.origin, h.host, opts.allowedOrigins)) return REFUSE.origin
  const keyless = h.authorization ? undefined : opts.anonymous
  if (keyless && !loopbackHost(h.host)) return REFUSE.keylessHost
  const principal = keyless ?? (await io.authenticate())
  const profile = profileOf(req.profile)
  const accept = acceptOf(h.accept)
  if (!accept) return REFUSE.notAcceptable
  const type = h['content-type']
  if (type !== undefined && !/^application\/json\s*(;|$)/i.test(type)) return REFUSE.mediaType
  return { kind: 'admitted', principal, profile, accept }
}

function parse(raw: Buffer | undefined): { kind: 'parsed'; body: unknown } | Rejection {
  try {
    return { kind: 'parsed', body: JSON.parse((raw ?? Buffer.alloc(0)).toString('utf8')) }
  } catch {
    return REFUSE.parse
  }
}

type Message = { id?: RequestId; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown }

/** What a classified message asks for. */
type Work =
  | { kind: 'request'; message: Message & { id: RequestId; method: string }; modern: boolean }
  | { kind: 'notification'; message: Message & { method: string } }
  | { kind: 'response'; message: Message & { id: RequestId } }
  /** A modern notification the era does not define: accepted, not delivered. */
  | { kind: 'drop' }
  | { kind: 'discover'; id: RequestId }

function classify(h: McpInbound['headers'], body: unknown): Work | Rejection {
  const route = eraRules({
    httpMethod: 'POST',
    protocolVersionHeader: h['mcp-protocol-version'],
    mcpMethodHeader: h['mcp-method'],
    mcpNameHeader: h['mcp-name'],
    body,
  })
  if (route.kind === 'reject') return route
  const message = body as Message
  if (route.kind === 'legacy') {
    if (route.reason === 'response') return { kind: 'response', message: message as Message & { id: RequestId } }
    if (route.reason === 'notification')
      return { kind: 'notification', message: message as Message & { method: string } }
    return { kind: 'request', message: message as Message & { id: RequestId; method: string }, modern: false }
  }
  const action = modernDispatch(route)
  if (action.action === 'reject')
    return { kind: 'reject', rule: 'modern-method', httpStatus: action.httpStatus, error: action.error, id: action.id }
  if (action.action === 'drop') return { kind: 'drop' }
  if (route.messageKind === 'notification') return { kind: 'notification', message: route.message }
  if (action.action === 'discover') return { kind: 'discover', id: route.message.id }
  return { kind: 'request', message: route.message, modern: true }
}

function lazyAbort(io: McpExchange): LazyAbort {
  let ctl: AbortController | undefined
  io.onAbort(() => ctl?.abort())
  return {
    get signal() {
      if (!ctl) {
        ctl = new AbortController()
        if (io.aborted) ctl.abort()
      }
      return ctl.signal
    },
  }
}

/** A JSON-RPC error the host chose (a malformed tools/call, an unknown tool); anything else is a bug. */
function hostError(id: RequestId, err: unknown): JSONRPCMessage {
  const code = (err as { code?: unknown }).code
  if (typeof code !== 'number') throw err
  return { jsonrpc: '2.0', id, error: { code, message: (err as Error).message } }
}

async function request(
  work: Extract<Work, { kind: 'request' }>,
  who: Admitted,
  io: McpExchange,
  host: EndpointHost,
): Promise<void> {
  const { message, modern } = work
  let synchronous = true
  const out = io.openReply({
    canStream: who.accept.canStream,
    streamOnly: who.accept.streamOnly,
    statusOf: (m) => ('error' in m && modern ? httpStatusForError(m.error.code, synchronous) : 200),
    decorate: modern
      ? (m) =>
          'result' in m
            ? ({
                ...m,
                result: decorateModernResult(message.method, m.result as JsonObject, host.serverInfo),
              } as JSONRPCMessage)
            : m
      : undefined,
  })
  const data: McpRequestData = { principal: who.principal, profile: who.profile, longRunning: () => out.startStream() }
  const abort = lazyAbort(io)
  const fast = host.fastCall?.(message, data, abort)
  if (fast) {
    let reply: JSONRPCMessage
    try {
      reply = { jsonrpc: '2.0', id: message.id, result: (await fast) as JsonObject } as JSONRPCMessage
    } catch (err) {
      reply = hostError(message.id, err)
    }
    if (!io.aborted) out.reply(reply)
    return
  }
  await new Promise<void>((resolve) => {
    const sink = {
      reply: (m: JSONRPCMessage) => {
        out.reply(m)
        resolve()
      },
      notify: (m: JSONRPCMessage) => out.notify(m),
    }
    io.onAbort(resolve)
    host.transport.request(message, data, sink, abort.signal)
    synchronous = false
  })
}

function dispatch(work: Work, who: Admitted, io: McpExchange, host: EndpointHost): Promise<void> | void {
  switch (work.kind) {
    case 'request':
      return request(work, who, io, host)
    case 'discover':
      return io.send(
        200,
        JSON.stringify({
          jsonrpc: '2.0',
          id: work.id,
          result: discoverResult(host.serverInfo, host.capabilities, host.instructions),
        }),
        JSON_TYPE,
      )
    case 'notification':
      host.transport.notification(work.message, { principal: who.principal, profile: who.profile })
      return io.send(202, '')
    case 'response':
      // A client's answer to a request the server sent during a call (legacy era only).
      host.transport.response(work.message, { principal: who.principal, profile: who.profile })
      return io.send(202, '')
    case 'drop':
      return io.send(202, '')
  }
}

/** Answers a refusal as a JSON-RPC error response under its HTTP status. */
export function refuse(io: Pick<McpExchange, 'send'>, r: Rejection): void {
  io.send(r.httpStatus, JSON.stringify({ jsonrpc: '2.0', id: r.id, error: r.error }), { ...JSON_TYPE, ...r.headers })
}

/** The pipeline for one MCP server: serve(request, exchange) answers one POST. */
export function mcpPipeline(
  host: EndpointHost,
  opts: PipelineOptions,
): (req: McpInbound, io: McpExchange) => Promise<void> {
  return async (req, io) => {
    const who = await guard(req, io, opts)
    if (refused(who)) return refuse(io, who)
    const parsed = parse(req.body)
    if (refused(parsed)) return refuse(io, parsed)
    const work = classify(req.headers, parsed.body)
    if (refused(work)) return refuse(io, work)
    await dispatch(work, who, io, host)
  }
}
