// How one MCP request is answered over HTTP: a plain JSON body, or an SSE session
// (sse-session.ts: `event: message` frames, keep-alive comments) when the client accepts only
// text/event-stream, when the server sends something before the response (progress, logging),
// or when a call runs long. A reply stream carries no event ids and sends no retry hint: no
// client resumes it. The node's drain does not cut it: the drain waits for the call to answer.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { ReplyChannel, ReplyShape } from '../mcp/pipeline.js'
import type { Exchange } from './exchange.js'
import { sseFrame, type SseSession, type SseSessions } from './sse-session.js'

const JSON_TYPE = { 'Content-Type': 'application/json' }

/** The SSE frame of one JSON-RPC message. */
export const mcpFrame = (m: JSONRPCMessage): string => sseFrame('message', m)

export class HttpReply implements ReplyChannel {
  private session: SseSession | undefined
  /** The request, until the reply is sent or its stream started: a long stream does not keep it. */
  private ex: Exchange | undefined
  done = false

  constructor(
    ex: Exchange,
    private readonly opts: ReplyShape,
    private readonly sse: Pick<SseSessions, 'open'>,
  ) {
    this.ex = ex
    if (opts.streamOnly) this.startStream()
  }

  /** Switches to SSE (when the client accepts it). */
  startStream(): void {
    const ex = this.ex
    if (this.session || !this.opts.canStream || this.done || !ex || ex.responded) return
    this.session = this.sse.open(ex, { retryMs: 0, onDrain: false })
    this.ex = undefined
  }

  reply(message: JSONRPCMessage): void {
    if (this.done) return
    const m = this.opts.decorate ? this.opts.decorate(message) : message
    this.send(m, JSON.stringify(m))
  }

  replyJson(message: JSONRPCMessage, json: string): void {
    if (this.opts.decorate) this.reply(message)
    else this.send(message, json)
  }

  /** Sends `m` (its JSON text `json`) as the JSON body, or as the stream's last frame. */
  private send(m: JSONRPCMessage, json: string): void {
    if (this.done) return
    this.done = true
    if (this.session)
      this.session.end(`event: message\ndata: ${json}\n\n`) // mcpFrame(m), from its JSON
    else this.ex?.send(this.opts.statusOf(m), json, JSON_TYPE)
    this.ex = undefined
  }

  notify(message: JSONRPCMessage): void {
    if (this.done) return
    this.startStream()
    this.session?.write(mcpFrame(message))
  }
}
