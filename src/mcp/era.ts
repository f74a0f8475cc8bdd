// The inbound ladder of POST /mcp for both protocol eras: classify() decides, from the parsed body
// and the three standard headers, whether a message is legacy (for the SDK 1.32 server), modern
// (2026-07-28, stateless) or refused, with the refusal's HTTP status, JSON-RPC error and echoed
// id. Pure functions; the rules follow the 2.x reference implementation
// (@modelcontextprotocol/server 2.4.0), each function naming its counterpart there. Why these
// are ours and not imported from 2.x: docs/mcp.md "Protocol eras".
//
// Keeping the `_meta` envelope: SDK 1.32 parses params._meta with a loose schema (progressToken
// and related-task typed, every other key passed through), so a modern message is handed to it
// unchanged and its handlers see the envelope in extra._meta.
import {
  claimedVersion,
  envelopeOf,
  hasEnvelopeClaim,
  metaOf,
  validateEnvelope,
  type EnvelopeIssue,
} from './envelope.js'
import {
  ERROR,
  FIRST_MODERN_REVISION,
  isObject,
  LEGACY_REVISIONS,
  MCP_NAME_SOURCE,
  META,
  MODERN_REVISIONS,
  REFUSE,
  type InboundRequest,
  type JsonObject,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type LegacyRoute,
  type ModernRoute,
  type Rejection,
  type RequestId,
  type Route,
} from './wire.js'

// ---- JSON-RPC shapes (reference: isJSONRPCRequest & co, strict top-level keys) ----

function isId(v: unknown): v is RequestId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v))
}
function onlyKeys(o: JsonObject, allowed: readonly string[]): boolean {
  return Object.keys(o).every((k) => allowed.includes(k))
}
function isRequest(b: JsonObject): b is JsonObject & JsonRpcRequest {
  return (
    b.jsonrpc === '2.0' &&
    isId(b.id) &&
    typeof b.method === 'string' &&
    (b.params === undefined || isObject(b.params)) &&
    onlyKeys(b, ['jsonrpc', 'id', 'method', 'params'])
  )
}
function isNotification(b: JsonObject): b is JsonObject & JsonRpcNotification {
  return (
    b.jsonrpc === '2.0' &&
    typeof b.method === 'string' &&
    (b.params === undefined || isObject(b.params)) &&
    onlyKeys(b, ['jsonrpc', 'method', 'params'])
  )
}
function isResponse(b: JsonObject): boolean {
  if (b.jsonrpc !== '2.0') return false
  if ('result' in b) return isId(b.id) && isObject(b.result) && onlyKeys(b, ['jsonrpc', 'id', 'result'])
  const e = b.error
  return (
    (b.id === undefined || isId(b.id)) &&
    isObject(e) &&
    Number.isInteger(e.code) &&
    typeof e.message === 'string' &&
    onlyKeys(b, ['jsonrpc', 'id', 'error'])
  )
}

/** What makes `body` no JSON-RPC message, in a few words naming the member at fault. */
export function jsonRpcFault(body: unknown): string {
  if (!isObject(body)) return 'it must be a JSON object'
  if (!('jsonrpc' in body)) return 'jsonrpc is missing; it must be "2.0"'
  if (body.jsonrpc !== '2.0') return `jsonrpc is ${JSON.stringify(body.jsonrpc)}; it must be "2.0"`
  if ('result' in body || 'error' in body) {
    if ('method' in body) return 'a message has either method (a request) or result/error (a response), not both'
    if ('result' in body && 'error' in body) return 'a response has result or error, not both'
    if ('result' in body) {
      if (!isId(body.id)) return 'a response needs an id: a string or an integer'
      if (!isObject(body.result)) return 'result must be an object'
    } else if (!isObject(body.error) || !Number.isInteger(body.error.code) || typeof body.error.message !== 'string')
      return 'error must be an object with an integer code and a string message'
    const extra = Object.keys(body).filter((k) => !['jsonrpc', 'id', 'result', 'error'].includes(k))
    return `unknown member ${extra[0] ?? '?'}`
  }
  if (!('method' in body)) return 'method is missing: a request or notification names the method it calls'
  if (typeof body.method !== 'string') return 'method must be a string'
  if ('id' in body && !isId(body.id)) return 'id must be a string or an integer'
  if (body.params !== undefined && !isObject(body.params)) return 'params must be an object'
  const extra = Object.keys(body).filter((k) => !['jsonrpc', 'id', 'method', 'params'].includes(k))
  return `unknown member ${extra[0] ?? '?'}`
}

/** The id an error answer echoes: a single request's id, else null (reference: echoableRequestId). */
export function echoId(body: unknown): RequestId | null {
  return isObject(body) &&
    typeof body.method === 'string' &&
    (typeof body.id === 'string' || typeof body.id === 'number')
    ? body.id
    : null
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
  const sentinel =
    value.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length &&
    value.startsWith(SENTINEL_PREFIX) &&
    value.endsWith(SENTINEL_SUFFIX)
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
export function mcpNameSource(
  method: string,
  params: unknown,
): { field: string; value: string | undefined } | undefined {
  const field = Object.hasOwn(MCP_NAME_SOURCE, method) ? MCP_NAME_SOURCE[method] : undefined
  if (field === undefined) return undefined
  const raw = isObject(params) ? params[field] : undefined
  return { field, value: typeof raw === 'string' ? raw : undefined }
}

// ---- classification: the inbound validation ladder ----

function reject(
  rule: string,
  httpStatus: number,
  code: number,
  message: string,
  data?: unknown,
  id: RequestId | null = null,
): Rejection {
  return { kind: 'reject', rule, httpStatus, error: { code, message, ...(data !== undefined && { data }) }, id }
}
function mismatch(rule: string, header: string, body: string, id: RequestId | null): Rejection {
  return reject(
    rule,
    400,
    ERROR.headerMismatch,
    `Bad Request: the request headers and body disagree: ${body}`,
    { mismatch: { header, body } },
    id,
  )
}
function envelopeInvalid(rule: string, issue: EnvelopeIssue, id: RequestId | null): Rejection {
  return reject(
    rule,
    400,
    ERROR.invalidParams,
    `Invalid _meta envelope for protocol revision 2026-07-28: ${issue.key}: ${issue.problem}`,
    { envelope: issue },
    id,
  )
}

/**
 * Classifies one POST /mcp (reference: classifyInboundRequest, then the supported-revision gate
 * and validateStandardRequestHeaders of createMcpHandler's serveModern, in that order).
 * Body-primary: the era comes from the body's envelope claim; headers only cross-check it.
 * Policies of this service on top of the reference: batches are refused in both eras (the
 * transport answers an HTTP method other than POST itself), and a legacy message with an
 * MCP-Protocol-Version header outside LEGACY_REVISIONS is refused as SDK 1.32's own HTTP
 * transport does (our transport replaces it).
 */
export function classify(input: InboundRequest): Route {
  const req: InboundRequest = {
    ...input,
    protocolVersionHeader:
      input.protocolVersionHeader === undefined ? undefined : stripOws(input.protocolVersionHeader),
    mcpMethodHeader: input.mcpMethodHeader === undefined ? undefined : stripOws(input.mcpMethodHeader),
    mcpNameHeader: input.mcpNameHeader === undefined ? undefined : stripOws(input.mcpNameHeader),
  }
  const body = req.body
  if (Array.isArray(body)) return REFUSE.batch
  let route: Route
  if (isObject(body) && isRequest(body)) route = classifyRequest(req, body)
  else if (isObject(body) && isNotification(body)) route = classifyNotification(req, body)
  else if (isObject(body) && isResponse(body)) route = { kind: 'legacy', reason: 'response' }
  else
    return reject(
      'jsonrpc-shape',
      400,
      ERROR.invalidRequest,
      `Bad Request: the request body is not a valid JSON-RPC message: ${jsonRpcFault(body)}`,
      undefined,
      echoId(body),
    )
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
    if (headerIsModern)
      return mismatch(
        'initialize-with-modern-header',
        header,
        'an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header',
        id,
      )
    const requested =
      isObject(params) && typeof params.protocolVersion === 'string' ? params.protocolVersion : undefined
    return { kind: 'legacy', reason: 'initialize', ...(requested !== undefined && { requestedVersion: requested }) }
  }
  if (hasEnvelopeClaim(params)) {
    const meta = metaOf(params) as JsonObject
    const issue = validateEnvelope(meta)[0]
    if (issue !== undefined) return envelopeInvalid('envelope-invalid', issue, id)
    const claimed = meta[META.protocolVersion] as string
    if (header !== undefined && header !== claimed)
      return mismatch(
        'version-header-mismatch',
        header,
        `the body envelope names protocol version ${claimed} but the MCP-Protocol-Version header names ${header}`,
        id,
      )
    if (req.mcpMethodHeader !== undefined && req.mcpMethodHeader !== method)
      return mismatch(
        'method-header-mismatch',
        req.mcpMethodHeader,
        `the body names method ${method} but the Mcp-Method header names ${req.mcpMethodHeader}`,
        id,
      )
    return { kind: 'modern', messageKind: 'request', message: body, revision: claimed, envelope: envelopeOf(meta) }
  }
  if (headerIsModern) {
    // A modern header without the envelope is a broken modern request, never legacy traffic.
    const meta = metaOf(params)
    const missingKeys = validateEnvelope(meta ?? {})
      .filter((i) => i.problem === 'missing')
      .map((i) => i.key)
    const missing = meta === undefined ? ['_meta'] : missingKeys
    return reject(
      'modern-header-without-envelope',
      400,
      ERROR.invalidParams,
      `Invalid params: the MCP-Protocol-Version header names protocol revision ${header}, but the request is ` +
        `missing the required _meta envelope key(s): ${missing.join(', ')}`,
      { envelope: { missing } },
      id,
    )
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
      ? mismatch(
          'notification-method-header-mismatch',
          req.mcpMethodHeader,
          `the notification body names method ${method} but the Mcp-Method header names ${req.mcpMethodHeader}`,
          null,
        )
      : undefined
  if (hasEnvelopeClaim(params)) {
    const claimed = claimedVersion(params)
    if (claimed === undefined) {
      const issue = validateEnvelope(metaOf(params) as JsonObject).find((i) => i.key === META.protocolVersion) ?? {
        key: META.protocolVersion,
        problem: 'expected a protocol version string',
      }
      return envelopeInvalid('notification-envelope-invalid', issue, null)
    }
    if (header !== undefined && header !== claimed)
      return mismatch(
        'notification-version-header-mismatch',
        header,
        `the notification envelope names protocol version ${claimed} but the MCP-Protocol-Version header ` +
          `names ${header}`,
        null,
      )
    if (isModernRevision(claimed)) {
      const m = methodMismatch()
      if (m) return m
    }
    return { kind: 'modern', messageKind: 'notification', message: body, revision: claimed }
  }
  if (header !== undefined && isModernRevision(header))
    return methodMismatch() ?? { kind: 'modern', messageKind: 'notification', message: body, revision: header }
  return { kind: 'legacy', reason: 'notification', ...(header !== undefined && { requestedVersion: header }) }
}

/** -32022 for a modern-routed message naming a revision we do not serve (reference: serveModern). */
function supportedRevisionGate(route: ModernRoute): Rejection | undefined {
  if (MODERN_REVISIONS.includes(route.revision)) return undefined
  const id = route.messageKind === 'request' ? route.message.id : null
  return reject(
    'unsupported-revision',
    400,
    ERROR.unsupportedProtocolVersion,
    `Unsupported protocol version: ${route.revision}`,
    { supported: [...MODERN_REVISIONS], requested: route.revision },
    id,
  )
}

/**
 * SEP-2243 presence and Mcp-Name rules for modern requests (notifications are exempt): the
 * MCP-Protocol-Version header, then Mcp-Method, then Mcp-Name when the body carries the value
 * it mirrors (base64 sentinel decoded). Reference: validateStandardRequestHeaders.
 */
export function validateStandardHeaders(req: Omit<InboundRequest, 'body'>, route: ModernRoute): Rejection | undefined {
  if (route.messageKind !== 'request') return undefined
  const { method, params, id } = route.message
  if (req.protocolVersionHeader === undefined)
    return mismatch(
      'version-header-missing',
      '(missing)',
      `the body envelope names protocol version ${route.revision} but the required MCP-Protocol-Version ` +
        `header is absent`,
      id,
    )
  if (req.mcpMethodHeader === undefined)
    return mismatch(
      'method-header-missing',
      '(missing)',
      `the body names method ${method} but the required Mcp-Method header is absent`,
      id,
    )
  const source = mcpNameSource(method, params)
  if (source === undefined) return undefined
  if (req.mcpNameHeader === undefined) {
    return source.value === undefined
      ? undefined
      : mismatch(
          'name-header-missing',
          '(missing)',
          `the body carries params.${source.field}="${source.value}" but the required Mcp-Name header is absent`,
          id,
        )
  }
  const header = stripOws(req.mcpNameHeader)
  const decoded = decodeHeaderValue(header)
  if (decoded === undefined)
    return mismatch(
      'name-header-invalid-encoding',
      header,
      'the Mcp-Name header carries an invalid Base64 sentinel value',
      id,
    )
  if (source.value !== undefined && decoded !== source.value)
    return mismatch(
      'name-header-mismatch',
      header,
      `the body carries params.${source.field}="${source.value}" but the Mcp-Name header names "${decoded}"`,
      id,
    )
  return undefined
}

/** SDK 1.32's transport refuses a version header it does not speak on non-initialize POSTs. */
function legacyVersionGate(req: InboundRequest, route: LegacyRoute): Route {
  const header = req.protocolVersionHeader
  if (route.reason === 'initialize' || header === undefined || LEGACY_REVISIONS.includes(header)) return route
  // Every revision this endpoint speaks, newest first: a client told only the legacy ones would
  // never learn that 2026-07-28 is served too.
  const supported = [...MODERN_REVISIONS, ...LEGACY_REVISIONS]
  return reject(
    'legacy-unsupported-version-header',
    400,
    ERROR.transport,
    `Bad Request: Unsupported protocol version: ${header} (supported versions: ${supported.join(', ')})`,
    { supported, requested: header },
    echoId(req.body),
  )
}
