// The JSON-RPC vocabulary every stage of the MCP pipeline shares: revisions served, error codes,
// message and route types, and REFUSE, the table of the fixed-text refusals of a message (JSON,
// batch), so each fault has one message whichever path meets it; the HTTP transport's own
// refusals (Origin, Accept, Content-Type, method) are src/http/mcp.ts HTTP_REFUSE. Refusals whose
// text depends on the request (header mismatch, envelope, versions) are built in era.ts, each by
// one function.
/** The modern revisions served (only ones >= 2026-07-28 belong here). */
export const MODERN_REVISIONS: readonly string[] = ['2026-07-28']
/** The initialize-era revisions served by the SDK 1.32 server. */
export const LEGACY_REVISIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']
export const FIRST_MODERN_REVISION = '2026-07-28'

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
  'tools/call',
  'tools/list',
  'prompts/get',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
  'server/discover',
  'subscriptions/listen',
]
/** Notification methods of 2026-07-28; others (notifications/initialized, ...) are dropped. */
export const MODERN_NOTIFICATION_METHODS: readonly string[] = [
  'notifications/cancelled',
  'notifications/progress',
  'notifications/message',
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/subscriptions/acknowledged',
]
/** The body field each method's Mcp-Name header mirrors (SEP-2243 table; tasks/* from SEP-2663). */
export const MCP_NAME_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
}

export type RequestId = string | number
/**
 * A result object may carry its own JSON text under this key (a symbol: JSON.stringify and the
 * SDK's schemas never see it), so that its response is serialized once. Whoever sets it
 * guarantees that it is exactly JSON.stringify(result).
 */
export const RESULT_JSON: unique symbol = Symbol('result JSON')
export type JsonObject = Record<string, unknown>
export interface JsonRpcRequest {
  jsonrpc: '2.0'
  id: RequestId
  method: string
  params?: JsonObject
}
export interface JsonRpcNotification {
  jsonrpc: '2.0'
  method: string
  params?: JsonObject
}
export interface RpcError {
  code: number
  message: string
  data?: unknown
}
export interface Implementation {
  name: string
  version: string
  title?: string
  [key: string]: unknown
}
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/** The validated per-request envelope of a modern request. */
export interface Envelope {
  protocolVersion: string
  clientCapabilities: JsonObject
  clientInfo?: Implementation
  logLevel?: LogLevel
}

/** What classify() reads: the three standard headers (raw values), the parsed body. */
export interface InboundRequest {
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
}
/** Hand the body to the SDK 1.32 server unchanged. */
export interface LegacyRoute {
  kind: 'legacy'
  reason: 'initialize' | 'no-claim' | 'notification' | 'response'
  requestedVersion?: string
}
export type ModernRoute =
  | { kind: 'modern'; messageKind: 'request'; message: JsonRpcRequest; revision: string; envelope: Envelope }
  | { kind: 'modern'; messageKind: 'notification'; message: JsonRpcNotification; revision: string }
export type Route = Rejection | LegacyRoute | ModernRoute

export function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

export function refusal(rule: string, httpStatus: number, code: number, message: string): Rejection {
  return { kind: 'reject', rule, httpStatus, error: { code, message }, id: null }
}

/** The refusals of fixed text of a message, in the order the pipeline meets them (docs/mcp.md "Statuses"). */
export const REFUSE = {
  parse: refusal('json', 400, ERROR.parseError, 'Parse error: the request body is not valid JSON'),
  batch: refusal(
    'batch',
    400,
    ERROR.invalidRequest,
    'Bad Request: batches are not supported (send one JSON-RPC message per POST)',
  ),
} as const satisfies Record<string, Rejection>
