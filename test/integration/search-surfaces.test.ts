// Search (and analytics) say the same over MCP and over HTTP, on a real node, standalone and
// cluster: the `search` tool and GET /rooms/:roomId/search, the `get_room_analytics` tool and
// GET /admin/rooms/:roomId/stats; errors name the field each surface calls it by. Whether semantic
// search is on shows in GET /admin/me and get_room_info, without an embedder and with one (a real
// HTTP embedding server started here), and a semantic search says the same on both surfaces.
import t from 'tap'
import { RedisSearchEngine } from '../../src/search/redis/engine.js'
import { startTestEmbedder, TEST_MODEL } from '../helpers/embedder.js'
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
    const tool = async (name: string, args: Json = {}) =>
      callTool(client, name, { room_id: roomId, agent_id: 'alice', ...args })
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
      t.type(unread, 'number', "the tool carries the agent's unread count")
      t.same(http.body, mcpRest, 'same results, engine, room_id')
      const results = http.body.results as Json[]
      t.same(results.map((r) => r.ref).sort(), [
        'context spec/rollout',
        `event ${results.find((r) => r.kind === 'event')?.id}`,
        'task t1',
        'task t2',
      ])
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
      t.match(http.body.error.message, /EMBEDDER_URL and EMBEDDER_MODEL/)
      t.same(http.body.error.details.settings, ['EMBEDDER_URL', 'EMBEDDER_MODEL'])
      const mcp = await tool('search', { query: 'rollout', semantic: true })
      t.ok(mcp.isError)
      t.same(mcp.body.error, http.body.error, 'the same error object over MCP')
      t.match((await get(`/rooms/${roomId}/search`)).body.error, { code: 'invalid_request', details: { field: 'q' } })
      t.match((await get(`/rooms/${roomId}/search?q=%20%20`)).body.error, {
        code: 'invalid_request',
        details: { field: 'q' },
      })
      t.match((await get(`/rooms/${roomId}/search?q=x&kinds=tasks`)).body.error, {
        code: 'invalid_request',
        details: { field: 'kinds' },
      })
      t.match((await get(`/rooms/${roomId}/search?q=x&limit=0`)).body.error, {
        code: 'invalid_request',
        details: { field: 'limit' },
      })
      t.match((await tool('search', { query: 'x', limit: 0 })).body.error, {
        code: 'invalid_request',
        details: { field: 'limit' },
      })
    })

    t.test('get_room_analytics and the stats route agree', async (t) => {
      const mcp = await tool('get_room_analytics', {})
      const http = await get(`/admin/rooms/${roomId}/stats`)
      t.equal(http.status, 200)
      for (const k of ['tasks', 'counts', 'completion_rate', 'online_agents', 'events_per_day'])
        t.same(http.body[k], mcp.body[k], k)
    })

    t.test('GET /admin/me and get_room_info say whether semantic search is on', async (t) => {
      t.same((await get('/admin/me')).body.search, { engine: 'redis', semantic: false })
      t.equal((await tool('get_room_info')).body.semantic_search, false)
    })

    t.test('with an embedder: semantic search on both surfaces, and said so', async (t) => {
      const embedder = await startTestEmbedder()
      t.teardown(() => embedder.close())
      const sn = await startNode(t, backend, { embedderUrl: embedder.url, embedderModel: TEST_MODEL })
      const steam = await newTeam(sn)
      const sroom = uid('semantic-')
      t.equal((await sn.call('/admin/rooms', { method: 'POST', key: steam.key, json: { roomId: sroom } })).status, 201)
      const me = await sn.call('/admin/me', { key: steam.key })
      t.same(((await me.json()) as Json).search, {
        engine: 'redis',
        semantic: true,
        model: TEST_MODEL,
        vectors: 'in process',
      })
      const sclient = await legacyClient(t, sn, steam.key)
      const stool = async (name: string, args: Json = {}) =>
        callTool(sclient, name, { room_id: sroom, agent_id: 'alice', ...args })
      t.equal((await stool('get_room_info')).body.semantic_search, true)
      await stool('add_task', { title: 'Migrate the billing database to Postgres' })
      await stool('add_task', { title: 'Order lunch' })
      const engine = sn.node.search
      if (!(engine instanceof RedisSearchEngine)) throw new Error('the Redis engine was expected')
      await engine.vectorIndexer!.reconcile({ teamId: steam.teamId, roomId: sroom })
      const mcp = await stool('search', { query: 'migrating postgresql', semantic: true })
      t.notOk(mcp.isError)
      const res = await sn.call(`/rooms/${sroom}/search?q=migrating%20postgresql&semantic=true`, { key: steam.key })
      const http = (await res.json()) as Json
      const { unread: _u, ...mcpRest } = mcp.body
      t.same(http, mcpRest, 'the same answer')
      t.match(http.results[0], { ref: 'task t1', match: 'semantic' })
      t.equal(http.semantic, true)
    })
  })
}
