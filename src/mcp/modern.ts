// A modern (2026-07-28) message after classification: what to do with it (modernDispatch), the
// server/discover result, the wire form of results (decorateModernResult) and the HTTP status
// of an error answer. Reference: @modelcontextprotocol/server 2.4.0, named per function.
import {
  ERROR,
  isObject,
  META,
  MODERN_NOTIFICATION_METHODS,
  MODERN_REQUEST_METHODS,
  MODERN_REVISIONS,
  type Implementation,
  type JsonObject,
  type ModernRoute,
  type RequestId,
  type RpcError,
} from './wire.js'

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
  if (route.messageKind === 'notification')
    return MODERN_NOTIFICATION_METHODS.includes(method) ? { action: 'forward' } : { action: 'drop' }
  if (method === 'server/discover') return { action: 'discover' }
  if (MODERN_REQUEST_METHODS.includes(method)) return { action: 'forward' }
  return {
    action: 'reject',
    httpStatus: 404,
    id: route.message.id,
    error: {
      code: ERROR.methodNotFound,
      message: `Method not found: ${method} does not exist in protocol revision 2026-07-28`,
    },
  }
}

/** The server/discover result, already decorated (reference: Server._ondiscover + encodeResult). */
export function discoverResult(
  serverInfo: Implementation,
  capabilities: JsonObject,
  instructions?: string,
): JsonObject {
  const result = {
    supportedVersions: [...MODERN_REVISIONS],
    capabilities: { ...capabilities },
    ...(instructions && { instructions }),
  }
  return decorateModernResult('server/discover', result, serverInfo)
}

/** Results that must carry ttlMs and cacheScope (SEP-2549 CacheableResult; a closed list). */
export const CACHEABLE_METHODS: readonly string[] = [
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'server/discover',
]
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
    throw new Error(
      `resultType: the handler for ${method} returned '${String(out.resultType)}', but ${method} results ` +
        `only support 'complete' in protocol revision 2026-07-28`,
    )
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
 * in-band on 200, except -32021 whose 400 the MCP specification attaches to the error itself.
 * Reference: httpStatusForErrorCode and PerRequestHTTPServerTransport.send's dispatch window.
 * classify() rejections carry their own status (its -32602 envelope refusals are 400).
 */
export function httpStatusForError(code: number, synchronous: boolean): number {
  if (synchronous) return SYNCHRONOUS_STATUS[code] ?? 200
  return code === ERROR.missingRequiredClientCapability ? 400 : 200
}
