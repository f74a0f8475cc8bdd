// The only file that knows uWebSockets.js: the listening server, and one HTTP request with its
// response, made safe to use across awaits. Another build or another server swaps in here alone
// (docs/operations.md, "Node.js").
// - every header is read synchronously when the request arrives (uWS's request object dies after
//   the handler's first tick);
// - onAborted is registered before any await; after an abort nothing touches the response;
// - every write after an await is corked;
// - the body is read with a size limit, each chunk copied (uWS reuses the buffer).
import { createRequire } from 'node:module'
import type * as UWS from 'uWebSockets.js'
import type { HttpRequest, HttpResponse } from 'uWebSockets.js'
import { AppError, ERRORS } from '../shared/errors.js'
import { newWaitBudget, type WaitBudget } from '../shared/wait-budget.js'

let loaded: typeof UWS | undefined

/**
 * uWebSockets.js, loaded on first use. Its package's main is `module.exports =
 * require('./uws.node')`: ESM sees no named exports in it, so it is loaded with require and typed
 * by types/uWebSockets.js. The binary reads its header size limit from the environment once, when
 * it loads: `maxHeaderBytes` of the first call sets it.
 */
function uws(maxHeaderBytes?: number): typeof UWS {
  if (!loaded) {
    if (maxHeaderBytes !== undefined) process.env.UWS_HTTP_MAX_HEADERS_SIZE = String(maxHeaderBytes)
    loaded = createRequire(import.meta.url)('uWebSockets.js') as typeof UWS
  }
  return loaded
}

/**
 * Throws unless uWebSockets.js runs on its native binding. The build in use
 * (@uwsjs/linux-x64-22) has no JavaScript fallback and fails to load on another Node ABI, but
 * other builds fall back to a far slower JS implementation with only a console line: a node
 * refuses to run on one.
 */
export function assertNativeHttp(maxHeaderBytes?: number): void {
  if (!String(uws(maxHeaderBytes).App).includes('[native code]')) {
    throw new Error(
      `uWebSockets.js did not load its native binding on Node ${process.versions.node} (ABI ` +
        `${process.versions.modules}); refusing to run on the slow fallback`,
    )
  }
}

/** A listening HTTP server. */
export interface HttpServer {
  /** The port actually bound (the one asked for, or a free one for port 0). */
  readonly port: number
  /** Stops accepting connections; open ones carry on until they end. */
  close(): void
}

/**
 * Listens on host:port and hands every request, whatever its method and path, to `handle`. A
 * request whose line and headers exceed `maxHeaderBytes` (LIMIT_HTTP_HEADER_BYTES; the first
 * server of the process sets it) is answered 431 by uWebSockets.js itself.
 */
export function listen(
  host: string,
  port: number,
  handle: (ex: Exchange) => void,
  maxHeaderBytes?: number,
): Promise<HttpServer> {
  assertNativeHttp(maxHeaderBytes)
  const uWS = uws()
  const app = uWS.App().any('/*', (res, req) => handle(new Exchange(res, readRequest(req, res))))
  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket) => {
      if (!socket) return reject(new Error(`cannot listen on ${host}:${port}`))
      let open = true
      resolve({
        port: uWS.us_socket_local_port(socket),
        close: () => {
          if (open) uWS.us_listen_socket_close(socket)
          open = false
        },
      })
    })
  })
}

/**
 * Reason phrases (RFC 9110) of every status this service sends; test/unit/http-status.test.ts
 * checks the error table against it.
 */
export const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  302: 'Found',
  303: 'See Other',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
  507: 'Insufficient Storage',
}

export const statusLine = (status: number) => `${status} ${STATUS_TEXT[status] ?? 'Unknown'}`
const STATUS_LINES = new Map(Object.keys(STATUS_TEXT).map((s) => [Number(s), statusLine(Number(s))]))

export interface RequestInfo {
  /** Upper-case method as sent. */
  method: string
  path: string
  query: URLSearchParams
  /** The query string as sent, without its "?". */
  rawQuery: string
  /** Lower-case header names. */
  headers: Record<string, string>
  /**
   * The client's address as the socket sees it (a proxy's, behind one). The server's requests read
   * it from the socket on first use (a system call, which most requests never need): it is known
   * only to code that reads it before the response is sent, and is '' after that if never read.
   */
  remote: string
  /** The client's address behind the trusted proxies (src/http/client-address.ts); `remote` until the edge sets it. */
  client: string
  /**
   * Sets how `client` is found (the edge's trusted proxies), to be worked out on first use rather
   * than now; a request without this method has `client` set instead.
   */
  clientBy?(rule: (remote: string, forwardedFor: string | undefined) => string): void
  /** The request's time waiting for Redis (src/shared/wait-budget.ts): its key lookup, rate lease and scripts. */
  budget?: WaitBudget | undefined
}

/**
 * A request's details; its query string is parsed on first use (most requests have none, or never
 * read it), its peer address and client address read on first use (most requests never need them).
 */
class Incoming implements RequestInfo {
  budget: WaitBudget | undefined = newWaitBudget()
  private parsed: URLSearchParams | undefined
  private peer: string | undefined
  private found: string | undefined
  private rule: ((remote: string, forwardedFor: string | undefined) => string) | undefined

  constructor(
    public method: string,
    public path: string,
    public rawQuery: string,
    public headers: Record<string, string>,
    /** The response while it is open (its socket tells the peer address); undefined once it is not. */
    private res: HttpResponse | undefined,
  ) {}

  get query(): URLSearchParams {
    return (this.parsed ??= new URLSearchParams(this.rawQuery))
  }

  set query(q: URLSearchParams) {
    this.parsed = q
  }

  get remote(): string {
    if (this.peer === undefined) {
      const res = this.res
      if (res === undefined) return ''
      this.peer = Buffer.from(res.getRemoteAddressAsText()).toString()
    }
    return this.peer
  }

  set remote(address: string) {
    this.peer = address
  }

  get client(): string {
    return (this.found ??= this.rule ? this.rule(this.remote, this.headers['x-forwarded-for']) : this.remote)
  }

  set client(address: string) {
    this.found = address
  }

  clientBy(rule: (remote: string, forwardedFor: string | undefined) => string): void {
    this.rule = rule
    this.found = undefined
  }

  /** The response is sent, or the client went away: its socket is no longer there to ask. */
  closed(): void {
    this.res = undefined
  }
}

function readRequest(req: HttpRequest, res: HttpResponse): Incoming {
  const headers: Record<string, string> = {}
  req.forEach((k, v) => {
    headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`
  })
  return new Incoming(req.getCaseSensitiveMethod().toUpperCase(), req.getUrl(), req.getQuery() ?? '', headers, res)
}

/** A stream of chunks to the client (SSE); closes itself when the client stops reading. */
export interface StreamWriter {
  /** False when the stream is closed (client gone, or too slow and dropped). */
  write(chunk: string): boolean
  end(chunk?: string): void
  readonly closed: boolean
}

/**
 * What uWS's abort callback touches, kept apart from the Exchange: a long-lived stream keeps this
 * and its writer alive, and the request's details (headers, query, extra headers) are collected
 * once the handler is done with them.
 */
interface AbortState {
  aborted: boolean
  /** Replaced by one of the exact size on each add: a push would reserve room for 17. */
  handlers: (() => void)[]
  /** Fails the body being read (readBody), until it is read. */
  reading: (() => void) | undefined
}

/** A started streamed response: a class, so an idle stream costs one small object and no closures. */
class ResponseStream implements StreamWriter {
  private backlog = 0
  private ended: boolean

  constructor(
    private readonly res: HttpResponse,
    private readonly state: AbortState,
    private readonly bufferLimit: number,
    closed: boolean,
  ) {
    this.ended = closed
  }

  get closed(): boolean {
    return this.ended || this.state.aborted
  }

  write(chunk: string): boolean {
    if (this.closed) return false
    const res = this.res
    let ok = true
    res.cork(() => {
      ok = res.write(chunk)
    })
    if (!ok) {
      this.backlog += Buffer.byteLength(chunk)
      if (this.backlog > this.bufferLimit) {
        this.ended = true
        res.close()
        return false
      }
      res.onWritable(() => {
        this.backlog = 0
        return true
      })
    }
    return true
  }

  end(chunk?: string): void {
    if (this.closed) return
    this.ended = true
    this.res.cork(() => this.res.end(chunk ?? ''))
  }
}

const CLOSED: StreamWriter = { write: () => false, end: () => undefined, closed: true }

export class Exchange {
  responded = false
  /** The status sent, once a response started. */
  status: number | undefined
  /**
   * The response closes the connection: set when a body is refused as too large, so a client still
   * sending it is cut off at once rather than read to the end or left open until it gives up.
   */
  closeAfterResponse = false
  /**
   * The request has a body (a Content-Length over 0, or a Transfer-Encoding) that has not been read
   * to its end: a response sent now (a refusal before the body was needed: a bad key, another
   * origin, a rate limit, no such route, a route that reads no body) closes the connection, so that
   * a client still sending is cut off at once instead of read without end.
   */
  private bodyPending: boolean
  /** Extra headers for whatever response is sent (rate-limit headers, for example). */
  readonly extraHeaders: Record<string, string> = {}
  private readonly abort: AbortState = { aborted: false, handlers: [], reading: undefined }

  readonly req: RequestInfo

  constructor(
    private readonly res: HttpResponse,
    private readonly incoming: Incoming,
  ) {
    this.req = incoming
    const length = incoming.headers['content-length']
    this.bodyPending = incoming.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
    const state = this.abort
    res.onAborted(() => {
      incoming.closed()
      state.aborted = true
      const reading = state.reading
      state.reading = undefined
      reading?.()
      const handlers = state.handlers
      state.handlers = []
      for (const h of handlers) h()
    })
  }

  /** True once the client went away before the response ended. */
  get aborted(): boolean {
    return this.abort.aborted
  }

  /** Runs `fn` when the client goes away before the response ended (at once if it already has). */
  onAbort(fn: () => void): void {
    if (this.abort.aborted) fn()
    else this.abort.handlers = this.abort.handlers.concat(fn)
  }

  /** The 413 of a body whose Content-Length is over `limit`, or undefined. */
  declaredTooLarge(limit: number): AppError | undefined {
    const declared = Number(this.req.headers['content-length'] ?? 'NaN')
    if (!Number.isFinite(declared) || declared <= limit) return undefined
    this.closeAfterResponse = true
    return new AppError('too_large', `body is ${declared} bytes; the limit is ${limit} bytes`, {
      field: 'body',
      limit,
      size: declared,
    })
  }

  /**
   * Reads the whole body, refusing more than `limit` bytes (413, before reading when
   * Content-Length says so). Must be called in the handler's first tick.
   */
  readBody(limit: number): Promise<Buffer> {
    const declared = this.declaredTooLarge(limit)
    if (declared) return Promise.reject(declared)
    this.bodyPending = true
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = []
      let size = 0
      let failed = false
      this.res.onData((chunk, isLast) => {
        if (failed) return
        size += chunk.byteLength
        if (size > limit) {
          failed = true
          this.bodyPending = false
          this.closeAfterResponse = true
          reject(
            new AppError('too_large', `body is over ${limit} bytes; the limit is ${limit} bytes`, {
              field: 'body',
              limit,
              size,
            }),
          )
          return
        }
        chunks.push(Buffer.from(new Uint8Array(chunk)))
        if (!isLast) return
        this.bodyPending = false
        // Read: the abort no longer concerns the body (a stream answered after it would keep the
        // chunks alive through this handler).
        this.abort.reading = undefined
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
      })
      const onAbort = () => {
        if (!failed) reject(new Error('aborted'))
      }
      if (this.abort.aborted) onAbort()
      else this.abort.reading = onAbort
    })
  }

  /** Sends a complete response. No-op after an abort or an earlier response. */
  /** A header given as a list is written once per value (several Set-Cookie). */
  send(
    status: number,
    body: string | Buffer,
    headers: Record<string, string | readonly string[]> = {},
    closeConnection = false,
  ): void {
    if (this.aborted || this.responded) return
    this.responded = true
    this.status = status
    const close = closeConnection || this.closeAfterResponse || this.bodyPending
    this.res.cork(() => {
      this.writeHead(status, headers)
      if (this.req.method === 'HEAD') this.res.endWithoutBody(Buffer.byteLength(body), close)
      else this.res.end(body, close)
    })
    this.incoming.closed()
  }

  /** Status line, then the extra headers (unless `headers` has the same name), then `headers`. */
  private writeHead(status: number, headers: Record<string, string | readonly string[]>): void {
    this.res.writeStatus(STATUS_LINES.get(status) ?? statusLine(status))
    for (const k in this.extraHeaders) if (!(k in headers)) this.res.writeHeader(k, this.extraHeaders[k]!)
    for (const k in headers) {
      const v = headers[k]!
      if (typeof v === 'string') this.res.writeHeader(k, v)
      else for (const one of v) this.res.writeHeader(k, one)
    }
  }

  json(status: number, body: unknown, headers: Record<string, string> = {}): void {
    this.send(status, JSON.stringify(body), { 'Content-Type': 'application/json', ...headers })
  }

  /** The error body of docs/errors.md with the status of the error table. */
  error(err: AppError, headers: Record<string, string> = {}): void {
    this.json(ERRORS[err.code].status, { error: err.toJSON() }, headers)
  }

  /**
   * Starts a streamed response. A client that stops reading is dropped once more than
   * `bufferLimit` bytes wait on the node for it, so a slow consumer never holds the node's memory.
   */
  stream(status: number, headers: Record<string, string>, bufferLimit: number): StreamWriter {
    if (this.req.method === 'HEAD') {
      this.send(status, '', headers)
      return CLOSED
    }
    const closed = this.aborted || this.responded
    this.responded = true
    this.status = status
    this.incoming.closed()
    if (!closed) this.res.cork(() => this.writeHead(status, headers))
    return new ResponseStream(this.res, this.abort, bufferLimit, closed)
  }
}
