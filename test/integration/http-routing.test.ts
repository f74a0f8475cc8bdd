// Routing and request bodies on a real node: unknown route 404, wrong method 405 with Allow, bad
// JSON 400 naming the body, a body over LIMIT_HTTP_BODY_BYTES 413 (with and without
// Content-Length), and the error body's shape on each.
import { connect } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { z } from 'zod'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import type { Route } from '../../src/http/router.js'
import { BACKENDS } from '../helpers/shared.js'

const BODY_LIMIT = 2048

/** A concrete URL for a route pattern, with every `:param` filled. */
const urlOf = (r: Route, room: string) => r.path.replace(':roomId', room).replace(/:[A-Za-z]+/g, 'x1')

/** Checks `res` is the error body of docs/errors.md with `status` and `code`; returns the body. */
async function errorBody(t: Test, res: Response, status: number, code: string, name: string) {
  const body = (await res.json()) as {
    error: { code: string; message: string; hint: string; details?: Record<string, unknown> }
  }
  t.equal(res.status, status, `${name}: ${status}`)
  t.match(body, { error: { code, message: String, hint: String } }, `${name}: error body with code ${code}`)
  t.same(Object.keys(body), ['error'], `${name}: nothing beside "error"`)
  return body.error
}

/** A body stream of `size` bytes in 16 KiB chunks: fetch sends it chunked, without Content-Length. */
function chunked(size: number): ReadableStream<Uint8Array> {
  let left = size
  return new ReadableStream({
    pull(c) {
      const n = Math.min(left, 16 * 1024)
      if (n === 0) return c.close()
      left -= n
      c.enqueue(new Uint8Array(n).fill(0x20))
    },
  })
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const n: TestNode = await startNode(t, backend, { httpBodyBytes: BODY_LIMIT })
    const team = await newTeam(n)
    await n.node.core.rooms.create(team.teamId, { room_id: 'routing' }, 'test')
    const routes = n.node.router.list()
    const jsonRoutes = routes.filter((r) => (r.bodyKind ?? (r.method === 'POST' ? 'json' : 'none')) === 'json')
    t.ok(jsonRoutes.length >= 3, 'there are JSON routes to test')

    t.test('unknown routes are 404 not_found', async (t) => {
      // (/room without an id is the dashboard's room page: a page, not an API route.)
      for (const path of [
        '/nope',
        '/admin',
        '/admin/rooms/routing/nope',
        '/room/routing/extra',
        '/rooms/routing',
        '/admin/me/x',
      ]) {
        const res = await n.call(path, { key: team.key })
        const err = await errorBody(t, res, 404, 'not_found', `GET ${path}`)
        t.match(err.message, /openapi\.json/, `GET ${path}: points at the route list`)
      }
    })

    t.test("a wrong method is 405 with Allow listing the path's methods", async (t) => {
      const byPath = new Map<string, string[]>()
      for (const r of routes) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r.method])
      for (const [path, methods] of byPath) {
        for (const method of ['GET', 'POST', 'DELETE', 'PUT', 'PATCH'].filter((m) => !methods.includes(m))) {
          const res = await n.call(urlOf({ path } as Route, 'routing'), { method, key: team.key })
          t.same(
            res.headers.get('allow')?.split(', ').sort(),
            [...methods].sort(),
            `${method} ${path}: Allow: ${methods.join(', ')}`,
          )
          await errorBody(t, res, 405, 'method_not_allowed', `${method} ${path}`)
        }
      }
    })

    t.test('HEAD is answered like GET, without a body', async (t) => {
      const res = await n.call('/health', { method: 'HEAD' })
      t.equal(res.status, 200)
      t.equal(await res.text(), '')
      t.equal((await n.call('/ready', { method: 'HEAD' })).status, 200)
      t.equal((await n.call('/nope', { method: 'HEAD' })).status, 404)
    })

    t.test('bad JSON is 400 naming the body', async (t) => {
      for (const r of jsonRoutes) {
        for (const bad of ['{', '{"name": }', 'not json', '\u0000', '{"a":1}x']) {
          const res = await n.call(urlOf(r, 'routing'), {
            method: r.method,
            key: team.key,
            body: bad,
            headers: { 'Content-Type': 'application/json' },
          })
          const err = await errorBody(
            t,
            res,
            400,
            'invalid_request',
            `${r.method} ${r.path} with ${JSON.stringify(bad)}`,
          )
          t.match(
            err,
            { message: /^body: not valid JSON/, details: { field: 'body' } },
            `${r.method} ${r.path}: names the body`,
          )
        }
      }
    })

    t.test('a JSON body that is not an object is refused', async (t) => {
      for (const r of jsonRoutes.filter((r) => r.body)) {
        for (const bad of ['null', '[]', '"text"', '42', 'true']) {
          const res = await n.call(urlOf(r, 'routing'), {
            method: r.method,
            key: team.key,
            body: bad,
            headers: { 'Content-Type': 'application/json' },
          })
          const err = await errorBody(t, res, 400, 'invalid_request', `${r.method} ${r.path} with ${bad}`)
          t.match(
            err,
            { message: /^body: must be a JSON object/, details: { field: 'body' } },
            `${r.method} ${r.path} with ${bad}: names the body`,
          )
        }
      }
      t.equal(
        (await n.node.core.rooms.list(team.teamId, { limit: 500 })).rooms.length,
        1,
        'a null body created no room',
      )
    })

    t.test('an unknown or misspelt field is refused by name, and changes nothing', async (t) => {
      // A body that takes fields it does not know says so in its schema (additionalProperties).
      const strict = (r: Route) => z.toJSONSchema(r.body!, { io: 'input' }).additionalProperties === false
      t.same(
        jsonRoutes.filter((r) => r.body && !strict(r)).map((r) => r.path),
        ['/rooms/:roomId/agents/:agentId/hooks/stop'],
        "only the Stop hook takes unknown fields: the client's hook JSON has more than it reads",
      )
      for (const r of jsonRoutes.filter((r) => r.body && strict(r))) {
        const res = await n.call(urlOf(r, 'routing'), { method: r.method, key: team.key, json: { zz_unknown: 1 } })
        const err = await errorBody(t, res, 400, 'invalid_request', `${r.method} ${r.path} with zz_unknown`)
        t.match(
          err,
          { message: /^zz_unknown: unknown field; known fields: /, details: { field: 'zz_unknown' } },
          `${r.method} ${r.path}: names it`,
        )
      }
      const rooms = async () => (await n.node.core.rooms.list(team.teamId, { limit: 500 })).rooms.length
      const keys = async () => (await n.node.teams.listKeys(team.teamId)).length
      const [roomsBefore, keysBefore] = [await rooms(), await keys()]
      const misspelt = await n.call('/admin/rooms', {
        method: 'POST',
        key: team.key,
        json: { roomid: 'x', templat: 'web-app' },
      })
      t.match(await errorBody(t, misspelt, 400, 'invalid_request', 'roomid'), {
        message: /^roomid: unknown field; known fields: roomId, name, template$/,
      })
      const lable = await n.call('/admin/keys', { method: 'POST', key: team.key, json: { lable: 'x' } })
      t.match(await errorBody(t, lable, 400, 'invalid_request', 'lable'), { details: { field: 'lable' } })
      const query = await n.call('/admin/rooms?limt=5', { key: team.key })
      t.match(
        await errorBody(t, query, 400, 'invalid_request', 'limt'),
        { details: { field: 'limt' } },
        'a misspelt query parameter too',
      )
      t.same([await rooms(), await keys()], [roomsBefore, keysBefore], 'no room created, no key minted')
    })

    t.test('a body nested deeper than the limit is refused with the limit, not a crash', async (t) => {
      const deep = '{"name":' + '['.repeat(1000) + ']'.repeat(1000) + '}'
      const res = await n.call('/admin/rooms', { method: 'POST', key: team.key, body: deep })
      const err = await errorBody(t, res, 413, 'too_large', '1,000 levels')
      t.match(err, {
        message: /^name: nested more than 32 levels deep; the limit is 32 levels$/,
        details: { field: 'name', limit: 32 },
      })
    })

    t.test('a body over the limit is 413, with or without Content-Length', async (t) => {
      for (const r of jsonRoutes) {
        const url = urlOf(r, 'routing')
        const declared = await n.call(url, { method: r.method, key: team.key, body: ' '.repeat(BODY_LIMIT + 1) })
        const err = await errorBody(
          t,
          declared,
          413,
          'too_large',
          `${r.method} ${r.path} with Content-Length ${BODY_LIMIT + 1}`,
        )
        t.match(
          err,
          { details: { field: 'body', limit: BODY_LIMIT, size: BODY_LIMIT + 1 } },
          'names the body, the limit and the size',
        )
        const streamed = await n.call(url, {
          method: r.method,
          key: team.key,
          body: chunked(BODY_LIMIT * 40),
          duplex: 'half',
        } as RequestInit)
        const err2 = await errorBody(
          t,
          streamed,
          413,
          'too_large',
          `${r.method} ${r.path} chunked, ${BODY_LIMIT * 40} bytes`,
        )
        t.match(err2, { details: { field: 'body', limit: BODY_LIMIT } }, 'names the body and the limit')
        t.ok((err2.details!.size as number) > BODY_LIMIT, 'and the size read so far')
      }
      const atLimit = JSON.stringify({ name: 'x'.repeat(50) }).padEnd(BODY_LIMIT, ' ')
      const ok = await n.call('/admin/rooms', { method: 'POST', key: team.key, body: atLimit })
      t.equal(ok.status, 201, 'a body of exactly the limit is accepted')
      const small = await n.call('/admin/rooms', {
        method: 'POST',
        key: team.key,
        body: new Blob(['{"name": "chun', 'ked"}']).stream(),
        duplex: 'half',
      } as RequestInit)
      t.equal(small.status, 201, 'a chunked body within the limit is read')
      t.match(await small.json(), { room: { name: 'chunked' } })
    })

    /**
     * Opens a raw connection, sends a POST `path` head with `key` and `head`, then `piece()`
     * every 20 ms until the node closes the connection (or 10 s pass): whether it closed, and what
     * it answered.
     */
    async function uploadUntilClosed(key: string, head: string, piece: () => string, path = '/admin/rooms') {
      const sock = connect(Number(new URL(n.base).port), '127.0.0.1')
      let answer = ''
      sock.on('data', (d) => (answer += d.toString()))
      const closed = new Promise<void>((resolve) => sock.on('close', () => resolve()))
      sock.on('error', () => undefined)
      sock.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n${head}\r\n\r\n`)
      const sending = setInterval(() => {
        if (!sock.destroyed) sock.write(piece())
      }, 20)
      const waited = await Promise.race([closed.then(() => true), sleep(10_000).then(() => false)])
      clearInterval(sending)
      sock.destroy()
      return { waited, answer }
    }

    t.test('a refused body closes its connection at once, the client still sending', async (t) => {
      const chunk = 'x'.repeat(BODY_LIMIT)
      for (const [name, head] of [
        ['chunked', 'Transfer-Encoding: chunked'],
        ['Content-Length', `Content-Length: ${BODY_LIMIT * 1000}`],
      ] as const) {
        // Keeps sending, as a large upload does.
        const { waited, answer } = await uploadUntilClosed(team.key, head, () =>
          name === 'chunked' ? `${chunk.length.toString(16)}\r\n${chunk}\r\n` : chunk,
        )
        t.ok(waited, `${name}: the node closed the connection`)
        t.match(answer, /^HTTP\/1\.1 413 /, `${name}: after answering 413`)
      }
    })

    t.test('a body refused before it is read (a bad key) closes its connection at once', async (t) => {
      for (const [name, head] of [
        ['chunked', 'Transfer-Encoding: chunked'],
        ['Content-Length', `Content-Length: ${BODY_LIMIT - 1}`],
      ] as const) {
        // Sends slowly and without end (within the limit for the declared length), as a stalled upload does.
        const { waited, answer } = await uploadUntilClosed('ar_no.such_key', head, () =>
          name === 'chunked' ? '10\r\nxxxxxxxxxxxxxxxx\r\n' : 'x'.repeat(16),
        )
        t.ok(waited, `${name}: the node closed the connection`)
        t.match(answer, /^HTTP\/1\.1 401 /, `${name}: after answering 401`)
      }
    })

    t.test('a body sent where no route reads one closes its connection at once', async (t) => {
      const { waited, answer } = await uploadUntilClosed(
        team.key,
        'Transfer-Encoding: chunked',
        () => '10\r\nxxxxxxxxxxxxxxxx\r\n',
        '/no/such/route',
      )
      t.ok(waited, 'the node closed the connection')
      t.match(answer, /^HTTP\/1\.1 404 /, 'after answering 404')
    })

    t.test('POST /admin/rooms: Idempotency-Key, and a taken roomId', async (t) => {
      const post = (idem?: string) =>
        n.call('/admin/rooms', {
          method: 'POST',
          key: team.key,
          json: { roomId: 'idem-room', name: 'Idem' },
          ...(idem !== undefined ? { headers: { 'Idempotency-Key': idem } } : {}),
        })
      const first = await post('create-idem-room')
      t.equal(first.status, 201)
      const firstBody = await first.json()
      const retry = await post('create-idem-room')
      t.same(
        { status: retry.status, body: await retry.json() },
        { status: 201, body: firstBody },
        'a retry with the same key returns the first answer',
      )
      const taken = await post()
      const err = await errorBody(t, taken, 409, 'conflict', 'the same roomId without the key')
      t.match(err, { message: /^roomId: /, details: { field: 'roomId' } }, 'names roomId, as this API spells it')
      for (const bad of ['x'.repeat(129), ' \t']) {
        const before = (await n.node.core.rooms.list(team.teamId, { limit: 500 })).rooms.length
        const res = await n.call('/admin/rooms', {
          method: 'POST',
          key: team.key,
          json: {},
          headers: { 'Idempotency-Key': bad },
        })
        const e = await errorBody(t, res, 400, 'invalid_request', `Idempotency-Key of ${bad.length} characters`)
        t.match(e, { message: /^Idempotency-Key: /, details: { field: 'Idempotency-Key' } }, 'names the header')
        t.equal((await n.node.core.rooms.list(team.teamId, { limit: 500 })).rooms.length, before, 'and creates no room')
      }
    })

    t.test('an empty POST body is {}', async (t) => {
      const res = await n.call('/admin/keys', { method: 'POST', key: team.key })
      t.equal(res.status, 201, 'POST /admin/keys without a body mints a key')
    })

    t.test('the node still answers after all of it', async (t) => {
      t.equal((await n.call('/health')).status, 200)
    })
  })
}
