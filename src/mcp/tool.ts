// The shape of an MCP tool of this service, independent of the SDK: a zod input schema, hints
// for clients, a description written for a model, and a run function over the services it
// declares. Room tools get room_id, agent_id and (for mutations) idempotency_key added to their
// input; the runner authorizes the room, calls run, and wraps the result with room_id and the
// caller's unread count. Each tool file declares what its tools use (e.g. PlanToolDeps: the
// core's plan and summary) and makes its tools with toolsOf<That>(); node.ts hands the runner
// one object that has what every tool file declares (tools/index.ts ToolDeps).
import { z } from 'zod'
import type { Principal } from '../auth/principal.js'
import type { Caller } from '../core/fields.js'
import { agentId, idempotencyKey, roomId } from '../shared/fields.js'
import type { WaitBudget } from '../shared/wait-budget.js'

export interface ToolAnnotations {
  readOnlyHint?: boolean
  destructiveHint?: boolean
  idempotentHint?: boolean
  openWorldHint?: boolean
}

export interface ToolContext<D> {
  /** The services the tool's file declares it uses. */
  deps: D
  principal: Principal
  /** Aborted when the client goes away or cancels the call. */
  signal: AbortSignal
  /** Room tools: the authorized room and the calling agent. */
  caller: Caller
  /** Called by long calls (wait_for_events) so the transport can switch to an SSE reply. */
  longRunning(): void
  /** The request's time waiting for Redis (src/shared/wait-budget.ts); team tools pass it on. */
  budget?: WaitBudget | undefined
}

/**
 * A tool that uses `D`. A bare ToolDef (D = never) is any tool, for what lists or validates tools
 * without running them.
 */
export interface ToolDef<D = never, S extends z.ZodRawShape = z.ZodRawShape> {
  name: string
  title: string
  /** For a model: what it does, when to use it, what it consumes or costs. */
  description: string
  /** room: takes room_id (and agent_id); team: needs a team key, takes no room_id. */
  scope: 'room' | 'team'
  /** Tool-specific arguments (room_id, agent_id, idempotency_key are added for room tools). */
  args: S
  /**
   * Arguments still accepted under an old name for a release, never listed; the tool's result
   * says what replaces them (`deprecated`).
   */
  deprecatedArgs?: z.ZodRawShape
  /**
   * What a success answers (src/mcp/outputs.ts), room_id and unread left out: room tools gain them
   * (outputSchema). Both the text reply and structuredContent are this object.
   */
  output: z.ZodRawShape
  /** Mutations accept idempotency_key. */
  mutates: boolean
  annotations: ToolAnnotations
  /** Listed in the `core` profile (the typical agent turn). */
  core?: boolean
  run: (ctx: ToolContext<D>, args: z.output<z.ZodObject<S>>) => Promise<Record<string, unknown>>
}

/**
 * The declarer of the tools that use `D`: `const tool = toolsOf<PlanToolDeps>()`, then tool({...})
 * infers the argument types.
 */
export function toolsOf<D>() {
  return <S extends z.ZodRawShape>(def: ToolDef<D, S>): ToolDef<D> => def as unknown as ToolDef<D>
}

export const commonArgs = {
  room_id: roomId.describe('Room id'),
  agent_id: agentId.describe('Your stable agent id (one per agent process)'),
}
export const idempotencyArg = {
  idempotency_key: idempotencyKey.optional().describe('Retry-safe key: a repeat within 24 h returns the first result'),
}

/**
 * The common arguments as tools/list shows them: described in a few words, since many clients
 * never pass the server's instructions to the model; patterns and limits left to validation.
 */
export const LISTED_COMMON = {
  room_id: 'Room id',
  agent_id: 'Your agent id',
  idempotency_key: 'Same key on a retry acts once',
}
/**
 * What a credential fixes for every room tool (bindingOf in src/auth/principal.ts): the agent it
 * acts as, the one room it reaches. Its listing leaves those arguments out (the runner fills them).
 */
export interface Bound {
  agent: boolean
  room: boolean
}
export const UNBOUND: Bound = { agent: false, room: false }

/** The room_id of a tool that a bound listing would leave with no argument at all (see inputSchema). */
const LISTED_BOUND_ROOM = 'Room id; null reads as yours'

const listedIdempotencyArg = { idempotency_key: z.string().optional().describe(LISTED_COMMON.idempotency_key) }

/** The common arguments a listing shows, given what the credential fixes and whether the tool takes others. */
function listedCommonArgs(bound: Bound, others: boolean): z.ZodRawShape {
  const out: Record<string, z.ZodType> = {}
  if (!bound.room) out.room_id = z.string().describe(LISTED_COMMON.room_id)
  if (!bound.agent) out.agent_id = z.string().describe(LISTED_COMMON.agent_id)
  // An object without properties is what Gemini refuses: a tool with nothing else to take keeps
  // its room_id, nullable.
  if (!others && Object.keys(out).length === 0) out.room_id = z.string().optional().describe(LISTED_BOUND_ROOM)
  return out
}

/**
 * What a success of the tool answers: its output, with room_id first and the caller's unread count
 * last for room tools (the order the runner writes them in).
 */
export function outputSchema(def: ToolDef): z.ZodObject {
  if (def.scope === 'team') return z.object(def.output)
  return z.object({
    room_id: z.string(),
    ...def.output,
    unread: z.number().int().describe('Your unread events (get_my_summary or get_unread_events reads them)'),
  })
}

/**
 * A room tool's input schema with room_id, agent_id and idempotency_key as bare strings: it
 * accepts what inputSchema(def) accepts and more, and with those three passing their own
 * schemas (isRoomId, isAgentId, isIdempotencyKey), exactly that, with the same output. The runner
 * checks with it, and the three by their remembered ids, so the ids' schemas do not run on every
 * call; whatever it refuses, inputSchema(def) words.
 */
export function looseIdsSchema(def: ToolDef): z.ZodObject {
  const keyed = def.mutates ? { idempotency_key: z.string().optional() } : {}
  return z
    .object({ room_id: z.string(), agent_id: z.string(), ...def.args, ...keyed, ...(def.deprecatedArgs ?? {}) })
    .strict()
}

/**
 * The full input schema of a tool: strict for validation, or the lighter form tools/list shows,
 * which leaves out the room_id and agent_id that the credential fixes (`bound`).
 */
export function inputSchema(def: ToolDef, forListing = false, bound: Bound = UNBOUND): z.ZodObject {
  const old = forListing ? {} : (def.deprecatedArgs ?? {})
  if (def.scope === 'team') return z.object({ ...def.args, ...old }).strict()
  // Listed where a repeat would act twice; a tool marked idempotent takes it unlisted (a retry of
  // it is safe without one, and each listing costs every context that holds it).
  const keyed = def.mutates && (!forListing || def.annotations.idempotentHint !== true)
  const idem = keyed ? (forListing ? listedIdempotencyArg : idempotencyArg) : {}
  const common = forListing ? listedCommonArgs(bound, Object.keys(def.args).length > 0 || keyed) : commonArgs
  return z.object({ ...common, ...def.args, ...idem, ...old }).strict()
}
