// Bodies, queries and path parameters that are not UTF-8 are refused on every surface (the HTTP
// API, the room stream, /mcp, the dashboard's forms), naming where, and change nothing: decoding
// them would turn each invalid sequence into U+FFFD, so `u\xff\xfe` and `u\xc0\xaf` would be one
// agent.
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'
import { legacyCall } from '../helpers/mcp.js'
import { newTeam, startNode } from '../helpers/node.js'

/** `json` with each character below U+0100 written as that one byte (so "\xff" is the byte FF). */
function rawBody(json: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(new ArrayBuffer(json.length))
  for (let i = 0; i < json.length; i++) out[i] = json.charCodeAt(i)
  return out
}

t.test('the HTTP API and /mcp refuse what is not UTF-8', async (t) => {
  const n = await startNode(t, 'standalone')
  const { key, teamId } = await newTeam(n)
  const { room } = await n.node.core.rooms.create(teamId, {}, 'test')
  const roomId = room.room_id

  await t.test('a JSON body of the API names the byte, and creates nothing', async (t) => {
    const before = (await n.node.core.rooms.list(teamId)).rooms.length
    const res = await n.call('/admin/rooms', {
      method: 'POST',
      key,
      headers: { 'Content-Type': 'application/json' },
      body: rawBody('{"name":"u\xff\xfe"}'),
    })
    t.equal(res.status, 400)
    const body = (await res.json()) as { error: { code: string; message: string; details: unknown } }
    t.match(body.error, {
      code: 'invalid_request',
      message: /^body is not valid UTF-8 \(byte 10 starts no UTF-8 character\)/,
      details: { field: 'body' },
    })
    t.equal((await n.node.core.rooms.list(teamId)).rooms.length, before, 'no room made')
  })

  await t.test('two agent ids that decoding would make one are both refused over MCP', async (t) => {
    for (const id of ['u\xff\xfe', 'u\xc0\xaf', 'u\xed\xa0\x80', 'u\xf4\x90\x80\x80']) {
      const json = JSON.stringify(legacyCall('heartbeat', { room_id: roomId, agent_id: id }))
      const res = await n.call('/mcp', {
        method: 'POST',
        key,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: rawBody(json),
      })
      t.equal(res.status, 400, JSON.stringify(id))
      const reply = (await res.json()) as { error: { code: number; message: string } }
      t.equal(reply.error.code, -32700, 'a parse error')
      t.match(reply.error.message, /^Parse error: the request body is not valid UTF-8 \(byte \d+ starts/)
    }
    const presence = await n.node.core.presence.list({ room: { teamId, roomId }, agent: 'reader' })
    t.equal(presence.online.length, 0, 'no one is online')
  })

  await t.test('a query whose escapes are not UTF-8 names the parameter', async (t) => {
    const res = await n.call('/admin/audit?limit=%FF%FE', { key })
    t.equal(res.status, 400)
    const body = (await res.json()) as { error: { code: string; message: string; details: unknown } }
    t.match(body.error, { code: 'invalid_request', message: /^limit: its percent-escapes are not UTF-8/ })
    t.same(body.error.details, { field: 'limit' })
    const fine = await n.call('/admin/audit?limit=5&note=%E2%9C%93%', { key })
    t.equal(fine.status, 200, 'UTF-8 escapes and a lone % are fine')
  })

  await t.test('a path parameter whose escapes are not UTF-8 is named, on the API and the room stream', async (t) => {
    for (const path of ['/room/u%FF%FE', '/admin/rooms/u%C0%AF/stats', '/rooms/u%ED%A0%80/stream']) {
      const res = await n.call(path, { key })
      t.equal(res.status, 400, path)
      const body = (await res.json()) as { error: { code: string; message: string; details: unknown } }
      t.match(body.error, {
        code: 'invalid_request',
        message: /^roomId: its percent-escapes in the path are not UTF-8/,
      })
      t.same(body.error.details, { field: 'roomId' })
    }
    const query = await n.call(`/rooms/${roomId}/stream?agent_id=%C0%AF`, { key })
    t.equal(query.status, 400, "the stream's query is held to UTF-8 too")
    t.match(await query.json(), { error: { message: /^agent_id: its percent-escapes are not UTF-8/ } })
    t.equal((await n.call('/admin/rooms/%zz', { key })).status, 404, 'a malformed escape names no route, as before')
    const fine = await n.call(`/admin/rooms/${encodeURIComponent(roomId)}/stats`, { key })
    t.equal(fine.status, 200, 'a UTF-8 path goes through')
  })
})

t.test("the dashboard's forms refuse what is not UTF-8", async (t) => {
  const { inbox, op, b } = await signedInOperator(t)
  const raw = await b.post('/signin', Buffer.from('email=u\xff@example.com', 'latin1'))
  t.equal(raw.status, 400)
  t.match(raw.body, /the form is not valid UTF-8 \(byte 7 starts no UTF-8 character\)/)
  const escaped = await b.post('/signin', 'email=u%FF%40example.com')
  t.equal(escaped.status, 400)
  t.match(escaped.body, /email: its percent-escapes are not UTF-8/)
  const fine = await b.post('/signin', `email=${encodeURIComponent(op)}`)
  t.equal(fine.status, 200, 'a well-formed form goes through')
  t.equal((await inbox.next(op)).to, op, 'and its mail is sent')
})
