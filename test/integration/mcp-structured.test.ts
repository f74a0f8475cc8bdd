// Structured results: every tool lists an outputSchema (JSON Schema 2020-12) in tools/list of both
// protocol eras, and every success carries structuredContent equal to the JSON of its text, valid
// against that schema. Run over the tool matrix (every tool with good arguments) in both eras,
// then over calls that reach the optional fields the matrix leaves out (pages, a forced claim, a
// free lock, the deprecated room_id, ...). Each result is also held to a closed form of its schema
// (no property it does not declare), so a field a reply gains must be declared before it ships.
// Failures carry no structuredContent: their text is the whole answer.
import t from 'tap'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { ALL_TOOLS } from '../../src/mcp/tools/index.js'
import { envelope, modernHeaders, post, type RawReply } from '../helpers/mcp.js'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { goodArgs, matrixRoom, type Args } from '../helpers/tool-matrix.js'

type Era = 'legacy' | 'modern'
type Schema = Record<string, unknown>

function rpc(era: Era, method: string, params: Args): Args {
  if (era === 'legacy') return { jsonrpc: '2.0', id: 1, method, params }
  return { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: envelope() } }
}

async function send(n: TestNode, key: string, era: Era, method: string, params: Args): Promise<RawReply> {
  const name = typeof params.name === 'string' ? params.name : undefined
  return post(n, rpc(era, method, params), era === 'modern' ? modernHeaders(method, name) : {}, { key })
}

/** The schema with every object that declares properties closed to others. */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed)
  if (typeof node !== 'object' || node === null) return node
  const out: Schema = {}
  for (const [k, v] of Object.entries(node)) out[k] = k === 'properties' ? mapValues(v as Schema) : closed(v)
  if (out.properties !== undefined && out.additionalProperties === undefined) out.additionalProperties = false
  return out
}
const mapValues = (o: Schema): Schema => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, closed(v)]))

interface Validators {
  open: ValidateFunction
  closed: ValidateFunction
}

t.test('every tool lists an outputSchema; every success matches it', async (t) => {
  const n = await startNode(t, 'standalone')
  const { key, teamId } = await newTeam(n)
  const ajv = new Ajv2020({ strict: true, allErrors: true })

  const listed: Record<Era, Map<string, Schema>> = { legacy: new Map(), modern: new Map() }
  for (const era of ['legacy', 'modern'] as const) {
    const r = await send(n, key, era, 'tools/list', {})
    const tools = (r.json?.result as { tools: { name: string; outputSchema?: Schema }[] }).tools
    t.equal(tools.length, ALL_TOOLS.length, `${era}: every tool listed`)
    for (const tool of tools) {
      t.ok(tool.outputSchema, `${era} ${tool.name}: has an outputSchema`)
      if (tool.outputSchema) listed[era].set(tool.name, tool.outputSchema)
    }
  }
  t.same([...listed.modern], [...listed.legacy], 'both eras list the same output schemas')

  const validators = new Map<string, Validators>()
  for (const [name, schema] of listed.legacy) {
    t.equal(schema.type, 'object', `${name}: the output is an object`)
    t.notOk('$schema' in schema, `${name}: no $schema (2020-12 is the MCP default)`)
    validators.set(name, { open: ajv.compile(schema), closed: ajv.compile(closed(schema) as Schema) })
  }

  // The validators can fail: a heartbeat answer without its count, or with a field it never has.
  const hb = validators.get('heartbeat')!
  const fine = {
    room_id: 'r',
    online_count: 1,
    presence_ttl_s: 60,
    unread: 0,
  }
  t.ok(hb.open(fine) && hb.closed(fine), 'a well-formed heartbeat answer passes')
  t.notOk(hb.open({ ...fine, online_count: undefined }), 'a missing required field fails')
  t.notOk(hb.open({ ...fine, online_count: '1' }), 'a wrong type fails')
  t.notOk(hb.closed({ ...fine, surprise: true }), 'an undeclared field fails the closed form')
  t.ok(hb.open({ ...fine, surprise: true }), 'the listed form is open: a new field keeps older clients valid')

  const seen = new Set<string>()
  /** Calls a tool; a success must carry structuredContent equal to its text and valid against its schema. */
  const check = async (era: Era, name: string, args: Args, label = name) => {
    const r = await send(n, key, era, 'tools/call', { name, arguments: args })
    const result = r.json?.result as { content: { text: string }[]; structuredContent?: unknown; isError?: boolean }
    const body = JSON.parse(result.content[0]!.text) as unknown
    t.notOk(result.isError, `${era} ${label}: succeeds`, { body })
    t.same(result.structuredContent, body, `${era} ${label}: structuredContent is the text's JSON`)
    const v = validators.get(name)!
    t.ok(v.open(body), `${era} ${label}: valid against its outputSchema`, { errors: v.open.errors, body })
    t.ok(v.closed(body), `${era} ${label}: declares every field it has`, { errors: v.closed.errors, body })
    seen.add(name)
    return body as Args
  }

  for (const era of ['legacy', 'modern'] as const) {
    const { room, refs } = await matrixRoom(n, teamId, key)
    const inRoom = (name: string, extra: Args, agent = 'agent'): Args => {
      const def = ALL_TOOLS.find((d) => d.name === name)!
      return { ...(def.scope === 'room' ? { room_id: room, agent_id: agent } : {}), ...extra }
    }
    await t.test(`${era}: the tool matrix`, async (t) => {
      for (const [name, extra] of goodArgs(refs)) await check(era, name, inRoom(name, extra))
      t.equal(seen.size, ALL_TOOLS.length, 'every tool ran')
    })

    await t.test(`${era}: the optional fields`, async () => {
      await check(era, 'heartbeat', inRoom('heartbeat', {}))
      await check(era, 'heartbeat', inRoom('heartbeat', {}, 'peer'))
      await check(era, 'get_presence', inRoom('get_presence', { include_offline: true }), 'get_presence offline')
      await check(era, 'read_plan', inRoom('read_plan', { limit: 1 }), 'read_plan (more)')
      await check(era, 'get_unblocked_tasks', inRoom('get_unblocked_tasks', { limit: 1 }), 'unblocked (more)')
      await check(era, 'update_task', inRoom('update_task', { task_id: 't1', status: 'in_progress' }), 'claim')
      await check(
        era,
        'update_task',
        inRoom('update_task', { task_id: 't1', status: 'in_progress', force: true }, 'peer'),
        'forced claim (overrode)',
      )
      await check(era, 'update_task', inRoom('update_task', { task_id: 't1', status: 'done' }, 'peer'), 'done')
      const next = await check(era, 'claim_next_task', inRoom('claim_next_task', {}, 'claimer'), 'claim next')
      t.ok(next.task, `${era}: claim_next_task claimed a task`)
      for (let i = 0; i < 50 && next.task; i++) {
        const r = await check(era, 'claim_next_task', inRoom('claim_next_task', {}, `claimer-${i}`), 'claim next')
        if (!r.task) {
          t.equal(typeof r.open, 'number', `${era}: nothing claimable answers how many are open`)
          break
        }
      }
      await check(era, 'get_my_tasks', inRoom('get_my_tasks', { include_done: true }, 'peer'), 'my tasks, done')
      await check(era, 'add_task', inRoom('add_task', { title: 'urgent one', priority: 'urgent', depends_on: ['t2'] }))
      await check(era, 'read_plan', inRoom('read_plan', {}), 'read_plan (priority, blocked_by, assignee)')
      await check(era, 'post_event', inRoom('post_event', { type: 'status', text: 'with data', data: '{"pr": 1}' }))
      const page = await check(era, 'read_events', inRoom('read_events', { limit: 1 }), 'read_events (prev)')
      await check(era, 'read_events', inRoom('read_events', { before: page.prev }), 'read_events (next)')
      await check(era, 'get_my_summary', inRoom('get_my_summary', {}, 'peer'), 'summary with tasks and events')
      await check(era, 'release_lock', inRoom('release_lock', { name: 'file:never-held' }), 'release a free lock')
      await check(era, 'acquire_lock', inRoom('acquire_lock', { name: 'file:held' }))
      await check(era, 'list_locks', inRoom('list_locks', {}), 'list_locks (one held)')
      await check(era, 'reserve_files', inRoom('reserve_files', { patterns: ['docs/**'], exclusive: false }))
      await check(era, 'list_reservations', inRoom('list_reservations', {}), 'list_reservations (one held)')
      await check(era, 'set_shared_var', inRoom('set_shared_var', { name: 'runs', increment: 2 }), 'increment')
      await check(era, 'list_context', inRoom('list_context', { limit: 1 }), 'list_context (more)')
      await check(
        era,
        'request_review',
        inRoom('request_review', { target: { kind: 'context', type: 'spec', key: 'api' }, note: 'check it' }),
        'review of a context entry',
      )
      await check(era, 'list_reviews', inRoom('list_reviews', { limit: 1 }), 'list_reviews (more, note)')
      await check(era, 'list_rooms', { limit: 1 }, 'list_rooms (next)')
      await check(
        era,
        'create_room_from_template',
        { room_id: `old-name-${era}`, template: 'blank' },
        'create_room_from_template (deprecated room_id)',
      )
      await check(era, 'list_templates', { template: 'incident' }, 'list_templates (one)')
      await check(era, 'search', inRoom('search', { query: 'one', kinds: ['task'] }), 'search tasks')
      await check(era, 'get_room_analytics', inRoom('get_room_analytics', { days: 1 }), 'analytics (a rate)')
    })

    await t.test(`${era}: failures carry no structuredContent`, async (t) => {
      const r = await send(n, key, era, 'tools/call', {
        name: 'get_task',
        arguments: inRoom('get_task', { task_id: 't999' }),
      })
      const result = r.json?.result as { structuredContent?: unknown; isError?: boolean; content: { text: string }[] }
      t.equal(result.isError, true, 'an unknown task fails')
      t.equal(result.structuredContent, undefined, 'without structuredContent')
      t.match(JSON.parse(result.content[0]!.text), { error: { code: 'not_found' } }, 'the text says why')
    })
  }
})
