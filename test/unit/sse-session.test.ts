// The SSE session primitive on a real uWebSockets.js server behind the node's edge (no Redis): the
// headers and first bytes every stream shares, keep-alives, the frames (events, comments, gap and
// reset), ends (endOn, endUnless, the client going away, the drain with its shutdown frame, a
// reply the drain leaves alone), every clean-up run once, and the gauge of open streams.
import t from 'tap'
import { Edge } from '../../src/http/edge.js'
import { listen, type Exchange } from '../../src/http/exchange.js'
import type { Route } from '../../src/http/router.js'
import {
  resumeOf,
  SHUTDOWN_FRAME,
  SSE_RETRY_MS,
  sseFrame,
  SseSessions,
  type SseOpenOptions,
  type SseSession,
} from '../../src/http/sse-session.js'
import { Lifecycle } from '../../src/shared/lifecycle.js'
import { createLogger } from '../../src/shared/logger.js'
import { Metrics } from '../../src/shared/metrics.js'
import { eventually } from '../helpers/realtime.js'
import { openSse } from '../helpers/sse.js'

const KEEPALIVE_MS = 100
const lifecycle = new Lifecycle()
const metrics = new Metrics(false)
const sessions = new SseSessions({
  lifecycle,
  metrics,
  settings: { sseKeepaliveMs: KEEPALIVE_MS, sseBufferBytes: 64 * 1024 },
})
const gauge = async () => (await metrics.sseConnections.get()).values[0]?.value ?? 0

/** The sessions the routes opened, by the test's name for them, and how often each one's clean-up ran. */
const opened = new Map<string, SseSession>()
const cleanups = new Map<string, number>()
let signedIn = true

const route = (path: string, opts: SseOpenOptions, then: (s: SseSession, ex: Exchange) => void): Route => ({
  method: 'GET',
  path,
  auth: 'none',
  summary: path,
  handle: async ({ ex }) => {
    resumeOf(ex.req)
    const s = sessions.open(ex, opts)
    const name = ex.req.query.get('name') ?? path
    opened.set(name, s)
    s.onEnd(() => cleanups.set(name, (cleanups.get(name) ?? 0) + 1))
    then(s, ex)
    return undefined
  },
})

const edge = new Edge({
  lifecycle,
  metrics,
  log: createLogger('silent'),
  settings: { httpBodyBytes: 1024 },
}).mount({
  name: 'test',
  routes: [
    route('/frames', {}, (s) => {
      s.event('hello', { n: 1 }, '5-1')
      s.gap({ lost: 3 })
      s.gap({ lost: 0, rewound: true })
      s.comment('ready\nnow')
    }),
    route('/reply', { retryMs: 0, onDrain: false }, (s) => s.event('message', { jsonrpc: '2.0' })),
    route('/ends-on', {}, (s) => {
      s.endOn(
        (end) => {
          endNow = end
          return () => cleanups.set('ends-on-remover', (cleanups.get('ends-on-remover') ?? 0) + 1)
        },
        sseFrame('revoked', {}),
      )
    }),
    route('/unless', {}, (s) => s.endUnless(async () => signedIn, 50, sseFrame('signed-out', {}))),
    route('/attach', {}, (s) => {
      void s.attach(Promise.reject(new Error('the feed failed'))).catch(() => undefined)
    }),
  ],
})
let endNow: (() => void) | undefined

t.test('SSE sessions', async (t) => {
  const server = await listen('127.0.0.1', 0, edge.handle)
  t.teardown(() => server.close())
  const base = `http://127.0.0.1:${server.port}`

  t.test('every stream has the same headers, retry hint, keep-alives and frames', async (t) => {
    const s = await openSse(`${base}/frames`)
    t.teardown(() => s.close())
    t.equal(s.status, 200)
    t.equal(s.headers.get('content-type'), 'text/event-stream')
    t.equal(s.headers.get('cache-control'), 'no-store, no-transform')
    t.equal(s.headers.get('x-accel-buffering'), 'no')
    t.equal(s.headers.get('x-content-type-options'), 'nosniff')
    t.ok(await s.waitFor((f) => f.comments.includes('keep-alive'), 2000), 'a keep-alive comment')
    t.ok(s.text.startsWith(`retry: ${SSE_RETRY_MS}\n\n`), 'the retry hint comes first')
    const [retry, hello, gap, reset, ready] = s.frames
    t.equal(retry?.retry, SSE_RETRY_MS)
    t.match(hello, { id: '5-1', event: 'hello', data: '{"n":1}' })
    t.match(gap, { event: 'gap', data: '{"lost":3}' })
    t.equal(gap?.id, undefined, 'a gap frame moves no resume point')
    t.match(reset, { event: 'gap', data: '{"lost":0,"rewound":true}' })
    t.same(ready?.comments, ['ready now'], 'a comment stays on one line')
    t.equal(await gauge(), 1, 'the gauge counts the open stream')
    s.close()
    t.ok(await eventually(() => cleanups.get('/frames') === 1), 'the client going away runs the clean-up')
    t.ok(await eventually(async () => (await gauge()) === 0), 'and the gauge goes back')
    t.ok(opened.get('/frames')?.closed)
  })

  t.test('endOn ends with its frame once; its remover runs when the session ends first', async (t) => {
    const s = await openSse(`${base}/ends-on`)
    await s.waitFor((f) => f.retry !== undefined)
    endNow!()
    endNow!()
    t.equal(await s.done, 'end', 'the server ended the stream')
    t.equal(s.frames.at(-1)?.event, 'revoked', 'after its last frame')
    t.equal(cleanups.get('/ends-on'), 1, 'clean-up ran once')
    t.equal(cleanups.get('ends-on-remover'), 1, "the subscription's remover ran too")
  })

  t.test('endUnless ends the stream once the check says no, and not before', async (t) => {
    signedIn = true
    const s = await openSse(`${base}/unless`)
    t.teardown(() => s.close())
    await new Promise((ok) => setTimeout(ok, 200))
    t.equal(s.ended, undefined, 'open while the check says yes')
    signedIn = false
    t.equal(await s.done, 'end')
    t.equal(s.frames.at(-1)?.event, 'signed-out')
  })

  t.test('a subscription that fails to attach ends the session', async (t) => {
    const s = await openSse(`${base}/attach`)
    t.equal(await s.done, 'end')
    t.equal(cleanups.get('/attach'), 1)
  })

  t.test('a malformed Last-Event-ID is refused before any stream opens; an empty one is none', async (t) => {
    const bad = await fetch(`${base}/frames?name=bad`, { headers: { 'Last-Event-ID': 'nope' } })
    t.equal(bad.status, 400)
    t.match(await bad.json(), { error: { code: 'invalid_request', details: { field: 'Last-Event-ID' } } })
    t.notOk(opened.has('bad'))
    const empty = await openSse(`${base}/frames?name=empty`, new Headers({ 'Last-Event-ID': '' }))
    t.equal(empty.status, 200)
    empty.close()
  })

  t.test('HEAD answers the headers and opens nothing', async (t) => {
    t.ok(await eventually(async () => (await gauge()) === 0), 'no stream open before')
    const r = await fetch(`${base}/frames?name=head`, { method: 'HEAD' })
    t.equal(r.status, 200)
    t.equal(r.headers.get('content-type'), 'text/event-stream')
    t.ok(opened.get('head')?.closed)
    t.equal(await gauge(), 0, 'nor counted')
  })

  t.test('the drain ends streams with the shutdown frame; a reply without onDrain goes on', async (t) => {
    const stream = await openSse(`${base}/frames?name=drained`)
    const reply = await openSse(`${base}/reply`)
    await stream.waitFor((f) => f.event === 'hello')
    await reply.waitFor((f) => f.event === 'message')
    t.notOk(reply.text.includes('retry:'), 'a reply stream sends no retry hint')
    await lifecycle.drain(1000)
    t.equal(await stream.done, 'end')
    t.ok(stream.text.endsWith(SHUTDOWN_FRAME), 'the drained stream ends with the shutdown frame')
    t.match(stream.frames.at(-1), { event: 'shutdown', retry: SSE_RETRY_MS })
    await new Promise((ok) => setTimeout(ok, KEEPALIVE_MS * 2))
    t.equal(reply.ended, undefined, 'the reply is still open')
    t.ok(
      reply.frames.some((f) => f.comments.includes('keep-alive')),
      'and kept alive',
    )
    opened.get('/reply')!.end(sseFrame('message', { jsonrpc: '2.0', id: 1 }))
    t.equal(await reply.done, 'end')
    t.match(reply.frames.at(-1), { event: 'message', data: '{"jsonrpc":"2.0","id":1}' })
    t.ok(await eventually(async () => (await gauge()) === 0), 'no stream left counted')
  })
})

t.test('sseFrame refuses a line break in an event name or id', async (t) => {
  t.equal(sseFrame('a', { x: 'line\nbreak' }, '1-1'), 'id: 1-1\nevent: a\ndata: {"x":"line\\nbreak"}\n\n')
  t.throws(() => sseFrame('a\nb', {}), /event name/)
  t.throws(() => sseFrame('a', {}, '1\r2'), /id/)
})
