// The 2026-07-28 wire edge (src/mcp/era.ts, envelope.ts, modern.ts), no Redis: every cell of the
// inbound ladder with its HTTP status and JSON-RPC code, header whitespace and base64 sentinels,
// the envelope rules, method gating, server/discover, result decoration and the status table; and
// that SDK 1.32's own schemas accept a modern message with its `_meta` envelope left in place.
import { CallToolRequestSchema, JSONRPCMessageSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import fc from 'fast-check'
import t, { type Test } from 'tap'
import { validateEnvelope } from '../../src/mcp/envelope.js'
import { classify, decodeHeaderValue, echoId } from '../../src/mcp/era.js'
import { decorateModernResult, discoverResult, httpStatusForError, modernDispatch } from '../../src/mcp/modern.js'
import {
  META,
  type InboundRequest,
  type JsonObject,
  type ModernRoute,
  type Rejection,
  type Route,
} from '../../src/mcp/wire.js'
import { pinFuzzSeed } from '../helpers/fuzz.js'

pinFuzzSeed(t)

const V = '2026-07-28'
const SERVER = { name: 'agentrooms', version: '1.2.3' }

/** A valid envelope, with `patch` applied (undefined deletes a key). */
function envelope(patch: JsonObject = {}): JsonObject {
  const meta: JsonObject = {
    [META.protocolVersion]: V,
    [META.clientInfo]: { name: 'client', version: '0.1' },
    [META.clientCapabilities]: {},
    ...patch,
  }
  for (const [k, v] of Object.entries(meta)) if (v === undefined) delete meta[k]
  return meta
}
function request(method: string, params: JsonObject = {}, id: string | number = 7): JsonObject {
  return { jsonrpc: '2.0', id, method, params }
}
function modern(method: string, params: JsonObject = {}, meta: JsonObject = envelope()): JsonObject {
  return request(method, { ...params, _meta: meta })
}
/** A POST with the standard headers a modern client sends for `body`. */
function post(body: unknown, headers: Partial<InboundRequest> = {}): InboundRequest {
  const method = (body as { method?: string }).method
  return { protocolVersionHeader: V, mcpMethodHeader: method, body, ...headers }
}
function rejected(t: Test, route: Route, httpStatus: number, code: number, rule?: string): Rejection {
  t.equal(route.kind, 'reject', `rejected${rule ? ` (${rule})` : ''}`)
  const r = route as Rejection
  t.equal(r.httpStatus, httpStatus, 'http status')
  t.equal(r.error.code, code, 'json-rpc code')
  if (rule) t.equal(r.rule, rule, 'rule')
  return r
}
function modernRoute(t: Test, route: Route): ModernRoute {
  t.equal(route.kind, 'modern', route.kind === 'reject' ? route.error.message : 'modern')
  return route as ModernRoute
}

t.test('batches are refused in both eras, empty or not', async (t) => {
  const legacy = request('tools/list')
  const mod = modern('tools/list')
  for (const body of [[], [legacy], [mod], [legacy, legacy]]) {
    const r = rejected(
      t,
      classify(post(body, { protocolVersionHeader: undefined, mcpMethodHeader: undefined })),
      400,
      -32600,
      'batch',
    )
    t.match(r.error.message, /batches are not supported/)
    t.equal(r.id, null)
  }
  rejected(t, classify(post([mod], { mcpMethodHeader: 'tools/list' })), 400, -32600, 'batch')
})

t.test('a body that is not one JSON-RPC message is -32600 / 400', async (t) => {
  const bodies: unknown[] = [
    'text',
    42,
    null,
    {},
    { jsonrpc: '1.0', id: 1, method: 'x' },
    { jsonrpc: '2.0', id: 1.5, method: 'x' },
    { jsonrpc: '2.0', id: 1, method: 'x', params: [1] },
    { jsonrpc: '2.0', id: 1, method: 'x', extra: true },
    { jsonrpc: '2.0', id: 1, result: 'not an object' },
    { jsonrpc: '2.0', id: null, error: { code: 1, message: 'm' } },
  ]
  for (const body of bodies) rejected(t, classify({ body }), 400, -32600, 'jsonrpc-shape')
  const r = rejected(t, classify({ body: { jsonrpc: '2.0', id: 'abc', method: 'x', extra: 1 } }), 400, -32600)
  t.equal(r.id, 'abc', 'the id is echoed when the body names one')
})

t.test('posted responses are legacy traffic', async (t) => {
  t.same(classify({ body: { jsonrpc: '2.0', id: 3, result: {} } }), {
    kind: 'legacy',
    reason: 'response',
  })
  t.same(classify({ body: { jsonrpc: '2.0', id: 3, error: { code: -1, message: 'no' } } }), {
    kind: 'legacy',
    reason: 'response',
  })
  t.same(classify({ body: { jsonrpc: '2.0', error: { code: -1, message: 'no' } } }), {
    kind: 'legacy',
    reason: 'response',
  })
  rejected(
    t,
    classify({ protocolVersionHeader: V, body: { jsonrpc: '2.0', id: 3, result: {} } }),
    400,
    -32000,
    'legacy-unsupported-version-header',
  )
})

t.test('legacy requests: no claim, no modern header', async (t) => {
  t.same(classify({ body: request('tools/list') }), { kind: 'legacy', reason: 'no-claim' })
  for (const header of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', ' 2025-06-18\t']) {
    t.same(
      classify({ protocolVersionHeader: header, body: request('tools/call', { name: 'x' }) }),
      { kind: 'legacy', reason: 'no-claim', requestedVersion: header.trim() },
      header,
    )
  }
  t.same(
    classify({ body: request('ping', { _meta: { progressToken: 1, other: 'x' } }) }),
    { kind: 'legacy', reason: 'no-claim' },
    'other _meta keys are no claim',
  )
  const r = rejected(
    t,
    classify({ protocolVersionHeader: '2024-10-07', body: request('tools/list') }),
    400,
    -32000,
    'legacy-unsupported-version-header',
  )
  t.match(
    r.error.message,
    new RegExp(
      /Unsupported protocol version: 2024-10-07 /.source +
        /\(supported versions: 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05\)$/.source,
    ),
  )
  t.same(
    r.error.data,
    { supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'], requested: '2024-10-07' },
    'and as data',
  )
  t.equal(r.id, 7)
})

t.test('initialize is the legacy handshake, refused with a modern header', async (t) => {
  const init = request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'c', version: '1' },
  })
  t.same(classify({ body: init }), {
    kind: 'legacy',
    reason: 'initialize',
    requestedVersion: '2025-06-18',
  })
  t.same(
    classify({ protocolVersionHeader: '1999-01-01', body: init }),
    { kind: 'legacy', reason: 'initialize', requestedVersion: '2025-06-18' },
    'the legacy header gate skips initialize',
  )
  const r = rejected(t, classify(post(init)), 400, -32020, 'initialize-with-modern-header')
  t.same(r.error.data, {
    mismatch: {
      header: V,
      body: 'an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header',
    },
  })
  t.equal(r.id, 7)
  // A malformed claim does not turn initialize modern.
  const broken = request('initialize', { _meta: envelope({ [META.clientCapabilities]: undefined }) })
  t.same(classify({ body: broken }), { kind: 'legacy', reason: 'initialize' })
})

t.test('initialize with a valid modern envelope is a modern request the era does not have', async (t) => {
  const route = modernRoute(t, classify(post(modern('initialize'))))
  const action = modernDispatch(route)
  t.same(action, {
    action: 'reject',
    httpStatus: 404,
    id: 7,
    error: { code: -32601, message: 'Method not found: initialize does not exist in protocol revision 2026-07-28' },
  })
})

t.test('a modern request with its headers is routed modern with its envelope', async (t) => {
  const body = modern(
    'tools/list',
    { cursor: 'c1' },
    envelope({ [META.logLevel]: 'info', progressToken: 'p', 'x.example/trace': 1 }),
  )
  const route = modernRoute(t, classify(post(body)))
  t.equal(route.messageKind, 'request')
  t.equal(route.revision, V)
  t.equal(route.message, body, 'the message is handed over unchanged')
  if (route.messageKind === 'request') {
    t.same(route.envelope, {
      protocolVersion: V,
      clientCapabilities: {},
      clientInfo: { name: 'client', version: '0.1' },
      logLevel: 'info',
    })
  }
  const noInfo = modernRoute(t, classify(post(modern('tools/list', {}, envelope({ [META.clientInfo]: undefined })))))
  t.notOk(noInfo.messageKind === 'request' && 'clientInfo' in noInfo.envelope, 'clientInfo is optional (spec PR #3002)')
})

t.test('header values are compared after stripping SP / HTAB', async (t) => {
  const body = modern('tools/call', { name: 'heartbeat' })
  modernRoute(
    t,
    classify(
      post(body, {
        protocolVersionHeader: ` \t${V} `,
        mcpMethodHeader: '\ttools/call ',
        mcpNameHeader: '  heartbeat\t',
      }),
    ),
  )
  rejected(
    t,
    classify(post(body, { protocolVersionHeader: `${V}\n`, mcpNameHeader: 'heartbeat' })),
    400,
    -32020,
    'version-header-mismatch',
  )
})

t.test('a malformed envelope behind a claim is -32602 / 400 naming the key', async (t) => {
  const cases: [JsonObject, string, string][] = [
    [{ [META.clientCapabilities]: undefined }, META.clientCapabilities, 'missing'],
    [{ [META.protocolVersion]: 20260728 }, META.protocolVersion, 'Invalid input: expected string, received number'],
    [{ [META.clientCapabilities]: [] }, META.clientCapabilities, 'Invalid input: expected object, received array'],
    [
      { [META.clientInfo]: { name: 'c' } },
      `${META.clientInfo}.version`,
      'Invalid input: expected string, received undefined',
    ],
    [{ [META.clientInfo]: 'c' }, META.clientInfo, 'Invalid input: expected object, received string'],
    [
      { [META.logLevel]: 'verbose' },
      META.logLevel,
      'Invalid option: expected one of "debug"|"info"|"notice"|"warning"|"error"|"critical"|"alert"|"emergency"',
    ],
    [{ progressToken: 1.5 }, 'progressToken', 'Invalid input: expected string or integer, received number'],
    [
      { [META.clientCapabilities]: { roots: { listChanged: 'yes' } } },
      `${META.clientCapabilities}.roots.listChanged`,
      'Invalid input: expected boolean, received string',
    ],
    [
      { [META.clientCapabilities]: { experimental: { x: true } } },
      `${META.clientCapabilities}.experimental.x`,
      'Invalid input: expected object, received boolean',
    ],
    [
      { [META.clientCapabilities]: { elicitation: { form: { applyDefaults: 1 } } } },
      `${META.clientCapabilities}.elicitation.form.applyDefaults`,
      'Invalid input: expected boolean, received number',
    ],
    [{ progressToken: 2 ** 60 }, 'progressToken', 'Invalid input: expected string or integer, received number'],
  ]
  for (const [patch, key, problem] of cases) {
    const r = rejected(t, classify(post(modern('tools/list', {}, envelope(patch)))), 400, -32602, 'envelope-invalid')
    t.equal(r.error.message, `Invalid _meta envelope for protocol revision 2026-07-28: ${key}: ${problem}`)
    t.same(r.error.data, { envelope: { key, problem } })
    t.equal(r.id, 7)
  }
  const loose = envelope({
    [META.clientCapabilities]: { tasks: {}, elicitation: {}, sampling: { tools: {} } },
    'example.com/x': [1],
  })
  modernRoute(t, classify(post(modern('tools/list', {}, loose))))
})

t.test('validateEnvelope reports missing keys first, then bad values', async (t) => {
  t.same(validateEnvelope(envelope()), [])
  t.same(validateEnvelope({ [META.logLevel]: 3 }), [
    { key: META.protocolVersion, problem: 'missing' },
    { key: META.clientCapabilities, problem: 'missing' },
    {
      key: META.logLevel,
      problem:
        'Invalid option: expected one of "debug"|"info"|"notice"|"warning"|"error"|"critical"|"alert"|"emergency"',
    },
  ])
})

t.test('a modern header on a request without the envelope is -32602 / 400 naming what is missing', async (t) => {
  const cases: [JsonObject, string[]][] = [
    [{}, ['_meta']],
    [{ _meta: {} }, [META.protocolVersion, META.clientCapabilities]],
    [{ _meta: { [META.clientCapabilities]: {} } }, [META.protocolVersion]],
  ]
  for (const [params, missing] of cases) {
    const r = rejected(t, classify(post(request('tools/list', params))), 400, -32602, 'modern-header-without-envelope')
    t.same(r.error.data, { envelope: { missing } })
    t.match(r.error.message, `missing the required _meta envelope key(s): ${missing.join(', ')}`)
  }
})

t.test('header and body disagreeing on version or method is -32020 / 400', async (t) => {
  const body = modern('tools/list')
  let r = rejected(
    t,
    classify(post(body, { protocolVersionHeader: '2025-06-18' })),
    400,
    -32020,
    'version-header-mismatch',
  )
  t.same(r.error.data, {
    mismatch: {
      header: '2025-06-18',
      body: `the body envelope names protocol version ${V} but the MCP-Protocol-Version header names 2025-06-18`,
    },
  })
  r = rejected(t, classify(post(body, { mcpMethodHeader: 'tools/call' })), 400, -32020, 'method-header-mismatch')
  t.same(r.error.data, {
    mismatch: {
      header: 'tools/call',
      body: 'the body names method tools/list but the Mcp-Method header names tools/call',
    },
  })
})

t.test('a claim of a revision not served is -32022 / 400 with supported and requested', async (t) => {
  for (const claimed of ['2027-01-01', '2025-06-18']) {
    const body = modern('tools/list', {}, envelope({ [META.protocolVersion]: claimed }))
    const r = rejected(t, classify(post(body, { protocolVersionHeader: claimed })), 400, -32022, 'unsupported-revision')
    t.same(r.error, {
      code: -32022,
      message: `Unsupported protocol version: ${claimed}`,
      data: { supported: [V], requested: claimed },
    })
    t.equal(r.id, 7)
  }
})

t.test('the standard headers must be present on modern requests', async (t) => {
  const body = modern('tools/list')
  let r = rejected(t, classify(post(body, { protocolVersionHeader: undefined })), 400, -32020, 'version-header-missing')
  t.same(r.error.data, {
    mismatch: {
      header: '(missing)',
      body: `the body envelope names protocol version ${V} but the required MCP-Protocol-Version header is absent`,
    },
  })
  rejected(
    t,
    classify(post(body, { protocolVersionHeader: undefined, mcpMethodHeader: undefined })),
    400,
    -32020,
    'version-header-missing',
  )
  r = rejected(t, classify(post(body, { mcpMethodHeader: undefined })), 400, -32020, 'method-header-missing')
  t.match(r.error.message, /required Mcp-Method header is absent/)
})

t.test('Mcp-Name must mirror params.name of tools/call', async (t) => {
  const body = modern('tools/call', { name: 'heartbeat', arguments: {} })
  modernRoute(t, classify(post(body, { mcpNameHeader: 'heartbeat' })))
  let r = rejected(t, classify(post(body)), 400, -32020, 'name-header-missing')
  t.same(r.error.data, {
    mismatch: {
      header: '(missing)',
      body: 'the body carries params.name="heartbeat" but the required Mcp-Name header is absent',
    },
  })
  r = rejected(t, classify(post(body, { mcpNameHeader: 'post_event' })), 400, -32020, 'name-header-mismatch')
  t.same(r.error.data, {
    mismatch: {
      header: 'post_event',
      body: 'the body carries params.name="heartbeat" but the Mcp-Name header names "post_event"',
    },
  })
  modernRoute(t, classify(post(body, { mcpNameHeader: `=?base64?${Buffer.from('heartbeat').toString('base64')}?=` })))
  rejected(
    t,
    classify(post(body, { mcpNameHeader: `=?base64?${Buffer.from('post_event').toString('base64')}?=` })),
    400,
    -32020,
    'name-header-mismatch',
  )
  r = rejected(
    t,
    classify(post(body, { mcpNameHeader: '=?base64?aGVhcnRiZWF?=' })),
    400,
    -32020,
    'name-header-invalid-encoding',
  )
  t.equal(
    r.error.message,
    'Bad Request: the request headers and body disagree: the Mcp-Name header carries an invalid Base64 sentinel value',
  )
  // No name in the body: nothing to mirror (the SDK refuses the params); the header is not required.
  modernRoute(t, classify(post(modern('tools/call', { arguments: {} }))))
  modernRoute(t, classify(post(modern('tools/call', { arguments: {} }), { mcpNameHeader: 'anything' })))
  // Non-ASCII names travel in the sentinel.
  const unicode = modern('tools/call', { name: 'café ☕' })
  modernRoute(t, classify(post(unicode, { mcpNameHeader: `=?base64?${Buffer.from('café ☕').toString('base64')}?=` })))
})

t.test('Mcp-Name mirrors params.uri of resources/read and is ignored elsewhere', async (t) => {
  const body = modern('resources/read', { uri: 'agentrooms://room/x' })
  modernRoute(t, classify(post(body, { mcpNameHeader: 'agentrooms://room/x' })))
  rejected(t, classify(post(body, { mcpNameHeader: 'agentrooms://room/y' })), 400, -32020, 'name-header-mismatch')
  modernRoute(t, classify(post(modern('tools/list'), { mcpNameHeader: 'whatever' })))
})

t.test('notifications: legacy without claim or modern header; modern ones need no headers', async (t) => {
  const note = (params?: JsonObject) => ({
    jsonrpc: '2.0',
    method: 'notifications/progress',
    ...(params && { params }),
  })
  t.same(classify({ body: note() }), { kind: 'legacy', reason: 'notification' })
  t.same(classify({ protocolVersionHeader: '2025-06-18', body: note() }), {
    kind: 'legacy',
    reason: 'notification',
    requestedVersion: '2025-06-18',
  })
  rejected(
    t,
    classify({ protocolVersionHeader: '2024-10-07', body: note() }),
    400,
    -32000,
    'legacy-unsupported-version-header',
  )

  let route = modernRoute(t, classify({ protocolVersionHeader: V, body: note() }))
  t.same([route.messageKind, route.revision], ['notification', V], 'a modern header decides when there is no claim')
  route = modernRoute(t, classify({ body: note({ _meta: { [META.protocolVersion]: V } }) }))
  t.same([route.messageKind, route.revision], ['notification', V], 'a claim needs no headers and no full envelope')

  let r = rejected(
    t,
    classify({
      protocolVersionHeader: V,
      mcpMethodHeader: 'notifications/cancelled',
      body: note(),
    }),
    400,
    -32020,
    'notification-method-header-mismatch',
  )
  t.equal(r.id, null)
  rejected(
    t,
    classify({
      protocolVersionHeader: '2025-06-18',
      body: note({ _meta: { [META.protocolVersion]: V } }),
    }),
    400,
    -32020,
    'notification-version-header-mismatch',
  )
  r = rejected(
    t,
    classify({ body: note({ _meta: { [META.protocolVersion]: 1 } }) }),
    400,
    -32602,
    'notification-envelope-invalid',
  )
  t.same(r.error.data, {
    envelope: { key: META.protocolVersion, problem: 'Invalid input: expected string, received number' },
  })
  r = rejected(t, classify({ protocolVersionHeader: '2027-01-01', body: note() }), 400, -32022, 'unsupported-revision')
  t.same(r.error.data, { supported: [V], requested: '2027-01-01' })
  t.equal(r.id, null)
})

t.test('decodeHeaderValue: plain values, base64 sentinels, refusals', async (t) => {
  t.equal(decodeHeaderValue('heartbeat'), 'heartbeat')
  t.equal(decodeHeaderValue('=?base64?aGk=?='), 'hi')
  t.equal(decodeHeaderValue('=?base64??='), '')
  t.equal(decodeHeaderValue(`=?base64?${Buffer.from('日本 ✓').toString('base64')}?=`), '日本 ✓')
  t.equal(decodeHeaderValue('=?base64?aGk?='), undefined, 'padding is required (canonical)')
  t.equal(decodeHeaderValue('=?base64?a-k=?='), undefined, 'not the base64 alphabet')
  t.equal(decodeHeaderValue('=?base64?/w==?='), undefined, 'not UTF-8 (0xff)')
  t.equal(decodeHeaderValue('=?base64?'), '=?base64?', 'no suffix: a literal value')
  t.equal(decodeHeaderValue('=?base64?='), '=?base64?=', 'prefix and suffix overlapping: a literal value')
  fc.assert(
    fc.property(
      fc.string({ unit: 'grapheme' }),
      (s) => decodeHeaderValue(`=?base64?${Buffer.from(s).toString('base64')}?=`) === s,
    ),
  )
})

t.test('modernDispatch: discover here, era methods to the SDK, others refused or dropped', async (t) => {
  const routeOf = (body: JsonObject): ModernRoute => modernRoute(t, classify(post(body, { mcpNameHeader: 'x' })))
  t.same(modernDispatch(routeOf(modern('server/discover'))), { action: 'discover' })
  for (const method of ['tools/list', 'tools/call', 'subscriptions/listen', 'completion/complete']) {
    t.same(
      modernDispatch(routeOf(modern(method, method === 'tools/call' ? { name: 'x' } : {}))),
      { action: 'forward' },
      method,
    )
  }
  for (const method of [
    'ping',
    'logging/setLevel',
    'resources/subscribe',
    'resources/unsubscribe',
    'tasks/get',
    'tasks/list',
    'sampling/createMessage',
    'x/custom',
  ]) {
    const action = modernDispatch(routeOf(modern(method)))
    t.same(
      action,
      {
        action: 'reject',
        httpStatus: 404,
        id: 7,
        error: { code: -32601, message: `Method not found: ${method} does not exist in protocol revision 2026-07-28` },
      },
      method,
    )
  }
  const note = (method: string) =>
    modernRoute(t, classify({ protocolVersionHeader: V, body: { jsonrpc: '2.0', method } }))
  t.same(modernDispatch(note('notifications/cancelled')), { action: 'forward' })
  t.same(modernDispatch(note('notifications/initialized')), { action: 'drop' })
  t.same(modernDispatch(note('notifications/roots/list_changed')), { action: 'drop' })
})

t.test('discoverResult: supported revisions, capabilities, identity, cache fields', async (t) => {
  t.same(discoverResult(SERVER, { tools: { listChanged: false }, tasks: { list: {} } }, 'Use heartbeat first.'), {
    supportedVersions: [V],
    capabilities: { tools: { listChanged: false } },
    instructions: 'Use heartbeat first.',
    resultType: 'complete',
    ttlMs: 0,
    cacheScope: 'private',
    _meta: { [META.serverInfo]: SERVER },
  })
  const bare = discoverResult(SERVER, {})
  t.notOk('instructions' in bare)
  t.notOk('serverInfo' in bare, 'identity lives in _meta since spec PR #3002')
})

t.test('decorateModernResult: tools/list is cacheable, tools/call is not', async (t) => {
  const list = {
    tools: [
      { name: 'a', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } },
      { name: 'b', inputSchema: { type: 'object' } },
    ],
  }
  const before = structuredClone(list)
  t.same(decorateModernResult('tools/list', list, SERVER), {
    tools: [
      { name: 'a', inputSchema: { type: 'object' } },
      { name: 'b', inputSchema: { type: 'object' } },
    ],
    resultType: 'complete',
    ttlMs: 0,
    cacheScope: 'private',
    _meta: { [META.serverInfo]: SERVER },
  })
  t.same(list, before, 'the input is not mutated')
  const call = { content: [{ type: 'text', text: '{}' }], structuredContent: { ok: true } }
  t.same(decorateModernResult('tools/call', call, SERVER), {
    ...call,
    resultType: 'complete',
    _meta: { [META.serverInfo]: SERVER },
  })
  t.same(decorateModernResult('tools/call', call), { ...call, resultType: 'complete' }, 'no serverInfo, no stamp')
})

t.test('decorateModernResult: the handler is the more specific author', async (t) => {
  const own = decorateModernResult(
    'tools/list',
    { tools: [], ttlMs: 60000, cacheScope: 'public', _meta: { a: 1 } },
    SERVER,
  )
  t.same(own, {
    tools: [],
    ttlMs: 60000,
    cacheScope: 'public',
    resultType: 'complete',
    _meta: { a: 1, [META.serverInfo]: SERVER },
  })
  for (const [ttlMs, cacheScope] of [
    [-1, 'shared'],
    [1.5, null],
    ['60', undefined],
  ] as const) {
    const r = decorateModernResult('tools/list', { tools: [], ttlMs, cacheScope })
    t.same([r.ttlMs, r.cacheScope], [0, 'private'], `invalid ${String(ttlMs)} / ${String(cacheScope)} replaced`)
  }
  const stamped = { name: 'other', version: '9' }
  t.same(decorateModernResult('tools/call', { content: [], _meta: { [META.serverInfo]: stamped } }, SERVER)._meta, {
    [META.serverInfo]: stamped,
  })
  t.same(
    decorateModernResult('tools/call', { content: [], _meta: 'bad' }, SERVER)._meta,
    'bad',
    'a non-object _meta is left alone',
  )
  const input = { resultType: 'input_required', inputRequests: { a: {} } }
  t.same(
    decorateModernResult('tools/call', input),
    input,
    'input_required passes on tools/call and gets no cache fields',
  )
  t.throws(
    () => decorateModernResult('tools/list', { tools: [], resultType: 'input_required' }),
    /resultType: the handler for tools\/list returned 'input_required'/,
  )
})

t.test('httpStatusForError: the ladder for synchronous refusals, 200 for handler errors', async (t) => {
  const sync: [number, number][] = [
    [-32700, 400],
    [-32600, 400],
    [-32601, 404],
    [-32020, 400],
    [-32021, 400],
    [-32022, 400],
    [-32602, 200],
    [-32603, 200],
    [-32000, 200],
  ]
  for (const [code, status] of sync) t.equal(httpStatusForError(code, true), status, `synchronous ${code}`)
  for (const code of [-32700, -32600, -32601, -32602, -32603, -32020, -32022, 42])
    t.equal(httpStatusForError(code, false), 200, `handler ${code}`)
  t.equal(httpStatusForError(-32021, false), 400, 'missing client capability is 400 wherever it comes from')
})

t.test('echoId: a single request id or null', async (t) => {
  t.equal(echoId({ jsonrpc: '2.0', id: 'x', method: 'm' }), 'x')
  t.equal(echoId({ jsonrpc: '2.0', id: 3, method: 'm' }), 3)
  t.equal(echoId({ jsonrpc: '2.0', method: 'm' }), null)
  t.equal(echoId({ jsonrpc: '2.0', id: 3, result: {} }), null)
  t.equal(echoId([{ id: 1, method: 'm' }]), null)
})

t.test('SDK 1.32 accepts a modern message with its _meta envelope in place', async (t) => {
  const call = modern(
    'tools/call',
    { name: 'heartbeat', arguments: { room_id: 'r' } },
    envelope({ [META.logLevel]: 'info', progressToken: 5 }),
  )
  t.ok(JSONRPCMessageSchema.safeParse(call).success, 'a JSON-RPC message')
  const parsed = CallToolRequestSchema.safeParse(call)
  t.ok(parsed.success, 'a tools/call request')
  t.same(
    parsed.data?.params._meta,
    call.params && (call.params as JsonObject)._meta,
    'the envelope keys pass through to handlers',
  )
  t.ok(ListToolsRequestSchema.safeParse(modern('tools/list')).success, 'a tools/list request')
})
