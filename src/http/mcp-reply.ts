// How one MCP request is answered over HTTP: a plain JSON body, or an SSE stream
// (`event: message` frames) when the client accepts only text/event-stream, when the server
// sends something before the response (progress, logging), or when a call runs long — then a
// keep-alive comment every SSE_KEEPALIVE_S keeps proxies from cutting it.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { ReplyChannel, ReplyShape } from '../mcp/pipeline.js'
import type { Exchange, StreamWriter } from './exchange.js'

/** The node's SSE settings: keep-alive interval, and how much a slow client may have buffered. */
export interface SseSettings {
  keepaliveMs: number
  bufferBytes: number
}

const JSON_TYPE = { 'Content-Type': 'application/json' }
const frame = (m: JSONRPCMessage) => `event: message\ndata: ${JSON.stringify(m)}\n\n`

export class HttpReply implements ReplyChannel {
  private stream: StreamWriter | undefined
  private keepalive: NodeJS.Timeout | undefined
  done = false

  constructor(
    private readonly ex: Exchange,
    private readonly opts: ReplyShape,
    private readonly sse: SseSettings,
  ) {
    if (opts.streamOnly) this.startStream()
  }

  /** Switches to SSE (when the client accepts it) with keep-alive comments. */
  startStream(): void {
    if (this.stream || !this.opts.canStream || this.done || this.ex.responded) return
    this.stream = this.ex.stream(
      200,
      { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' },
      this.sse.bufferBytes,
    )
    this.keepalive = setInterval(() => this.stream?.write(': keep-alive\n\n'), this.sse.keepaliveMs)
    // A cancelled call (the client went away) never replies: stop the keep-alives with the connection.
    this.ex.onAbort(() => clearInterval(this.keepalive))
  }

  reply(message: JSONRPCMessage): void {
    if (this.done) return
    this.done = true
    clearInterval(this.keepalive)
    const m = this.opts.decorate ? this.opts.decorate(message) : message
    if (this.stream) this.stream.end(frame(m))
    else this.ex.send(this.opts.statusOf(m), JSON.stringify(m), JSON_TYPE)
  }

  notify(message: JSONRPCMessage): void {
    if (this.done) return
    this.startStream()
    this.stream?.write(frame(message))
  }
}
