// One webhook attempt over HTTPS: POST the signed body to a checked target (guard.ts), connecting
// to the checked address itself, with one deadline for the whole attempt, no redirects followed
// and at most RESPONSE_CAP bytes of the answer read.
import { Agent, request } from 'node:https'
import { isIP } from 'node:net'
import type { Target } from './guard.js'

/** Bytes of a receiver's answer that are read; the rest is not (the connection is closed). */
export const RESPONSE_CAP = 4096
/** Characters of an answer kept in a webhook's health, to tell what went wrong. */
const SNIPPET = 200

export interface Attempt {
  /** The HTTP status, when an answer came. */
  status?: number
  /** Retry-After of a 429 or 503 answer, in ms. */
  retryAfterMs?: number
  /** What went wrong, for the webhook's health: the transport error, or a short answer snippet. */
  error?: string
}

export interface SendOptions {
  timeoutMs: number
  agent: Agent
  /** Extra trusted CA (the test-only loopback setting). */
  ca?: Buffer | undefined
  userAgent: string
}

/**
 * A keep-alive agent for deliveries. Connections are pooled per address and TLS name. Up to
 * `concurrency` of them per target, so a claimed attempt never waits in the agent's queue while
 * its deadline runs (the node runs at most that many attempts anyway).
 */
export function deliveryAgent(concurrency: number): Agent {
  return new Agent({ keepAlive: true, maxSockets: concurrency, maxTotalSockets: concurrency, timeout: 30_000, scheduling: 'lifo' })
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
 * POSTs `body` to `target`. Resolves with what happened (never rejects): a status, or an error
 * when no answer came within `timeoutMs` (which counts from the call: DNS was done before).
 */
export function postTo(target: Target, body: Buffer, headers: Record<string, string>, opts: SendOptions, deadlineMs = opts.timeoutMs): Promise<Attempt> {
  return new Promise((resolve) => {
    let done = false
    const finish = (a: Attempt) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resolve(a)
    }
    const req = request({
      host: target.address,
      family: target.family,
      port: target.port,
      path: `${target.url.pathname}${target.url.search}`,
      method: 'POST',
      // The connection goes to the checked address; TLS still verifies the certificate for the name.
      servername: isIP(target.host) === 0 ? target.host : undefined,
      agent: opts.agent,
      ...(opts.ca ? { ca: opts.ca } : {}),
      headers: {
        Host: target.url.host,
        'Content-Type': 'application/json',
        'Content-Length': String(body.length),
        'User-Agent': opts.userAgent,
        ...headers,
      },
    })
    const timer = setTimeout(() => {
      req.destroy(new Error(`no answer within ${deadlineMs} ms`))
    }, Math.max(1, deadlineMs))
    req.on('error', (err: NodeJS.ErrnoException) => finish({ error: err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message }))
    req.on('response', (res) => {
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
        if (status >= 300 && status < 400) a.error = `redirect${res.headers.location ? ` to ${res.headers.location}` : ''} not followed`
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
