// GET of a document on another site under the webhooks' SSRF rules (guard.ts): https only, every
// address the name resolves to checked, the connection made to a checked address, no redirects
// followed, one deadline, at most `maxBytes` of the body read. The OAuth authorization server
// fetches Client ID Metadata Documents with it.
import { request } from 'node:https'
import { isIP } from 'node:net'
import { parseTargetUrl, resolveTarget, TargetError, type Resolver } from './guard.js'

export interface FetchOptions {
  timeoutMs: number
  maxBytes: number
  resolve?: Resolver | undefined
  /** Extra trusted CA, which also lets loopback addresses through (the test-only loopback setting). */
  ca?: Buffer | undefined
  accept?: string
}

export interface Fetched {
  status: number
  headers: Record<string, string>
  body: Buffer
}

/** Fetches `raw`; throws TargetError for a refused target, Error for a failed or oversized answer. */
export async function fetchGuarded(raw: string, opts: FetchOptions): Promise<Fetched> {
  const url = parseTargetUrl(raw)
  const target = await resolveTarget(url, { resolve: opts.resolve, allowLoopback: opts.ca !== undefined })
  const to = target.addresses[0]!
  return new Promise<Fetched>((resolve, reject) => {
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)), opts.timeoutMs)
    const req = request(
      {
        host: to.address,
        family: to.family,
        port: target.port,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        servername: isIP(target.host) === 0 ? target.host : undefined,
        headers: { Host: url.host, Accept: opts.accept ?? 'application/json', 'User-Agent': 'agentrooms' },
        ...(opts.ca ? { ca: opts.ca } : {}),
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = []
        let size = 0
        res.on('data', (c: Buffer) => {
          size += c.length
          if (size > opts.maxBytes) {
            req.destroy(new Error(`the document is larger than ${opts.maxBytes} bytes`))
            return
          }
          chunks.push(c)
        })
        res.on('end', () => {
          clearTimeout(timer)
          const headers: Record<string, string> = {}
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) })
        })
        res.on('error', (err) => {
          clearTimeout(timer)
          reject(err)
        })
      },
    )
    req.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    req.end()
  })
}

export { TargetError }
