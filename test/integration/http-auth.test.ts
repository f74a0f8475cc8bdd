// The key matrix: every endpoint against every kind of key, on real nodes over both backends.
// One cell = one endpoint × one key = one assertion, named "<METHOD> <path> × <key> → <status>".
// Admin endpoints (rooms, keys, invites, webhooks) need a team key (an invite key gets 403); a
// room (or credential, or webhook) the key cannot see, whether another team's or another room
// than an invite's, is 404 exactly like one that does not exist; a revoked, truncated, altered or
// missing key is 401 with WWW-Authenticate: Bearer.
import t from 'tap'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { BACKENDS, uid } from '../helpers/shared.js'
import { makeTestCa } from '../helpers/webhooks.js'

type KeyName =
  'team' | 'invite here' | 'invite other room' | 'other team' | 'revoked' | 'truncated' | 'altered' | 'none'
const KEY_NAMES: KeyName[] = [
  'team',
  'invite here',
  'invite other room',
  'other team',
  'revoked',
  'truncated',
  'altered',
  'none',
]

interface Fixture {
  n: TestNode
  teamA: string
  room: string
  keys: Record<KeyName, string | undefined>
}

/** One endpoint: how to call it against `room` (an existing room, or a ghost id) with a key. */
interface Endpoint {
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  /** Expected status per key kind; unlisted kinds are 401 (or 200 on public endpoints). */
  expect: Partial<Record<KeyName, number>>
  public?: boolean
  stream?: boolean
  send(f: Fixture, key: string | undefined, room: string): Promise<Response>
}

const call = (f: Fixture, method: string, path: string, key: string | undefined, json?: unknown) =>
  f.n.call(path, { method, key, ...(json !== undefined ? { json } : {}) })

// Admin endpoints on the caller's own team: a key of another team simply sees its own team.
const ownTeam = { team: 200, 'invite here': 403, 'invite other room': 403, 'other team': 200 }
// Admin endpoints on a room (or credential) of team A: another team's key sees nothing.
const teamARoom = { team: 200, 'invite here': 403, 'invite other room': 403, 'other team': 404 }
const created = (e: Record<string, number>) =>
  Object.fromEntries(Object.entries(e).map(([k, v]) => [k, v === 200 ? 201 : v]))
// Room endpoints (snapshot, stream): a team key of the room's team, or the room's own invite.
const roomRead = { team: 200, 'invite here': 200, 'invite other room': 404, 'other team': 404 }
// A webhook target the matrix node accepts (its test CA allows loopback); it delivers nothing
// (WEBHOOKS_ENABLED=false), so no request is ever made to it.
const WEBHOOK_URL = 'https://127.0.0.1:9/matrix'

const ENDPOINTS: Endpoint[] = [
  ...(['/health', '/ready', '/metrics', '/openapi.json'] as const).map((path): Endpoint => ({
    method: 'GET',
    path,
    public: true,
    expect: {},
    send: (f, key) => call(f, 'GET', path, key),
  })),
  { method: 'GET', path: '/admin/me', expect: ownTeam, send: (f, key) => call(f, 'GET', '/admin/me', key) },
  {
    method: 'POST',
    path: '/admin/rooms',
    expect: created(ownTeam),
    send: (f, key) => call(f, 'POST', '/admin/rooms', key, { name: 'matrix' }),
  },
  { method: 'GET', path: '/admin/rooms', expect: ownTeam, send: (f, key) => call(f, 'GET', '/admin/rooms', key) },
  {
    method: 'GET',
    path: '/admin/rooms/:roomId/stats',
    expect: teamARoom,
    send: (f, key, room) => call(f, 'GET', `/admin/rooms/${room}/stats`, key),
  },
  {
    method: 'GET',
    path: '/room/:roomId',
    expect: roomRead,
    send: (f, key, room) => call(f, 'GET', `/room/${room}`, key),
  },
  {
    method: 'GET',
    path: '/rooms/:roomId/search',
    expect: roomRead,
    send: (f, key, room) => call(f, 'GET', `/rooms/${room}/search?q=anything`, key),
  },
  {
    method: 'POST',
    path: '/admin/keys',
    expect: created(ownTeam),
    send: (f, key) => call(f, 'POST', '/admin/keys', key, { label: 'matrix' }),
  },
  { method: 'GET', path: '/admin/keys', expect: ownTeam, send: (f, key) => call(f, 'GET', '/admin/keys', key) },
  {
    method: 'DELETE',
    path: '/admin/keys/:keyId',
    expect: teamARoom,
    // A spare key of team A for each call, so the allowed cell revokes a key nobody else uses.
    send: async (f, key, room) => {
      const spare = room === f.room ? (await f.n.node.teams.mintTeamKey(f.teamA, {})).info.keyId : `key_${room}`
      return call(f, 'DELETE', `/admin/keys/${spare}`, key)
    },
  },
  {
    method: 'POST',
    path: '/admin/rooms/:roomId/invite',
    expect: created(teamARoom),
    send: (f, key, room) => call(f, 'POST', `/admin/rooms/${room}/invite`, key, {}),
  },
  {
    method: 'GET',
    path: '/admin/rooms/:roomId/invites',
    expect: teamARoom,
    send: (f, key, room) => call(f, 'GET', `/admin/rooms/${room}/invites`, key),
  },
  {
    method: 'DELETE',
    path: '/admin/rooms/:roomId/invites/:tokenId',
    expect: teamARoom,
    send: async (f, key, room) => {
      const token =
        room === f.room ? (await f.n.node.teams.mintInvite(f.teamA, f.room, {})).info.tokenId : `inv_${room}`
      return call(f, 'DELETE', `/admin/rooms/${f.room}/invites/${token}`, key)
    },
  },
  {
    method: 'POST',
    path: '/admin/webhooks',
    expect: created(ownTeam),
    send: (f, key) => call(f, 'POST', '/admin/webhooks', key, { url: WEBHOOK_URL, description: 'matrix' }),
  },
  { method: 'GET', path: '/admin/webhooks', expect: ownTeam, send: (f, key) => call(f, 'GET', '/admin/webhooks', key) },
  {
    method: 'DELETE',
    path: '/admin/webhooks/:webhookId',
    expect: teamARoom,
    // A spare webhook of team A for each call, so the allowed cell deletes one nobody else uses.
    send: async (f, key, room) => {
      const id =
        room === f.room
          ? (await f.n.node.webhooks.registry.create(f.teamA, { url: WEBHOOK_URL })).webhook.webhookId
          : `wh_${room}`
      return call(f, 'DELETE', `/admin/webhooks/${id}`, key)
    },
  },
  {
    method: 'GET',
    path: '/rooms/:roomId/stream',
    stream: true,
    expect: roomRead,
    send: (f, key, room) => openStream(f, key, room),
  },
]

/** Opens the SSE stream, keeps only its status line and headers, and aborts the body. */
async function openStream(f: Fixture, key: string | undefined, room: string): Promise<Response> {
  const ac = new AbortController()
  const res = await f.n.call(`/rooms/${room}/stream`, { key, signal: ac.signal })
  if (res.status !== 200) return res
  ac.abort()
  return new Response(null, { status: res.status, headers: res.headers })
}

function expected(e: Endpoint, key: KeyName): number {
  if (e.public) return 200
  return e.expect[key] ?? 401
}

const CODE: Record<number, string> = { 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' }

/** What a cell is judged on: the status, and the shape that status promises. */
async function observe(res: Response, e: Endpoint): Promise<Record<string, unknown>> {
  const type = res.headers.get('content-type') ?? ''
  if (res.status < 300) {
    if (!e.stream) await res.arrayBuffer()
    return {
      status: res.status,
      type: e.stream ? type : type.split(';')[0],
      rateLimitHeaders: e.public ? 'n/a' : res.headers.has('ratelimit-limit') && res.headers.has('ratelimit-remaining'),
    }
  }
  const body = (await res.json()) as { error?: { code?: unknown; message?: unknown; hint?: unknown } }
  return {
    status: res.status,
    code: body.error?.code,
    message: typeof body.error?.message === 'string' && body.error.message.length > 0,
    hint: typeof body.error?.hint === 'string',
    wwwAuthenticate: res.status === 401 ? /^Bearer\b/.test(res.headers.get('www-authenticate') ?? '') : 'n/a',
  }
}

function want(e: Endpoint, status: number): Record<string, unknown> {
  if (status < 300) {
    const type = e.stream ? 'text/event-stream' : e.path === '/metrics' ? 'text/plain' : 'application/json'
    return { status, type, rateLimitHeaders: e.public ? 'n/a' : true }
  }
  return { status, code: CODE[status], message: true, hint: true, wwwAuthenticate: status === 401 ? true : 'n/a' }
}

async function fixture(n: TestNode): Promise<Fixture> {
  const a = await newTeam(n)
  const b = await newTeam(n)
  const room = 'matrix-room'
  await n.node.core.rooms.create(a.teamId, { room_id: room }, 'test')
  await n.node.core.rooms.create(a.teamId, { room_id: 'other-room' }, 'test')
  const inviteHere = await n.node.teams.mintInvite(a.teamId, room, {})
  const inviteOther = await n.node.teams.mintInvite(a.teamId, 'other-room', {})
  const revoked = await n.node.teams.mintTeamKey(a.teamId, { label: 'to revoke' })
  const res = await n.call(`/admin/keys/${revoked.info.keyId}`, { method: 'DELETE', key: a.key })
  if (res.status !== 200) throw new Error(`revoking the fixture key failed: ${res.status}`)
  const last = a.key.at(-1) === 'A' ? 'B' : 'A'
  return {
    n,
    teamA: a.teamId,
    room,
    keys: {
      team: a.key,
      'invite here': inviteHere.key,
      'invite other room': inviteOther.key,
      'other team': b.key,
      revoked: revoked.key,
      truncated: a.key.slice(0, -1),
      altered: a.key.slice(0, -1) + last,
      none: undefined,
    },
  }
}

/** A 404 body with the ids it names replaced, to compare answers about two different ids. */
const normalized = async (res: Response, id: string) =>
  JSON.parse(
    (await res.text())
      .replace(/\b(key|inv|wh)_[\w-]+/g, '<credential>')
      .split(id)
      .join('<id>'),
  ) as unknown

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const ca = await makeTestCa(t)
    const n = await startNode(t, backend, { webhookTestLoopbackCa: ca.caFile, webhooksEnabled: false })
    const f = await fixture(n)

    for (const e of ENDPOINTS) {
      t.test(`${e.method} ${e.path}`, async (t) => {
        for (const key of KEY_NAMES) {
          const status = expected(e, key)
          const got = await observe(await e.send(f, f.keys[key], f.room), e)
          t.same(got, want(e, status), `${e.method} ${e.path} × ${key} → ${status}`)
          if (status === 404) {
            // No existence leak: the same key asking about an id that exists nowhere gets the same answer.
            const ghost = uid('ghost-')
            const real = await normalized(await e.send(f, f.keys[key], f.room), f.room)
            const none = await normalized(await e.send(f, f.keys[key], ghost), ghost)
            t.same(real, none, `${e.method} ${e.path} × ${key}: identical to an id that exists nowhere`)
          }
        }
      })
    }

    t.test("allowed calls act for the key's own team", async (t) => {
      const me = (await (await n.call('/admin/me', { key: f.keys['other team'] })).json()) as { teamId: string }
      t.not(me.teamId, f.teamA, "another team's key sees its own team in /admin/me")
      const rooms = (await (await n.call('/admin/rooms', { key: f.keys['other team'] })).json()) as {
        rooms: { roomId: string }[]
      }
      t.notOk(
        rooms.rooms.some((r) => r.roomId === f.room),
        "another team's room list never shows team A's rooms",
      )
      type Hooks = { webhooks: { webhookId: string }[] }
      const mine = (await (await n.call('/admin/webhooks', { key: f.keys.team })).json()) as Hooks
      const theirs = (await (await n.call('/admin/webhooks', { key: f.keys['other team'] })).json()) as Hooks
      t.ok(mine.webhooks.length > 0, 'team A has webhooks')
      t.ok(theirs.webhooks.length > 0, 'and so has the other team (its POST cell)')
      t.notOk(
        theirs.webhooks.some((w) => mine.webhooks.some((m) => m.webhookId === w.webhookId)),
        "another team's webhook list never shows team A's webhooks",
      )
      const snap = (await (await n.call(`/room/${f.room}`, { key: f.keys['invite here'] })).json()) as {
        room: { room_id: string }
      }
      t.equal(snap.room.room_id, f.room, 'an invite key reads its own room')
    })

    t.test('every 404 for a room reads alike, whichever check refused it', async (t) => {
      const other = f.keys['other team']
      const answers = await Promise.all([
        n.call(`/room/${f.room}`, { key: other }),
        n.call(`/room/${f.room}`, { key: f.keys['invite other room'] }),
        n.call(`/rooms/${f.room}/stream`, { key: other }),
        n.call(`/admin/rooms/${f.room}/stats`, { key: other }),
        n.call(`/admin/rooms/${f.room}/invite`, { method: 'POST', key: other, json: {} }),
        n.call(`/admin/rooms/${f.room}/invites`, { key: other }),
      ])
      for (const res of answers) {
        t.same(
          { status: res.status, body: await res.json() },
          {
            status: 404,
            body: {
              error: {
                code: 'not_found',
                message: `room ${f.room} not found`,
                hint: 'Check the id; list the collection to see what exists.',
                details: { field: 'roomId' },
              },
            },
          },
          res.url.replace(n.base, ''),
        )
      }
    })

    t.test('refused calls changed nothing', async (t) => {
      const rooms = (await (await n.call('/admin/rooms', { key: f.keys.team })).json()) as { rooms: { name: string }[] }
      t.equal(
        rooms.rooms.filter((r) => r.name === 'matrix').length,
        1,
        "POST /admin/rooms created one room for team A: the team key's",
      )
      for (const [who, key] of [
        ['team A', f.keys.team],
        ['team B', f.keys['other team']],
      ] as const) {
        const keys = (await (await n.call('/admin/keys', { key })).json()) as { keys: { label?: string }[] }
        t.equal(keys.keys.filter((k) => k.label === 'matrix').length, 1, `POST /admin/keys minted one key for ${who}`)
      }
      for (const [who, key] of [
        ['team A', f.keys.team],
        ['team B', f.keys['other team']],
      ] as const) {
        const hooks = (await (await n.call('/admin/webhooks', { key })).json()) as {
          webhooks: { description?: string }[]
        }
        t.equal(
          hooks.webhooks.filter((w) => w.description === 'matrix').length,
          1,
          `POST /admin/webhooks registered one webhook for ${who}`,
        )
      }
      t.equal((await n.call('/admin/me', { key: f.keys.team })).status, 200, "team A's key still works")
      t.equal((await n.call(`/room/${f.room}`, { key: f.keys['invite here'] })).status, 200, 'the invite still works')
    })

    t.test('a malformed Authorization header is 401 too', async (t) => {
      for (const header of ['Basic dXNlcjpwYXNz', 'Bearer', `Bearer ${f.keys.team} extra`, f.keys.team!]) {
        const res = await n.call('/admin/me', { headers: { Authorization: header } })
        t.equal(res.status, 401, `Authorization: ${header.slice(0, 20)}… → 401`)
        t.match(res.headers.get('www-authenticate'), /^Bearer/)
      }
    })
  })
}
