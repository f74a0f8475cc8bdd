// Runs one tool call: fills in the room_id and agent_id its credential is bound to (a bound
// listing leaves them out), validates arguments (strictly: an unknown argument is named), checks the
// key's scope (team tools need a team key; a room outside the key's reach is not_found, like a
// room that does not exist), calls the tool, and shapes the result as compact JSON text carrying
// room_id and the caller's unread count, with the same object as structuredContent. Failures are
// results with isError: true and the error object of docs/errors.md (text only), so a model can
// read what to do next.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { z } from 'zod'
import { requireScope } from '../auth/permissions.js'
import { bindingOf, reachesTeam, roomFor, viaFor, type Principal } from '../auth/principal.js'
import { AppError, KeyReused, RoomExists, RoomNotFound } from '../shared/errors.js'
import { nullsAsAbsent, parse, tooDeep } from '../shared/validate.js'
import { isAgentId, isIdempotencyKey, isRoomId } from '../shared/fields.js'
import type { Logger } from '../shared/logger.js'
import type { Metrics } from '../shared/metrics.js'
import type { WaitBudget } from '../shared/wait-budget.js'
import { inputSchema, looseIdsSchema, type ToolContext, type ToolDef } from './tool.js'
import { RESULT_JSON } from './wire.js'
import type { ToolDeps } from './tools/index.js'

/** What the runner itself uses: the tool call counter and the log of unexpected failures. */
export interface RunnerDeps {
  metrics: Pick<Metrics, 'toolCallCounts'>
  log: Pick<Logger, 'error'>
}

/** What node.ts hands the MCP host: what the tools use and what the runner uses. */
export type McpDeps = ToolDeps & RunnerDeps

export interface RunOptions {
  principal: Principal
  /** Its signal aborts when the client goes away; read only by tools that wait (made on first use). */
  abort: { readonly signal: AbortSignal }
  longRunning: () => void
  /** The request's time waiting for Redis (src/shared/wait-budget.ts), which the tool's scripts share. */
  budget?: WaitBudget | undefined
}

interface Checks {
  /** The tool's input schema (inputSchema). */
  full: z.ZodObject
  /** Room tools: the same with the ids as bare strings (looseIdsSchema), checked first. */
  loose?: z.ZodObject
}

const schemas = new WeakMap<ToolDef, Checks>()

function checksOf(def: ToolDef): Checks {
  let s = schemas.get(def)
  if (!s)
    schemas.set(
      def,
      (s = def.scope === 'room' ? { full: inputSchema(def), loose: looseIdsSchema(def) } : { full: inputSchema(def) }),
    )
  return s
}

/**
 * The tool's arguments parsed by its input schema, or the AppError naming the first bad field. A
 * room tool's are checked against the loose schema and its ids against the ids remembered as
 * valid: the same verdict and output, without the ids' schemas on every call; anything refused
 * there is parsed by the full schema, which words the refusal as it always does.
 */
function argsOf(def: ToolDef, given: Record<string, unknown>): Record<string, unknown> {
  const { full, loose } = checksOf(def)
  if (loose !== undefined && tooDeep(given) === undefined) {
    const r = loose.safeParse(nullsAsAbsent(loose, given))
    if (r.success) {
      const a = r.data as Record<string, unknown>
      const key = a.idempotency_key
      if (
        isRoomId(a.room_id as string) &&
        isAgentId(a.agent_id as string) &&
        (key === undefined || isIdempotencyKey(key as string))
      )
        return a
    }
  }
  return parse(full, given) as Record<string, unknown>
}

/** A tool result and, under RESULT_JSON, its JSON text: the body is serialized once per call. */
type Result = CallToolResult & { [RESULT_JSON]: string }

const failure = (body: Record<string, unknown>): Result => {
  const text = JSON.stringify(body)
  return {
    content: [{ type: 'text', text }],
    isError: true,
    [RESULT_JSON]: `{"content":[{"type":"text","text":${JSON.stringify(text)}}],"isError":true}`,
  }
}

/**
 * A success: the reply as JSON text (what every client reads) and the same object as
 * structuredContent (what the tool's outputSchema describes), so the two cannot differ.
 */
const success = (body: Record<string, unknown>): Result => {
  const text = JSON.stringify(body)
  return {
    content: [{ type: 'text', text }],
    structuredContent: body,
    [RESULT_JSON]: `{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}}`,
  }
}

/**
 * A room tool's arguments with the room of a credential bound to one room (bindingOf: a room
 * invite key, a grant for one room) filled in where room_id is left out or null. Another room is
 * not_found, as for any room the key cannot reach.
 */
function inBoundRoom(p: Principal, given: Record<string, unknown>): Record<string, unknown> {
  const room = bindingOf(p).roomId
  if (room === undefined || (given.room_id !== undefined && given.room_id !== null)) return given
  return { ...given, room_id: room }
}

/**
 * The arguments of a room tool as the credential's agent: a credential bound to an agent acts as
 * it (agent_id left out or null reads as it) and may not name another; `human:` ids belong to
 * people signed in to the dashboard, so no credential may name one.
 */
function asBoundAgent(p: Principal, given: Record<string, unknown>): Record<string, unknown> {
  const bound = bindingOf(p).agentId
  const named = given.agent_id
  if (bound !== undefined) {
    if (named === undefined || named === null) return { ...given, agent_id: bound }
    if (named !== bound)
      throw new AppError(
        'forbidden',
        `agent_id: this key is bound to agent ${JSON.stringify(bound)}; it may not act as ${JSON.stringify(named)}`,
        { field: 'agent_id', bound_agent_id: bound },
      )
  }
  if (typeof named === 'string' && named.startsWith('human:'))
    throw new AppError('forbidden', 'agent_id: human: ids are reserved for people signed in to the dashboard', {
      field: 'agent_id',
    })
  return given
}

/** A call's ToolContext: a class, so a call allocates one object and no closure for it. */
class Context implements ToolContext<ToolDeps> {
  readonly principal: Principal
  readonly longRunning: () => void
  readonly budget: WaitBudget | undefined
  caller: ToolContext<ToolDeps>['caller'] = undefined as never

  constructor(
    readonly deps: ToolDeps,
    private readonly opts: RunOptions,
  ) {
    this.principal = opts.principal
    this.longRunning = opts.longRunning
    this.budget = opts.budget
  }

  get signal(): AbortSignal {
    return this.opts.abort.signal
  }
}

export async function runTool(
  deps: McpDeps,
  def: ToolDef<ToolDeps>,
  rawArgs: unknown,
  opts: RunOptions,
): Promise<CallToolResult> {
  let roomId: string | undefined
  try {
    if (rawArgs !== undefined && (typeof rawArgs !== 'object' || rawArgs === null || Array.isArray(rawArgs))) {
      throw new AppError('invalid_request', 'arguments: must be an object', { field: 'arguments' })
    }
    let given = (rawArgs ?? {}) as Record<string, unknown>
    if (def.scope === 'room') {
      given = inBoundRoom(opts.principal, given)
      if (typeof given.room_id === 'string') roomId = given.room_id
      given = asBoundAgent(opts.principal, given)
    }
    const args = argsOf(def, given)
    const ctx = new Context(deps, opts)
    const p = opts.principal
    requireScope(opts.principal, def.annotations.readOnlyHint === true ? 'room.read' : 'room.write')
    if (def.scope === 'team') {
      if (!reachesTeam(p))
        throw new AppError(
          'forbidden',
          p.kind === 'grant'
            ? `${def.name} needs a team key; a connected agent reaches the rooms it was granted`
            : p.kind === 'team'
              ? `${def.name} needs the whole team; this connection is bound to room ${JSON.stringify(p.roomId)} ` +
                '(connect without the room binding to call it)'
              : `${def.name} needs a team key; a room invite key reaches only its room`,
        )
    } else {
      const room = roomFor(opts.principal, args.room_id as string)
      if (!room) throw new RoomNotFound(args.room_id as string)
      ctx.caller = {
        room,
        agent: args.agent_id as string,
        idempotencyKey: args.idempotency_key as string | undefined,
        via: viaFor(p),
        budget: opts.budget,
      }
    }
    const result = await def.run(ctx, args)
    deps.metrics.toolCallCounts.add(def.name, 'ok')
    if (roomId === undefined) return success(result)
    // room_id first (the tool's value if it has one) and unread last, the rest in the tool's order.
    const body: Record<string, unknown> = { room_id: roomId }
    for (const k in result) if (k !== 'unread') body[k] = result[k]
    body.unread = result.unread
    return success(body)
  } catch (err) {
    deps.metrics.toolCallCounts.add(def.name, 'error')
    const appErr = err instanceof AppError ? inToolWords(err) : undefined
    if (!appErr) deps.log.error({ err, tool: def.name }, 'tool failed')
    const error = (appErr ?? new AppError('internal', 'internal error')).toJSON()
    return failure(roomId === undefined ? { error } : { room_id: roomId, error })
  }
}

/**
 * A domain error in the tools' words: the room_id argument named the room (a room the key may
 * not see reads exactly like one that does not exist, so the message does not repeat the id), and
 * the idempotency_key argument the key.
 */
export function inToolWords(err: AppError): AppError {
  if (err instanceof RoomNotFound) return new AppError('not_found', 'room not found', { field: 'room_id' })
  if (err instanceof RoomExists) return new AppError('conflict', err.message, { field: 'room_id' })
  if (err instanceof KeyReused) return err.named('idempotency_key')
  return err
}
