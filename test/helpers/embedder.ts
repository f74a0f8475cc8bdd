// A real HTTP embedding server for tests, speaking the OpenAI embeddings API (POST /v1/embeddings,
// {model, input} -> {data: [{embedding, index}]}). Its vectors are deterministic: hashed character
// trigrams of each folded word ("#deploy#" -> "#de", "dep", ...), signed, summed and normalised,
// so texts that share word stems ("deploying" and "deployment") share dimensions the way
// paraphrases do in a real model, while texts without common stems are near orthogonal.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { words } from '../../src/search/text.js'

export const TEST_MODEL = 'trigram-test'
export const TEST_DIMS = 256

function fnv1a(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h
}

/** The test model's vector of `text`. */
export function trigramVector(text: string, dims = TEST_DIMS): number[] {
  const v = new Array<number>(dims).fill(0)
  for (const w of words(text)) {
    const padded = `#${w}#`
    for (let i = 0; i + 3 <= padded.length; i++) {
      const h = fnv1a(padded.slice(i, i + 3))
      v[h % dims]! += h & 0x80000000 ? -1 : 1
    }
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1
  return v.map((x) => x / norm)
}

export interface TestEmbedder {
  /** The API base to give EMBEDDER_URL (…/v1). */
  url: string
  /** Requests answered with vectors, and texts embedded. */
  readonly stats: { requests: number; texts: number; refused: number }
  /** Answers the next `n` requests with `status` (and Retry-After when given). */
  failNext(n: number, status: number, retryAfterS?: number): void
  /** Delays every answer by `ms`. */
  delay(ms: number): void
  /** Closes the port (connections refused) until up(). */
  down(): Promise<void>
  up(): Promise<void>
  close(): Promise<void>
}

/**
 * `ignoreDimensions`: answer with the model's own size whatever `dimensions` asks (as models
 * without the option do).
 */
export async function startTestEmbedder(
  opts: { apiKey?: string; dims?: number; model?: string; ignoreDimensions?: boolean } = {},
): Promise<TestEmbedder> {
  const dims = opts.dims ?? TEST_DIMS
  const model = opts.model ?? TEST_MODEL
  const stats = { requests: 0, texts: 0, refused: 0 }
  let failing: { n: number; status: number; retryAfterS?: number } = { n: 0, status: 500 }
  let delayMs = 0
  const sockets = new Set<Socket>()

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers })
    res.end(JSON.stringify(body))
  }
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs))
    if (req.method !== 'POST' || req.url !== '/v1/embeddings')
      return send(res, 404, { error: { message: `no route ${req.method} ${req.url}` } })
    if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`)
      return send(res, 401, { error: { message: 'Incorrect API key provided' } })
    if (failing.n > 0) {
      failing.n--
      stats.refused++
      return send(
        res,
        failing.status,
        { error: { message: 'overloaded' } },
        failing.retryAfterS ? { 'retry-after': String(failing.retryAfterS) } : {},
      )
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      model?: string
      input?: unknown
      dimensions?: number
    }
    if (body.model !== model)
      return send(res, 404, { error: { message: `model "${body.model}" not found, try pulling it first` } })
    const input = typeof body.input === 'string' ? [body.input] : body.input
    if (!Array.isArray(input) || input.some((x) => typeof x !== 'string' || x === ''))
      return send(res, 400, { error: { message: 'input must be non-empty strings' } })
    stats.requests++
    stats.texts += input.length
    send(res, 200, {
      object: 'list',
      model,
      data: input.map((text: string, index) => ({
        object: 'embedding',
        index,
        embedding: trigramVector(text, opts.ignoreDimensions ? dims : (body.dimensions ?? dims)),
      })),
      usage: { prompt_tokens: 0, total_tokens: 0 },
    })
  }

  let server: Server | undefined
  let port = 0
  const listen = () =>
    new Promise<void>((resolve) => {
      if (server) return resolve() // up already
      const srv = createServer((req, res) => void handle(req, res).catch(() => res.destroy()))
      server = srv
      srv.on('connection', (s) => {
        sockets.add(s)
        s.on('close', () => sockets.delete(s))
      })
      srv.listen(port, '127.0.0.1', () => {
        port = (srv.address() as AddressInfo).port
        resolve()
      })
    })
  const close = () =>
    new Promise<void>((resolve) => {
      const srv = server
      server = undefined
      if (!srv) return resolve() // down already
      srv.close(() => resolve())
      for (const s of sockets) s.destroy()
    })
  await listen()
  return {
    url: `http://127.0.0.1:${port}/v1`,
    stats,
    failNext: (n, status, retryAfterS) => {
      failing = { n, status, ...(retryAfterS ? { retryAfterS } : {}) }
    },
    delay: (ms) => {
      delayMs = ms
    },
    down: close,
    up: listen,
    close,
  }
}
