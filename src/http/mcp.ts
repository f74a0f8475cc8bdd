// MCP over HTTP: the /mcp mount, a thin transport in front of the MCP pipeline
// (src/mcp/pipeline.ts). The edge has applied the Origin rule and authenticated the caller by
// the time POST runs; POST then reads what HTTP carries (?profile=, Accept, Content-Type, the
// standard MCP headers, the raw body) into one inbound message for the pipeline and answers its
// messages as JSON or SSE (mcp-reply.ts). GET and DELETE answer 405: there is no session and no
// standalone stream to open or close.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Keyring } from '../auth/keyring.js'
import { narrowConnection, type ConnectionBinding, type Principal } from '../auth/principal.js'
import {
  mcpPipeline,
  type EndpointHost,
  type McpExchange,
  type McpInbound,
  type Profile,
  type Rejected,
  type ReplyShape,
} from '../mcp/pipeline.js'
import { ERROR, refusal, type Rejection } from '../mcp/wire.js'
import { AppError } from '../shared/errors.js'
import { agentId as agentIdField, roomId as roomIdField } from '../shared/fields.js'
import { keyCredential, keylessCredential, keyPolicy, type KeyAuthDeps } from './credentials.js'
import { Refusal, sendError } from './errors.js'
import { renderJson } from './edge.js'
import { tokenCredential, type OAuthHolder } from './oauth/routes.js'
import type { Exchange } from './exchange.js'
import { HttpReply } from './mcp-reply.js'
import type { Mount } from './router.js'
import type { SseSessions } from './sse-session.js'

/** What the endpoint uses: keys and rate limits, allowed origins, the SSE sessions of streamed replies. */
export interface McpRouteDeps extends KeyAuthDeps {
  /** alias: a connection's narrowed principal is held as its credential's. */
  keyring: Pick<Keyring, 'authenticate' | 'alias'>
  settings: { mcpAllowedOrigins: readonly string[] }
  sse: Pick<SseSessions, 'open'>
}

/** The transport's refusals of fixed text, in the order a request meets them (docs/mcp.md "Statuses"). */
export const HTTP_REFUSE = {
  origin: refusal('origin', 403, ERROR.transport, 'Forbidden: Origin not allowed'),
  keylessHost: refusal(
    'keyless-host',
    403,
    ERROR.transport,
    'Forbidden: requests without a key must name a loopback Host',
  ),
  notAcceptable: refusal(
    'accept',
    406,
    ERROR.transport,
    'Not Acceptable: the client must accept application/json or text/event-stream',
  ),
  mediaType: refusal(
    'content-type',
    415,
    ERROR.transport,
    'Unsupported Media Type: Content-Type must be application/json',
  ),
  /** GET and DELETE: the modern era is POST-only and the legacy one is served stateless. */
  httpMethod: refusal('http-method', 405, ERROR.transport, 'Method not allowed.'),
} as const satisfies Record<string, Rejection>

const JSON_TYPE = { 'Content-Type': 'application/json' }

/** A refusal answered as a JSON-RPC error response under its HTTP status. */
const refused = (r: Rejection, headers: Record<string, string> = {}) =>
  new Refusal(r.httpStatus, JSON.stringify({ jsonrpc: '2.0', id: r.id, error: r.error }), { ...JSON_TYPE, ...headers })

const ORIGIN = refused(HTTP_REFUSE.origin)
const NOT_ACCEPTABLE = refused(HTTP_REFUSE.notAcceptable)
const MEDIA_TYPE = refused(HTTP_REFUSE.mediaType)
const METHOD = refused(HTTP_REFUSE.httpMethod, { Allow: 'POST' })

/** Origins allowed to call: none but the node's own host unless configured (DNS-rebinding protection). */
export function originAllowed(
  origin: string | undefined,
  host: string | undefined,
  allowed: readonly string[],
): boolean {
  if (origin === undefined || origin === 'null') return origin === undefined
  if (allowed.includes('*') || allowed.includes(origin)) return true
  try {
    return host !== undefined && new URL(origin).host === host
  } catch {
    return false
  }
}

const ACCEPTS = {
  json: Object.freeze({ canStream: false, streamOnly: false }),
  both: Object.freeze({ canStream: true, streamOnly: false }),
  sse: Object.freeze({ canStream: true, streamOnly: true }),
}
/** The last Accept header read and its answer: a client sends the same one on every call. */
let lastAccept: { header: string; forms: McpInbound['accept'] | undefined } = { header: '', forms: ACCEPTS.json }

/** The reply forms an Accept header allows, or undefined when it allows neither JSON nor SSE. */
function acceptOf(accept: string | undefined): McpInbound['accept'] | undefined {
  if (!accept) return ACCEPTS.json
  if (accept === lastAccept.header) return lastAccept.forms
  const a = accept.toLowerCase()
  const json = a.includes('application/json') || a.includes('*/*') || a.includes('application/*')
  const sse = a.includes('text/event-stream')
  const forms = json || sse ? (sse ? (json ? ACCEPTS.both : ACCEPTS.sse) : ACCEPTS.json) : undefined
  lastAccept = { header: accept, forms }
  return forms
}

function profileOf(param: string | null): Profile {
  const p = param ?? 'full'
  if (p !== 'full' && p !== 'core')
    throw new AppError('invalid_request', 'profile: must be "core" or "full"', { field: 'profile' })
  return p
}

/**
 * Where a connection binds itself (docs/mcp.md "Bind a connection"): the query parameters of the
 * MCP URL, or these headers, for clients whose configuration cannot carry a query.
 */
export const BINDING = {
  agent: {
    param: 'agent',
    header: 'x-agentrooms-agent',
    name: 'X-Agentrooms-Agent',
    schema: agentIdField,
    limit: 128,
    rule: 'an agent id is 1-128 characters, no control characters',
  },
  room: {
    param: 'room',
    header: 'x-agentrooms-room',
    name: 'X-Agentrooms-Room',
    schema: roomIdField,
    limit: 64,
    rule: 'a room id is 1-64 letters, digits, "_", "." or "-"',
  },
} as const

/**
 * One value of the binding: from the URL or the header (both only when they agree), checked as
 * the id it names; undefined when neither is given. Refused naming the parameter: given twice in
 * the URL, URL and header disagreeing, or not a valid id (the limit in the message).
 */
function bindingValue(ex: Exchange, which: keyof typeof BINDING): { value: string; field: string } | undefined {
  const spec = BINDING[which]
  const inUrl = ex.req.rawQuery === '' ? [] : ex.req.query.getAll(spec.param)
  const header = ex.req.headers[spec.header]
  if (inUrl.length > 1)
    throw new AppError('invalid_request', `${spec.param}: given ${inUrl.length} times in the URL; give it once`, {
      field: spec.param,
    })
  const fromUrl = inUrl[0]
  if (fromUrl !== undefined && header !== undefined && header !== fromUrl)
    throw new AppError(
      'invalid_request',
      `${spec.param}: the URL binds ${which} ${JSON.stringify(fromUrl)} and the ${spec.name} header ` +
        `${JSON.stringify(header)}; give one`,
      { field: spec.param },
    )
  const value = fromUrl ?? header
  if (value === undefined) return undefined
  const field = fromUrl !== undefined ? spec.param : spec.name
  const r = spec.schema.safeParse(value)
  if (!r.success)
    throw new AppError('invalid_request', `${field}: ${r.error.issues[0]!.message} (${spec.rule})`, {
      field,
      limit: spec.limit,
      unit: 'characters',
    })
  return { value, field }
}

/** What the request binds its connection to (undefined: nothing, the common case, read without allocating). */
function connectionBinding(ex: Exchange): ConnectionBinding | undefined {
  const h = ex.req.headers
  if (ex.req.rawQuery === '' && h[BINDING.agent.header] === undefined && h[BINDING.room.header] === undefined)
    return undefined
  const agent = bindingValue(ex, 'agent')
  const room = bindingValue(ex, 'room')
  if (agent === undefined && room === undefined) return undefined
  return { ...(agent ? { agent } : {}), ...(room ? { room } : {}) }
}

/**
 * The principal narrowed to its connection's binding, held by the keyring as the credential's own
 * principal is, so revoking the credential still ends the connection's parked waits and streams.
 */
function narrowed(keyring: Pick<Keyring, 'alias'>, principal: Principal, binding: ConnectionBinding): Principal {
  const p = narrowConnection(principal, binding)
  if (p !== principal) keyring.alias(p, principal)
  return p
}

/** One POST as the pipeline answers it (a class: one allocation a call, on the hot path). */
class HttpMcpExchange implements McpExchange {
  constructor(
    private readonly ex: Exchange,
    private readonly sse: Pick<SseSessions, 'open'>,
  ) {}

  answer(status: number, message?: JSONRPCMessage | Rejected): void {
    if (message === undefined) this.ex.send(status, '')
    else this.ex.send(status, JSON.stringify(message), JSON_TYPE)
  }

  openReply(shape: ReplyShape): HttpReply {
    return new HttpReply(this.ex, shape, this.sse)
  }

  get aborted(): boolean {
    return this.ex.aborted
  }

  onAbort(fn: () => void): void {
    this.ex.onAbort(fn)
  }
}

/**
 * The /mcp mount: the keys of the API (and, TEST ONLY, `keyless`: who a request without a key
 * acts as; it must name a loopback Host), the Origin rule on POST, the team rate limit.
 */
export function mcpMount(
  deps: McpRouteDeps,
  host: EndpointHost,
  opts: { keyless?: Principal; oauth?: OAuthHolder } = {},
): Mount {
  const serve = mcpPipeline(host)
  const allowed = deps.settings.mcpAllowedOrigins
  const sse = deps.sse
  const methodNotAllowed = async (): Promise<never> => {
    throw METHOD
  }
  const policy = keyPolicy(deps)
  return {
    ...policy,
    name: 'mcp',
    documented: true,
    credentials: [
      ...(opts.oauth ? [tokenCredential(opts.oauth)] : []),
      keyCredential(deps.keyring),
      ...(opts.keyless ? [keylessCredential(opts.keyless, () => refused(HTTP_REFUSE.keylessHost))] : []),
    ],
    // A 401 names the protected resource metadata (RFC 9728), where a client finds how to sign in.
    render: (ex, err) => {
      const server = opts.oauth?.server
      if (server && err instanceof AppError && err.code === 'unauthorized')
        sendError(ex, err, server.challenge(ex.req.headers.authorization !== undefined))
      else renderJson(ex, err)
    },
    origin: (req, route) =>
      route.method !== 'POST' || originAllowed(req.headers.origin, req.headers.host, allowed) ? undefined : ORIGIN,
    routes: [
      {
        method: 'POST',
        path: '/mcp',
        auth: 'any',
        bodyKind: 'raw',
        tag: 'mcp',
        summary:
          'MCP Streamable HTTP endpoint (protocol 2026-07-28 stateless, and 2025-11-25 / 2025-06-18 / ' +
          '2025-03-26). ?profile=core lists only the typical-turn tools; ?agent= and ?room= (or the ' +
          'X-Agentrooms-Agent and X-Agentrooms-Room headers) bind the connection to an agent and a room.',
        description:
          "Bearer key required (team key, or a room invite key for that room's tools). Replies are " +
          'application/json, or text/event-stream when the client accepts only that or a call runs long.',
        // Not an async function (one promise fewer a call): the route step awaits it, so what it
        // throws is that step's failure all the same.
        handle: ({ ex, raw, principal }) => {
          const h = ex.req.headers
          const profile = profileOf(ex.req.rawQuery === '' ? null : ex.req.query.get('profile'))
          const binding = connectionBinding(ex)
          const accept = acceptOf(h.accept)
          if (!accept) throw NOT_ACCEPTABLE
          const type = h['content-type']
          if (type !== undefined && !/^application\/json\s*(;|$)/i.test(type)) throw MEDIA_TYPE
          const inbound: McpInbound = {
            principal: binding ? narrowed(deps.keyring, principal!, binding) : principal!,
            profile,
            accept,
            protocolVersion: h['mcp-protocol-version'],
            method: h['mcp-method'],
            name: h['mcp-name'],
            body: raw,
            budget: ex.req.budget,
          }
          // Resolves to undefined: the reply is sent through the exchange.
          return serve(inbound, new HttpMcpExchange(ex, sse))
        },
      },
      {
        method: 'GET',
        path: '/mcp',
        auth: 'none',
        tag: 'mcp',
        summary: '405: no standalone stream (stateless server).',
        handle: methodNotAllowed,
      },
      {
        method: 'DELETE',
        path: '/mcp',
        auth: 'none',
        tag: 'mcp',
        summary: '405: no sessions to end (stateless server).',
        handle: methodNotAllowed,
      },
    ],
  }
}
