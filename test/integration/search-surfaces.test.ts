// Search (and analytics) say the same over MCP and over HTTP, on a real node, standalone and
// cluster: the `search` tool and GET /rooms/:roomId/search, the `get_room_analytics` tool and
// GET /admin/rooms/:roomId/stats; errors name the field each surface calls it by.
import t from 'tap'
import { callTool, legacyClient } from '../helpers/mcp.js'
import { newTeam, startNode } from '../helpers/node.js'
import { BACKENDS, uid } from '../helpers/shared.js'

type Json = Record<string, any>

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const n = await startNode(t, backend)
    const team = await newTeam(n)
    const roomId = uid('search-')
    t.equal((await n.call('/admin/rooms', { method: 'POST', key: team.key, json: { roomId } })).status, 201)
    const client = await legacyClient(t, n, team.key)
    const tool = async (name: string, args: Json = {}) => callTool(client, name, { room_id: roomId, agent_id: 'alice', ...args })
    await tool('add_task', { title: 'Rollout plan', notes: 'canary first' })
    await tool('add_task', { title: 'Logs', notes: 'rotate them before the rollout' })
    await tool('write_context', { type: 'spec', key: 'rollout', body: 'How we ship.' })
    await tool('post_event', { type: 'message', text: 'rollout at noon' })
    const get = async (path: string, key = team.key) => {
      const res = await n.call(path, { key })
      return { status: res.status, body: (await res.json()) as Json }
    }

    t.test('the search tool and the HTTP route give the same answer', async (t) => {
      const mcp = await tool('search', { query: 'rollout', limit: 10 })
      t.notOk(mcp.isError)
      const http = await get(`/rooms/${roomId}/search?q=rollout&limit=10`)
      t.equal(http.status, 200)
      const { unread, ...mcpRest } = mcp.body
      t.type(unread, 'number', 'the tool carries the agent\'s unread count')
      t.same(http.body, mcpRest, 'same results, engine, room_id')
      const results = http.body.results as Json[]
      t.same(results.map((r) => r.ref).sort(), ['context spec/rollout', `event ${results.find((r) => r.kind === 'event')?.id}`, 'task t1', 'task t2'])
      const kinds = await get(`/rooms/${roomId}/search?q=rollout&kinds=context,event`)
      t.same(
        (kinds.body.results as Json[]).map((r) => r.kind),
        ['context', 'event'],
      )
    })

    t.test('an invite key searches its room; other rooms and teams are 404', async (t) => {
      const invite = await n.node.teams.mintInvite(team.teamId, roomId, {})
      t.equal((await get(`/rooms/${roomId}/search?q=rollout`, invite.key)).status, 200)
      const other = await newTeam(n)
      const res = await get(`/rooms/${roomId}/search?q=rollout`, other.key)
      t.equal(res.status, 404)
      t.equal(res.body.error.details.field, 'roomId')
    })

    t.test('errors name the field: semantic search disabled, bad query parameters', async (t) => {
      const http = await get(`/rooms/${roomId}/search?q=rollout&semantic=true`)
      t.equal(http.status, 400)
      t.match(http.body.error, { code: 'semantic_search_disabled', details: { field: 'semantic' } })
      t.match(http.body.error.message, /MEILI_EMBEDDER_SOURCE/)
      const mcp = await tool('search', { query: 'rollout', semantic: true })
      t.ok(mcp.isError)
      t.same(mcp.body.error, http.body.error, 'the same error object over MCP')
      t.match((await get(`/rooms/${roomId}/search`)).body.error, { code: 'invalid_request', details: { field: 'q' } })
      t.match((await get(`/rooms/${roomId}/search?q=%20%20`)).body.error, { code: 'invalid_request', details: { field: 'q' } })
      t.match((await get(`/rooms/${roomId}/search?q=x&kinds=tasks`)).body.error, { code: 'invalid_request', details: { field: 'kinds' } })
      t.match((await get(`/rooms/${roomId}/search?q=x&limit=0`)).body.error, { code: 'invalid_request', details: { field: 'limit' } })
      t.match((await tool('search', { query: 'x', limit: 0 })).body.error, { code: 'invalid_request', details: { field: 'limit' } })
    })

    t.test('get_room_analytics and the stats route agree', async (t) => {
      const mcp = await tool('get_room_analytics', {})
      const http = await get(`/admin/rooms/${roomId}/stats`)
      t.equal(http.status, 200)
      for (const k of ['tasks', 'counts', 'completion_rate', 'online_agents', 'events_per_day']) t.same(http.body[k], mcp.body[k], k)
    })
  })
}
