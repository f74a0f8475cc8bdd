// What agents pay in tokens: the replies of the typical turn (src/mcp/host.ts INSTRUCTIONS) in a standard room,
// the replies of the list and read tools and of search, and the tools/list entries, with the Claude tokenizer
// and o200k (GPT-4o/o-series). Token counts are of the text a model reads: result.content[0].text
// for a reply (structuredContent is the same object again, for the client), and for tools/list
// the JSON of what agent frameworks hand the model of each entry: name, description, inputSchema
// (src/mcp/host.ts modelVisible; the token goals apply to it), for a team key and for the bound
// listings of credentials that fix the agent and/or the room. The whole tools/list on the wire
// (with title, annotations and outputSchema) is reported beside it, and where the tokens of the
// team key's and the bound listing go (descriptions, the shared arguments, the rest) with the floor
// their shape sets whatever the wording. Nothing here is timed.
//
// The standard room: 20 add_task calls by a planner (titles of ~45 characters, one line of notes)
// and one context entry. The typical turn, by a new agent: heartbeat, get_my_summary,
// get_unblocked_tasks, update_task (claim the first), acquire_lock, post_event, release_lock; and
// the same turn of another new agent with claim_next_task in place of the list and the claim.
//   npx tsx bench/tokens.ts [--show]      (--show also prints each reply's text)
import { countTokens as claudeTokens } from '@anthropic-ai/tokenizer'
import { encode as o200k } from 'gpt-tokenizer'
import { parseArgs } from 'node:util'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { listEntry, modelVisible } from '../src/mcp/host.js'
import { ALL_TOOLS } from '../src/mcp/tools/index.js'
import { startTestEmbedder, TEST_MODEL } from '../test/helpers/embedder.js'
import { defaultKey, STANDARD_TITLES, startChild, startRedis } from './lib.js'

const { values } = parseArgs({ options: { show: { type: 'boolean', default: false } } })

const redis = await startRedis()
// An embedder (the test model) for the semantic search replies; the other replies do not depend on it.
const embedder = await startTestEmbedder()
const node = await startChild('src/main.ts', {
  REDIS_URL: `redis://127.0.0.1:${redis.port}`,
  RATE_LIMIT_PER_MIN: '10000000',
  RATE_LIMIT_PER_CREDENTIAL_PER_MIN: '5000000',
  EMBEDDER_URL: embedder.url,
  EMBEDDER_MODEL: TEST_MODEL,
})
const key = await defaultKey(node)
const headers = {
  Authorization: `Bearer ${key}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
}
const ROOM = 'tokens'

async function rpc(
  method: string,
  params: Record<string, unknown>,
  path = '/mcp',
  bearer = key,
): Promise<Record<string, unknown>> {
  const r = await fetch(`http://127.0.0.1:${node.port}${path}`, {
    method: 'POST',
    headers: { ...headers, Authorization: `Bearer ${bearer}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const j = (await r.json()) as { result?: Record<string, unknown>; error?: unknown }
  if (!j.result) throw new Error(`${method}: ${JSON.stringify(j.error)}`)
  return j.result
}

/** Calls a tool as `agent` in the bench room; returns the reply text a model reads. Fails on an error result. */
async function call(agent: string, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = (await rpc('tools/call', { name, arguments: { room_id: ROOM, agent_id: agent, ...args } })) as {
    content: { text: string }[]
    isError?: boolean
  }
  const text = result.content[0]!.text
  if (result.isError) throw new Error(`${name}: ${text}`)
  return text
}

const count = (text: string) => ({
  bytes: Buffer.byteLength(text),
  claude: claudeTokens(text),
  o200k: o200k(text).length,
})
const line = (label: string, text: string) => {
  const c = count(text)
  console.log(`${label}: ${c.bytes} bytes, ${c.claude} tokens (Claude), ${c.o200k} tokens (o200k)`)
  if (values.show) console.log(`  ${text}`)
  return c
}

const created = await fetch(`http://127.0.0.1:${node.port}/admin/rooms`, {
  method: 'POST',
  headers,
  body: JSON.stringify({ roomId: ROOM }),
})
if (created.status !== 201) throw new Error(`room creation: ${created.status} ${await created.text()}`)

// The standard room.
for (const [i, title] of STANDARD_TITLES.entries()) {
  await call('planner', 'add_task', {
    title,
    notes: `Acceptance: ${title.toLowerCase()} is covered by a test (step ${i + 1}).`,
  })
}
await call('planner', 'write_context', {
  type: 'brief',
  key: 'payments',
  body:
    'Payments API hardening sprint: rate limits, retries, schema migration, docs. Ask in events before ' +
    'changing public endpoints.',
})

console.log(
  `# ${new Date().toISOString()} node ${process.version}; standard room: ${STANDARD_TITLES.length} tasks, 1 ` +
    `context entry`,
)

// The typical turn of a new agent.
const me = 'backend'
const turn: [string, Record<string, unknown>][] = [
  ['heartbeat', {}],
  ['get_my_summary', {}],
  ['get_unblocked_tasks', {}],
]
let total = { bytes: 0, claude: 0, o200k: 0 }
const add = (c: typeof total) =>
  (total = { bytes: total.bytes + c.bytes, claude: total.claude + c.claude, o200k: total.o200k + c.o200k })
let unblocked = ''
for (const [name, args] of turn) {
  const text = await call(me, name, args)
  if (name === 'get_unblocked_tasks') unblocked = text
  add(line(`turn ${name}`, text))
}
const first = (JSON.parse(unblocked) as { tasks: { id: string }[] }).tasks[0]!.id
const rest: [string, Record<string, unknown>][] = [
  ['update_task', { task_id: first, status: 'in_progress' }],
  ['acquire_lock', { name: 'file:src/api/rate-limit.ts' }],
  ['post_event', { type: 'status', text: `Claimed ${first}; working on src/api/rate-limit.ts` }],
  ['release_lock', { name: 'file:src/api/rate-limit.ts' }],
]
for (const [name, args] of rest) add(line(`turn ${name}`, await call(me, name, args)))
console.log(`turn total: ${total.bytes} bytes, ${total.claude} tokens (Claude), ${total.o200k} tokens (o200k)`)

const worker = 'worker'
let next = { bytes: 0, claude: 0, o200k: 0 }
for (const [name, args] of [
  ['heartbeat', {}],
  ['get_my_summary', {}],
  ['claim_next_task', {}],
  ['acquire_lock', { name: 'file:src/db/orders.sql' }],
  ['post_event', { type: 'status', text: 'Claimed the next task; working on src/db/orders.sql' }],
  ['release_lock', { name: 'file:src/db/orders.sql' }],
] as [string, Record<string, unknown>][]) {
  const c = line(`turn (claim_next_task) ${name}`, await call(worker, name, args))
  next = { bytes: next.bytes + c.bytes, claude: next.claude + c.claude, o200k: next.o200k + c.o200k }
}
console.log(
  `turn (claim_next_task) total: ${next.bytes} bytes, ${next.claude} tokens (Claude), ${next.o200k} tokens (o200k)`,
)

// Other replies an agent meets: a claim conflict, the lists, the whole records.
const conflict = (await rpc('tools/call', {
  name: 'update_task',
  arguments: { room_id: ROOM, agent_id: 'frontend', task_id: first, status: 'in_progress' },
})) as { content: { text: string }[]; isError?: boolean }
if (!conflict.isError) throw new Error(`the claim of a held task succeeded: ${conflict.content[0]!.text}`)
line('reply update_task conflict', conflict.content[0]!.text)
await call('planner', 'request_review', { target: { kind: 'task', task_id: first }, note: 'Check the limits per key' })
const others: [string, string, Record<string, unknown>][] = [
  [me, 'get_my_tasks', {}],
  [me, 'read_plan', {}],
  [me, 'list_context', {}],
  [me, 'read_events', {}],
  [me, 'list_reviews', {}],
  [me, 'get_task', { task_id: first }],
  [me, 'read_context', { type: 'brief', key: 'payments' }],
  [me, 'get_unread_events', {}],
]
for (const [agent, name, args] of others) line(`reply ${name}`, await call(agent, name, args))

// Search replies in the standard room: ten results, words only and hybrid (once the room's vectors
// are made: an answer without a note).
const searches: [string, Record<string, unknown>][] = [
  ['search', { query: 'retry webhook' }],
  ['search semantic', { query: 'retry webhook', semantic: true }],
  ['search partial', { query: 'webhook retry timeout' }],
  ['search partial semantic', { query: 'webhook retry timeout', semantic: true }],
]
for (const [label, args] of searches) {
  let text = await call(me, 'search', args)
  for (let i = 0; i < 100 && (JSON.parse(text) as { note?: string }).note; i++) {
    await new Promise((r) => setTimeout(r, 100))
    text = await call(me, 'search', args)
  }
  line(`reply ${label}`, text)
}

// tools/list: every entry as the model sees it, then the totals, model-visible and on the wire: a
// team key's listing, the bound listings (src/mcp/host.ts listFor) of room invite keys, minted
// for an agent (room and agent bound) and without one (room bound), and of the team key with its
// connection bound by the URL (agent and room; agent only).
const invite = async (json: Record<string, unknown>) => {
  const r = await fetch(`http://127.0.0.1:${node.port}/admin/rooms/${ROOM}/invite`, {
    method: 'POST',
    headers,
    body: JSON.stringify(json),
  })
  if (r.status !== 201) throw new Error(`invite: ${r.status} ${await r.text()}`)
  return ((await r.json()) as { key: string }).key
}
const boundKey = await invite({ label: 'backend', agentId: 'backend' })
const roomKey = await invite({ label: 'any agent' })
const list = async (path: string, bearer = key) =>
  ((await rpc('tools/list', {}, path, bearer)) as { tools: Tool[] }).tools
// Every list first: counting takes long enough for the server to close an idle keep-alive socket.
const all = await list('/mcp')
const core = await list('/mcp?profile=core')
const lists: [string, Tool[]][] = [
  ['full', all],
  ['core', core],
  ['bound full', await list('/mcp', boundKey)],
  ['bound core', await list('/mcp?profile=core', boundKey)],
  ['room-bound full', await list('/mcp', roomKey)],
  ['room-bound core', await list('/mcp?profile=core', roomKey)],
  // The team key with its connection bound (docs/mcp.md "Bind a connection"): to an agent and a
  // room, as the CLI's and the dashboard's configurations are, and to an agent only.
  ['team key, connection bound to agent+room, full', await list(`/mcp?agent=${me}&room=${ROOM}`)],
  ['team key, connection bound to agent+room, core', await list(`/mcp?profile=core&agent=${me}&room=${ROOM}`)],
  ['team key, connection bound to agent, full', await list(`/mcp?agent=${me}`)],
  ['team key, connection bound to agent, core', await list(`/mcp?profile=core&agent=${me}`)],
]
// A grant for every room of the team binds the agent only; made by OAuth consent, so its listing
// is built here by the same code the node runs.
const roomTools = ALL_TOOLS.filter((d) => d.scope === 'room')
const agentOnly = { agent: true, room: false }
lists.push(
  ['agent-bound full (in process)', roomTools.map((d) => listEntry(d, agentOnly))],
  ['agent-bound core (in process)', roomTools.filter((d) => d.core).map((d) => listEntry(d, agentOnly))],
)
const seen = (tools: Tool[]) => tools.map(modelVisible)
const allTokens = claudeTokens(JSON.stringify(seen(all)))
for (const entry of seen(all)) {
  const c = count(JSON.stringify(entry))
  console.log(
    `tools/list entry ${entry.name}: ${c.bytes} bytes, ${c.claude} tokens (Claude), ${c.o200k} tokens ` +
      `(o200k), ${((100 * c.claude) / allTokens).toFixed(1)}% of all`,
  )
}
for (const [label, tools] of lists) {
  for (const [view, json] of [
    ['model-visible', JSON.stringify(seen(tools))],
    ['on the wire', JSON.stringify(tools)],
  ] as const) {
    const c = count(json)
    console.log(
      `tools/list ${label} ${view}: ${tools.length} tools, ${c.bytes} bytes, ${c.claude} tokens (Claude), ` +
        `${c.o200k} tokens (o200k)`,
    )
  }
}

// Each listing against the unbound team key's of the same profile, measured in this run.
const modelTokens = (tools: Tool[]) => claudeTokens(JSON.stringify(seen(tools)))
for (const [label, tools] of lists.slice(2)) {
  const base = label.endsWith('core') || label.includes(' core ') ? core : all
  const ratio = modelTokens(tools) / modelTokens(base)
  console.log(
    `tools/list ${label} vs the team key unbound: ${modelTokens(tools)} / ${modelTokens(base)} tokens ` +
      `(Claude, model-visible) = ${ratio.toFixed(3)}`,
  )
}

// Where a listing's tokens go, by difference: the listing's count less the count with that part
// left out (each description made empty; the shared arguments removed, properties and their place
// in `required`). The floor is the listing with every description one word: what its shape costs
// (the portable form, every argument) whatever the wording.
type Entry = ReturnType<typeof modelVisible>
type Props = Record<string, Record<string, unknown>>
const SHARED = ['room_id', 'agent_id', 'idempotency_key']
const ROOM_TOOLS = new Set(roomTools.map((d) => d.name))
const tokensOf = (entries: Entry[]) => claudeTokens(JSON.stringify(entries))
/** A copy of `node` (a JSON Schema) with every description `text`. */
const describedAs = (node: unknown, text: string): unknown => {
  if (Array.isArray(node)) return node.map((v) => describedAs(v, text))
  if (typeof node !== 'object' || node === null) return node
  const pairs = Object.entries(node).map(([k, v]) => [k, k === 'description' ? text : describedAs(v, text)])
  return Object.fromEntries(pairs) as unknown
}
const withSchema = (e: Entry, schema: unknown): Entry => ({ ...e, inputSchema: schema as Entry['inputSchema'] })
/** The entry without the shared arguments of a room tool (a team tool's are its own). */
const withoutShared = (e: Entry): Entry => {
  const s = e.inputSchema as { properties: Props; required: string[] }
  if (!ROOM_TOOLS.has(e.name)) return e
  const keep = (k: string) => !SHARED.includes(k)
  return withSchema(e, {
    ...s,
    properties: Object.fromEntries(Object.entries(s.properties).filter(([k]) => keep(k))),
    required: s.required.filter(keep),
  })
}
/** The entry with the shared arguments' descriptions made empty. */
const sharedUndescribed = (e: Entry): Entry => {
  const s = e.inputSchema as { properties: Props }
  if (!ROOM_TOOLS.has(e.name)) return e
  const props = Object.fromEntries(
    Object.entries(s.properties).map(([k, v]) => [k, SHARED.includes(k) ? { ...v, description: '' } : v]),
  )
  return withSchema(e, { ...s, properties: props })
}
for (const [label, tools] of [lists[0]!, lists[1]!, lists[2]!]) {
  const entries = seen(tools)
  const total = tokensOf(entries)
  const part = (f: (e: Entry) => Entry) => total - tokensOf(entries.map(f))
  const toolDescriptions = part((e) => ({ ...e, description: '' }))
  const paramDescriptions = part((e) => withSchema(e, describedAs(e.inputSchema, '')))
  const shared = part(withoutShared)
  const sharedDescriptions = part(sharedUndescribed)
  const floor = tokensOf(entries.map((e) => withSchema({ ...e, description: 'x' }, describedAs(e.inputSchema, 'x'))))
  console.log(
    `tools/list ${label} parts: ${total} tokens (Claude): tool descriptions ${toolDescriptions}, argument ` +
      `descriptions ${paramDescriptions} (of them room_id/agent_id/idempotency_key ${sharedDescriptions}), ` +
      `room_id/agent_id/idempotency_key whole ${shared}, the rest (names, types, required, closed objects) ` +
      `${total - toolDescriptions - paramDescriptions - shared + sharedDescriptions}; floor with every ` +
      `description one word ${floor}`,
  )
}

await node.stop()
await embedder.close()
await redis.stop()
