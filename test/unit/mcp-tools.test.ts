// The MCP tool definitions against the spec's tool table and the core's schemas (no Redis):
// names, profiles, scopes, annotations, JSON Schema conversion, size of tools/list, and a drift
// check that every argument a tool declares is one its core operation accepts (and vice versa
// for required ones), so a renamed core field cannot silently break a tool.
import { countTokens } from '@anthropic-ai/tokenizer'
import t from 'tap'
import { z } from 'zod'
import { defaultSettings } from '../../src/config.js'
import { analyticsSchema } from '../../src/core/analytics.js'
import { contextSchemas } from '../../src/core/context.js'
import { eventSchemas } from '../../src/core/events.js'
import { lockSchemas } from '../../src/core/locks.js'
import { planSchemas } from '../../src/core/plan.js'
import { presenceSchemas } from '../../src/core/presence.js'
import { reviewSchemas } from '../../src/core/reviews.js'
import { roomSchemas } from '../../src/core/rooms.js'
import { summarySchema } from '../../src/core/summary.js'
import { varSchemas } from '../../src/core/vars.js'
import { INSTRUCTIONS, listEntry } from '../../src/mcp/host.js'
import { inputSchema, type ToolDef } from '../../src/mcp/tool.js'
import { waitSchema } from '../../src/mcp/tools/events.js'
import { ALL_TOOLS, CORE_TOOL_NAMES, findTool } from '../../src/mcp/tools/index.js'

/** The spec's MCP table, domain by domain. */
const SPEC_TOOLS = [
  ...['read_plan', 'add_task', 'get_task', 'update_task', 'get_unblocked_tasks', 'get_my_tasks', 'get_my_summary', 'delete_task', 'set_task_priority', 'add_dependency'],
  ...['write_context', 'read_context', 'update_context', 'list_context', 'delete_context', 'get_context_history', 'diff_context'],
  ...['post_event', 'read_events', 'get_unread_events', 'mark_event_read', 'get_event_reads', 'reply_to_event', 'delete_event', 'wait_for_events'],
  ...['heartbeat', 'get_presence'],
  ...['acquire_lock', 'release_lock', 'list_locks'],
  ...['set_shared_var', 'get_shared_var', 'list_shared_vars'],
  ...['list_rooms', 'leave_room', 'get_room_info', 'list_templates', 'create_room_from_template'],
  ...['request_review', 'approve', 'reject', 'list_reviews'],
  ...['search', 'get_room_analytics'],
]

const CORE_PROFILE = ['heartbeat', 'get_my_summary', 'get_unblocked_tasks', 'update_task', 'write_context', 'post_event', 'wait_for_events', 'acquire_lock', 'release_lock', 'read_context']
const TEAM_TOOLS = ['list_rooms', 'list_templates', 'create_room_from_template']

/**
 * The core schema a tool's arguments go to. `rename` maps a tool argument to the core field it
 * becomes; `only` limits the check to the tool arguments that reach this schema (a tool that
 * calls one of two operations lists one entry per operation).
 */
interface Target {
  schema: z.ZodObject
  rename?: Record<string, string>
  only?: string[]
}

const s = defaultSettings()
const plan = planSchemas(s)
const ctx = contextSchemas(s)
const ev = eventSchemas(s)
const locks = lockSchemas(s)
const vars = varSchemas(s)

const DRIFT: Record<string, Target[]> = {
  add_task: [{ schema: plan.addTask }],
  get_task: [{ schema: plan.taskRef }],
  read_plan: [{ schema: plan.readPlan }],
  update_task: [{ schema: plan.updateTask }],
  get_unblocked_tasks: [{ schema: plan.listTasks }],
  get_my_tasks: [{ schema: plan.myTasks }],
  get_my_summary: [{ schema: summarySchema }],
  delete_task: [{ schema: plan.taskRef }],
  set_task_priority: [{ schema: plan.setPriority }],
  add_dependency: [{ schema: plan.addDependency }],
  write_context: [{ schema: ctx.write }],
  read_context: [{ schema: ctx.read }],
  update_context: [{ schema: ctx.update }],
  list_context: [{ schema: ctx.list }],
  delete_context: [{ schema: ctx.ref }],
  get_context_history: [{ schema: ctx.ref }],
  diff_context: [{ schema: ctx.diff }],
  post_event: [{ schema: ev.post }],
  read_events: [{ schema: ev.read }],
  get_unread_events: [{ schema: ev.unread }],
  mark_event_read: [{ schema: ev.eventRef }],
  get_event_reads: [{ schema: ev.eventRef }],
  reply_to_event: [{ schema: ev.reply }],
  delete_event: [{ schema: ev.eventRef }],
  wait_for_events: [{ schema: waitSchema }],
  heartbeat: [{ schema: presenceSchemas.heartbeat }],
  get_presence: [{ schema: presenceSchemas.list }],
  leave_room: [{ schema: presenceSchemas.leave }],
  acquire_lock: [{ schema: locks.acquire }],
  release_lock: [{ schema: locks.release }],
  set_shared_var: [
    { schema: vars.set, only: ['name', 'value', 'expected_version'] },
    { schema: vars.increment, only: ['name', 'increment'], rename: { increment: 'by' } },
  ],
  get_shared_var: [{ schema: vars.get }],
  list_shared_vars: [{ schema: vars.list }],
  list_rooms: [{ schema: roomSchemas.list }],
  create_room_from_template: [{ schema: roomSchemas.create }],
  request_review: [{ schema: reviewSchemas.request }],
  approve: [{ schema: reviewSchemas.decide }],
  reject: [{ schema: reviewSchemas.decide }],
  list_reviews: [{ schema: reviewSchemas.list }],
  get_room_analytics: [{ schema: analyticsSchema }],
}
/** Tools whose run calls no core operation with arguments (search goes to its own engine). */
const NO_CORE_SCHEMA = ['list_locks', 'get_room_info', 'list_templates', 'search']

const isRequired = (field: z.ZodType) => !field.safeParse(undefined).success

t.test('every tool of the spec is defined exactly once, and nothing else', async (t) => {
  const names = ALL_TOOLS.map((d) => d.name)
  t.same([...names].sort(), [...SPEC_TOOLS].sort())
  t.equal(new Set(names).size, names.length, 'no duplicates')
  for (const n of SPEC_TOOLS) t.equal(findTool(n)?.name, n)
  t.equal(findTool('nope'), undefined)
})

t.test('the core profile is exactly the typical turn', async (t) => {
  t.same([...CORE_TOOL_NAMES].sort(), [...CORE_PROFILE].sort())
})

t.test('team tools are exactly the spec\'s, and take no room_id', async (t) => {
  t.same(ALL_TOOLS.filter((d) => d.scope === 'team').map((d) => d.name).sort(), [...TEAM_TOOLS].sort())
  for (const d of ALL_TOOLS) {
    const keys = Object.keys(inputSchema(d).shape)
    if (d.scope === 'team') {
      t.notOk(keys.includes('agent_id'), `${d.name}: no agent_id`)
      t.equal(keys.includes('idempotency_key'), d.mutates, `${d.name}: idempotency_key iff it mutates`)
      // create_room_from_template names the room it creates; no team tool addresses an existing room.
      if (d.name !== 'create_room_from_template') t.notOk(keys.includes('room_id'), d.name)
    } else {
      t.ok(keys.includes('room_id') && keys.includes('agent_id'), `${d.name}: room_id and agent_id`)
      t.equal(keys.includes('idempotency_key'), d.mutates, `${d.name}: idempotency_key iff it mutates`)
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
      if (text !== undefined) t.ok(text.split(/\s+/).length <= 12, `${d.name}.${key}: short description (${text})`)
    }
  }
})

t.test('every tool input converts to JSON Schema', async (t) => {
  for (const d of ALL_TOOLS) {
    const json = z.toJSONSchema(inputSchema(d), { io: 'input' }) as { type?: string; properties?: object }
    t.equal(json.type, 'object', d.name)
    t.same(Object.keys(json.properties ?? {}).sort(), Object.keys(inputSchema(d).shape).sort(), `${d.name}: every argument listed`)
  }
})

t.test('tools/list stays within its token goals (issue 18; Claude tokenizer, as bench/tokens.ts counts)', async (t) => {
  const tokens = (tools: readonly ToolDef[]) => countTokens(JSON.stringify(tools.map(listEntry)))
  const all = tokens(ALL_TOOLS)
  const core = tokens(ALL_TOOLS.filter((d) => d.core))
  t.ok(all <= 6_000, `all tools: ${all} tokens`)
  t.ok(core <= 1_500, `core profile: ${core} tokens`)
})

t.test('a listed entry carries nothing a client can assume or the server checks anyway', async (t) => {
  for (const d of ALL_TOOLS) {
    const entry = listEntry(d)
    const text = JSON.stringify(entry)
    t.notMatch(text, /9007199254740991|"pattern"|"additionalProperties"/, `${d.name}: no integer bounds, patterns or additionalProperties`)
    const props = (entry.inputSchema.properties ?? {}) as Record<string, { description?: string }>
    // A team tool's room_id is another thing: the room create_room_from_template makes.
    const shared = d.scope === 'room' ? ['room_id', 'agent_id', 'idempotency_key'] : ['idempotency_key']
    for (const arg of shared) t.notOk(props[arg]?.description, `${d.name}: ${arg} is described once, in the instructions`)
    const a = entry.annotations ?? {}
    t.notOk('title' in a, `${d.name}: the title is the tool's own`)
    t.equal(a.openWorldHint, false, `${d.name}: closed world`)
    t.equal(a.readOnlyHint, d.mutates ? undefined : true, `${d.name}: readOnlyHint listed only when true`)
    t.equal(a.destructiveHint, d.mutates && !d.name.startsWith('delete_') ? false : undefined, `${d.name}: destructiveHint listed only when false`)
  }
  t.match(INSTRUCTIONS, /room_id and agent_id/)
  t.match(INSTRUCTIONS, /idempotency_key/)
})

t.test('tool arguments match the core schemas they feed (drift check)', async (t) => {
  for (const d of ALL_TOOLS) {
    const targets = DRIFT[d.name]
    if (!targets) {
      t.ok(NO_CORE_SCHEMA.includes(d.name), `${d.name}: in the drift table, or known to have no core schema`)
      continue
    }
    // idempotency_key travels beside the input (Caller / the create call), not inside a core schema.
    const declared = Object.keys(d.args).filter((k) => k !== 'idempotency_key')
    const reached = new Set<string>()
    for (const target of targets) {
      const shape = target.schema.shape
      const mine = (target.only ?? declared).map((k) => target.rename?.[k] ?? k)
      for (const k of target.only ?? []) t.ok(declared.includes(k), `${d.name}: declares ${k}`)
      for (const k of target.only ?? declared) reached.add(k)
      for (const k of mine) t.ok(Object.hasOwn(shape, k), `${d.name}: argument ${k} is accepted by the core`)
      for (const [k, field] of Object.entries(shape)) {
        if (isRequired(field as z.ZodType)) t.ok(mine.includes(k), `${d.name}: required core field ${k} is declared`)
      }
    }
    t.same([...reached].sort(), [...declared].sort(), `${d.name}: every argument reaches a core schema`)
  }
  for (const name of Object.keys(DRIFT)) t.ok(findTool(name), `drift table names a real tool: ${name}`)
})

t.test('request_review target offers every field of the core target union', async (t) => {
  const def = findTool('request_review')!
  const toolTarget = def.args.target as z.ZodObject
  const core = reviewSchemas.request.shape.target
  for (const option of core.options) {
    for (const k of Object.keys(option.shape)) t.ok(Object.hasOwn(toolTarget.shape, k), `target.${k}`)
  }
})
