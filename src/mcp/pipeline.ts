// One MCP message, whatever carries it: parse -> classify -> dispatch. Each stage is a function
// that hands its result to the next or ends the request with a refusal (wire.ts REFUSE and era.ts
// build every refusal, one text per fault). Messages in, messages out: the transport (for HTTP,
// src/http/mcp.ts behind the edge) has already authenticated the caller, chosen the tool profile
// and the reply forms it takes, and passes the standard metadata beside the body; the pipeline
// answers through an McpExchange with messages and protocol-era statuses.
//
//   parse     JSON (-32700)
//   classify  era rules (era.ts: batch, JSON-RPC shape, envelope, versions, standard metadata),
//             then what the message is: a request, a notification, a client's response, a
//             modern notification to drop, server/discover, or a method the modern era lacks
//   dispatch  202 for notifications and responses; server/discover answered here;
//             subscriptions/listen to the host's listen streams; a request to the host's fast
//             path (plain tools/call) or else the SDK server via the transport
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Principal } from '../auth/principal.js'
import { classify as eraRules } from './era.js'
import { decorateModernResult, discoverResult, httpStatusForError, modernDispatch } from './modern.js'
import type { MuxTransport, ReplySink, RequestData } from './transport.js'
import { decodeUtf8, invalidUtf8Message } from '../shared/utf8.js'
import type { WaitBudget } from '../shared/wait-budget.js'
import {
  ERROR,
  REFUSE,
  refusal,
  RESULT_JSON,
  type Implementation,
  type JsonObject,
  type Rejection,
  type RequestId,
} from './wire.js'

/** Which tools a request sees: all, or the `core` profile's (?profile=core). */
export type Profile = 'full' | 'core'

/** What each request hands its handlers (as extra.authInfo.extra). */
export interface McpRequestData extends RequestData {
  principal: Principal
  profile: Profile
  /** Switches the reply to SSE with keep-alive comments (long calls such as wait_for_events). */
  longRunning: () => void
  /** The request's time waiting for Redis, shared by its key lookup, rate lease and scripts. */
  budget?: WaitBudget | undefined
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
  /**
   * Serves a 2026-07-28 subscriptions/listen request on `reply` (McpHost: listen.ts); without
   * it the request goes to the SDK server like any other. Answers pre-stream refusals on
   * `reply` too. `budget`: the request's time waiting for Redis, which the checks before the
   * stream opens draw on.
   */
  listen?(
    message: { id: RequestId; params?: unknown },
    principal: Principal,
    reply: ReplyChannel,
    io: McpExchange,
    budget?: WaitBudget,
  ): Promise<void>
}

/**
 * One inbound message as the transport received it, from a caller the transport has
 * authenticated: who, which tool profile, which reply forms it takes, and the standard metadata
 * a transport carries beside the body (era.ts cross-checks it with the body).
 */
export interface McpInbound {
  principal: Principal
  profile: Profile
  /** The caller takes streamed replies (SSE frames), and whether only those. */
  accept: { canStream: boolean; streamOnly: boolean }
  /** MCP-Protocol-Version, Mcp-Method and Mcp-Name as sent. */
  protocolVersion?: string
  method?: string
  name?: string
  /** The message as sent (parsed here: a parse error is answered -32700). */
  body: Buffer | undefined
  /** The request's time waiting for Redis so far (its key lookup and rate lease). */
  budget?: WaitBudget | undefined
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
  /**
   * reply(), given the message's JSON text as well (exactly JSON.stringify(message)), which the
   * channel sends as it is unless it rewrites the message (ReplyShape.decorate).
   */
  replyJson?(message: JSONRPCMessage, json: string): void
}

/** Where the pipeline answers: one whole message (or none), or a reply channel for a request. */
export interface McpExchange {
  /** Answers with one message under `status` (a protocol-era status), or with none (202: accepted). */
  answer(status: number, message?: JSONRPCMessage | Rejected): void
  /** Opens the reply of a request. */
  openReply(shape: ReplyShape): ReplyChannel
  readonly aborted: boolean
  onAbort(fn: () => void): void
}

/** The JSON-RPC error answer of a refusal. */
export type Rejected = { jsonrpc: '2.0'; id: RequestId | null; error: Rejection['error'] }

/** The request's AbortSignal, made on first use: most calls never ask for it, and each one costs. */
export interface LazyAbort {
  /** Aborted when the client goes away before the response. */
  readonly signal: AbortSignal
}

const refused = (v: object): v is Rejection => (v as { kind?: unknown }).kind === 'reject'

function parse(raw: Buffer | undefined): { kind: 'parsed'; body: unknown } | Rejection {
  const decoded = decodeUtf8(raw ?? Buffer.alloc(0))
  if ('invalidAt' in decoded)
    return refusal(
      'utf8',
      400,
      ERROR.parseError,
      `Parse error: ${invalidUtf8Message('the request body', decoded.invalidAt)}`,
    )
  try {
    return { kind: 'parsed', body: JSON.parse(decoded.text) }
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
  | { kind: 'listen'; message: Message & { id: RequestId; method: string } }

function classify(req: McpInbound, body: unknown): Work | Rejection {
  const route = eraRules({
    protocolVersionHeader: req.protocolVersion,
    mcpMethodHeader: req.method,
    mcpNameHeader: req.name,
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
  if (route.message.method === LISTEN) return { kind: 'listen', message: route.message }
  return { kind: 'request', message: route.message, modern: true }
}

/**
 * One request as the pipeline serves it: its reply's shape (the status rule of its era, the modern
 * era's result decoration) and its abort signal, made on first use (most calls never ask for it,
 * and each one costs; the request's abort is listened to only from then on). A class: one object a
 * request, where literals made a shape, an abort holder and a closure for each.
 */
class Served implements ReplyShape, LazyAbort {
  readonly canStream: boolean
  readonly streamOnly: boolean
  readonly decorate: ((this: Served, m: JSONRPCMessage) => JSONRPCMessage) | undefined
  /** The answer comes from inside the transport's dispatch window (the SDK server's, or the host's fast path). */
  synchronous = true
  private ctl: AbortController | undefined

  constructor(
    who: McpInbound,
    readonly method: string,
    private readonly modern: boolean,
    private readonly io: McpExchange,
    readonly serverInfo: Implementation,
  ) {
    this.canStream = who.accept.canStream
    this.streamOnly = who.accept.streamOnly
    this.decorate = modern ? decorateModern : undefined
  }

  statusOf(m: JSONRPCMessage): number {
    return 'error' in m && this.modern ? httpStatusForError(m.error.code, this.synchronous) : 200
  }

  get signal(): AbortSignal {
    let ctl = this.ctl
    if (!ctl) {
      const made = (ctl = this.ctl = new AbortController())
      if (this.io.aborted) made.abort()
      else this.io.onAbort(() => made.abort())
    }
    return ctl.signal
  }
}

/** A modern result's wire form (decorateModernResult); errors as they are. */
function decorateModern(this: Served, m: JSONRPCMessage): JSONRPCMessage {
  return 'result' in m
    ? ({ ...m, result: decorateModernResult(this.method, m.result as JsonObject, this.serverInfo) } as JSONRPCMessage)
    : m
}

/** A JSON-RPC error the host chose (a malformed tools/call, an unknown tool); anything else is a bug. */
function hostError(id: RequestId, err: unknown): JSONRPCMessage {
  const code = (err as { code?: unknown }).code
  if (typeof code !== 'number') throw err
  return { jsonrpc: '2.0', id, error: { code, message: (err as Error).message } }
}

/**
 * The SDK server's -32601 names no method ("Method not found"); the answer names the one asked
 * for, as the modern era's does, so a client's log says what it called.
 */
function namingMethod(m: JSONRPCMessage, method: string): JSONRPCMessage {
  if (!('error' in m) || m.error.code !== ERROR.methodNotFound || m.error.message !== 'Method not found') return m
  return { ...m, error: { ...m.error, message: `Method not found: ${method}` } }
}

async function request(
  work: Extract<Work, { kind: 'request' }>,
  who: McpInbound,
  io: McpExchange,
  host: EndpointHost,
): Promise<void> {
  const { message, modern } = work
  const served = new Served(who, message.method, modern, io, host.serverInfo)
  const out = io.openReply(served)
  const data: McpRequestData = {
    principal: who.principal,
    profile: who.profile,
    longRunning: () => out.startStream(),
    budget: who.budget,
  }
  const fast = host.fastCall?.(message, data, served)
  if (fast) {
    let reply: JSONRPCMessage
    let json: string | undefined
    try {
      const result = (await fast) as JsonObject & { [RESULT_JSON]?: string }
      reply = { jsonrpc: '2.0', id: message.id, result } as JSONRPCMessage
      const text = result[RESULT_JSON]
      if (text !== undefined) json = `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${text}}`
    } catch (err) {
      reply = hostError(message.id, err)
    }
    if (io.aborted) return
    if (json !== undefined && out.replyJson) out.replyJson(reply, json)
    else out.reply(reply)
    return
  }
  await new Promise<void>((resolve) => {
    const sink = {
      reply: (m: JSONRPCMessage) => {
        out.reply(namingMethod(m, message.method))
        resolve()
      },
      notify: (m: JSONRPCMessage) => out.notify(m),
    }
    io.onAbort(resolve)
    host.transport.request(message, data, sink, served.signal)
    served.synchronous = false
  })
}

const LISTEN = 'subscriptions/listen'
const listenShapes = new WeakMap<EndpointHost, Pick<ReplyShape, 'statusOf' | 'decorate'>>()

/** The functions of every listen reply of `host`: its status rule and its result decoration. */
function listenShape(host: EndpointHost): Pick<ReplyShape, 'statusOf' | 'decorate'> {
  let shape = listenShapes.get(host)
  if (!shape) {
    const { serverInfo } = host
    shape = {
      statusOf: (m) => ('error' in m ? httpStatusForError(m.error.code, false) : 200),
      decorate: (m) =>
        'result' in m
          ? ({ ...m, result: decorateModernResult(LISTEN, m.result as JsonObject, serverInfo) } as JSONRPCMessage)
          : m,
    }
    listenShapes.set(host, shape)
  }
  return shape
}

/**
 * A listen request: a reply stream the host keeps open (listen.ts). A client that does not take
 * SSE cannot be served one: -32600 in-band.
 */
function listen(
  work: Extract<Work, { kind: 'listen' }>,
  who: McpInbound,
  io: McpExchange,
  host: EndpointHost & Required<Pick<EndpointHost, 'listen'>>,
): Promise<void> | void {
  const { message } = work
  // The reply lives as long as the stream, and thousands of idle streams may be open: its shape
  // holds functions made once per host, and two flags.
  const out = io.openReply({ ...listenShape(host), canStream: who.accept.canStream, streamOnly: who.accept.streamOnly })
  if (!who.accept.canStream)
    return out.reply({
      jsonrpc: '2.0',
      id: message.id,
      error: {
        code: ERROR.invalidRequest,
        message: 'Invalid request: subscriptions/listen answers with a stream: Accept must include text/event-stream',
      },
    })
  return host.listen(message, who.principal, out, io, who.budget)
}

function dispatch(work: Work, who: McpInbound, io: McpExchange, host: EndpointHost): Promise<void> | void {
  switch (work.kind) {
    case 'listen':
      if (host.listen) return listen(work, who, io, host as EndpointHost & Required<Pick<EndpointHost, 'listen'>>)
      return request({ kind: 'request', message: work.message, modern: true }, who, io, host)
    case 'request':
      return request(work, who, io, host)
    case 'discover':
      return io.answer(200, {
        jsonrpc: '2.0',
        id: work.id,
        result: discoverResult(host.serverInfo, host.capabilities, host.instructions),
      } as JSONRPCMessage)
    case 'notification':
      host.transport.notification(work.message, { principal: who.principal, profile: who.profile })
      return io.answer(202)
    case 'response':
      // A client's answer to a request the server sent during a call (legacy era only).
      host.transport.response(work.message, { principal: who.principal, profile: who.profile })
      return io.answer(202)
    case 'drop':
      return io.answer(202)
  }
}

/** Answers a refusal as a JSON-RPC error response under its status. */
export function refuse(io: Pick<McpExchange, 'answer'>, r: Rejection): void {
  io.answer(r.httpStatus, { jsonrpc: '2.0', id: r.id, error: r.error })
}

/** The pipeline for one MCP server: serve(message, exchange) answers one inbound message. */
export function mcpPipeline(host: EndpointHost): (req: McpInbound, io: McpExchange) => Promise<void> {
  // Not an async function: a request's own promise (dispatch's) is answered as it is, one fewer a call.
  return (req, io) => {
    try {
      const parsed = parse(req.body)
      const work = refused(parsed) ? parsed : classify(req, parsed.body)
      if (refused(work)) {
        refuse(io, work)
        return DONE
      }
      return dispatch(work, req, io, host) ?? DONE
    } catch (err) {
      return Promise.reject(err)
    }
  }
}

/** What the pipeline answers for a message answered at once (a resolved promise is never changed). */
const DONE: Promise<void> = Promise.resolve()
