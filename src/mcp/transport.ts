// The transport between the node's one long-lived MCP server and its HTTP requests. Many clients
// share the server at once, so every request gets an internal JSON-RPC id ("~1", "~2", ...: a
// string no client id can collide with), and the server's reply is routed back to the HTTP
// request that carried it with the client's own id restored. A client that goes away becomes a
// notifications/cancelled for its request, which aborts the handler's signal.
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  ErrorCode,
  InitializeRequestSchema,
  JSONRPCRequestSchema,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js'

/** Where one request's reply goes: a plain JSON body, or SSE frames when the call runs long. */
export interface ReplySink {
  /** The final JSON-RPC response (the client's id restored). */
  reply(message: JSONRPCMessage): void
  /** A message related to the request before its response (progress, logging, a server request). */
  notify(message: JSONRPCMessage): void
}

interface Pending {
  clientId: RequestId
  sink: ReplySink
  done: boolean
}

/**
 * Extra per-request data for handlers: reaches them as `extra.authInfo.extra`. For requests the
 * transport adds `clientRequestId`: handlers see only the internal id, and a 2026-07-28
 * subscription must name the client's own id (io.modelcontextprotocol/subscriptionId).
 */
export type RequestData = Record<string, unknown>

export class MuxTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void
  private seq = 0
  private readonly pending = new Map<string, Pending>()
  /** Internal ids of requests the server sent to clients (sampling, elicitation), to route answers. */
  private readonly outbound = new Map<string, ReplySink>()

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.()
  }

  get inFlight(): number {
    return this.pending.size
  }

  /**
   * Hands one client request to the server. Resolves nothing: the reply reaches `sink`. When
   * `signal` aborts first (client gone), the handler is cancelled and nothing is sent.
   */
  request(
    message: { id: RequestId; method: string; params?: unknown },
    data: RequestData,
    sink: ReplySink,
    signal: AbortSignal,
  ): void {
    // The server silently drops a request its JSON-RPC schema refuses (params._meta not an object,
    // a bad progressToken): answer it here, or the HTTP request would wait forever.
    // initialize's own params too: the SDK parses them inside its handler and answers a failure
    // -32603 (Internal error), where the MCP specification wants -32602.
    const schema = message.method === 'initialize' ? InitializeRequestSchema : JSONRPCRequestSchema
    const shape = schema.safeParse({ ...message, jsonrpc: '2.0' })
    if (!shape.success) {
      const issue = shape.error.issues[0]
      const where = issue?.path.length ? `${issue.path.join('.')}: ` : ''
      sink.reply({
        jsonrpc: '2.0',
        id: message.id,
        error: {
          code: ErrorCode.InvalidParams,
          message: `Invalid params: ${where}${issue?.message ?? 'not a valid request'}`,
        },
      })
      return
    }
    const internal = `~${++this.seq}`
    const p: Pending = { clientId: message.id, sink, done: false }
    this.pending.set(internal, p)
    const cancel = () => {
      if (p.done) return
      p.done = true
      this.pending.delete(internal)
      this.deliver(
        {
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: internal, reason: 'client disconnected' },
        },
        data,
      )
    }
    if (signal.aborted) return cancel()
    signal.addEventListener('abort', cancel, { once: true })
    this.deliver({ ...message, jsonrpc: '2.0', id: internal } as JSONRPCMessage, {
      ...data,
      clientRequestId: message.id,
    })
  }

  /**
   * Hands a client notification to the server. notifications/cancelled is dropped: client ids are
   * not unique across clients and the request may live on another node; closing the response
   * stream is how a stateless client cancels, and that aborts the handler (see request()).
   */
  notification(message: { method: string; params?: Record<string, unknown> }, data: RequestData): void {
    if (message.method === 'notifications/cancelled') return
    this.deliver({ ...message, jsonrpc: '2.0' } as JSONRPCMessage, data)
  }

  /** A client's answer to a request the server sent it (sampling, elicitation) during a call. */
  response(message: { id: RequestId; result?: unknown; error?: unknown }, data: RequestData): boolean {
    const internal = String(message.id)
    if (!this.outbound.delete(internal)) return false
    this.deliver({ ...message, jsonrpc: '2.0' } as JSONRPCMessage, data)
    return true
  }

  private deliver(message: JSONRPCMessage, data: RequestData): void {
    this.onmessage?.(message, { authInfo: { token: '', clientId: '', scopes: [], extra: data } })
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if ('result' in message || 'error' in message) {
      const internal = String(message.id)
      const p = this.pending.get(internal)
      if (!p || p.done) return // cancelled, or the client went away
      p.done = true
      this.pending.delete(internal)
      // The client's id back, in the one key order every reply has (the SDK puts result first).
      p.sink.reply(
        'result' in message
          ? { jsonrpc: '2.0', id: p.clientId, result: message.result }
          : { jsonrpc: '2.0', id: p.clientId, error: message.error },
      )
      return
    }
    const related = options?.relatedRequestId
    const p = related === undefined ? undefined : this.pending.get(String(related))
    if (!p || p.done) return // unrelated server notifications (list changes) have no stateless listener
    if ('id' in message) this.outbound.set(String(message.id), p.sink)
    p.sink.notify(message)
  }
}
