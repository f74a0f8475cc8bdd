// MCP clients and raw wire helpers for the /mcp tests: the SDK 1.x client (initialize era), the
// 2.x client pinned to 2026-07-28, a tool call that parses the result text, and raw POSTs with
// the modern headers and _meta envelope built by hand (so the tests check the wire, not a client).
import { request, type IncomingHttpHeaders } from 'node:http'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client'
import type { Test } from 'tap'
import type { TestNode } from './node.js'

export const MODERN = '2026-07-28'
export const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion'

const headersFor = (key: string | undefined): Record<string, string> => (key ? { Authorization: `Bearer ${key}` } : {})

/** An SDK 1.x client (initialize era, negotiates 2025-11-25) connected to `n`; closed when the test ends. */
export async function legacyClient(t: Test, n: TestNode, key: string, path = '/mcp'): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(n.base + path), {
    requestInit: { headers: headersFor(key) },
  })
  await client.connect(transport)
  t.teardown(() => client.close())
  return client
}

/**
 * A 2.x client pinned to 2026-07-28 (server/discover, no initialize) connected to `n` at `path`;
 * closed when the test ends. `onSend` sees every JSON-RPC message the client POSTs.
 */
export async function modernClient(
  t: Test,
  n: TestNode,
  key: string,
  onSend?: (message: unknown) => void,
  path = '/mcp',
): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'mcp-test-modern', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  )
  const recording = (url: string | URL, init?: RequestInit) => {
    if (onSend && typeof init?.body === 'string') onSend(JSON.parse(init.body))
    return fetch(url, init)
  }
  const transport = new ModernTransport(new URL(n.base + path), {
    requestInit: { headers: headersFor(key) },
    fetch: recording,
  })
  await client.connect(transport)
  t.teardown(() => client.close())
  return client
}

export interface ToolReply {
  isError: boolean
  /** content[0].text parsed as JSON. */
  body: Record<string, unknown> & {
    error?: { code: string; message: string; hint?: string; details?: Record<string, unknown> }
  }
}

type AnyToolClient = { callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown> }

/** Calls a tool and parses its one text content block. */
export async function callTool(
  client: AnyToolClient,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolReply> {
  const r = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean
    content?: { type: string; text?: string }[]
  }
  const first = r.content?.[0]
  if (!first || first.type !== 'text' || typeof first.text !== 'string')
    throw new Error(`${name}: result has no text content: ${JSON.stringify(r)}`)
  return { isError: r.isError === true, body: JSON.parse(first.text) as ToolReply['body'] }
}

/** The `_meta` envelope of a 2026-07-28 request. */
export function envelope(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    [PROTOCOL_VERSION_KEY]: MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '0.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra,
  }
}

/** A 2026-07-28 JSON-RPC request body. */
export function modernBody(
  method: string,
  params: Record<string, unknown> = {},
  id: string | number = 1,
): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope() } }
}

/** The standard headers of a 2026-07-28 request (Mcp-Name for tools/call). */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  return { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': method, ...(name !== undefined ? { 'Mcp-Name': name } : {}) }
}

export interface RawReply {
  status: number
  headers: Headers
  text: string
  /** The body parsed as JSON (a JSON reply) or the last `data:` of an SSE reply; undefined if neither. */
  json: Record<string, unknown> | undefined
}

/** The JSON-RPC messages of an SSE body (`event: message` frames). */
export function sseMessages(text: string): Record<string, unknown>[] {
  return text
    .split('\n\n')
    .map((frame) =>
      frame
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n'),
    )
    .filter((d) => d !== '')
    .map((d) => JSON.parse(d) as Record<string, unknown>)
}

/**
 * POSTs `body` (serialized unless a string) to /mcp with JSON Content-Type and Accept of both
 * kinds unless `headers` say otherwise (a header set to '' is left out). `timeoutMs`: fail
 * (TimeoutError) when no complete answer came within that time.
 */
export async function post(
  n: TestNode,
  body: unknown,
  headers: Record<string, string> = {},
  opts: { key?: string; path?: string; method?: string; timeoutMs?: number } = {},
): Promise<RawReply> {
  const h = new Headers({
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    ...headersFor(opts.key),
  })
  for (const [k, v] of Object.entries(headers)) {
    if (v === '') h.delete(k)
    else h.set(k, v)
  }
  const method = opts.method ?? 'POST'
  const res = await fetch(n.base + (opts.path ?? '/mcp'), {
    method,
    headers: h,
    body: method === 'POST' ? (typeof body === 'string' ? body : JSON.stringify(body)) : undefined,
    signal: opts.timeoutMs === undefined ? undefined : AbortSignal.timeout(opts.timeoutMs),
  })
  const text = await res.text()
  let json: Record<string, unknown> | undefined
  const type = res.headers.get('content-type') ?? ''
  if (type.startsWith('text/event-stream')) json = sseMessages(text).at(-1)
  else if (text !== '') {
    try {
      json = JSON.parse(text) as Record<string, unknown>
    } catch {
      json = undefined
    }
  }
  return { status: res.status, headers: res.headers, text, json }
}

/** A legacy (no envelope) tools/call body. */
export function legacyCall(
  name: string,
  args: Record<string, unknown>,
  id: string | number = 1,
): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }
}

/** The parsed tool result of a JSON-RPC response carrying a tools/call result. */
export function toolReplyOf(message: Record<string, unknown> | undefined): ToolReply {
  const result = message?.result as { isError?: boolean; content?: { text?: string }[] } | undefined
  const text = result?.content?.[0]?.text
  if (typeof text !== 'string') throw new Error(`not a tool result: ${JSON.stringify(message)}`)
  return { isError: result?.isError === true, body: JSON.parse(text) as ToolReply['body'] }
}

export interface StreamedCall {
  /** Resolves when the response headers arrive. */
  response: Promise<{ status: number; headers: IncomingHttpHeaders }>
  /** Every body chunk so far, in order, with its arrival time (ms since the request was sent). */
  chunks: { at: number; text: string }[]
  /** Resolves with the whole body when it ends (rejects if the request fails before it ends). */
  done: Promise<string>
  /** Destroys the connection (a client that goes away). */
  abort(): void
}

/**
 * A raw POST on its own connection (agent: false: no pooling, so every call is one TCP
 * connection, and aborting it closes that connection). For streamed replies and disconnects.
 */
export function streamedPost(n: TestNode, body: unknown, headers: Record<string, string>): StreamedCall {
  const url = new URL(n.base + '/mcp')
  const payload = JSON.stringify(body)
  const chunks: { at: number; text: string }[] = []
  const started = performance.now()
  let onResponse!: (r: { status: number; headers: IncomingHttpHeaders }) => void
  let onFail!: (e: Error) => void
  const response = new Promise<{ status: number; headers: IncomingHttpHeaders }>((resolve, reject) => {
    onResponse = resolve
    onFail = reject
  })
  const req = request({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    agent: false,
    headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload), ...headers },
  })
  const done = new Promise<string>((resolve, reject) => {
    req.on('response', (res) => {
      onResponse({ status: res.statusCode ?? 0, headers: res.headers })
      res.setEncoding('utf8')
      res.on('data', (d: string) => chunks.push({ at: performance.now() - started, text: d }))
      res.on('end', () => resolve(chunks.map((c) => c.text).join('')))
      res.on('error', reject)
    })
    req.on('error', (e) => {
      onFail(e)
      reject(e)
    })
  })
  response.catch(() => undefined)
  done.catch(() => undefined)
  req.end(payload)
  return { response, chunks, done, abort: () => req.destroy() }
}

/** The node's parked wait_for_events gauge. */
export async function parkedWaiters(n: TestNode): Promise<number> {
  return (await n.node.metrics.parkedWaiters.get()).values[0]?.value ?? 0
}
