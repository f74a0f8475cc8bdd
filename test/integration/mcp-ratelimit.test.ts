// The team rate limit on POST /mcp: every request counts exactly once, whatever it is (a tool call
// on the fast path or through the SDK server, a team tool, a bad request); a refused one is HTTP
// 429 with Retry-After and RateLimit-* headers, never a tool result, and it changes nothing.
import t from 'tap'
import { startNode, type TestNode } from '../helpers/node.js'
import { legacyCall, post, type RawReply } from '../helpers/mcp.js'
import { BACKENDS, rawClient, uid, type Backend } from '../helpers/shared.js'
import { ROOM_KEYS } from '../../src/store/keys.js'

async function teamWithRoom(n: TestNode, limit: number) {
  const teamId = uid('tm')
  const { key } = (await n.node.teams.create({ teamId, name: 'rate' })) as { key: string }
  n.node.settings.rateLimitOverrides.set(teamId, limit)
  const { room } = await n.node.core.rooms.create(teamId, { template: 'web-app' }, 'test')
  return { teamId, key, roomId: room.room_id }
}

/** Request kinds the endpoint answers, reads and writes, along each of its paths. */
function requests(roomId: string): [label: string, body: unknown, headers?: Record<string, string>][] {
  const a = { room_id: roomId, agent_id: 'a' }
  return [
    ['post_event', legacyCall('post_event', { ...a, type: 'status', text: 'hi' })],
    ['update_task', legacyCall('update_task', { ...a, task_id: 't1', status: 'in_progress' })],
    ['write_context', legacyCall('write_context', { ...a, type: 'spec', key: 'api', body: 'v2' })],
    ['get_unread_events (moves a cursor)', legacyCall('get_unread_events', { ...a })],
    ['heartbeat', legacyCall('heartbeat', a)],
    ['acquire_lock', legacyCall('acquire_lock', { ...a, name: 'schema.sql' })],
    ['set_shared_var', legacyCall('set_shared_var', { ...a, name: 'n', increment: 1 })],
    ['search', legacyCall('search', { ...a, query: 'api' })],
    ['wait_for_events', legacyCall('wait_for_events', { ...a, timeout_s: 1 })],
    ['a room that does not exist', legacyCall('heartbeat', { room_id: 'no-such-room', agent_id: 'a' })],
    ['invalid arguments', legacyCall('post_event', { ...a, type: 'status' })],
    ['a team tool', legacyCall('create_room_from_template', { template: 'blank', room_id: uid('r') })],
    [
      'tools/call with a progress token (SDK path)',
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'heartbeat', arguments: a, _meta: { progressToken: 1 } },
      },
    ],
    ['an unknown tool', legacyCall('no_such_tool', {})],
    ['tools/list', { jsonrpc: '2.0', id: 3, method: 'tools/list' }],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['bad JSON', '{"jsonrpc": '],
    ['an SSE-only client', legacyCall('heartbeat', a), { Accept: 'text/event-stream' }],
  ]
}

/** The stored state of a room and of the team's room index (DUMP of each key). */
async function state(backend: Backend, n: TestNode, teamId: string, roomId: string): Promise<(string | null)[]> {
  const redis = rawClient(backend)
  try {
    const keys = n.node.store.keys
    const roomKeys = ROOM_KEYS.filter((k) => k !== 'channel').map((k) => keys.room({ teamId, roomId })[k])
    const dumps = await Promise.all([...roomKeys, keys.team(teamId).rooms].map((k) => redis.dumpBuffer(k)))
    return dumps.map((d) => (d ? d.toString('base64') : null))
  } finally {
    redis.disconnect()
  }
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('tool calls count down the allowance; the call over it is 429 with its headers', async (t) => {
      const n = await startNode(t, backend)
      const { teamId, key, roomId } = await teamWithRoom(n, 5)
      const remaining: number[] = []
      for (let i = 0; i < 5; i++) {
        const r = await post(
          n,
          legacyCall('post_event', { room_id: roomId, agent_id: 'a', type: 'status', text: `n${i}` }),
          {},
          { key },
        )
        t.equal(r.status, 200, `call ${i + 1} of 5 is answered`)
        t.equal(r.headers.get('ratelimit-limit'), '5')
        t.notOk(r.headers.has('retry-after'), 'no Retry-After while allowed')
        remaining.push(Number(r.headers.get('ratelimit-remaining')))
      }
      t.same(remaining, [4, 3, 2, 1, 0], 'RateLimit-Remaining counts down to 0')
      const before = await state(backend, n, teamId, roomId)
      const refused = await post(
        n,
        legacyCall('post_event', { room_id: roomId, agent_id: 'a', type: 'status', text: 'over' }),
        {},
        { key },
      )
      t.equal(refused.status, 429, 'call 6 is refused with HTTP 429, not a tool error')
      const wait = Number(refused.headers.get('retry-after'))
      t.ok(wait >= 59 && wait <= 62, `Retry-After ${wait}: the five calls count until they leave the rolling minute`)
      t.equal(refused.headers.get('ratelimit-remaining'), '0')
      t.match(refused.json, {
        error: { code: 'rate_limited', message: /5 calls per minute/, details: { limit: 5, retry_after_s: wait } },
      })
      t.same(await state(backend, n, teamId, roomId), before, 'the refused post posted nothing')
    })

    t.test("each credential's own quota on /mcp, inside the team's: the 429 names the limit it hit", async (t) => {
      const n = await startNode(t, backend, { rateLimitPerCredentialPerMin: 2 })
      const { teamId, key, roomId } = await teamWithRoom(n, 5)
      const invite = (await n.node.teams.mintInvite(teamId, roomId, { label: 'outside', agentId: 'guest' })).key
      const heartbeat = (agent: string) => legacyCall('heartbeat', { room_id: roomId, agent_id: agent })
      for (let i = 0; i < 2; i++) {
        const r = await post(n, heartbeat('guest'), {}, { key: invite })
        t.equal(r.status, 200, `the invite key's call ${i + 1} of its 2`)
        t.equal(r.headers.get('ratelimit-limit'), '2', 'RateLimit-Limit: its own limit, the one with less left')
        t.equal(r.headers.get('ratelimit-remaining'), String(1 - i))
      }
      const own = await post(n, heartbeat('guest'), {}, { key: invite })
      t.equal(own.status, 429, 'its third call is refused')
      const ownWait = Number(own.headers.get('retry-after'))
      t.ok(ownWait >= 59 && ownWait <= 62, `Retry-After ${ownWait}: until its two calls leave the minute`)
      t.equal(own.headers.get('ratelimit-limit'), '2')
      t.equal(own.headers.get('ratelimit-remaining'), '0')
      t.match(own.json, {
        error: {
          code: 'rate_limited',
          message: /this credential's own rate limit of 2 calls per minute/,
          details: { limit: 2, limit_scope: 'credential', retry_after_s: ownWait },
        },
      })
      for (let i = 0; i < 2; i++)
        t.equal((await post(n, heartbeat('a'), {}, { key })).status, 200, `the team key is still served (${i + 1})`)
      const second = (await n.node.teams.mintTeamKey(teamId, { scope: 'agent' })).key
      const fifth = await post(n, heartbeat('b'), {}, { key: second })
      t.equal(fifth.status, 200, "a third key's first call is the team's fifth")
      t.equal(fifth.headers.get('ratelimit-remaining'), '0', 'the team has none left')
      const before = await state(backend, n, teamId, roomId)
      const ceiling = await post(n, heartbeat('b'), {}, { key: second })
      t.equal(ceiling.status, 429, "its second: the team's ceiling refuses it, not its own")
      t.equal(ceiling.headers.get('ratelimit-limit'), '5', "RateLimit-Limit: the team's ceiling")
      t.ok(Number(ceiling.headers.get('retry-after')) >= 1, 'with Retry-After')
      t.match(ceiling.json, {
        error: { message: /the team's rate limit of 5 calls per minute/, details: { limit: 5, limit_scope: 'team' } },
      })
      t.same(await state(backend, n, teamId, roomId), before, 'the refused heartbeat changed nothing')
    })

    t.test('a refused request changes nothing, whatever it is', async (t) => {
      const n = await startNode(t, backend)
      const { teamId, key, roomId } = await teamWithRoom(n, 1)
      // The one call of the minute: the room then holds a task t1 in progress for update_task.
      t.equal((await post(n, legacyCall('heartbeat', { room_id: roomId, agent_id: 'a' }), {}, { key })).status, 200)
      const before = await state(backend, n, teamId, roomId)
      for (const [label, body, headers] of requests(roomId)) {
        const r: RawReply = await post(n, body, headers ?? {}, { key })
        t.equal(r.status, 429, `${label}: 429`)
        t.ok(Number(r.headers.get('retry-after')) >= 1, `${label}: Retry-After`)
      }
      t.same(await state(backend, n, teamId, roomId), before, "the room and the team's rooms are as they were")
    })

    t.test('every request counts exactly once, whichever way it is checked', async (t) => {
      const n = await startNode(t, backend)
      // 100 a minute: each allowed call adds exactly one to the team's rolling window (the
      // calls of its buckets, summed), and the whole test takes far less than a minute.
      const { teamId, key, roomId } = await teamWithRoom(n, 100)
      const rateKey = n.node.store.keys.team(teamId).rate
      const counted = async () => (await n.node.store.client.hvals(rateKey)).reduce((sum, v) => sum + Number(v), 0)
      t.equal((await post(n, legacyCall('heartbeat', { room_id: roomId, agent_id: 'a' }), {}, { key })).status, 200)
      const start = await counted()
      const list = requests(roomId)
      for (const [label, body, headers] of list) {
        const r = await post(n, body, headers ?? {}, { key })
        t.ok(r.status < 500 && r.status !== 429, `${label}: answered (${r.status})`)
      }
      t.equal((await counted()) - start, list.length, `${list.length} requests in a row: ${list.length} counted`)
      const before = await counted()
      const concurrent = await Promise.all(list.map(([, body, headers]) => post(n, body, headers ?? {}, { key })))
      t.ok(
        concurrent.every((r) => r.status < 500 && r.status !== 429),
        'the same requests at once are all answered',
      )
      t.equal((await counted()) - before, list.length, `${list.length} requests at once: ${list.length} counted`)
    })
  })
}
