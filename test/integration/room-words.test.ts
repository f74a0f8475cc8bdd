// A missing room, and a room id already taken, in each transport's own words: MCP tools name the
// room_id argument, the HTTP API says roomId and the room, the dashboard speaks to a person. The
// store and the core raise one domain error for each (RoomNotFound, RoomExists); the wording is
// the transport's, and every path to the same refusal reads alike within a transport.
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'
import { legacyCall, post, toolReplyOf } from '../helpers/mcp.js'
import { newTeam, startNode } from '../helpers/node.js'
import { RoomExists, RoomNotFound } from '../../src/shared/errors.js'

const NOT_FOUND_HINT = 'Check the id; list the collection to see what exists.'

t.test('MCP and HTTP (standalone)', async (t) => {
  const n = await startNode(t, 'standalone')
  const { key, teamId } = await newTeam(n)
  const { room } = await n.node.core.rooms.create(teamId, { room_id: 'here' }, 'test')
  const invite = (await (
    await n.call(`/admin/rooms/${room.room_id}/invite`, { method: 'POST', key, json: {} })
  ).json()) as { key: string }
  const tool = async (k: string, name: string, args: Record<string, unknown>) =>
    toolReplyOf((await post(n, legacyCall(name, args), {}, { key: k })).json)

  await t.test('the core and the store raise domain errors, with the room and no field name', async (t) => {
    const missing = await n.node.core.plan.readPlan({ room: { teamId, roomId: 'gone' } }).catch((e: unknown) => e)
    t.ok(missing instanceof RoomNotFound, 'a missing room is RoomNotFound')
    t.match(missing, { code: 'not_found', roomId: 'gone', details: undefined }, 'with the room and no field')
    const taken = await n.node.core.rooms.create(teamId, { room_id: 'here' }, 'test').catch((e: unknown) => e)
    t.ok(taken instanceof RoomExists, 'a room id already taken is RoomExists')
    t.match(taken, { code: 'conflict', roomId: 'here', details: undefined }, 'with the room and no field')
  })

  await t.test('MCP: a room that does not exist and one the key may not see answer alike', async (t) => {
    const expected = {
      room_id: 'gone',
      error: { code: 'not_found', message: 'room not found', hint: NOT_FOUND_HINT, details: { field: 'room_id' } },
    }
    const replies = [
      await tool(key, 'heartbeat', { room_id: 'gone', agent_id: 'ann' }),
      await tool(key, 'read_plan', { room_id: 'gone', agent_id: 'ann' }),
      await tool(key, 'search', { room_id: 'gone', agent_id: 'ann', query: 'x' }),
      await tool(invite.key, 'heartbeat', { room_id: 'gone', agent_id: 'ann' }),
    ]
    for (const r of replies) {
      t.ok(r.isError)
      t.same(r.body, expected)
    }
  })

  await t.test('MCP: a room id already taken names room_id', async (t) => {
    const r = await tool(key, 'create_room_from_template', { template: 'blank', new_room_id: 'here' })
    t.ok(r.isError)
    t.same(r.body, {
      error: {
        code: 'conflict',
        message: 'a room with this id already exists in this team',
        hint: 'The state changed or is held by someone else; read it again, then decide.',
        details: { field: 'room_id' },
      },
    })
  })

  await t.test('HTTP: a missing room of the own team reads like one of another team', async (t) => {
    for (const path of ['/room/gone', '/rooms/gone/search?q=x', '/admin/rooms/gone/stats']) {
      const res = await n.call(path, { key })
      t.same(
        { status: res.status, body: await res.json() },
        {
          status: 404,
          body: {
            error: {
              code: 'not_found',
              message: 'room gone not found',
              hint: NOT_FOUND_HINT,
              details: { field: 'roomId' },
            },
          },
        },
        path,
      )
    }
  })

  await t.test('HTTP: a room id already taken names roomId', async (t) => {
    const res = await n.call('/admin/rooms', { method: 'POST', key, json: { roomId: 'here' } })
    t.same(
      { status: res.status, body: await res.json() },
      {
        status: 409,
        body: {
          error: {
            code: 'conflict',
            message: 'roomId: a room with this id already exists in this team',
            hint: 'The state changed or is held by someone else; read it again, then decide.',
            details: { field: 'roomId' },
          },
        },
      },
    )
  })
})

t.test('the dashboard (standalone)', async (t) => {
  const { b } = await signedInOperator(t)

  await t.test('a missing room page says what happened and where to look', async (t) => {
    const page = await b.get('/room?id=gone')
    t.equal(page.status, 404)
    t.match(page.body, 'There is no room &quot;gone&quot; in team')
    t.match(page.body, 'your rooms page lists every room there is')
  })

  await t.test('a form posted to a missing room answers with that page, not a kept form', async (t) => {
    for (const [path, form] of [
      ['/room/events', { room: 'gone', type: 'message', text: 'hello' }],
      ['/room/agents', { room: 'gone', agents: 'dev' }],
    ] as const) {
      const page = await b.post(path, form)
      t.equal(page.status, 404, path)
      t.match(page.body, 'There is no room &quot;gone&quot; in team', `${path}: worded as the room page words it`)
    }
  })
})
