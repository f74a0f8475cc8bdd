// One webhook attempt over HTTPS: POST the signed body to a checked target (guard.ts), connecting
// to a checked address itself, with one deadline for the whole attempt, no redirects followed
// and at most RESPONSE_CAP bytes of the answer read.
import { Agent, request } from 'node:https'
import { isIP } from 'node:net'
import type { Address, Target } from './guard.js'

/** Bytes of a receiver's answer that are read; the rest is not (the connection is closed). */
export const RESPONSE_CAP = 4096
/** Characters of an answer kept in a webhook's health, to tell what went wrong. */
const SNIPPET = 200
/**
 * How long an idle kept-alive connection stays open: below common server keep-alive timeouts
 * (Node's is 5 s), so a reused connection is rarely one the receiver is just closing.
 */
export const IDLE_SOCKET_MS = 4000

export interface Attempt {
  /** The HTTP status, when an answer came. */
  status?: number
  /** Retry-After of a 429 or 503 answer, in ms. */
  retryAfterMs?: number
  /** What went wrong, for the webhook's health: the transport error, or a short answer snippet. */
  error?: string
  /** No connection could be made: the request never reached the receiver, so another address may be tried. */
  unreachable?: boolean
  /**
   * A reused keep-alive connection failed before any answer (the receiver had closed it): worth one
   * try on a fresh one.
   */
  staleConnection?: boolean
}

export interface SendOptions {
  timeoutMs: number
  agent: Agent
  /** Extra trusted CA (the test-only loopback setting). */
  ca?: Buffer | undefined
  userAgent: string
  /** Aborts the attempt (the node is stopping); nothing is retried after it. */
  signal?: AbortSignal | undefined
}

/**
 * A keep-alive agent for deliveries. Connections are pooled per address and TLS name, up to
 * `concurrency` per target, so a claimed attempt never waits in the agent's queue while its
 * deadline runs. There is no limit across targets: the dispatcher already runs at most
 * `concurrency` attempts, and such a limit would make a request to a new receiver wait until an
 * idle connection to another receiver timed out. Idle connections are bounded instead: at most
 * `concurrency` per target, each closed after IDLE_SOCKET_MS.
 */
export function deliveryAgent(concurrency: number): Agent {
  return new Agent({
    keepAlive: true,
    maxSockets: concurrency,
    maxFreeSockets: concurrency,
    timeout: IDLE_SOCKET_MS,
    scheduling: 'lifo',
  })
}

/** Retry-After: delta-seconds or an HTTP date, in ms from now; undefined when absent or malformed. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value
  if (v === undefined || v.trim() === '') return undefined
  if (/^\s*\d+\s*$/.test(v)) return Number(v) * 1000
  const at = Date.parse(v)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

/**
 * One attempt at `target`, within `deadlineMs` (which counts from the call: DNS was done before).
 * The checked addresses are tried in the resolver's order: one that cannot be connected to passes
 * to the next (with more left, each gets an equal share of the time left to connect), so one dead
 * address of several does not fail the delivery. A reused keep-alive connection that the receiver
 * had closed is retried once on a fresh connection. Resolves with what happened (never rejects).
 */
export async function deliverTo(
  target: Target,
  body: Buffer,
  headers: Record<string, string>,
  opts: SendOptions,
  deadlineMs = opts.timeoutMs,
): Promise<Attempt> {
  const end = Date.now() + deadlineMs
  let a: Attempt = { error: 'no address to connect to', unreachable: true }
  for (let i = 0; i < target.addresses.length; i++) {
    const left = Math.max(1, end - Date.now())
    const others = target.addresses.length - 1 - i
    if (i > 0 && end - Date.now() <= 0) break
    const to = target.addresses[i]!
    a = await postTo(target, to, body, headers, opts, {
      deadlineMs: left,
      ...(others > 0 ? { connectMs: Math.max(1, Math.floor(left / (others + 1))) } : {}),
    })
    if (a.staleConnection && !opts.signal?.aborted && end - Date.now() > 0) {
      a = await postTo(target, to, body, headers, opts, { deadlineMs: end - Date.now(), fresh: true })
    }
    if (!a.unreachable || opts.signal?.aborted) return a
  }
  return a
}

interface PostHow {
  deadlineMs: number
  /** Gives up on connecting after this long (another address is left to try). */
  connectMs?: number
  /** Use a new connection, not one from the pool. */
  fresh?: boolean
}

/** POSTs `body` to one checked address of `target`. Resolves with what happened (never rejects). */
export function postTo(
  target: Target,
  to: Address,
  body: Buffer,
  headers: Record<string, string>,
  opts: SendOptions,
  how: PostHow,
): Promise<Attempt> {
  return new Promise((resolve) => {
    let done = false
    let connected = false
    let answered = false
    let connectTimer: NodeJS.Timeout | undefined
    const finish = (a: Attempt) => {
      if (done) return
      done = true
      clearTimeout(timer)
      clearTimeout(connectTimer)
      resolve(a)
    }
    const req = request({
      host: to.address,
      family: to.family,
      port: target.port,
      path: `${target.url.pathname}${target.url.search}`,
      method: 'POST',
      // The connection goes to the checked address; TLS still verifies the certificate for the name.
      servername: isIP(target.host) === 0 ? target.host : undefined,
      agent: how.fresh ? false : opts.agent,
      ...(opts.ca ? { ca: opts.ca } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
      headers: {
        Host: target.url.host,
        'Content-Type': 'application/json',
        'Content-Length': String(body.length),
        'User-Agent': opts.userAgent,
        ...headers,
      },
    })
    const timer = setTimeout(
      () => {
        req.destroy(new Error(`no answer within ${how.deadlineMs} ms`))
      },
      Math.max(1, how.deadlineMs),
    )
    req.on('socket', (socket) => {
      if (!socket.connecting) {
        connected = true
        return
      }
      socket.once('connect', () => {
        connected = true
        clearTimeout(connectTimer)
      })
      if (how.connectMs !== undefined) {
        const ms = how.connectMs
        connectTimer = setTimeout(
          () =>
            req.destroy(
              Object.assign(new Error(`connect to ${to.address}: no connection within ${ms} ms`), {
                code: 'ETIMEDOUT',
              }),
            ),
          ms,
        )
      }
    })
    req.on('error', (err: NodeJS.ErrnoException) => {
      const a: Attempt = {
        error: err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message,
      }
      if (!connected) a.unreachable = true
      else if (!answered && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE'))
        a.staleConnection = true
      finish(a)
    })
    req.on('response', (res) => {
      answered = true
      const status = res.statusCode ?? 0
      const chunks: Buffer[] = []
      let size = 0
      const settle = () => {
        const text = Buffer.concat(chunks).toString('utf8').slice(0, SNIPPET).trim()
        const a: Attempt = { status }
        if (status === 429 || status === 503) {
          const after = parseRetryAfter(res.headers['retry-after'])
          if (after !== undefined) a.retryAfterMs = after
        }
        if (status >= 300 && status < 400)
          a.error = `redirect${res.headers.location ? ` to ${res.headers.location}` : ''} not followed`
        else if (status >= 300 && text !== '') a.error = text
        finish(a)
      }
      res.on('data', (chunk: Buffer) => {
        if (size >= RESPONSE_CAP) return
        chunks.push(chunk)
        size += chunk.length
        if (size >= RESPONSE_CAP) {
          // Enough read: drop the rest and the connection with it.
          settle()
          res.destroy()
        }
      })
      res.on('end', settle)
      res.on('error', settle)
      res.on('close', settle)
    })
    req.end(body)
  })
}
