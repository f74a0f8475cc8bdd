// A connection bound to an agent and/or a room by its MCP URL (?agent=, ?room=) or by the
// X-Agentrooms-Agent / X-Agentrooms-Room headers: the credential narrowed to them, so its
// tools/list leaves the bound arguments out (the listing of a credential bound alike) and its
// calls act as the bound agent in the bound room; naming another is refused as a bound key's call
// is. A binding only narrows: another agent than the credential's, a room outside its reach, a
// `human:` id are forbidden, and a value that is no valid id is refused naming the parameter and
// the limit, before anything is done.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { countTokens } from '@anthropic-ai/tokenizer'
import t from 'tap'
import { listEntry, modelVisible } from '../../src/mcp/host.js'
import { ALL_TOOLS } from '../../src/mcp/tools/index.js'
import { boundUrl } from '../../src/shared/snippets.js'
import { callTool, legacyCall, legacyClient, modernBody, modernClient, modernHeaders, post } from '../helpers/mcp.js'
import { signedInOperator } from '../helpers/accounts.js'
import { MemoryAuthProvider } from '../helpers/mcp-oauth.js'
import { newTeam, startNode } from '../helpers/node.js'
import { uid } from '../helpers/shared.js'

type Listed = { tools: Tool[] }
const TEAM_TOOLS = ['list_rooms', 'list_templates', 'create_room_from_template']
const props = (tool: Tool) => Object.keys(tool.inputSchema.properties ?? {})
const tokens = (tools: Tool[]) => countTokens(JSON.stringify(tools.map(modelVisible)))
/** The listing the node builds for a credential bound alike, in process. */
const expected = (bound: { agent: boolean; room: boolean }, teamTools: boolean, core = false) =>
  ALL_TOOLS.filter((d) => (teamTools || d.scope === 'room') && (!core || d.core)).map((d) => listEntry(d, bound))

t.test('a team key bound per connection', async (t) => {
  const n = await startNode(t, 'standalone')
  const team = await newTeam(n)
  const make = async () => (await n.node.core.rooms.create(team.teamId, { template: 'blank' }, 'test')).room.room_id
  const roomId = await make()
  const otherRoom = await make()
  const reader = await legacyClient(t, n, team.key)
  const recordedIn = async (room: string, text: string) => {
    const feed = await callTool(reader, 'read_events', { room_id: room, agent_id: 'reader', limit: 100 })
    return (feed.body.events as { text?: string; agent_id: string }[]).find((e) => e.text === text)?.agent_id
  }
  const unbound = (await reader.listTools()) as Listed

  t.test('to an agent and a room in the URL: the SDK client gets the small listing', async (t) => {
    const path = `/mcp?agent=backend&room=${roomId}`
    for (const [era, client] of [
      ['legacy', await legacyClient(t, n, team.key, path)],
      ['modern', await modernClient(t, n, team.key, undefined, path)],
    ] as const) {
      const list = (await client.listTools()) as Listed
      t.same(list.tools, expected({ agent: true, room: true }, false), `${era}: the listing of an agent and a room`)
      for (const tool of list.tools) {
        t.notOk(props(tool).includes('agent_id'), `${era} ${tool.name}: no agent_id`)
        t.notOk(TEAM_TOOLS.includes(tool.name), `${era}: ${tool.name} is no team tool`)
      }
      t.ok(tokens(list.tools) <= 5_000, `${era}: ${tokens(list.tools)} tokens, within 5,000`)
      t.ok(tokens(list.tools) < tokens(unbound.tools), `${era}: fewer than the unbound ${tokens(unbound.tools)}`)

      const posted = await callTool(client, 'post_event', { type: 'note', text: `bound ${era}` })
      t.notOk(posted.isError, `${era}: a call without room_id or agent_id`, { body: posted.body })
      t.equal(posted.body.room_id, roomId, `${era}: in the bound room`)
      t.equal(await recordedIn(roomId, `bound ${era}`), 'backend', `${era}: as the bound agent`)
      const named = await callTool(client, 'heartbeat', { room_id: roomId, agent_id: 'backend' })
      t.notOk(named.isError, `${era}: naming the bound agent and room is allowed`)

      const other = await callTool(client, 'heartbeat', { agent_id: 'frontend' })
      t.match(
        other.body.error,
        {
          code: 'forbidden',
          message: 'agent_id: this key is bound to agent "backend"; it may not act as "frontend"',
          details: { field: 'agent_id', bound_agent_id: 'backend' },
        },
        `${era}: another agent is refused as a bound key's call is`,
      )
      const elsewhere = await callTool(client, 'post_event', { room_id: otherRoom, type: 'note', text: 'no' })
      t.match(elsewhere.body.error, { code: 'not_found', details: { field: 'room_id' } }, `${era}: another room`)
      t.equal(await recordedIn(otherRoom, 'no'), undefined, `${era}: nothing was posted there`)
      const teamTool = await callTool(client, 'list_rooms', {})
      t.match(
        teamTool.body.error,
        { code: 'forbidden', message: /list_rooms needs the whole team; this connection is bound to room/ },
        `${era}: a team tool is refused to a connection bound to one room`,
      )
    }
    const presence = await callTool(reader, 'get_presence', { room_id: roomId, agent_id: 'reader' })
    t.match(JSON.stringify(presence.body), /"backend"/, 'the heartbeats were recorded as backend')
    t.notMatch(JSON.stringify(presence.body), /"frontend"/, 'and nothing as frontend')
  })

  t.test('to an agent only: room_id stays, the team tools too', async (t) => {
    const client = await legacyClient(t, n, team.key, '/mcp?agent=planner')
    const list = (await client.listTools()) as Listed
    t.same(list.tools, expected({ agent: true, room: false }, true), 'the listing of an agent-bound team key')
    t.ok(tokens(list.tools) < tokens(unbound.tools), `${tokens(list.tools)} tokens, fewer than unbound`)
    const posted = await callTool(client, 'post_event', { room_id: otherRoom, type: 'note', text: 'planned' })
    t.notOk(posted.isError, 'names its room, not its agent', { body: posted.body })
    t.equal(await recordedIn(otherRoom, 'planned'), 'planner')
    const missing = await callTool(client, 'heartbeat', {})
    t.match(missing.body.error, { code: 'invalid_request', details: { field: 'room_id' } }, 'room_id is needed')
    const rooms = await callTool(client, 'list_rooms', {})
    t.notOk(rooms.isError, 'a team tool works: the connection reaches the whole team', { body: rooms.body })
  })

  t.test("a printed configuration's URL binds an agent id of any characters", async (t) => {
    const agent = 'QA bot/ü&x'
    const url = new URL(boundUrl({ agentId: agent, roomId, url: `${n.base}/mcp` }))
    const client = await legacyClient(t, n, team.key, url.pathname + url.search)
    const posted = await callTool(client, 'post_event', { type: 'note', text: 'encoded' })
    t.notOk(posted.isError, { body: posted.body })
    t.equal(await recordedIn(roomId, 'encoded'), agent, 'recorded as the agent, decoded')
  })

  t.test('by headers, and on the core profile', async (t) => {
    const key = team.key
    const headers = { 'X-Agentrooms-Agent': 'backend', 'X-Agentrooms-Room': roomId }
    const listed = await post(n, modernBody('tools/list'), { ...modernHeaders('tools/list'), ...headers }, { key })
    t.equal(listed.status, 200)
    const tools = (listed.json!.result as Listed).tools
    t.same(tools.map(modelVisible), expected({ agent: true, room: true }, false).map(modelVisible), 'headers bind')

    const core = await post(n, modernBody('tools/list'), modernHeaders('tools/list'), {
      key,
      path: `/mcp?profile=core&agent=backend&room=${roomId}`,
    })
    const coreTools = (core.json!.result as Listed).tools
    t.same(coreTools.map(modelVisible), expected({ agent: true, room: true }, false, true).map(modelVisible))
    t.ok(tokens(coreTools) <= 1_200, `core profile bound: ${tokens(coreTools)} tokens, within 1,200`)

    const agreeing = await post(n, legacyCall('post_event', { type: 'note', text: 'by header' }), headers, {
      key,
      path: `/mcp?agent=backend`,
    })
    t.equal(agreeing.status, 200, 'the URL and a header may both bind when they agree')
    t.equal(await recordedIn(roomId, 'by header'), 'backend')
  })
})

t.test('a binding only narrows the credential', async (t) => {
  const n = await startNode(t, 'standalone')
  const team = await newTeam(n)
  const roomId = (await n.node.core.rooms.create(team.teamId, { template: 'blank' }, 'test')).room.room_id
  const mint = async (json: unknown) => {
    const res = await n.call(`/admin/rooms/${roomId}/invite`, { method: 'POST', key: team.key, json })
    t.equal(res.status, 201)
    return ((await res.json()) as { key: string }).key
  }
  const alice = await mint({ label: 'alice', agentId: 'alice' })
  const anyone = await mint({ label: 'anyone' })
  const reader = await legacyClient(t, n, team.key)
  const events = async () =>
    (
      (await callTool(reader, 'read_events', { room_id: roomId, agent_id: 'reader', limit: 100 })).body.events as {
        text?: string
      }[]
    ).map((e) => e.text)
  const refused = async (
    key: string,
    path: string,
    status: number,
    error: Record<string, unknown>,
    what: string,
    headers: Record<string, string> = {},
  ) => {
    const r = await post(n, legacyCall('post_event', { room_id: roomId, type: 'note', text: what }), headers, {
      key,
      path,
    })
    t.equal(r.status, status, `${what}: ${status}`)
    t.match(r.json, { error }, what)
    t.notOk((await events()).includes(what), `${what}: nothing was posted`)
  }

  await refused(
    alice,
    '/mcp?agent=bob',
    403,
    {
      code: 'forbidden',
      message: 'agent: this credential is bound to agent "alice"; its connection may not bind agent "bob"',
      details: { field: 'agent', bound_agent_id: 'alice' },
    },
    'another agent than the key is bound to',
  )
  await refused(
    anyone,
    '/mcp?room=elsewhere',
    403,
    {
      code: 'forbidden',
      message: `room: this credential reaches only room "${roomId}"; its connection may not bind room "elsewhere"`,
      details: { field: 'room', bound_room_id: roomId },
    },
    'a room outside the invite',
  )
  await refused(
    anyone,
    '/mcp',
    403,
    { code: 'forbidden', details: { field: 'X-Agentrooms-Room', bound_room_id: roomId } },
    'a room outside the invite, by header',
    { 'X-Agentrooms-Room': 'elsewhere' },
  )
  await refused(
    team.key,
    '/mcp?agent=human:owner',
    403,
    { code: 'forbidden', message: /agent: human: ids are reserved for people/, details: { field: 'agent' } },
    'a person',
  )
  await refused(
    team.key,
    '/mcp?agent=',
    400,
    {
      code: 'invalid_request',
      message: 'agent: must not be empty (an agent id is 1-128 characters, no control characters)',
      details: { field: 'agent', limit: 128, unit: 'characters' },
    },
    'an empty agent',
  )
  await refused(
    team.key,
    `/mcp?agent=${'a'.repeat(129)}`,
    400,
    {
      code: 'invalid_request',
      message: /^agent: must be at most 128 characters/,
      details: { field: 'agent', limit: 128 },
    },
    'an agent id too long',
  )
  await refused(
    team.key,
    '/mcp',
    400,
    { code: 'invalid_request', message: /^X-Agentrooms-Agent: must not contain control characters/ },
    'a control character in the header',
    { 'X-Agentrooms-Agent': 'a\tb' },
  )
  await refused(
    team.key,
    `/mcp?room=${'r'.repeat(65)}`,
    400,
    {
      code: 'invalid_request',
      message: /^room: must be 1-64 characters/,
      details: { field: 'room', limit: 64, unit: 'characters' },
    },
    'a room id too long',
  )
  await refused(
    team.key,
    '/mcp?room=no%20spaces',
    400,
    { code: 'invalid_request', details: { field: 'room' } },
    'a room id of other characters',
  )
  await refused(
    team.key,
    '/mcp?agent=a&agent=b',
    400,
    { code: 'invalid_request', message: 'agent: given 2 times in the URL; give it once', details: { field: 'agent' } },
    'an agent given twice',
  )
  await refused(
    team.key,
    '/mcp?agent=a',
    400,
    {
      code: 'invalid_request',
      message: 'agent: the URL binds agent "a" and the X-Agentrooms-Agent header "b"; give one',
      details: { field: 'agent' },
    },
    'the URL and a header disagreeing',
    { 'X-Agentrooms-Agent': 'b' },
  )

  // What the credential fixes may be named again.
  const same = await legacyClient(t, n, alice, `/mcp?agent=alice&room=${roomId}`)
  const posted = await callTool(same, 'post_event', { type: 'note', text: 'as alice' })
  t.notOk(posted.isError, 'binding what the key is bound to already', { body: posted.body })
  const carol = await legacyClient(t, n, anyone, '/mcp?agent=carol')
  const list = (await carol.listTools()) as Listed
  t.same(list.tools, expected({ agent: true, room: true }, false), 'a room invite bound to an agent by its URL')
  const hb = await callTool(carol, 'post_event', { type: 'note', text: 'as carol' })
  t.notOk(hb.isError, 'no room_id, no agent_id', { body: hb.body })
})

t.test('an OAuth client signs in through a bound URL; its grant is narrowed to the binding', async (t) => {
  const { n, b } = await signedInOperator(t)
  const teamId = (await n.node.accounts.session(b.jar.get('ar_session')!))!.team
  const roomId = uid('room')
  await n.node.core.rooms.create(teamId, { room_id: roomId }, 'test')
  // The token's resource is the node's /mcp by the name the client used; the query is no part of it.
  const base = n.base.replace('127.0.0.1', 'localhost')
  b.base = base
  const bound = new URL(`${base}/mcp?agent=worker&room=${roomId}`)
  const provider = new MemoryAuthProvider('http://127.0.0.1:40225/callback', undefined, 'Agent worker')
  const signIn = new StreamableHTTPClientTransport(bound, { authProvider: provider })
  await t.rejects(new Client({ name: 'bound-oauth', version: '1.0.0' }).connect(signIn), /Unauthorized/)
  const toConsent = await b.get(provider.authorizationUrl!.toString())
  // A grant for every room of the team, bound to the agent worker.
  const answered = await b.post(toConsent.location!, {
    team: teamId,
    room: '*',
    agent: 'worker',
    access: 'write',
    decision: 'allow',
  })
  const to = new URL((await b.get(answered.location!)).location!)
  await signIn.finishAuth(to.searchParams.get('code')!)

  const client = new Client({ name: 'bound-oauth', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(bound, { authProvider: provider }))
  t.teardown(() => client.close())
  t.same((await client.listTools()).tools, expected({ agent: true, room: true }, false), 'the listing of both')
  const posted = await callTool(client, 'post_event', { type: 'note', text: 'signed in' })
  t.notOk(posted.isError, 'no room_id: the URL names it', { body: posted.body })
  t.equal(posted.body.room_id, roomId)

  const token = provider.saved!.access_token
  const mallory = await post(n, legacyCall('heartbeat', {}), {}, { key: token, path: '/mcp?agent=mallory' })
  t.equal(mallory.status, 403)
  t.match(mallory.json, { error: { code: 'forbidden', details: { field: 'agent', bound_agent_id: 'worker' } } })
})
