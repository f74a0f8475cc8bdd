// The wire edge of MCP revision 2026-07-28 (the stateless "modern" era) on the one POST /mcp
// endpoint that also serves the legacy eras through @modelcontextprotocol/sdk 1.32, which only
// knows initialize-era traffic. Pure functions over {httpMethod, headers, parsed body}: classify()
// decides legacy / modern / reject, modernDispatch() what to do with a modern message,
// discoverResult() and decorateModernResult() shape modern results, httpStatusForError() maps an
// error code to its HTTP status. The rules follow the 2.x reference implementation
// (@modelcontextprotocol/server 2.4.0); each function names its counterpart there.
//
// Keeping the `_meta` envelope: SDK 1.32 parses params._meta with a loose schema (progressToken
// and related-task typed, every other key passed through), so a modern message is handed to it
// unchanged and its handlers see the envelope in extra._meta.

/** The modern revisions served (only ones >= 2026-07-28 belong here). */
export const MODERN_REVISIONS: readonly string[] = ['2026-07-28']
/** The initialize-era revisions served by the SDK 1.32 server. */
export const LEGACY_REVISIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']
const FIRST_MODERN_REVISION = '2026-07-28'

/** Reserved `_meta` keys of the per-request envelope (SEP-2575) and of results (spec PR #3002). */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const

export const ERROR = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** SEP-2243 HeaderMismatch: a standard header is missing, malformed or disagrees with the body. */
  headerMismatch: -32020,
  missingRequiredClientCapability: -32021,
  unsupportedProtocolVersion: -32022,
  /** Transport-level errors of the SDK's HTTP transports (405, 415, legacy version header). */
  transport: -32000,
} as const

/** Request methods of 2026-07-28 (reference: rev2026-07-28/registry.ts). Everything else is -32601. */
export const MODERN_REQUEST_METHODS: readonly string[] = [
  'tools/call', 'tools/list', 'prompts/get', 'prompts/list', 'resources/list', 'resources/templates/list',
  'resources/read', 'completion/complete', 'server/discover', 'subscriptions/listen',
]
/** Notification methods of 2026-07-28; others (notifications/initialized, ...) are dropped. */
export const MODERN_NOTIFICATION_METHODS: readonly string[] = [
  'notifications/cancelled', 'notifications/progress', 'notifications/message', 'notifications/resources/updated',
  'notifications/resources/list_changed', 'notifications/tools/list_changed', 'notifications/prompts/list_changed',
  'notifications/subscriptions/acknowledged',
]
/** The body field each method's Mcp-Name header mirrors (SEP-2243 table; tasks/* from SEP-2663). */
export const MCP_NAME_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri',
  'tasks/get': 'taskId', 'tasks/update': 'taskId', 'tasks/cancel': 'taskId',
}

export type RequestId = string | number
export type JsonObject = Record<string, unknown>
export interface JsonRpcRequest { jsonrpc: '2.0'; id: RequestId; method: string; params?: JsonObject }
export interface JsonRpcNotification { jsonrpc: '2.0'; method: string; params?: JsonObject }
export interface RpcError { code: number; message: string; data?: unknown }
export interface Implementation { name: string; version: string; title?: string; [key: string]: unknown }
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/** The validated per-request envelope of a modern request. */
export interface Envelope {
  protocolVersion: string
  clientCapabilities: JsonObject
  clientInfo?: Implementation
  logLevel?: LogLevel
}

/** What classify() reads: the HTTP method, the three standard headers (raw values), the parsed body. */
export interface InboundRequest {
  httpMethod: string
  protocolVersionHeader?: string
  mcpMethodHeader?: string
  mcpNameHeader?: string
  body: unknown
}

/** Answer with `error` as a JSON-RPC error response (id `id`) under `httpStatus`. */
export interface Rejection {
  kind: 'reject'
  /** Which rule refused it (for logs and tests). */
  rule: string
  httpStatus: number
  error: RpcError
  id: RequestId | null
  headers?: Record<string, string>
}
/** Hand the body to the SDK 1.32 server unchanged. */
export interface LegacyRoute { kind: 'legacy'; reason: 'initialize' | 'no-claim' | 'notification' | 'response'; requestedVersion?: string }
export type ModernRoute =
  | { kind: 'modern'; messageKind: 'request'; message: JsonRpcRequest; revision: string; envelope: Envelope }
  | { kind: 'modern'; messageKind: 'notification'; message: JsonRpcNotification; revision: string }
export type Route = Rejection | LegacyRoute | ModernRoute

/** GET and DELETE on /mcp: the modern era is POST-only and the legacy one is served stateless. */
export const METHOD_NOT_ALLOWED = { httpStatus: 405, headers: { Allow: 'POST' }, error: { code: ERROR.transport, message: 'Method not allowed.' } }
/** A POST body that is not JSON (the caller parses before classify). */
export const PARSE_ERROR = { httpStatus: 400, error: { code: ERROR.parseError, message: 'Parse error: the request body is not valid JSON' } }

// ---- JSON-RPC shapes (reference: isJSONRPCRequest & co, strict top-level keys) ----

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}
function isId(v: unknown): v is RequestId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v))
}
function onlyKeys(o: JsonObject, allowed: readonly string[]): boolean {
  return Object.keys(o).every((k) => allowed.includes(k))
}
function isRequest(b: JsonObject): b is JsonObject & JsonRpcRequest {
  return b.jsonrpc === '2.0' && isId(b.id) && typeof b.method === 'string' && (b.params === undefined || isObject(b.params)) && onlyKeys(b, ['jsonrpc', 'id', 'method', 'params'])
}
function isNotification(b: JsonObject): b is JsonObject & JsonRpcNotification {
  return b.jsonrpc === '2.0' && typeof b.method === 'string' && (b.params === undefined || isObject(b.params)) && onlyKeys(b, ['jsonrpc', 'method', 'params'])
}
function isResponse(b: JsonObject): boolean {
  if (b.jsonrpc !== '2.0') return false
  if ('result' in b) return isId(b.id) && isObject(b.result) && onlyKeys(b, ['jsonrpc', 'id', 'result'])
  const e = b.error
  return (b.id === undefined || isId(b.id)) && isObject(e) && Number.isInteger(e.code) && typeof e.message === 'string' && onlyKeys(b, ['jsonrpc', 'id', 'error'])
}

/** The id an error answer echoes: a single request's id, else null (reference: echoableRequestId). */
export function echoId(body: unknown): RequestId | null {
  return isObject(body) && typeof body.method === 'string' && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null
}

// ---- revisions and headers ----

/** Revision ids are ISO dates, so the era is a string comparison (reference: isModernProtocolVersion). */
export function isModernRevision(version: string): boolean {
  return version >= FIRST_MODERN_REVISION
}

/** Strips RFC 9110 optional whitespace (SP / HTAB) around a header value (reference: stripHttpOws). */
export function stripOws(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, '')
}

const SENTINEL_PREFIX = '=?base64?'
const SENTINEL_SUFFIX = '?='
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/**
 * Decodes a header carrying a value that may not be a valid header string (SEP-2243 "Encoding"):
 * `=?base64?<canonical base64 of UTF-8>?=` decodes, anything else is taken literally.
 * undefined = a sentinel whose payload is not canonical base64 or not UTF-8 (must be refused).
 * Reference: decodeMcpParamValue.
 */
export function decodeHeaderValue(value: string): string | undefined {
  const sentinel = value.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length && value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX)
  if (!sentinel) return value
  const payload = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length)
  if (!CANONICAL_BASE64.test(payload)) return undefined
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(payload, 'base64'))
  } catch {
    return undefined
  }
}

/** The body field and value an Mcp-Name header must mirror; undefined when the method has none. */
export function mcpNameSource(method: string, params: unknown): { field: string; value: string | undefined } | undefined {
  const field = Object.hasOwn(MCP_NAME_SOURCE, method) ? MCP_NAME_SOURCE[method] : undefined
  if (field === undefined) return undefined
  const raw = isObject(params) ? params[field] : undefined
  return { field, value: typeof raw === 'string' ? raw : undefined }
}

// ---- the per-request envelope (SEP-2575; clientInfo optional since spec PR #3002) ----

/** One problem in an envelope: which key (dotted path inside _meta) and what is wrong. */
export interface EnvelopeIssue { key: string; problem: string }

function metaOf(params: unknown): JsonObject | undefined {
  return isObject(params) && isObject(params._meta) ? params._meta : undefined
}
/** A message claims the modern envelope iff params._meta carries the protocol-version key. */
export function hasEnvelopeClaim(params: unknown): boolean {
  const meta = metaOf(params)
  return meta !== undefined && META.protocolVersion in meta
}
function claimedVersion(params: unknown): string | undefined {
  const v = metaOf(params)?.[META.protocolVersion]
  return typeof v === 'string' ? v : undefined
}

function kindOf(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  return typeof v
}
function expected(type: string, v: unknown): string {
  return `Invalid input: expected ${type}, received ${kindOf(v)}`
}
type Check = (v: unknown, key: string, issues: EnvelopeIssue[]) => void
const str: Check = (v, key, issues) => { if (typeof v !== 'string') issues.push({ key, problem: expected('string', v) }) }
const bool: Check = (v, key, issues) => { if (typeof v !== 'boolean') issues.push({ key, problem: expected('boolean', v) }) }
const obj: Check = (v, key, issues) => { if (!isObject(v)) issues.push({ key, problem: expected('object', v) }) }
/** An object whose listed members are optional and checked; other members pass. */
function shape(members: Record<string, Check>, required: readonly string[] = []): Check {
  return (v, key, issues) => {
    if (!isObject(v)) return void issues.push({ key, problem: expected('object', v) })
    for (const [name, check] of Object.entries(members)) {
      if (v[name] !== undefined) check(v[name], `${key}.${name}`, issues)
      else if (required.includes(name)) issues.push({ key: `${key}.${name}`, problem: expected('string', undefined) })
    }
  }
}
const recordOfObjects: Check = (v, key, issues) => {
  if (!isObject(v)) return void issues.push({ key, problem: expected('object', v) })
  for (const [name, member] of Object.entries(v)) obj(member, `${key}.${name}`, issues)
}
const icons: Check = (v, key, issues) => {
  if (!Array.isArray(v)) return void issues.push({ key, problem: expected('array', v) })
  v.forEach((icon, i) => shape({ src: str, mimeType: str }, ['src'])(icon, `${key}.${i}`, issues))
}
// Members in the reference schema's order, so the first issue reported is the same one.
const implementation = shape({ name: str, title: str, icons, version: str, websiteUrl: str, description: str }, ['name', 'version'])
const clientCapabilities = shape({
  experimental: recordOfObjects,
  sampling: shape({ context: obj, tools: obj }),
  elicitation: shape({ form: shape({ applyDefaults: bool }), url: obj }),
  roots: shape({ listChanged: bool }),
  extensions: recordOfObjects,
})
const ENVELOPE_CHECKS: Record<string, Check> = {
  progressToken: (v, key, issues) => {
    if (typeof v !== 'string' && !Number.isSafeInteger(v)) issues.push({ key, problem: expected('string or integer', v) })
  },
  [META.protocolVersion]: str,
  [META.clientInfo]: implementation,
  [META.clientCapabilities]: clientCapabilities,
  [META.logLevel]: (v, key, issues) => {
    if (!LOG_LEVELS.includes(v as LogLevel)) issues.push({ key, problem: `Invalid option: expected one of ${LOG_LEVELS.map((l) => `"${l}"`).join('|')}` })
  },
}
const REQUIRED_ENVELOPE_KEYS = [META.protocolVersion, META.clientCapabilities]

/**
 * Validates params._meta as a 2026-07-28 envelope: missing required keys first, then bad values
 * of present keys, in a stable order; [] when valid. Other `_meta` keys pass (the envelope is
 * loose). Reference: validateEnvelopeMeta (the 2026 codec's RequestMetaEnvelopeSchema).
 */
export function validateEnvelope(meta: JsonObject): EnvelopeIssue[] {
  const issues: EnvelopeIssue[] = REQUIRED_ENVELOPE_KEYS.filter((k) => meta[k] === undefined).map((key) => ({ key, problem: 'missing' }))
  for (const [key, check] of Object.entries(ENVELOPE_CHECKS)) if (meta[key] !== undefined) check(meta[key], key, issues)
  return issues
}

function envelopeOf(meta: JsonObject): Envelope {
  return {
    protocolVersion: meta[META.protocolVersion] as string,
    clientCapabilities: meta[META.clientCapabilities] as JsonObject,
    ...(meta[META.clientInfo] !== undefined && { clientInfo: meta[META.clientInfo] as Implementation }),
    ...(meta[META.logLevel] !== undefined && { logLevel: meta[META.logLevel] as LogLevel }),
  }
}

// ---- classification: the inbound validation ladder ----

function reject(rule: string, httpStatus: number, code: number, message: string, data?: unknown, id: RequestId | null = null): Rejection {
  return { kind: 'reject', rule, httpStatus, error: { code, message, ...(data !== undefined && { data }) }, id }
}
function mismatch(rule: string, header: string, body: string, id: RequestId | null): Rejection {
  return reject(rule, 400, ERROR.headerMismatch, `Bad Request: the request headers and body disagree: ${body}`, { mismatch: { header, body } }, id)
}
function envelopeInvalid(rule: string, issue: EnvelopeIssue, id: RequestId | null): Rejection {
  return reject(rule, 400, ERROR.invalidParams, `Invalid _meta envelope for protocol revision 2026-07-28: ${issue.key}: ${issue.problem}`, { envelope: issue }, id)
}

/**
 * Classifies one POST /mcp (reference: classifyInboundRequest, then the supported-revision gate
 * and validateStandardRequestHeaders of createMcpHandler's serveModern, in that order).
 * Body-primary: the era comes from the body's envelope claim; headers only cross-check it.
 * Policies of this service on top of the reference: batches are refused in both eras, non-POST
 * is 405, and a legacy message with an MCP-Protocol-Version header outside LEGACY_REVISIONS is
 * refused as SDK 1.32's own HTTP transport does (our transport replaces it).
 */
export function classify(input: InboundRequest): Route {
  const req: InboundRequest = {
    ...input,
    protocolVersionHeader: input.protocolVersionHeader === undefined ? undefined : stripOws(input.protocolVersionHeader),
    mcpMethodHeader: input.mcpMethodHeader === undefined ? undefined : stripOws(input.mcpMethodHeader),
    mcpNameHeader: input.mcpNameHeader === undefined ? undefined : stripOws(input.mcpNameHeader),
  }
  if (req.httpMethod.toUpperCase() !== 'POST') {
    return { kind: 'reject', rule: 'http-method', ...METHOD_NOT_ALLOWED, id: null }
  }
  const body = req.body
  if (Array.isArray(body)) return reject('batch', 400, ERROR.invalidRequest, 'Bad Request: batches are not supported (send one JSON-RPC message per POST)')
  let route: Route
  if (isObject(body) && isRequest(body)) route = classifyRequest(req, body)
  else if (isObject(body) && isNotification(body)) route = classifyNotification(req, body)
  else if (isObject(body) && isResponse(body)) route = { kind: 'legacy', reason: 'response' }
  else return reject('jsonrpc-shape', 400, ERROR.invalidRequest, 'Bad Request: the request body is not a valid JSON-RPC message', undefined, echoId(body))
  if (route.kind === 'legacy') return legacyVersionGate(req, route)
  if (route.kind === 'reject') return route
  return supportedRevisionGate(route) ?? validateStandardHeaders(req, route) ?? route
}

/** Requests (reference: classifyRequestBody). */
function classifyRequest(req: InboundRequest, body: JsonRpcRequest): Route {
  const { params, method, id } = body
  const header = req.protocolVersionHeader
  const headerIsModern = header !== undefined && isModernRevision(header)
  // initialize is the legacy handshake unless a valid modern envelope claims it (the modern era
  // then answers it -32601 like any method it lacks).
  if (method === 'initialize' && !carriesValidModernClaim(params)) {
    if (headerIsModern) return mismatch('initialize-with-modern-header', header, 'an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header', id)
    const requested = isObject(params) && typeof params.protocolVersion === 'string' ? params.protocolVersion : undefined
    return { kind: 'legacy', reason: 'initialize', ...(requested !== undefined && { requestedVersion: requested }) }
  }
  if (hasEnvelopeClaim(params)) {
    const meta = metaOf(params) as JsonObject
    const issue = validateEnvelope(meta)[0]
    if (issue !== undefined) return envelopeInvalid('envelope-invalid', issue, id)
    const claimed = meta[META.protocolVersion] as string
    if (header !== undefined && header !== claimed) return mismatch('version-header-mismatch', header, `the body envelope names protocol version ${claimed} but the MCP-Protocol-Version header names ${header}`, id)
    if (req.mcpMethodHeader !== undefined && req.mcpMethodHeader !== method) return mismatch('method-header-mismatch', req.mcpMethodHeader, `the body names method ${method} but the Mcp-Method header names ${req.mcpMethodHeader}`, id)
    return { kind: 'modern', messageKind: 'request', message: body, revision: claimed, envelope: envelopeOf(meta) }
  }
  if (headerIsModern) {
    // A modern header without the envelope is a broken modern request, never legacy traffic.
    const meta = metaOf(params)
    const missingKeys = validateEnvelope(meta ?? {}).filter((i) => i.problem === 'missing').map((i) => i.key)
    const missing = meta === undefined ? ['_meta'] : missingKeys
    return reject('modern-header-without-envelope', 400, ERROR.invalidParams, `Invalid params: the MCP-Protocol-Version header names protocol revision ${header}, but the request is missing the required _meta envelope key(s): ${missing.join(', ')}`, { envelope: { missing } }, id)
  }
  return { kind: 'legacy', reason: 'no-claim', ...(header !== undefined && { requestedVersion: header }) }
}

/** Whether params carry a well-formed claim naming a modern revision (reference: carriesValidModernEnvelopeClaim). */
function carriesValidModernClaim(params: unknown): boolean {
  const claimed = claimedVersion(params)
  const meta = metaOf(params)
  return claimed !== undefined && isModernRevision(claimed) && meta !== undefined && validateEnvelope(meta).length === 0
}

/**
 * Notifications (reference: classifyNotificationBody). No envelope is required; a claim is
 * body-primary like a request's, and without one a modern header decides the era.
 */
function classifyNotification(req: InboundRequest, body: JsonRpcNotification): Route {
  const { params, method } = body
  const header = req.protocolVersionHeader
  const methodMismatch = () =>
    req.mcpMethodHeader !== undefined && req.mcpMethodHeader !== method
      ? mismatch('notification-method-header-mismatch', req.mcpMethodHeader, `the notification body names method ${method} but the Mcp-Method header names ${req.mcpMethodHeader}`, null)
      : undefined
  if (hasEnvelopeClaim(params)) {
    const claimed = claimedVersion(params)
    if (claimed === undefined) {
      const issue = validateEnvelope(metaOf(params) as JsonObject).find((i) => i.key === META.protocolVersion) ?? { key: META.protocolVersion, problem: 'expected a protocol version string' }
      return envelopeInvalid('notification-envelope-invalid', issue, null)
    }
    if (header !== undefined && header !== claimed) return mismatch('notification-version-header-mismatch', header, `the notification envelope names protocol version ${claimed} but the MCP-Protocol-Version header names ${header}`, null)
    if (isModernRevision(claimed)) { const m = methodMismatch(); if (m) return m }
    return { kind: 'modern', messageKind: 'notification', message: body, revision: claimed }
  }
  if (header !== undefined && isModernRevision(header)) return methodMismatch() ?? { kind: 'modern', messageKind: 'notification', message: body, revision: header }
  return { kind: 'legacy', reason: 'notification', ...(header !== undefined && { requestedVersion: header }) }
}

/** -32022 for a modern-routed message naming a revision we do not serve (reference: serveModern). */
function supportedRevisionGate(route: ModernRoute): Rejection | undefined {
  if (MODERN_REVISIONS.includes(route.revision)) return undefined
  const id = route.messageKind === 'request' ? route.message.id : null
  return reject('unsupported-revision', 400, ERROR.unsupportedProtocolVersion, `Unsupported protocol version: ${route.revision}`, { supported: [...MODERN_REVISIONS], requested: route.revision }, id)
}

/**
 * SEP-2243 presence and Mcp-Name rules for modern requests (notifications are exempt): the
 * MCP-Protocol-Version header, then Mcp-Method, then Mcp-Name when the body carries the value
 * it mirrors (base64 sentinel decoded). Reference: validateStandardRequestHeaders.
 */
export function validateStandardHeaders(req: Omit<InboundRequest, 'body' | 'httpMethod'>, route: ModernRoute): Rejection | undefined {
  if (route.messageKind !== 'request') return undefined
  const { method, params, id } = route.message
  if (req.protocolVersionHeader === undefined) return mismatch('version-header-missing', '(missing)', `the body envelope names protocol version ${route.revision} but the required MCP-Protocol-Version header is absent`, id)
  if (req.mcpMethodHeader === undefined) return mismatch('method-header-missing', '(missing)', `the body names method ${method} but the required Mcp-Method header is absent`, id)
  const source = mcpNameSource(method, params)
  if (source === undefined) return undefined
  if (req.mcpNameHeader === undefined) {
    return source.value === undefined ? undefined : mismatch('name-header-missing', '(missing)', `the body carries params.${source.field}="${source.value}" but the required Mcp-Name header is absent`, id)
  }
  const header = stripOws(req.mcpNameHeader)
  const decoded = decodeHeaderValue(header)
  if (decoded === undefined) return mismatch('name-header-invalid-encoding', header, 'the Mcp-Name header carries an invalid Base64 sentinel value', id)
  if (source.value !== undefined && decoded !== source.value) return mismatch('name-header-mismatch', header, `the body carries params.${source.field}="${source.value}" but the Mcp-Name header names "${decoded}"`, id)
  return undefined
}

/** SDK 1.32's transport refuses a version header it does not speak on non-initialize POSTs. */
function legacyVersionGate(req: InboundRequest, route: LegacyRoute): Route {
  const header = req.protocolVersionHeader
  if (route.reason === 'initialize' || header === undefined || LEGACY_REVISIONS.includes(header)) return route
  // Every revision this endpoint speaks, newest first: a client told only the legacy ones would
  // never learn that 2026-07-28 is served too.
  const supported = [...MODERN_REVISIONS, ...LEGACY_REVISIONS]
  return reject('legacy-unsupported-version-header', 400, ERROR.transport, `Bad Request: Unsupported protocol version: ${header} (supported versions: ${supported.join(', ')})`, { supported, requested: header }, echoId(req.body))
}

// ---- after classification: dispatch, results, statuses ----

export type ModernAction =
  | { action: 'discover' }
  | { action: 'forward' }
  | { action: 'drop' }
  | { action: 'reject'; httpStatus: number; error: RpcError; id: RequestId }

/**
 * What to do with a modern message: answer server/discover here (SDK 1.32 has no handler), hand
 * other 2026-07-28 methods to the SDK, refuse requests for methods the era does not define
 * (initialize, ping, logging/setLevel, resources/subscribe, tasks/*, ...) with -32601 / 404, drop
 * notifications it does not define (notifications/initialized, ...). Reference: Protocol._onrequest
 * and _onnotification era gates over rev2026-07-28/registry.ts.
 */
export function modernDispatch(route: ModernRoute): ModernAction {
  const { method } = route.message
  if (route.messageKind === 'notification') return MODERN_NOTIFICATION_METHODS.includes(method) ? { action: 'forward' } : { action: 'drop' }
  if (method === 'server/discover') return { action: 'discover' }
  if (MODERN_REQUEST_METHODS.includes(method)) return { action: 'forward' }
  return { action: 'reject', httpStatus: 404, id: route.message.id, error: { code: ERROR.methodNotFound, message: `Method not found: ${method} does not exist in protocol revision 2026-07-28` } }
}

/** The server/discover result, already decorated (reference: Server._ondiscover + encodeResult). */
export function discoverResult(serverInfo: Implementation, capabilities: JsonObject, instructions?: string): JsonObject {
  const result = { supportedVersions: [...MODERN_REVISIONS], capabilities: { ...capabilities }, ...(instructions && { instructions }) }
  return decorateModernResult('server/discover', result, serverInfo)
}

/** Results that must carry ttlMs and cacheScope (SEP-2549 CacheableResult; a closed list). */
export const CACHEABLE_METHODS: readonly string[] = ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read', 'server/discover']
/** Methods whose results may be resultType 'input_required' (SEP-2322); all others only 'complete'. */
const EXTENDED_RESULT_METHODS: readonly string[] = ['tools/call', 'prompts/get', 'resources/read']

/**
 * Turns an SDK 1.32 result into its 2026-07-28 wire form (reference: rev2026 encodeResult):
 * 1. drop fields the revision deleted (tools[].execution on tools/list, capabilities.tasks);
 * 2. resultType 'complete' unless the handler set one (a non-'complete' value outside
 *    tools/call, prompts/get, resources/read is a server bug: throws);
 * 3. on cacheable complete results, ttlMs / cacheScope: the handler's valid values, else 0 and
 *    'private' (nothing may be cached, and never across credentials);
 * 4. _meta[io.modelcontextprotocol/serverInfo] = serverInfo unless already set (spec PR #3002).
 */
export function decorateModernResult(method: string, result: JsonObject, serverInfo?: Implementation): JsonObject {
  let out = withoutDeletedFields(method, result)
  if (out.resultType === undefined) out = { ...out, resultType: 'complete' }
  else if (out.resultType !== 'complete' && !EXTENDED_RESULT_METHODS.includes(method)) {
    throw new Error(`resultType: the handler for ${method} returned '${String(out.resultType)}', but ${method} results only support 'complete' in protocol revision 2026-07-28`)
  }
  if (out.resultType === 'complete' && CACHEABLE_METHODS.includes(method)) {
    const ttl = out.ttlMs
    out = {
      ...out,
      ttlMs: typeof ttl === 'number' && Number.isSafeInteger(ttl) && ttl >= 0 ? ttl : 0,
      cacheScope: out.cacheScope === 'public' || out.cacheScope === 'private' ? out.cacheScope : 'private',
    }
  }
  return serverInfo === undefined ? out : stampServerInfo(out, serverInfo)
}

function withoutDeletedFields(method: string, result: JsonObject): JsonObject {
  const out = { ...result }
  if (method === 'tools/list' && Array.isArray(out.tools)) {
    out.tools = out.tools.map((tool: unknown) => {
      if (!isObject(tool) || !('execution' in tool)) return tool
      const { execution: _dropped, ...rest } = tool
      return rest
    })
  }
  if (isObject(out.capabilities) && 'tasks' in out.capabilities) {
    const { tasks: _dropped, ...rest } = out.capabilities
    out.capabilities = rest
  }
  return out
}

/** A handler's own serverInfo stamp wins; a non-object _meta is left for the peer to refuse. */
function stampServerInfo(result: JsonObject, serverInfo: Implementation): JsonObject {
  const meta = result._meta
  if (meta === undefined) return { ...result, _meta: { [META.serverInfo]: serverInfo } }
  if (!isObject(meta) || meta[META.serverInfo] !== undefined) return result
  return { ...result, _meta: { ...meta, [META.serverInfo]: serverInfo } }
}

/** Errors raised before any handler ran whose status is not 200 (reference: LADDER_ERROR_HTTP_STATUS). */
const SYNCHRONOUS_STATUS: Readonly<Record<number, number>> = {
  [ERROR.parseError]: 400,
  [ERROR.invalidRequest]: 400,
  [ERROR.methodNotFound]: 404,
  [ERROR.headerMismatch]: 400,
  [ERROR.missingRequiredClientCapability]: 400,
  [ERROR.unsupportedProtocolVersion]: 400,
}

/**
 * The HTTP status of a modern JSON-RPC error answer. `synchronous`: the server refused the message
 * before any handler ran (e.g. SDK 1.32 answering -32601 from inside onmessage); those map
 * through the ladder table, anything else in it (-32602 included) stays 200. Handler errors stay
 * in-band on 200, except -32021 whose 400 the spec attaches to the error itself.
 * Reference: httpStatusForErrorCode and PerRequestHTTPServerTransport.send's dispatch window.
 * classify() rejections carry their own status (its -32602 envelope refusals are 400).
 */
export function httpStatusForError(code: number, synchronous: boolean): number {
  if (synchronous) return SYNCHRONOUS_STATUS[code] ?? 200
  return code === ERROR.missingRequiredClientCapability ? 400 : 200
}
