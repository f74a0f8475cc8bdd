// Bad input on every endpoint, with fast-check: random path parameters (unicode, %-encodings,
// broken escapes, very long), random query strings, random JSON and non-JSON bodies with random
// content types, bodies over the limit with and without Content-Length, random keys and headers.
// Whatever comes in, the node answers: never a 5xx, never a dropped connection, and every 4xx is
// the error body of the error table. Afterwards the node still answers /health.
//
// Requests go over a raw socket: fetch would normalize the path (resolve "..", encode unicode)
// and refuse some inputs before they reach the node. Header values stay visible ASCII, because a
// control character in a header is refused by uWebSockets.js itself, before the service; so is a
// request line and headers over LIMIT_HTTP_HEADER_BYTES (431), which is the one answer allowed to
// be other than the JSON error body, and only for such a request.
// POST /mcp is left to the MCP transport's own tests.
import t from 'tap'
import fc from 'fast-check'
import { connect } from 'node:net'
import { defaultSettings } from '../../src/config.js'
import { ERRORS, isErrorCode } from '../../src/shared/errors.js'
import type { Route } from '../../src/http/router.js'
import { pinFuzzSeed } from '../helpers/fuzz.js'
import { newTeam, startNode } from '../helpers/node.js'
import { BACKENDS } from '../helpers/shared.js'
import { eventually } from '../helpers/wait.js'

pinFuzzSeed(t)

const BODY_LIMIT = 4096
const HEADER_LIMIT = defaultSettings().httpHeaderBytes
const RUNS = 100

interface RawRequest {
  method: string
  target: Buffer
  headers: [string, string][]
  body?: Buffer
  chunked?: boolean
}

interface RawResponse {
  /** Bytes of the request line and headers that were sent (what LIMIT_HTTP_HEADER_BYTES counts). */
  headBytes: number
  /** Bytes of the whole request, written at once (head and body). */
  wireBytes: number
  status: number
  headers: Record<string, string>
  body: string
}

/** Sends one request on a fresh connection; resolves with the response (status 0: none came). */
function send(port: number, req: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let buf = Buffer.alloc(0)
    let head: { status: number; headers: Record<string, string>; bodyAt: number } | undefined
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no complete answer within 5 s to ${req.method} ${req.target.toString('latin1').slice(0, 100)}`))
    }, 5000)
    let headBytes = 0
    let wireBytes = 0
    const done = () => {
      clearTimeout(timer)
      socket.destroy()
      resolve(
        head
          ? {
              headBytes,
              wireBytes,
              status: head.status,
              headers: head.headers,
              body: buf.subarray(head.bodyAt).toString('utf8'),
            }
          : { headBytes, wireBytes, status: 0, headers: {}, body: '' },
      )
    }
    socket.on('data', (d) => {
      buf = Buffer.concat([buf, d])
      if (!head) {
        const end = buf.indexOf('\r\n\r\n')
        if (end < 0) return
        const [line, ...lines] = buf.subarray(0, end).toString('latin1').split('\r\n')
        const headers: Record<string, string> = {}
        for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim()
        head = { status: Number(line!.split(' ')[1]), headers, bodyAt: end + 4 }
      }
      if (head.headers['content-type']?.startsWith('text/event-stream')) return done()
      const length = Number(head.headers['content-length'] ?? NaN)
      if (req.method === 'HEAD' || buf.length - head.bodyAt >= length) done()
    })
    // The node may answer (413) and close before the whole body is written.
    socket.on('error', () => done())
    socket.on('close', () => done())
    const lines = [`${req.method} `, req.target, ' HTTP/1.1\r\nHost: fuzz\r\n']
    for (const [k, v] of req.headers) lines.push(`${k}: ${v}\r\n`)
    if (req.body && req.chunked) lines.push('Transfer-Encoding: chunked\r\n\r\n')
    else if (req.body) lines.push(`Content-Length: ${req.body.length}\r\n\r\n`)
    else lines.push('\r\n')
    headBytes = lines.reduce((n, l) => n + l.length, 0)
    if (req.body && req.chunked) lines.push(req.body.length.toString(16), '\r\n', req.body, '\r\n0\r\n\r\n')
    else if (req.body) lines.push(req.body)
    // What uWebSockets.js may hold before it has parsed the head: the head and whatever came with
    // it in the same write (the body here). Over LIMIT_HTTP_HEADER_BYTES it may answer 431.
    wireBytes = lines.reduce((n, l) => n + l.length, 0)
    socket.write(Buffer.concat(lines.map((l) => (typeof l === 'string' ? Buffer.from(l, 'latin1') : l))))
  })
}

/** What every answer must be: some answer, never 5xx; a 4xx is the error body of its code. */
function judge(res: RawResponse, method: string): string | undefined {
  if (res.status === 0) return 'no answer (connection dropped)'
  if (res.headBytes > HEADER_LIMIT)
    return res.status === 431
      ? undefined
      : `a ${res.status} to ${res.headBytes} bytes of request line and headers (over the limit of ` +
          `${HEADER_LIMIT}: 431 expected)`
  // The head with the start of the body in one write over the limit: 431 is one right answer.
  if (res.status === 431 && res.wireBytes > HEADER_LIMIT) return undefined
  if (res.status >= 500) return `a ${res.status}: ${res.body.slice(0, 300)}`
  if (res.status < 400 || method === 'HEAD') return undefined
  if (!res.headers['content-type']?.startsWith('application/json')) return `a ${res.status} without a JSON body`
  let body: { error?: { code?: unknown; message?: unknown; hint?: unknown } }
  try {
    body = JSON.parse(res.body) as typeof body
  } catch {
    return `a ${res.status} whose body is not JSON: ${res.body.slice(0, 100)}`
  }
  const e = body.error
  if (Object.keys(body).join() !== 'error' || !e || typeof e.message !== 'string' || typeof e.hint !== 'string')
    return `not the error body: ${res.body.slice(0, 200)}`
  if (typeof e.code !== 'string' || !isErrorCode(e.code) || ERRORS[e.code].status !== res.status)
    return `code ${String(e.code)} with status ${res.status}`
  if (res.status === 401 && !res.headers['www-authenticate']?.startsWith('Bearer'))
    return '401 without WWW-Authenticate: Bearer'
  return undefined
}

/** A path or query piece as raw bytes: whatever would break the request line is %-encoded. */
function rawBytes(s: string): Buffer {
  const unsafe = (c: string) => c.charCodeAt(0) <= 0x20 || c === '\u007f' || c === '?' || c === '#' || c === '%'
  return Buffer.from([...s].map((c) => (unsafe(c) ? encodeURIComponent(c) : c)).join(''), 'utf8')
}

const latin1 = (s: string) => Buffer.from(s, 'latin1')

const pct = (bytes: Uint8Array) =>
  Buffer.from([...bytes].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join(''), 'latin1')

/** Path parameters: plausible ids, unicode (raw and encoded), random %-bytes, broken escapes, long ones. */
const param: fc.Arbitrary<Buffer> = fc.oneof(
  fc
    .constantFrom(
      'a',
      'payments',
      'fuzz-room',
      'key_aaaaaaaaaaaa',
      'inv_aaaaaaaaaaaa',
      '..',
      '.',
      '%2F',
      '%2e%2e',
      '%00',
      '%',
      '%G0',
      '%E0%A4',
      '%C3%28',
      '-',
      '_x',
    )
    .map(latin1),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map((s) => latin1(encodeURIComponent(s))),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).map(rawBytes),
  fc.uint8Array({ minLength: 1, maxLength: 24 }).map(pct),
  fc.stringMatching(/^[A-Za-z0-9%._~/-]{1,40}$/).map(latin1),
  fc.integer({ min: 65, max: 20_000 }).map((n) => latin1('r'.repeat(n))),
)

/** Query strings: known names with random values, random names, broken escapes. */
const query = fc.oneof(
  fc.constant(''),
  fc
    .array(
      fc.tuple(
        fc.constantFrom('limit', 'after', 'lastEventId', 'profile', 'x', ''),
        fc.oneof(
          fc.string({ maxLength: 30 }),
          fc.constantFrom('-1', '0', '1e9', 'NaN', '%', '%ZZ', 'a'.repeat(3000), 'a'.repeat(HEADER_LIMIT)),
        ),
      ),
      { maxLength: 4 },
    )
    .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&')),
  fc.string({ unit: 'binary', maxLength: 60 }),
)

const printable = fc.stringMatching(/^[\x21-\x7e]{0,80}$/)

/** Bodies: JSON of any shape, objects of the admin fields, raw bytes, text; and some over the limit. */
const body = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v) ?? 'null')) },
  {
    weight: 3,
    arbitrary: fc
      .dictionary(
        fc.constantFrom('roomId', 'name', 'template', 'label', 'extra'),
        fc.oneof(fc.string({ maxLength: 70 }), fc.integer(), fc.constant(null), fc.array(fc.nat(), { maxLength: 2 })),
        { maxKeys: 4 },
      )
      .map((o) => Buffer.from(JSON.stringify(o))),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 600 }).map((a) => Buffer.from(a)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map((s) => Buffer.from(s)) },
  { weight: 1, arbitrary: fc.integer({ min: BODY_LIMIT + 1, max: BODY_LIMIT * 8 }).map((n) => Buffer.alloc(n, '{')) },
)

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/octet-stream',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  '',
)

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const n = await startNode(t, backend, {
      httpBodyBytes: BODY_LIMIT,
      rateLimitPerMin: 10_000_000,
      rateLimitPerCredentialPerMin: 5_000_000,
      roomsPerTeam: 1_000_000,
    })
    const team = await newTeam(n)
    await n.node.core.rooms.create(team.teamId, { room_id: 'fuzz-room' }, 'test')
    const invite = (await n.node.teams.mintInvite(team.teamId, 'fuzz-room', {})).key
    const auth = fc.oneof(
      { weight: 8, arbitrary: fc.constant(`Bearer ${team.key}`) },
      { weight: 1, arbitrary: fc.constant(`Bearer ${invite}`) },
      {
        weight: 1,
        arbitrary: fc.oneof(
          printable.map((s) => `Bearer ${s}`),
          printable,
          fc.constant(`Bearer ${team.key.slice(0, -3)}`),
        ),
      },
    )
    const extraHeaders = fc.array(
      fc.tuple(fc.constantFrom('Last-Event-ID', 'Idempotency-Key', 'Accept', 'X-Fuzz'), printable),
      { maxLength: 2 },
    )

    const request = (r: Route) =>
      fc
        .record({
          params: fc.array(param, { minLength: 4, maxLength: 4 }),
          query: fc.option(query),
          auth,
          headers: extraHeaders,
          body: r.method === 'POST' ? fc.option(body, { freq: 8 }) : fc.option(body, { freq: 1 }),
          contentType,
          chunked: fc.boolean(),
        })
        .map((x): RawRequest => {
          let i = 0
          const segments = r.path.split('/').map((seg) => (seg.startsWith(':') ? x.params[i++]! : latin1(seg)))
          const path = segments.flatMap((seg, j) => (j === 0 ? [seg] : [latin1('/'), seg]))
          const target = Buffer.concat([...path, ...(x.query === null ? [] : [latin1('?'), rawBytes(x.query)])])
          const headers: [string, string][] = [['Authorization', x.auth], ['Connection', 'close'], ...x.headers]
          if (x.contentType) headers.push(['Content-Type', x.contentType])
          return { method: r.method, target, headers, ...(x.body ? { body: x.body, chunked: x.chunked } : {}) }
        })

    for (const r of n.node.router.list().filter((r) => !r.path.startsWith('/mcp'))) {
      t.test(`${r.method} ${r.path}`, async (t) => {
        const seen = new Map<number, number>()
        await fc.assert(
          fc.asyncProperty(request(r), async (req) => {
            const res = await send(n.node.port, req)
            seen.set(res.status, (seen.get(res.status) ?? 0) + 1)
            const problem = judge(res, req.method)
            if (problem) throw new Error(problem)
          }),
          { numRuns: RUNS },
        )
        t.pass(
          `${RUNS} random requests, statuses ${[...seen]
            .sort()
            .map(([s, c]) => `${s}×${c}`)
            .join(' ')}`,
        )
      })
    }

    t.test('random paths and methods', async (t) => {
      const path = fc
        .array(param, { minLength: 0, maxLength: 5 })
        .map((ps) => Buffer.concat(ps.flatMap((p) => [latin1('/'), p])))
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD'),
          path.filter((p) => !p.toString('latin1').startsWith('/mcp')),
          auth,
          async (method, target, a) => {
            const res = await send(n.node.port, {
              method,
              target: target.length ? target : Buffer.from('/'),
              headers: [
                ['Authorization', a],
                ['Connection', 'close'],
              ],
            })
            const problem = judge(res, method)
            if (problem) throw new Error(problem)
          },
        ),
        { numRuns: RUNS * 2 },
      )
      t.pass('every random path got an answer from the error table')
    })

    t.test(
      `request line and headers up to LIMIT_HTTP_HEADER_BYTES (${HEADER_LIMIT}) are served; more get 431 at once`,
      async (t) => {
        const padded = async (bytes: number) => {
          const base = {
            method: 'GET',
            target: latin1('/admin/me'),
            headers: [
              ['Authorization', `Bearer ${team.key}`],
              ['Connection', 'close'],
            ] as [string, string][],
          }
          const probe = await send(n.node.port, base)
          return send(n.node.port, {
            ...base,
            headers: [...base.headers, ['X-Pad', 'p'.repeat(bytes - probe.headBytes - 'X-Pad: \r\n'.length)]],
          })
        }
        const within = await padded(HEADER_LIMIT - 100)
        t.equal(within.status, 200, `${within.headBytes} bytes: served`)
        const over = await padded(HEADER_LIMIT + 100)
        t.equal(over.status, 431, `${over.headBytes} bytes: 431`)
        t.equal(judge(over, 'GET'), undefined, 'which the fuzz judge accepts for such a request')
        t.match(
          judge({ ...over, headBytes: HEADER_LIMIT, wireBytes: HEADER_LIMIT }, 'GET'),
          /without a JSON body/,
          'and not for a smaller one',
        )
      },
    )

    t.test('the node still serves, with nothing left in flight', async (t) => {
      t.equal((await n.call('/health')).status, 200, 'GET /health')
      t.equal((await n.call('/admin/me', { key: team.key })).status, 200, 'GET /admin/me')
      t.ok(
        await eventually(() => n.node.lifecycle.inFlight === 0, 3000),
        `no request is left in flight (${n.node.lifecycle.inFlight})`,
      )
    })
  })
}
