// An OpenAI-compatible embeddings endpoint (POST <base>/embeddings, {model, input: [texts]}):
// OpenAI, Ollama (http://localhost:11434/v1), vLLM, Hugging Face TEI, LM Studio. Texts go in
// batches of EMBEDDER_BATCH; each request has a timeout; failures that may pass (unreachable,
// timed out, 408, 429, 5xx) are retried with exponential backoff and jitter, honouring
// Retry-After; the others fail at once with an error naming the setting to fix.
import type { Embedder } from './embedder.js'
import { EmbedderError } from './embedder.js'

export interface HttpEmbedderOptions {
  /** The API base (…/v1) or the full …/embeddings URL. */
  url: string
  model: string
  apiKey?: string | undefined
  /** Asked of the server (OpenAI text-embedding-3 models take it) and checked on every answer. */
  dimensions?: number | undefined
  timeoutMs: number
  /** Texts per request. */
  batch: number
  /** Further attempts after a failure that may pass. */
  retries: number
  /** First backoff (ms); doubles with every attempt, with ±50 % jitter. */
  backoffMs?: number
}

/** Longest wait between two attempts, whatever Retry-After says (ms). */
const MAX_BACKOFF_MS = 30_000
/** Characters of an error answer quoted in the message. */
const QUOTE_CHARS = 300

export class HttpEmbedder implements Embedder {
  readonly model: string
  readonly endpoint: string
  private dims: number | undefined

  constructor(private readonly opts: HttpEmbedderOptions) {
    this.model = opts.model
    this.dims = opts.dimensions
    const base = opts.url.replace(/\/+$/, '')
    this.endpoint = /\/embeddings$/.test(base) ? base : `${base}/embeddings`
  }

  get dimensions(): number | undefined {
    return this.dims
  }

  async embed(texts: string[], call: { signal?: AbortSignal; retries?: number } = {}): Promise<Float32Array[]> {
    const out: Float32Array[] = []
    for (let i = 0; i < texts.length; i += this.opts.batch) {
      out.push(
        ...(await this.withRetries(
          texts.slice(i, i + this.opts.batch),
          call.signal,
          call.retries ?? this.opts.retries,
        )),
      )
    }
    return out
  }

  private async withRetries(
    input: string[],
    signal: AbortSignal | undefined,
    retries: number,
  ): Promise<Float32Array[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.request(input, signal)
      } catch (err) {
        const e = err as EmbedderError & { retryAfterMs?: number }
        if (!(err instanceof EmbedderError) || !err.retryable || attempt >= retries || signal?.aborted) throw err
        const base = (this.opts.backoffMs ?? 250) * 2 ** attempt * (0.5 + Math.random())
        await sleep(Math.min(MAX_BACKOFF_MS, Math.max(base, e.retryAfterMs ?? 0)), signal)
      }
    }
  }

  private async request(input: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const timeout = AbortSignal.timeout(this.opts.timeoutMs)
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`
    const body: Record<string, unknown> = { model: this.model, input: input.map((t) => (t === '' ? ' ' : t)) }
    if (this.opts.dimensions) body.dimensions = this.opts.dimensions
    let res: Response
    let text: string
    try {
      res = await fetch(this.endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      })
      text = await res.text()
    } catch (err) {
      if (timeout.aborted)
        throw new EmbedderError(
          `the embedder at ${this.endpoint} did not answer within ${this.opts.timeoutMs} ms (EMBEDDER_TIMEOUT_MS)`,
          true,
          'EMBEDDER_TIMEOUT_MS',
        )
      const cause = (err as { cause?: { code?: string; message?: string } }).cause
      throw new EmbedderError(
        `the embedder at ${this.endpoint} (EMBEDDER_URL) is unreachable: ` +
          `${cause?.code ?? cause?.message ?? (err as Error).message}`,
        !signal?.aborted,
        'EMBEDDER_URL',
      )
    }
    if (!res.ok) throw this.refusal(res, text)
    return this.vectors(text, input.length)
  }

  /** The error for a non-2xx answer: retryable or not, and the setting it points at. */
  private refusal(res: Response, text: string): EmbedderError {
    const s = res.status
    const said = text.replace(/\s+/g, ' ').trim().slice(0, QUOTE_CHARS)
    const at = `the embedder at ${this.endpoint} answered ${s}${said ? `: ${said}` : ''}`
    if (s === 408 || s === 429 || s >= 500) {
      const e = new EmbedderError(at, true, undefined, s) as EmbedderError & { retryAfterMs?: number }
      const after = Number(res.headers.get('retry-after'))
      if (Number.isFinite(after) && after > 0) e.retryAfterMs = after * 1000
      return e
    }
    if (s === 401 || s === 403)
      return new EmbedderError(`${at} — set EMBEDDER_API_KEY to a key it accepts`, false, 'EMBEDDER_API_KEY', s)
    if (s === 413)
      return new EmbedderError(`${at} — lower EMBEDDER_BATCH or EMBEDDER_TEXT_CHARS`, false, 'EMBEDDER_BATCH', s)
    if (/dimension/i.test(said))
      return new EmbedderError(`${at} — check EMBEDDER_DIMENSIONS`, false, 'EMBEDDER_DIMENSIONS', s)
    if (/model/i.test(said))
      return new EmbedderError(
        `${at} — set EMBEDDER_MODEL to a model this server has (${this.model} is not)`,
        false,
        'EMBEDDER_MODEL',
        s,
      )
    if (s === 404 || s === 405)
      return new EmbedderError(
        `${at} — EMBEDDER_URL should be the API base, e.g. http://localhost:11434/v1 or https://api.openai.com/v1`,
        false,
        'EMBEDDER_URL',
        s,
      )
    if (/token|too long|context length|maximum/i.test(said))
      return new EmbedderError(`${at} — lower EMBEDDER_TEXT_CHARS`, false, 'EMBEDDER_TEXT_CHARS', s)
    return new EmbedderError(at, false, undefined, s)
  }

  /** The vectors of a 2xx answer, in input order, all of one length. */
  private vectors(text: string, n: number): Float32Array[] {
    const bad = (why: string) =>
      new EmbedderError(
        `the embedder at ${this.endpoint} (EMBEDDER_URL) gave no OpenAI embeddings answer: ${why}`,
        false,
        'EMBEDDER_URL',
      )
    let data: unknown
    try {
      data = (JSON.parse(text) as { data?: unknown }).data
    } catch {
      throw bad(`not JSON (${text.slice(0, 80)})`)
    }
    if (!Array.isArray(data) || data.length !== n) throw bad(`expected data with ${n} embeddings`)
    const rows = data as { embedding?: unknown; index?: unknown }[]
    const ordered = rows.every((r) => typeof r.index === 'number')
      ? [...rows].sort((a, b) => (a.index as number) - (b.index as number))
      : rows
    return ordered.map((r) => {
      const e = r.embedding
      if (!Array.isArray(e) || e.length === 0 || !e.every((x) => typeof x === 'number' && Number.isFinite(x)))
        throw bad('an embedding is not an array of numbers')
      if (this.dims !== undefined && e.length !== this.dims) {
        const said = this.opts.dimensions
          ? `EMBEDDER_DIMENSIONS is ${this.opts.dimensions}`
          : `earlier answers had ${this.dims}`
        throw new EmbedderError(
          `the embedder at ${this.endpoint} gave vectors of ${e.length} dimensions; ${said} — set ` +
            `EMBEDDER_DIMENSIONS to the model's size`,
          false,
          'EMBEDDER_DIMENSIONS',
        )
      }
      this.dims = e.length
      return Float32Array.from(e as number[])
    })
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })
}
