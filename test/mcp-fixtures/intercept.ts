// Wraps the handler an SDK 1.32 Server stores for one method, so a fixture sees the raw request
// (McpServer's parsed one drops params it does not know, such as 2026-07-28's inputResponses and
// requestState) and may answer before McpServer does — with a JSON-RPC error, which McpServer's
// tools/call would turn into an isError result. Reaches into Protocol's private handler map:
// test fixtures only.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js'

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>
export interface RawRequest {
  method: string
  params?: Record<string, unknown>
}
export type RawHandler = (request: RawRequest, extra: Extra) => Promise<Record<string, unknown>>

export function intercept(server: Server, method: string, wrap: (next: RawHandler) => RawHandler): void {
  const handlers = (server as unknown as { _requestHandlers: Map<string, RawHandler> })._requestHandlers
  const next = handlers.get(method)
  if (!next) throw new Error(`fixture: no ${method} handler to wrap (register one first)`)
  handlers.set(method, wrap(next))
}

/** The 2026-07-28 envelope's client capabilities; undefined for legacy-era requests. */
export function modernClientCapabilities(extra: Extra): Record<string, unknown> | undefined {
  const meta = extra._meta as Record<string, unknown> | undefined
  if (meta?.['io.modelcontextprotocol/protocolVersion'] === undefined) return undefined
  const caps = meta['io.modelcontextprotocol/clientCapabilities']
  return caps !== null && typeof caps === 'object' ? (caps as Record<string, unknown>) : {}
}

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']

/**
 * Whether a log notification at `level` may be sent for this request: always in the legacy eras
 * (logging/setLevel filters there), and in 2026-07-28 only when the request's envelope names a
 * log level at or below it.
 */
export function mayLog(extra: Extra, level: string): boolean {
  const meta = extra._meta as Record<string, unknown> | undefined
  if (meta?.['io.modelcontextprotocol/protocolVersion'] === undefined) return true
  const wanted = meta['io.modelcontextprotocol/logLevel']
  return typeof wanted === 'string' && LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(wanted)
}
