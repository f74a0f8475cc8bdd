// The /mcp wire, both protocol eras, on one standalone node: the 2.x client pinned to 2026-07-28
// (server/discover, no initialize) and raw requests for each HTTP rule of the endpoint: standard
// headers (-32020), versions (-32022 and the legacy list), 405/202/400/403/401/415/406, modern
// result decoration, and initialize negotiation for the 2025 revisions.
import t from 'tap'
import { ERROR } from '../../src/mcp/wire.js'
import { ALL_TOOLS } from '../../src/mcp/tools/index.js'
import {
  callTool,
  envelope,
  legacyCall,
  MODERN,
  modernBody,
  modernClient,
  modernHeaders,
  post,
  PROTOCOL_VERSION_KEY,
  toolReplyOf,
} from '../helpers/mcp.js'
import { newTeam, startNode } from '../helpers/node.js'

t.test('the /mcp wire (standalone)', async (t) => {
  const n = await startNode(t, 'standalone')
  const { key, teamId } = await newTeam(n)
  const room = await n.node.core.rooms.create(teamId, { template: 'blank' }, 'test')
  const roomId = room.room.room_id
  const call = (name: string, args: Record<string, unknown>, id: number | string = 1) =>
    modernBody('tools/call', { name, arguments: args }, id)

  await t.test('2.x client: server/discover instead of initialize, tools/list, tool calls', async (t) => {
    const sent: string[] = []
    const client = await modernClient(t, n, key, (body) => sent.push(String((body as { method?: string }).method)))
    t.equal(client.getProtocolEra(), 'modern')
    t.equal(client.getNegotiatedProtocolVersion(), MODERN)
    t.equal(sent[0], 'server/discover', 'the connection starts with server/discover')
    t.notOk(sent.includes('initialize'), 'no initialize is sent')
    t.same(client.getDiscoverResult()?.supportedVersions, [MODERN])
    t.match(
      client.getInstructions() ?? client.getDiscoverResult()?.instructions,
      /heartbeat/,
      'the discover result carries the instructions',
    )
    const list = await client.listTools()
    t.same(
      list.tools.map((x) => x.name),
      ALL_TOOLS.map((d) => d.name),
      'tools/list lists every tool',
    )
    const hb = await callTool(client, 'heartbeat', { room_id: roomId, agent_id: 'modern' })
    t.notOk(hb.isError)
    t.match(hb.body, { room_id: roomId, online_count: 1, unread: 0 })
    const posted = await callTool(client, 'post_event', {
      room_id: roomId,
      agent_id: 'modern',
      type: 'status',
      text: 'hello from 2026',
    })
    t.equal(posted.body.event && (posted.body.event as { text: string }).text, 'hello from 2026')
    const refused = await callTool(client, 'get_task', { room_id: roomId, agent_id: 'modern', task_id: 't99' })
    t.ok(refused.isError)
    t.equal(refused.body.error?.code, 'not_found')
    t.ok(
      sent.every((m) => m !== 'initialize' && m !== 'notifications/initialized'),
      'no legacy handshake at any point',
    )
  })

  await t.test(
    'a plain tools/call (fast path) and one that needs the SDK server (progress token) answer alike',
    async (t) => {
      // McpHost.fastCall answers plain calls without the SDK server; a progress token sends the
      // same call through it. Both must give the same JSON-RPC response, results and errors alike.
      let fast = 0
      const host = n.node.mcp
      const original = host.fastCall.bind(host)
      host.fastCall = (...a: Parameters<typeof original>) => {
        const r = original(...a)
        if (r) fast++
        return r
      }
      t.teardown(() => {
        host.fastCall = original
      })
      await n.node.core.plan.addTask({ room: { teamId, roomId }, agent: 'a' }, { title: 'compare me' })
      const cases: [string, Record<string, unknown>][] = [
        ['list_templates', {}],
        ['get_task', { room_id: roomId, agent_id: 'a', task_id: 't1' }],
        ['get_task', { room_id: roomId, agent_id: 'a', task_id: 't99' }],
        ['get_task', { room_id: roomId, agent_id: 'a' }],
        ['get_task', { room_id: roomId, agent_id: 'a', task_id: 't1', surprise: true }],
        ['list_templates', { room_id: roomId }],
      ]
      for (const [name, args] of cases) {
        const before = fast
        const plain = await post(n, legacyCall(name, args, 7), {}, { key })
        t.equal(fast, before + 1, `${name}: the plain call took the fast path`)
        const viaSdk = await post(
          n,
          { ...legacyCall(name, args, 7), params: { name, arguments: args, _meta: { progressToken: 'p1' } } },
          {},
          { key },
        )
        t.equal(fast, before + 1, `${name}: the call with a progress token went through the SDK server`)
        t.equal(plain.status, viaSdk.status)
        t.same(plain.json, viaSdk.json, `${name} ${JSON.stringify(args)}: same response either way`)
      }
    },
  )

  await t.test('modern results: resultType complete, cacheable lists carry ttlMs and cacheScope', async (t) => {
    const list = await post(n, modernBody('tools/list'), modernHeaders('tools/list'), { key })
    t.equal(list.status, 200)
    t.match(list.json?.result, { resultType: 'complete', ttlMs: 0, cacheScope: 'private' })
    const result = list.json?.result as { tools: unknown[]; _meta: Record<string, unknown> }
    t.equal(result.tools.length, ALL_TOOLS.length)
    t.match(result._meta['io.modelcontextprotocol/serverInfo'], { name: 'agentrooms' })
    const tool = await post(n, call('list_templates', {}), modernHeaders('tools/call', 'list_templates'), { key })
    t.equal(tool.status, 200)
    t.equal((tool.json?.result as { resultType: string }).resultType, 'complete')
    t.notOk('ttlMs' in (tool.json?.result as object), 'tools/call is not cacheable')
    t.ok(Array.isArray(toolReplyOf(tool.json).body.templates))
    const discover = await post(n, modernBody('server/discover'), modernHeaders('server/discover'), { key })
    t.match(discover.json?.result, {
      resultType: 'complete',
      supportedVersions: [MODERN],
      ttlMs: 0,
      cacheScope: 'private',
    })
    const idString = await post(n, call('list_templates', {}, 'abc'), modernHeaders('tools/call', 'list_templates'), {
      key,
    })
    t.equal(idString.json?.id, 'abc', 'the client id comes back unchanged')
  })

  await t.test('standard headers must be present and match the body: 400 with -32020', async (t) => {
    const body = call('heartbeat', { room_id: roomId, agent_id: 'a' })
    const cases: [string, Record<string, string>][] = [
      ['missing MCP-Protocol-Version', { ...modernHeaders('tools/call', 'heartbeat'), 'MCP-Protocol-Version': '' }],
      ['missing Mcp-Method', { ...modernHeaders('tools/call', 'heartbeat'), 'Mcp-Method': '' }],
      ['Mcp-Method disagrees', modernHeaders('tools/list', 'heartbeat')],
      ['missing Mcp-Name', modernHeaders('tools/call')],
      ['Mcp-Name disagrees', modernHeaders('tools/call', 'get_presence')],
      [
        'MCP-Protocol-Version disagrees with the envelope',
        { ...modernHeaders('tools/call', 'heartbeat'), 'MCP-Protocol-Version': '2026-08-01' },
      ],
    ]
    for (const [what, headers] of cases) {
      const r = await post(n, body, headers, { key })
      t.equal(r.status, 400, `${what}: 400`)
      t.equal((r.json?.error as { code: number } | undefined)?.code, ERROR.headerMismatch, `${what}: -32020`, {
        body: r.text,
      })
      t.equal(r.json?.id, 1, `${what}: the request id is echoed`)
    }
    const encoded = await post(
      n,
      body,
      modernHeaders('tools/call', `=?base64?${Buffer.from('heartbeat').toString('base64')}?=`),
      { key },
    )
    t.equal(encoded.status, 200, 'a base64-sentinel Mcp-Name that decodes to the name is accepted')
    t.equal(toolReplyOf(encoded.json).body.room_id, roomId)
  })

  await t.test('protocol versions', async (t) => {
    const future = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/list',
      params: { _meta: envelope({ [PROTOCOL_VERSION_KEY]: '2027-01-01' }) },
    }
    const r = await post(n, future, { ...modernHeaders('tools/list'), 'MCP-Protocol-Version': '2027-01-01' }, { key })
    t.equal(r.status, 400)
    t.match(r.json?.error, {
      code: ERROR.unsupportedProtocolVersion,
      data: { supported: [MODERN], requested: '2027-01-01' },
    })
    const legacy = await post(n, legacyCall('list_templates', {}), { 'MCP-Protocol-Version': '2024-01-01' }, { key })
    t.equal(legacy.status, 400, 'a legacy request naming an unknown version: 400')
    t.match(
      (legacy.json?.error as { message: string }).message,
      /2025-11-25, 2025-06-18, 2025-03-26/,
      'with the supported list',
    )
    const ping = await post(n, modernBody('ping'), modernHeaders('ping'), { key })
    t.equal(ping.status, 404, 'a method the 2026 era lacks: 404')
    t.equal((ping.json?.error as { code: number }).code, ERROR.methodNotFound)
  })

  await t.test(
    'legacy initialize: 2025-11-25 negotiated, 2025-06-18 and 2025-03-26 accepted, no session',
    async (t) => {
      const init = (version: string) => ({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      })
      for (const [asked, got] of [
        ['2025-11-25', '2025-11-25'],
        ['2025-06-18', '2025-06-18'],
        ['2025-03-26', '2025-03-26'],
        ['2030-01-01', '2025-11-25'],
      ]) {
        const r = await post(n, init(asked!), {}, { key })
        t.equal(r.status, 200, `initialize ${asked}: 200`)
        t.match(
          r.json?.result,
          { protocolVersion: got, serverInfo: { name: 'agentrooms' }, capabilities: { tools: {} } },
          `initialize ${asked} → ${got}`,
        )
        t.equal(r.headers.get('mcp-session-id'), null, 'no session id is issued')
        const initialized = await post(
          n,
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { 'MCP-Protocol-Version': got! },
          { key },
        )
        t.equal(initialized.status, 202)
        const listed = await post(
          n,
          { jsonrpc: '2.0', id: 2, method: 'tools/list' },
          { 'MCP-Protocol-Version': got! },
          { key },
        )
        t.equal((listed.json?.result as { tools: unknown[] }).tools.length, ALL_TOOLS.length, `tools/list under ${got}`)
        t.notOk('resultType' in (listed.json?.result as object), 'legacy results are not decorated')
      }
      for (const params of [
        {},
        { protocolVersion: 7, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
        { protocolVersion: '2025-11-25', capabilities: {} },
      ]) {
        const bad = await post(n, { jsonrpc: '2.0', id: 'bad-init', method: 'initialize', params }, {}, { key })
        t.equal(
          (bad.json?.error as { code: number } | undefined)?.code,
          ERROR.invalidParams,
          `initialize ${JSON.stringify(params)}: -32602, not an internal error`,
        )
        t.match((bad.json?.error as { message: string }).message, /^Invalid params: \w+/, 'the message names the field')
      }
      const noHeader = await post(n, legacyCall('heartbeat', { room_id: roomId, agent_id: 'legacy' }), {}, { key })
      t.match(
        toolReplyOf(noHeader.json).body,
        { room_id: roomId, online_count: Number },
        'a legacy call without a version header works (2025-03-26 clients send none)',
      )
    },
  )

  await t.test('HTTP rules', async (t) => {
    for (const method of ['GET', 'DELETE']) {
      const r = await post(n, undefined, {}, { key, method })
      t.equal(r.status, 405, `${method} → 405`)
      t.equal(r.headers.get('allow'), 'POST')
    }
    const note = await post(
      n,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: envelope() } },
      modernHeaders('notifications/cancelled'),
      { key },
    )
    t.equal(note.status, 202, 'a modern notification → 202')
    t.equal(note.text, '')
    const legacyNote = await post(n, { jsonrpc: '2.0', method: 'notifications/initialized' }, {}, { key })
    t.equal(legacyNote.status, 202, 'a legacy notification → 202')
    const response = await post(n, { jsonrpc: '2.0', id: 99, result: {} }, {}, { key })
    t.equal(response.status, 202, 'a client response → 202')

    const badJson = await post(n, '{"jsonrpc": "2.0", "id": 1,', {}, { key })
    t.equal(badJson.status, 400)
    t.equal((badJson.json?.error as { code: number }).code, ERROR.parseError, 'bad JSON → -32700')
    // Refused in both eras, with a message that tells the client what to send instead.
    const batches = {
      modern: [[modernBody('tools/list'), modernBody('tools/list', {}, 2)], modernHeaders('tools/list')],
      legacy: [[legacyCall('heartbeat', {}, 1), legacyCall('heartbeat', {}, 2)], {}],
    } as const
    for (const [era, [body, headers]] of Object.entries(batches)) {
      const batch = await post(n, body, headers, { key })
      t.equal(batch.status, 400, `a ${era} batch → 400`)
      t.same(
        batch.json,
        {
          jsonrpc: '2.0',
          id: null,
          error: {
            code: ERROR.invalidRequest,
            message: 'Bad Request: batches are not supported (send one JSON-RPC message per POST)',
          },
        },
        `a ${era} batch: -32600, one message per POST`,
      )
    }

    const evil = await post(
      n,
      modernBody('tools/list'),
      { ...modernHeaders('tools/list'), Origin: 'http://evil.example' },
      { key },
    )
    t.equal(evil.status, 403, 'a foreign Origin → 403')
    const own = await post(n, modernBody('tools/list'), { ...modernHeaders('tools/list'), Origin: n.base }, { key })
    t.equal(own.status, 200, "the node's own origin is allowed")

    const none = await post(n, modernBody('tools/list'), modernHeaders('tools/list'))
    t.equal(none.status, 401, 'no key → 401')
    t.match(none.headers.get('www-authenticate'), /^Bearer/)
    const wrong = await post(n, modernBody('tools/list'), modernHeaders('tools/list'), {
      key: `${key.slice(0, -4)}zzzz`,
    })
    t.equal(wrong.status, 401, 'an invalid key → 401')
    t.match(wrong.headers.get('www-authenticate'), /^Bearer/)

    const text = await post(
      n,
      modernBody('tools/list'),
      { ...modernHeaders('tools/list'), 'Content-Type': 'text/plain' },
      { key },
    )
    t.equal(text.status, 415, 'Content-Type text/plain → 415')
    const html = await post(
      n,
      modernBody('tools/list'),
      { ...modernHeaders('tools/list'), Accept: 'text/html' },
      { key },
    )
    t.equal(html.status, 406, 'Accept text/html → 406')
    const noAccept = await post(n, modernBody('tools/list'), { ...modernHeaders('tools/list'), Accept: '' }, { key })
    t.equal(noAccept.status, 200, 'no Accept header at all is served as JSON')
    t.equal(noAccept.headers.get('content-type'), 'application/json')
  })

  await t.test('an unknown tool is a JSON-RPC error -32602', async (t) => {
    const r = await post(n, call('no_such_tool', {}), modernHeaders('tools/call', 'no_such_tool'), { key })
    t.equal(r.status, 200)
    t.equal((r.json?.error as { code: number }).code, ERROR.invalidParams)
    t.equal(
      (r.json?.error as { message: string }).message,
      'unknown tool: no_such_tool',
      'the message says it once, without an "MCP error -32602:" prefix',
    )
  })
})
