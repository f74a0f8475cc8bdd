// The MCP tool definitions against the list of every tool (SPEC_TOOLS) and the core's schemas (no Redis):
// names, profiles, scopes, annotations, JSON Schema conversion, size of tools/list, and a drift
// check: tool arguments are derived from core fields (src/mcp/args.ts fails at load on a field
// the core renamed or a required one left out), and the few restated ones are listed here.
import { countTokens } from '@anthropic-ai/tokenizer'
import t from 'tap'
import { z } from 'zod'
import { reviewSchemas } from '../../src/core/reviews.js'
import { roomSchemas } from '../../src/core/rooms.js'
import type { Settings } from '../../src/config.js'
import { contextSchemas } from '../../src/core/context.js'
import { eventSchemas } from '../../src/core/events.js'
import { lockSchemas } from '../../src/core/locks.js'
import { planSchemas } from '../../src/core/plan.js'
import { reservationSchemas } from '../../src/core/reservations.js'
import { varSchemas } from '../../src/core/vars.js'
import { CORE_SETTINGS, coreArgs, FACTORY_LIMITS, isDerived, isDerivedSet } from '../../src/mcp/args.js'
import { INSTRUCTIONS, listEntry, McpHost, modelVisible } from '../../src/mcp/host.js'
import { narrowConnection, type Principal } from '../../src/auth/principal.js'
import { inputSchema, UNBOUND, type ToolDef } from '../../src/mcp/tool.js'
import { ALL_TOOLS, CORE_TOOL_NAMES, findTool } from '../../src/mcp/tools/index.js'

/** The spec's MCP table, domain by domain. */
const SPEC_TOOLS = [
  ...[
    'read_plan',
    'add_task',
    'get_task',
    'update_task',
    'get_unblocked_tasks',
    'claim_next_task',
    'get_my_tasks',
    'get_my_summary',
    'delete_task',
    'set_task_priority',
    'add_dependency',
  ],
  ...[
    'write_context',
    'read_context',
    'update_context',
    'list_context',
    'delete_context',
    'get_context_history',
    'diff_context',
  ],
  ...[
    'post_event',
    'read_events',
    'get_unread_events',
    'mark_event_read',
    'get_event_reads',
    'reply_to_event',
    'delete_event',
    'wait_for_events',
  ],
  ...['heartbeat', 'get_presence'],
  ...['acquire_lock', 'release_lock', 'list_locks', 'reserve_files', 'release_files', 'list_reservations'],
  ...['set_shared_var', 'get_shared_var', 'list_shared_vars'],
  ...['list_rooms', 'leave_room', 'get_room_info', 'list_templates', 'create_room_from_template'],
  ...['request_review', 'approve', 'reject', 'list_reviews'],
  ...['search', 'get_room_analytics'],
]

const CORE_PROFILE = [
  'heartbeat',
  'get_my_summary',
  'claim_next_task',
  'update_task',
  'write_context',
  'post_event',
  'wait_for_events',
  'acquire_lock',
  'release_lock',
  'read_context',
]
const TEAM_TOOLS = ['list_rooms', 'list_templates', 'create_room_from_template']

/**
 * Arguments a tool states itself instead of taking them from a core field (src/mcp/args.ts), and
 * why; everything else is derived, so it cannot drift from the core.
 */
const RESTATED: Record<string, string[]> = {
  // One object for the core's union of two target kinds (shorter to list); checked below.
  request_review: ['target'],
  // template: required here though the core defaults it; idempotency_key travels beside the input.
  create_room_from_template: ['template', 'idempotency_key'],
}

t.test('every listed tool is defined exactly once, and nothing else', async (t) => {
  const names = ALL_TOOLS.map((d) => d.name)
  t.same([...names].sort(), [...SPEC_TOOLS].sort())
  t.equal(new Set(names).size, names.length, 'no duplicates')
  for (const n of SPEC_TOOLS) t.equal(findTool(n)?.name, n)
  t.equal(findTool('nope'), undefined)
})

t.test('the core profile is exactly the typical turn', async (t) => {
  t.same([...CORE_TOOL_NAMES].sort(), [...CORE_PROFILE].sort())
})

t.test('team tools are exactly the listed ones, and take no room_id', async (t) => {
  t.same(
    ALL_TOOLS.filter((d) => d.scope === 'team')
      .map((d) => d.name)
      .sort(),
    [...TEAM_TOOLS].sort(),
  )
  for (const d of ALL_TOOLS) {
    const keys = Object.keys(inputSchema(d, true).shape)
    // Listed where a repeat would act twice; every mutation accepts it (unlisted when idempotent).
    const keyed = d.mutates && d.annotations.idempotentHint !== true
    t.equal(Object.hasOwn(inputSchema(d).shape, 'idempotency_key'), d.mutates, `${d.name}: takes idempotency_key`)
    if (d.scope === 'team') {
      t.notOk(keys.includes('agent_id'), `${d.name}: no agent_id`)
      t.equal(keys.includes('idempotency_key'), keyed, `${d.name}: lists idempotency_key iff a repeat acts twice`)
      // create_room_from_template names the room it creates new_room_id (room_id: deprecated, unlisted).
      t.notOk(keys.includes('room_id'), `${d.name}: lists no room_id`)
    } else {
      t.ok(keys.includes('room_id') && keys.includes('agent_id'), `${d.name}: room_id and agent_id`)
      t.equal(keys.includes('idempotency_key'), keyed, `${d.name}: lists idempotency_key iff a repeat acts twice`)
    }
  }
})

t.test('every tool has a title, a description for a model, and consistent annotations', async (t) => {
  for (const d of ALL_TOOLS) {
    t.ok(d.title.length > 0, `${d.name}: title`)
    const words = d.description.trim().split(/\s+/).length
    t.ok(words >= 5 && words <= 50, `${d.name}: description of ${words} words`)
    const a = d.annotations
    t.type(a.readOnlyHint, 'boolean', `${d.name}: readOnlyHint`)
    t.equal(a.readOnlyHint, !d.mutates, `${d.name}: read-only iff it does not mutate`)
    if (d.mutates) {
      t.type(a.destructiveHint, 'boolean', `${d.name}: destructiveHint`)
      t.type(a.idempotentHint, 'boolean', `${d.name}: idempotentHint`)
      t.equal(a.destructiveHint, d.name.startsWith('delete_'), `${d.name}: destructive iff it deletes`)
    }
    for (const [key, field] of Object.entries(d.args)) {
      const text = (field as z.ZodType).description
      t.ok(text !== undefined && text.split(/\s+/).length <= 12, `${d.name}.${key}: a short description (${text})`)
    }
  }
})

t.test('every tool input converts to JSON Schema', async (t) => {
  for (const d of ALL_TOOLS) {
    const json = z.toJSONSchema(inputSchema(d), { io: 'input' }) as { type?: string; properties?: object }
    t.equal(json.type, 'object', d.name)
    t.same(
      Object.keys(json.properties ?? {}).sort(),
      Object.keys(inputSchema(d).shape).sort(),
      `${d.name}: every argument listed`,
    )
  }
})

t.test('tools/list stays within its token goals (Claude tokenizer, as bench/tokens.ts counts)', async (t) => {
  // What a model reads of the listing (name, description, inputSchema); title, annotations and
  // outputSchema stay with the client.
  const tokens = (tools: readonly ToolDef[], bound = UNBOUND) =>
    countTokens(JSON.stringify(tools.map((d) => modelVisible(listEntry(d, bound)))))
  const core = ALL_TOOLS.filter((d) => d.core)
  // The portable form (every property required, optional ones nullable, objects closed) and a
  // description on every argument cost about a third more than a bare listing; the shared
  // scaffold (object, room_id, agent_id) is about 65 tokens of each room tool. A team key's
  // listing names the room and the agent in every room tool: with every description one word it
  // would still be ~5,000 tokens (bench/tokens.ts prints that floor), so its bounds are its own.
  t.ok(tokens(ALL_TOOLS) <= 6_450, `all tools: ${tokens(ALL_TOOLS)} tokens`)
  t.ok(tokens(core) <= 1_500, `core profile: ${tokens(core)} tokens`)
  // The bound listing of a credential bound to an agent and one room (an invite key minted for an
  // agent, a grant for one room): no room_id or agent_id, and no team tools.
  const both = { agent: true, room: true }
  const room = ALL_TOOLS.filter((d) => d.scope === 'room')
  t.ok(tokens(room, both) <= 5_000, `bound, all tools: ${tokens(room, both)} tokens`)
  t.ok(tokens(core, both) <= 1_200, `bound, core profile: ${tokens(core, both)} tokens`)
  // A team key whose connection binds an agent and a room (?agent=&room=, as the printed
  // configurations do): the listing the host serves it is held to the same goals.
  const host = new McpHost({
    hub: { onResync: () => () => {} },
    lifecycle: { onDrain: () => () => {} },
  } as unknown as ConstructorParameters<typeof McpHost>[0])
  const teamKey: Principal = { kind: 'team', teamId: 'tm', keyId: 'k', scope: 'agent', access: 'write' }
  const perConnection = narrowConnection(teamKey, {
    agent: { value: 'backend', field: 'agent' },
    room: { value: 'demo', field: 'room' },
  })
  const served = (profile: 'full' | 'core') =>
    countTokens(JSON.stringify(host.listFor(perConnection, profile).tools.map(modelVisible)))
  t.ok(served('full') <= 5_000, `team key bound per connection, all tools: ${served('full')} tokens`)
  t.ok(served('core') <= 1_200, `team key bound per connection, core profile: ${served('core')} tokens`)
})

t.test('a listed entry carries nothing a client can assume or the server checks anyway', async (t) => {
  // Each tool as an unbound listing has it, and as the bound listing of a room and an agent does.
  const entries = [UNBOUND, { agent: true, room: true }].flatMap((b) =>
    ALL_TOOLS.map((d) => [d, listEntry(d, b)] as const),
  )
  for (const [d, entry] of entries) {
    const text = JSON.stringify(entry)
    t.notMatch(text, /9007199254740991|"pattern":"/, `${d.name}: no integer bounds or patterns`)
    const props = (entry.inputSchema.properties ?? {}) as Record<string, { description?: string }>
    // A team tool's room_id is another thing: the room create_room_from_template makes.
    const shared = d.scope === 'room' ? ['room_id', 'agent_id', 'idempotency_key'] : ['idempotency_key']
    for (const arg of shared) {
      if (!(arg in props)) continue
      const words = props[arg]!.description?.split(/\s+/).length ?? 0
      t.ok(words >= 2 && words <= 8, `${d.name}: ${arg} describes itself in a few words`)
    }
    const a = entry.annotations ?? {}
    t.notOk('title' in a, `${d.name}: the title is the tool's own`)
    t.equal(a.openWorldHint, false, `${d.name}: closed world`)
    t.equal(a.readOnlyHint, d.mutates ? undefined : true, `${d.name}: readOnlyHint listed only when true`)
    t.equal(
      a.destructiveHint,
      d.mutates && !d.name.startsWith('delete_') ? false : undefined,
      `${d.name}: destructiveHint listed only when false`,
    )
  }
  t.match(INSTRUCTIONS, /one agent_id on every call/)
  t.match(INSTRUCTIONS, /null means absent/)
  t.ok(INSTRUCTIONS.length <= 512, `instructions: ${INSTRUCTIONS.length} characters, within what Mastra passes on`)
})

t.test('tool arguments are derived from the core schemas, except the few restated (drift check)', async (t) => {
  for (const d of ALL_TOOLS) {
    for (const [k, arg] of Object.entries(d.args)) {
      t.ok(
        isDerived(arg as z.ZodType) || RESTATED[d.name]?.includes(k),
        `${d.name}.${k}: derived from a core field, or listed as restated`,
      )
    }
    // A tool without arguments is tied to its core schema too: a field the core adds reaches it.
    if (Object.keys(d.args).length === 0)
      t.ok(isDerivedSet(d.args), `${d.name}: takes no arguments, by coreArgs(its core schema, {})`)
  }
  for (const [name, args] of Object.entries(RESTATED))
    for (const k of args) t.ok(Object.hasOwn(findTool(name)?.args ?? {}, k), `${name} takes ${k}`)
  t.ok(Object.hasOwn(roomSchemas.create.shape, 'template'), 'the core takes a template')
})

t.test('coreArgs refuses a field the core lacks and one the core requires but the tool leaves out', async (t) => {
  const schema = z.object({ a: z.string().max(3), b: z.number().int().default(1) })
  t.throws(() => coreArgs(schema, { a: undefined, c: undefined }), /has no field c/)
  t.throws(() => coreArgs(schema, { b: undefined }), /required core field a/)
  t.throws(() => coreArgs(schema, {}), /required core field a/, 'a tool that takes nothing too')
  const args = coreArgs(schema, { a: 'described', b: undefined })
  t.same(
    z.toJSONSchema(z.object(args)),
    z.toJSONSchema(z.object({ a: z.string().describe('described'), b: z.number().int().optional() })),
    'light forms: no limits, no defaults',
  )
})

t.test(
  'CORE_SETTINGS answers the limits the core schema factories read, and throws for any other setting',
  async (t) => {
    const read = new Set<string>()
    const recorder = new Proxy({} as Settings, {
      get: (_target, key) => (read.add(String(key)), Number.MAX_SAFE_INTEGER),
    })
    for (const factory of [planSchemas, contextSchemas, eventSchemas, lockSchemas, reservationSchemas, varSchemas])
      factory(recorder)
    t.same(
      [...FACTORY_LIMITS].sort(),
      [...read].sort(),
      'FACTORY_LIMITS is what the factories the tools call read, no more',
    )
    for (const name of FACTORY_LIMITS) t.equal(CORE_SETTINGS[name], Number.MAX_SAFE_INTEGER, `${name}: no limit`)
    // The core's settings are numbers all (CoreSettings), so the compiler already keeps flags, texts
    // and optional settings away; a name outside the core's still throws, as a factory would meet it.
    const any = CORE_SETTINGS as unknown as Record<string, unknown>
    t.throws(() => any.redisAutoPipelining, /setting redisAutoPipelining/, 'a setting the core does not have')
    t.throws(() => CORE_SETTINGS.presenceTtlMs, /setting presenceTtlMs/, 'a number no factory reads')
  },
)

t.test('request_review target offers every field of the core target union', async (t) => {
  const def = findTool('request_review')!
  const toolTarget = def.args.target as z.ZodObject
  const core = reviewSchemas.request.shape.target
  for (const option of core.options) {
    for (const k of Object.keys(option.shape)) t.ok(Object.hasOwn(toolTarget.shape, k), `target.${k}`)
  }
})
