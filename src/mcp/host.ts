// The node's one MCP server: @modelcontextprotocol/sdk 1.32's Server (protocol, initialize, ping,
// cancellation) with our handlers — tools/list served from a list built once per profile,
// tools/call running our tool table (src/mcp/tools) over the core, and the rooms as read-only
// resources (resources.ts). Connected once to the MuxTransport that every POST /mcp goes through.
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type JSONRPCMessage,
  type RequestId,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { bindingOf, reachesTeam, type Principal } from '../auth/principal.js'
import type { WaitBudget } from '../shared/wait-budget.js'
import { AppError } from '../shared/errors.js'
import { VERSION } from '../shared/version.js'
import type { EndpointHost, LazyAbort, McpExchange, McpRequestData, Profile, ReplyChannel } from './pipeline.js'
import { RESOURCE_TEMPLATES, RoomResources, rpcError, type ResourceDeps } from './resources.js'
import { inToolWords, runTool, type McpDeps } from './runner.js'
import { Listens, type ListenDeps } from './listen.js'
import { portable } from './portable.js'
import { inputSchema, outputSchema, UNBOUND, type Bound, type ToolDef } from './tool.js'
import { ALL_TOOLS, CORE_TOOL_NAMES, type ToolDeps } from './tools/index.js'
import { MuxTransport } from './transport.js'
import { ERROR } from './wire.js'

export const SERVER_INFO = { name: 'agentrooms', title: 'agentrooms', version: VERSION }

export const INSTRUCTIONS =
  'Shared room for coordinating with other agents. Each turn: heartbeat, then get_my_summary (consumes ' +
  'your unread events), claim work with claim_next_task (or get_unblocked_tasks + update_task), record ' +
  'agreements with write_context and signals with post_event, release your locks, optionally ' +
  'wait_for_events. Use one agent_id on every call: presence, cursors, claims and locks are keyed by it. ' +
  'null means absent. Lists are compact (get_task, read_context give whole records).'

/**
 * Drops from a listed JSON Schema what only validation needs, which a model pays for in every
 * context: zod's ±2^53 bounds of an integer, and patterns (descriptions give an example id).
 */
function trimSchema(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(trimSchema)
  if (typeof node !== 'object' || node === null) return
  const o = node as Record<string, unknown>
  if (o.minimum === Number.MIN_SAFE_INTEGER) delete o.minimum
  if (o.maximum === Number.MAX_SAFE_INTEGER) delete o.maximum
  if (typeof o.pattern === 'string') delete o.pattern
  for (const v of Object.values(o)) trimSchema(v)
}

/**
 * The annotations a client cannot assume: MCP's defaults are readOnlyHint false, destructiveHint
 * true, idempotentHint false, openWorldHint true, so only the other values are listed. The title
 * is the tool's own.
 */
function listedAnnotations(a: ToolDef['annotations']): Tool['annotations'] {
  const out: Tool['annotations'] = {}
  if (a.readOnlyHint === true) out.readOnlyHint = true
  else if (a.destructiveHint === false) out.destructiveHint = false
  if (a.readOnlyHint !== true && a.idempotentHint === true) out.idempotentHint = true
  if (a.openWorldHint !== true) out.openWorldHint = false
  return out
}

/**
 * Opens every object of a listed output schema (drops `additionalProperties: false`): a reply
 * that gains a field stays valid for a client that cached the older schema.
 */
function openObjects(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(openObjects)
  if (typeof node !== 'object' || node === null) return
  const o = node as Record<string, unknown>
  if (o.additionalProperties === false) delete o.additionalProperties
  for (const v of Object.values(o)) openObjects(v)
}

/**
 * The outputSchema of a tool: JSON Schema (2020-12, the MCP default dialect, so no `$schema`) of
 * what a success answers, as structuredContent and as the JSON of its text.
 */
export function listedOutputSchema(def: ToolDef): Record<string, unknown> {
  const schema = z.toJSONSchema(outputSchema(def), { io: 'output' }) as Record<string, unknown>
  delete schema.$schema
  trimSchema(schema)
  openObjects(schema)
  return schema
}

/**
 * The tools/list entry of a tool: JSON Schema of its input and output, annotations, description;
 * the input without the room_id and agent_id that the credential fixes (`bound`).
 */
export function listEntry(def: ToolDef, bound: Bound = UNBOUND): Tool {
  const schema = z.toJSONSchema(inputSchema(def, true, bound), { io: 'input' }) as Record<string, unknown>
  delete schema.$schema
  trimSchema(schema)
  portable(schema, def.name)
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    inputSchema: schema as Tool['inputSchema'],
    outputSchema: listedOutputSchema(def) as Tool['outputSchema'],
    annotations: listedAnnotations(def.annotations),
  }
}

/**
 * What of a tools/list entry reaches the model: agent frameworks (OpenAI Agents, the AI SDK,
 * LangChain, Mastra) hand it the name, the description and the input schema, and keep the rest
 * (title, annotations, outputSchema) for themselves. The token goals apply to this view.
 */
export function modelVisible(entry: Tool): Pick<Tool, 'name' | 'description' | 'inputSchema'> {
  return { name: entry.name, description: entry.description, inputSchema: entry.inputSchema }
}

/**
 * The schema our handlers are registered with: the method only. SDK 1.32 parses a request against
 * its handler's schema before anything else and answers a failure with -32603 (Internal error)
 * and a raw zod dump; params are checked after that instead, answering -32602 (Invalid params):
 * by Server's own tools/call wrapper (CallToolRequestSchema), by our tools/list handler.
 */
const methodOnly = <M extends string>(method: M) => z.looseObject({ method: z.literal(method) })

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** The caller a handler serves, as the transport passed it. */
function principalOf(extra: { authInfo?: { extra?: Record<string, unknown> } }): Principal {
  return dataOf(extra).principal
}

function dataOf(extra: { authInfo?: { extra?: Record<string, unknown> } }): McpRequestData {
  return extra.authInfo?.extra as unknown as McpRequestData
}

export class McpHost implements EndpointHost {
  readonly server: Server
  readonly transport = new MuxTransport()
  readonly serverInfo = SERVER_INFO
  /**
   * What server/discover declares (2026-07-28): resource subscriptions and list changes, both
   * served on subscriptions/listen streams.
   */
  readonly capabilities = { tools: { listChanged: false }, resources: { subscribe: true, listChanged: true } }
  /**
   * What initialize declares (the legacy eras): resources without subscribe or listChanged. Those
   * eras deliver them on a session's standalone GET stream or through resources/subscribe, and a
   * stateless server has neither: a promise that could not be kept.
   */
  readonly legacyCapabilities = { tools: { listChanged: false }, resources: {} }
  readonly instructions = INSTRUCTIONS
  readonly tools: ReadonlyMap<string, ToolDef<ToolDeps>>
  /** tools/list results of an unbound team key, built once per profile. */
  readonly lists: Record<Profile, { tools: Tool[] }>
  /** The other listings, built on first use: by profile, team tools or not, and what is bound. */
  private readonly boundLists = new Map<string, { tools: Tool[] }>()
  /** false: every tools/call goes through the SDK server (for the test that both paths answer alike). */
  fastPath = true
  readonly resources: RoomResources
  readonly listens: Listens

  constructor(private readonly deps: McpDeps & ResourceDeps & ListenDeps) {
    this.resources = new RoomResources(deps)
    this.listens = new Listens(deps)
    this.tools = new Map(ALL_TOOLS.map((t) => [t.name, t]))
    this.lists = { full: this.build('full', true, UNBOUND), core: this.build('core', true, UNBOUND) }
    this.server = new Server(SERVER_INFO, { capabilities: this.legacyCapabilities, instructions: INSTRUCTIONS })
    this.server.setRequestHandler(methodOnly('tools/list'), async (req, extra) => {
      if (!ListToolsRequestSchema.safeParse(req).success)
        throw rpcError(ErrorCode.InvalidParams, 'Invalid params: tools/list takes only an optional string cursor')
      const data = extra.authInfo?.extra as McpRequestData | undefined
      return data ? this.listFor(data.principal, data.profile) : this.lists.full
    })
    this.server.setRequestHandler(methodOnly('resources/list'), async (req, extra) => {
      const cursor = (req.params as Record<string, unknown> | undefined)?.cursor
      if (cursor !== undefined && typeof cursor !== 'string')
        throw rpcError(ErrorCode.InvalidParams, 'Invalid params: resources/list takes only an optional string cursor')
      return this.resources.list(principalOf(extra), cursor, dataOf(extra).budget)
    })
    this.server.setRequestHandler(methodOnly('resources/templates/list'), async () => ({
      resourceTemplates: RESOURCE_TEMPLATES,
    }))
    this.server.setRequestHandler(methodOnly('resources/read'), async (req, extra) => {
      const uri = (req.params as Record<string, unknown> | undefined)?.uri
      if (typeof uri !== 'string')
        throw rpcError(ErrorCode.InvalidParams, 'Invalid params: params.uri is required: the resource URI to read')
      return this.resources.read(principalOf(extra), uri, dataOf(extra).budget)
    })
    this.server.setRequestHandler(methodOnly('tools/call'), async (request, extra): Promise<CallToolResult> => {
      // checked by fastCall (one line naming the fault) before the SDK sees it
      const req = request as unknown as CallToolRequest
      const data = extra.authInfo?.extra as McpRequestData
      return runTool(this.deps, this.toolFor(req.params.name, data.profile), req.params.arguments, {
        principal: data.principal,
        abort: extra,
        longRunning: data.longRunning,
        budget: data.budget,
      })
    })
  }

  /**
   * The tools/list result for a principal: a room invite key, a grant, or a connection bound to
   * one room reaches rooms only, so the team tools it could never call are not listed to it; what
   * the credential or its connection is bound to (bindingOf: its agent, its one room) is left out
   * of every room tool's input, the runner filling it in. An unbound team key gets the listing
   * every client of it shares.
   */
  listFor(p: Principal, profile: Profile): { tools: Tool[] } {
    const b = bindingOf(p)
    const bound = { agent: b.agentId !== undefined, room: b.roomId !== undefined }
    const teamTools = reachesTeam(p)
    if (teamTools && !bound.agent && !bound.room) return this.lists[profile]
    const id = `${profile} ${teamTools} ${bound.agent} ${bound.room}`
    let list = this.boundLists.get(id)
    if (!list) this.boundLists.set(id, (list = this.build(profile, teamTools, bound)))
    return list
  }

  private build(profile: Profile, teamTools: boolean, bound: Bound): { tools: Tool[] } {
    const defs = ALL_TOOLS.filter(
      (d) => (profile === 'full' || CORE_TOOL_NAMES.includes(d.name)) && (teamTools || d.scope !== 'team'),
    )
    return { tools: defs.map((d) => listEntry(d, bound)) }
  }

  /** The tool a call names if the caller's profile lists it; else the -32602 both paths answer. */
  private toolFor(name: string, profile: Profile): ToolDef<ToolDeps> {
    const def = this.tools.get(name)
    const profileHides = profile === 'core' && !CORE_TOOL_NAMES.includes(name)
    // An unknown tool is a protocol error (-32602), as the MCP SDK and spec have it.
    if (!def || profileHides)
      throw rpcError(
        ErrorCode.InvalidParams,
        `unknown tool: ${name}${profileHides ? ' (not in the core profile; use /mcp for every tool)' : ''}`,
      )
    return def
  }

  /**
   * tools/call before the SDK server: refuses malformed params with one line naming the fault
   * (the SDK's own check answers a multi-line zod dump), then runs a plain call straight on the
   * tool table, without the SDK's per-request work (its request, handler and result schema
   * parses, an AbortController, the id remap): that work was about a third of the node's CPU per
   * call (BENCHMARKS.md). Plain: no progress token, task or other params (those need the SDK's
   * notifications); anything else returns undefined and goes through the server, which answers
   * alike (test/integration/mcp-paths.test.ts holds both paths byte-alike, with fastPath off).
   */
  fastCall(
    message: { method: string; params?: unknown },
    data: McpRequestData,
    abort: LazyAbort,
  ): Promise<CallToolResult> | undefined {
    if (message.method !== 'tools/call') return undefined
    const params = message.params
    if (!isPlainObject(params))
      return Promise.reject(
        rpcError(ErrorCode.InvalidParams, 'Invalid params: tools/call needs params {name, arguments}'),
      )
    const { name, arguments: args, _meta: meta } = params
    if (typeof name !== 'string')
      return Promise.reject(
        rpcError(
          ErrorCode.InvalidParams,
          'Invalid params: params.name is required: the name of the tool to call (a string; see tools/list)',
        ),
      )
    if (args !== undefined && !isPlainObject(args))
      return Promise.reject(rpcError(ErrorCode.InvalidParams, 'Invalid params: params.arguments must be an object'))
    if (!this.fastPath || (meta !== undefined && (!isPlainObject(meta) || meta.progressToken !== undefined)))
      return undefined
    for (const k in params) if (k !== 'name' && k !== 'arguments' && k !== '_meta') return undefined
    let def: ToolDef<ToolDeps>
    try {
      def = this.toolFor(name, data.profile)
    } catch (err) {
      return Promise.reject(err)
    }
    const { principal, longRunning, budget } = data
    return runTool(this.deps, def, args, { principal, abort, longRunning, budget })
  }

  /**
   * A subscriptions/listen stream (listen.ts) on `reply`: a refused filter is answered as its
   * JSON-RPC error; once acknowledged, the stream lives until the client goes away, the key is
   * revoked or the node drains.
   */
  async listen(
    message: { id: RequestId; params?: unknown },
    principal: Principal,
    reply: ReplyChannel,
    io: McpExchange,
    budget?: WaitBudget,
  ): Promise<void> {
    try {
      io.onAbort(await this.listens.open(principal, message.id, message.params, reply, budget))
    } catch (err) {
      reply.reply({ jsonrpc: '2.0', id: message.id, error: this.listenError(err) } as JSONRPCMessage)
    }
  }

  /**
   * A refused listen's JSON-RPC error: a protocol fault as it was raised; a service refusal (a cap,
   * the store unavailable) as the transport error carrying the docs/errors.md object, like the
   * revocation that ends a stream; anything else as an internal error, logged.
   */
  private listenError(err: unknown): { code: number; message: string; data?: unknown } {
    if (err instanceof AppError) {
      const worded = inToolWords(err)
      return { code: ERROR.transport, message: worded.message, data: { error: worded.toJSON() } }
    }
    const code = (err as { code?: unknown }).code
    if (typeof code !== 'number') {
      this.deps.log.error({ err }, 'subscriptions/listen failed')
      return { code: ErrorCode.InternalError, message: 'Internal error' }
    }
    const data = (err as { data?: unknown }).data
    return { code, message: (err as Error).message, ...(data !== undefined ? { data } : {}) }
  }

  async start(): Promise<void> {
    await this.server.connect(this.transport)
  }

  async stop(): Promise<void> {
    await this.server.close()
  }
}
