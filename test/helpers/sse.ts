// An SSE client for tests: any event stream (openSse; a room's, openStream) through fetch with a streaming body reader,
// parsed into frames as the server writes them (id / event / data / retry lines and comments).
import { eventually } from './realtime.js'

export interface SseFrame {
  id?: string
  event?: string
  /** The data lines joined by "\n" (the SSE rule). */
  data?: string
  retry?: number
  /** Comment lines (": keep-alive" -> "keep-alive"). */
  comments: string[]
}

/** Splits `buf` into complete frames (ended by a blank line) and the unfinished rest. */
export function parseFrames(buf: string): { frames: SseFrame[]; rest: string } {
  const frames: SseFrame[] = []
  const text = buf.replace(/\r\n?/g, '\n')
  let start = 0
  for (;;) {
    const end = text.indexOf('\n\n', start)
    if (end < 0) break
    const f: SseFrame = { comments: [] }
    for (const line of text.slice(start, end).split('\n')) {
      if (line.startsWith(':')) {
        f.comments.push(line.slice(1).trim())
        continue
      }
      const colon = line.indexOf(':')
      const field = colon < 0 ? line : line.slice(0, colon)
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
      if (field === 'id') f.id = value
      else if (field === 'event') f.event = value
      else if (field === 'data') f.data = f.data === undefined ? value : `${f.data}\n${value}`
      else if (field === 'retry') f.retry = Number(value)
    }
    frames.push(f)
    start = end + 2
  }
  return { frames, rest: text.slice(start) }
}

export interface SseStream {
  status: number
  headers: Headers
  /** The body of a refused request (status other than 200). */
  body: string
  /** Every byte received so far, as text. */
  text: string
  /** Complete frames so far, in order. */
  frames: SseFrame[]
  /** Settles when the body ends: 'end' (the server ended it cleanly) or 'error' (cut, aborted). */
  done: Promise<'end' | 'error'>
  ended: 'end' | 'error' | undefined
  /** The frames that carry an event id, in order. */
  events(): SseFrame[]
  /** Waits up to `ms` for a frame matching `pred`. */
  waitFor(pred: (f: SseFrame) => boolean, ms?: number): Promise<SseFrame | undefined>
  /** Aborts the request (the client goes away). */
  close(): void
}

export interface OpenOptions {
  key?: string
  lastEventId?: string
  /** Extra query string, e.g. "lastEventId=1-1". */
  query?: string
}

/** Opens a room's stream on `base`; returns once the response head arrived. */
export async function openStream(base: string, roomId: string, opts: OpenOptions = {}): Promise<SseStream> {
  const headers = new Headers({ Accept: 'text/event-stream' })
  if (opts.key) headers.set('Authorization', `Bearer ${opts.key}`)
  if (opts.lastEventId !== undefined) headers.set('Last-Event-ID', opts.lastEventId)
  return openSse(`${base}/rooms/${encodeURIComponent(roomId)}/stream${opts.query ? `?${opts.query}` : ''}`, headers)
}

/** Opens any event stream at `url` (GET, or `method`); returns once the response head arrived. */
export async function openSse(url: string, headers = new Headers(), method = 'GET'): Promise<SseStream> {
  const ac = new AbortController()
  const res = await fetch(url, { method, headers, signal: ac.signal })
  const s: SseStream = {
    status: res.status,
    headers: res.headers,
    body: '',
    text: '',
    frames: [],
    done: Promise.resolve('end'),
    ended: undefined,
    events: () => s.frames.filter((f) => f.id !== undefined),
    async waitFor(pred, ms = 5000) {
      let found: SseFrame | undefined
      await eventually(() => (found = s.frames.find(pred)) !== undefined || s.ended !== undefined, ms)
      return found ?? s.frames.find(pred)
    },
    close: () => ac.abort(),
  }
  if (res.status !== 200 || !res.body) {
    s.body = await res.text()
    s.ended = 'end'
    return s
  }
  const reader = res.body.getReader()
  const decoder = new TextDecoder()
  let rest = ''
  s.done = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return (s.ended = 'end')
        const chunk = decoder.decode(value, { stream: true })
        s.text += chunk
        const parsed = parseFrames(rest + chunk)
        rest = parsed.rest
        s.frames.push(...parsed.frames)
      }
    } catch {
      return (s.ended = 'error')
    }
  })()
  return s
}

/** The event JSON a frame carries. */
export function eventOf(f: SseFrame): { id: string; type: string; text: string; data?: unknown } {
  return JSON.parse(f.data ?? 'null') as { id: string; type: string; text: string; data?: unknown }
}
