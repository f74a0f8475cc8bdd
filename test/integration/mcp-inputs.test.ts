// Inputs MCP must refuse clearly, on a real node over standalone Redis:
// unknown arguments named, `data` nested 10,000 levels deep refused with the depth limit (not a
// stack overflow answered as `internal`), and nothing posted by a refused call.
import t from 'tap'
import { legacyCall, post, toolReplyOf } from '../helpers/mcp.js'
import { newTeam, startNode } from '../helpers/node.js'

t.test('inputs over MCP (standalone)', async (t) => {
  const n = await startNode(t, 'standalone')
  const { key, teamId } = await newTeam(n)
  const { room } = await n.node.core.rooms.create(teamId, {}, 'test')
  const roomId = room.room_id
  const ref = { room: { teamId, roomId } }
  const call = async (tool: string, args: Record<string, unknown>) =>
    toolReplyOf((await post(n, legacyCall(tool, { room_id: roomId, agent_id: 'ann', ...args }), {}, { key })).json)
  const eventCount = async () =>
    (await n.node.core.events.read({ ...ref, agent: 'reader' }, { limit: 100 })).events.length

  await t.test('an unknown argument is named, with the known ones', async (t) => {
    const r = await call('post_event', { type: 'status', text: 'x', dta: { a: 1 } })
    t.ok(r.isError)
    t.match(r.body.error, {
      code: 'invalid_request',
      message: /^dta: unknown field; known fields: room_id, agent_id, type, text, data/,
      details: { field: 'dta' },
    })
    t.equal(await eventCount(), 0, 'nothing posted')
  })

  await t.test('data nested 10,000 levels deep is refused with the limit', async (t) => {
    // Written out by hand: JSON.stringify itself would overflow the stack on such a value.
    const data = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)
    const body =
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"post_event","arguments":' +
      `{"room_id":"${roomId}","agent_id":"ann","type":"status","text":"deep","data":${data}}}}`
    const r = toolReplyOf((await post(n, body, {}, { key })).json)
    t.ok(r.isError)
    t.match(r.body.error, {
      code: 'too_large',
      message: 'data: nested more than 32 levels deep; the limit is 32 levels',
      details: { field: 'data', limit: 32 },
    })
    let ok: unknown = 1
    for (let i = 0; i < 31; i++) ok = [ok]
    const fine = await call('post_event', { type: 'status', text: 'deep enough', data: ok })
    t.notOk(fine.isError, '32 levels below the arguments are accepted')
    t.equal(await eventCount(), 1, 'only the accepted one was posted')
  })

  await t.test('ids are refused with their own words, also after valid ones were seen', async (t) => {
    // The runner remembers ids that passed; each bad one must still be refused, first among the bad fields.
    t.notOk((await call('post_event', { type: 'status', text: 'seen' })).isError, 'valid ids, remembered')
    const before = await eventCount()
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ agent_id: 'x'.repeat(129) }, 'agent_id', /^agent_id: must be at most 128 characters/],
      [{ agent_id: '' }, 'agent_id', /^agent_id: must not be empty/],
      [{ agent_id: 'a\u0001' }, 'agent_id', /^agent_id: must not contain control characters/],
      [{ room_id: '-bad' }, 'room_id', /^room_id: must be 1-64 characters/],
      [{ idempotency_key: 'k\u0000' }, 'idempotency_key', /^idempotency_key: must not contain control characters/],
      [{ agent_id: 'x'.repeat(129), text: 5 }, 'agent_id', /^agent_id: must be at most 128 characters/],
      [{ agent_id: 7 }, 'agent_id', /^agent_id: Invalid input: expected string/],
    ]
    for (const [args, field, message] of cases) {
      const r = await call('post_event', { type: 'status', text: 'bad', ...args })
      t.ok(r.isError, `refused: ${JSON.stringify(args).slice(0, 60)}`)
      t.match(r.body.error, { code: 'invalid_request', message, details: { field } })
    }
    t.notOk((await call('post_event', { type: 'status', text: 'seen again' })).isError, 'the valid ids still pass')
    t.equal(await eventCount(), before + 1, 'nothing posted by a refused call')
  })

  await t.test('null for an optional argument is absent, at any depth; for a required one it is named', async (t) => {
    const task = await call('add_task', {
      title: 'nulls',
      notes: null,
      status: null,
      assignee: null,
      depends_on: null,
      priority: null,
      order: null,
      idempotency_key: null,
    })
    t.notOk(task.isError, JSON.stringify(task.body))
    const id = (task.body.task as { id: string }).id
    t.match(await call('get_task', { task_id: id }), { body: { task: { status: 'todo', priority: 'normal' } } })
    const review = await call('request_review', {
      target: { kind: 'task', task_id: id, type: null, key: null },
      reviewer: null,
      note: null,
    })
    t.notOk(review.isError, `nested nulls: ${JSON.stringify(review.body)}`)
    const ev = await call('post_event', { type: 'status', text: 'n', data: null, reply_to: null })
    t.notOk(ev.isError)
    t.notOk('data' in (ev.body.event as object), 'data null: no data')
    const required = await call('post_event', { type: 'status', text: null })
    t.match(required.body.error, { code: 'invalid_request', message: /^text: /, details: { field: 'text' } })
    const room = await n.call('/admin/rooms', { method: 'POST', key, json: { name: 'Nulls', template: null } })
    t.equal(room.status, 201, 'the HTTP API reads null as absent too')
    const bad = await n.call('/admin/rooms', { method: 'POST', key, json: { name: 5 } })
    t.equal(bad.status, 400)
  })

  await t.test('event data is taken as JSON text, or as JSON', async (t) => {
    const text = await call('post_event', { type: 'status', text: 'pr', data: '{"pr": 12}' })
    t.same((text.body.event as { data: unknown }).data, { pr: 12 }, 'text decoded')
    const reply = await call('reply_to_event', {
      event_id: (text.body.event as { id: string }).id,
      text: 'ok',
      data: { ok: true },
    })
    t.same((reply.body.event as { data: unknown }).data, { ok: true }, 'an object as it is')
    const before = await eventCount()
    const bad = await call('post_event', { type: 'status', text: 'x', data: '{pr: 12' })
    t.match(bad.body.error, { code: 'invalid_request', message: /^data: must be JSON/, details: { field: 'data' } })
    t.equal(await eventCount(), before, 'nothing posted')
  })

  await t.test(
    'an idempotency key reused by another agent or with other arguments is refused, naming it',
    async (t) => {
      const first = await call('post_event', { type: 'status', text: 'built', idempotency_key: 'build-1' })
      t.notOk(first.isError)
      const replay = await call('post_event', { type: 'status', text: 'built', idempotency_key: 'build-1' })
      t.same(replay.body, first.body, 'the same agent, the same arguments: the first result')
      const byBob = await call('post_event', {
        agent_id: 'bob',
        type: 'status',
        text: 'built',
        idempotency_key: 'build-1',
      })
      t.match(byBob.body.error, {
        code: 'conflict',
        message: /^idempotency_key "build-1" was already used by agent ann; use a new key/,
        details: { field: 'idempotency_key', key: 'build-1' },
      })
      const other = await call('post_event', { type: 'status', text: 'tested', idempotency_key: 'build-1' })
      t.match(other.body.error, {
        code: 'conflict',
        message: /^idempotency_key "build-1" was already used with other arguments/,
      })
      const otherOp = await call('add_task', { title: 'x', idempotency_key: 'build-1' })
      t.match(otherOp.body.error, {
        code: 'conflict',
        message: /^idempotency_key "build-1" was already used for postEvent/,
      })
      const texts = (await n.node.core.events.read({ ...ref, agent: 'reader' }, { limit: 100 })).events.map(
        (e) => e.text,
      )
      t.same(
        texts.filter((x) => x === 'built' || x === 'tested'),
        ['built'],
        'one post, the others refused',
      )
    },
  )

  await t.test('POST /admin/rooms: an Idempotency-Key reused with another body is refused', async (t) => {
    const create = (name: string) =>
      n.call('/admin/rooms', { method: 'POST', key, json: { name }, headers: { 'Idempotency-Key': 'room-once' } })
    const first = await create('One')
    t.equal(first.status, 201)
    const again = await create('One')
    t.same(await again.json(), await first.json(), 'the same body replays')
    const other = await create('Two')
    t.equal(other.status, 409)
    t.match(await other.json(), {
      error: {
        code: 'conflict',
        message: /^Idempotency-Key "room-once" was already used with other arguments/,
        details: { field: 'Idempotency-Key' },
      },
    })
  })

  await t.test('a negative order is refused', async (t) => {
    for (const [tool, args] of [
      ['add_task', { title: 'neg', order: -1 }],
      ['set_task_priority', { task_id: 't1', order: -5 }],
    ] as const) {
      const r = await call(tool, args)
      t.match(r.body.error, { code: 'invalid_request', details: { field: 'order' } }, `${tool}: order below 0`)
    }
    t.notOk((await call('add_task', { title: 'zero', order: 0 })).isError, 'order 0 is fine')
  })

  await t.test('agent ids and names with a lone surrogate are refused, so distinct ids never collapse', async (t) => {
    // Sent as JSON escapes: three ids that UTF-8 encoding would all turn into "a\ufffd".
    const raw = (tool: string, args: string) =>
      post(
        n,
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${tool}",` +
          `"arguments":{"room_id":"${roomId}",${args}}}}`,
        {},
        { key },
      )
    for (const id of ['a\\ud800', 'a\\udc00', 'a\\udfff']) {
      const r = toolReplyOf((await raw('acquire_lock', `"agent_id":"${id}","name":"deploy"`)).json)
      t.match(
        r.body.error,
        { code: 'invalid_request', message: /^agent_id: must be well-formed Unicode/, details: { field: 'agent_id' } },
        `agent_id ${id}`,
      )
    }
    const lock = toolReplyOf((await raw('acquire_lock', '"agent_id":"ann","name":"dep\\ud800loy"')).json)
    t.match(lock.body.error, { code: 'invalid_request', details: { field: 'name' } }, 'a lock name too')
    const paired = toolReplyOf((await raw('acquire_lock', '"agent_id":"a\\ud83d\\ude00","name":"deploy"')).json)
    t.notOk(paired.isError, 'a surrogate pair (an emoji) is a fine id')
    const assign = await call('add_task', { title: 'x', assignee: 'b\ud800' })
    t.match(assign.body.error, { code: 'invalid_request', details: { field: 'assignee' } }, 'an assignee too')
  })

  await t.test('tools/call without a name answers one clear line', async (t) => {
    for (const [params, field] of [
      [{ arguments: {} }, /params\.name is required/],
      [{ name: 7 }, /params\.name is required/],
      [{ name: 'read_plan', arguments: [] }, /params\.arguments must be an object/],
    ] as const) {
      const r = await post(n, { jsonrpc: '2.0', id: 5, method: 'tools/call', params }, {}, { key })
      const error = r.json?.error as { code: number; message: string }
      t.equal(error.code, -32602, `${JSON.stringify(params)}: Invalid params`)
      t.match(error.message, field)
      t.notOk(error.message.includes('\n'), 'on one line')
      t.equal(r.json?.id, 5)
    }
  })

  await t.test(
    'a body that is no JSON-RPC message, or an unknown method, is answered naming what is wrong',
    async (t) => {
      for (const [body, message] of [
        [{ jsonrpc: '2.0', id: 1 }, /not a valid JSON-RPC message: method is missing/],
        [{ id: 1, method: 'tools/list' }, /not a valid JSON-RPC message: jsonrpc is missing; it must be "2.0"/],
        [{ jsonrpc: '1.0', id: 1, method: 'tools/list' }, /: jsonrpc is "1.0"; it must be "2.0"/],
        [{ jsonrpc: '2.0', id: 1, method: 'tools/list', extra: 1 }, /: unknown member extra/],
        [{ jsonrpc: '2.0', id: 1, method: 'tools/explode' }, /^Method not found: tools\/explode$/],
      ] as const) {
        const r = await post(n, body, {}, { key })
        t.match((r.json?.error as { message: string }).message, message, JSON.stringify(body))
      }
    },
  )

  await t.test('create_room_from_template: new_room_id, a slug of name, and room_id deprecated', async (t) => {
    const team = (tool: string, args: Record<string, unknown>) =>
      post(n, legacyCall(tool, args), {}, { key }).then((r) => toolReplyOf(r.json))
    const named = await team('create_room_from_template', { template: 'blank', name: 'CLI Audit Room' })
    t.match(named.body, { room: { room_id: 'cli-audit-room', name: 'CLI Audit Room' } }, 'a slug of the name')
    const byId = await team('create_room_from_template', { template: 'blank', new_room_id: 'by-new-id' })
    t.match(byId.body, { room: { room_id: 'by-new-id' } })
    t.notOk('deprecated' in byId.body)
    const old = await team('create_room_from_template', { template: 'blank', room_id: 'by-old-id' })
    t.match(old.body, { room: { room_id: 'by-old-id' }, deprecated: /room_id is deprecated.*new_room_id/ })
    const both = await team('create_room_from_template', { template: 'blank', room_id: 'a', new_room_id: 'b' })
    t.match(both.body.error, { code: 'invalid_request', details: { field: 'room_id' } })
    const http = await n.call('/admin/rooms', { method: 'POST', key, json: { name: 'HTTP Audit Room' } })
    t.equal(http.status, 201)
    t.match(await http.json(), { room: { roomId: 'http-audit-room' } }, 'POST /admin/rooms {name} slugs alike')
  })

  await t.test('a bad MCP-Protocol-Version lists every revision served, 2026-07-28 included', async (t) => {
    const r = await post(
      n,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'MCP-Protocol-Version': '2024-10-07' },
      { key },
    )
    t.equal(r.status, 400)
    const error = r.json?.error as { message: string; data: { supported: string[] } }
    t.match(error.message, /supported versions: 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05\)$/)
    // Each listed initialize-era revision is really served: initialize negotiates it, and the
    // header is taken afterwards.
    for (const version of error.data.supported.filter((v) => v !== '2026-07-28')) {
      const init = await post(
        n,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'v', version: '1' } },
        },
        {},
        { key },
      )
      t.equal(
        (init.json?.result as { protocolVersion?: string } | undefined)?.protocolVersion,
        version,
        `initialize negotiates ${version}`,
      )
      const list = await post(
        n,
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { 'MCP-Protocol-Version': version },
        { key },
      )
      t.equal(list.status, 200, `tools/list with MCP-Protocol-Version: ${version}`)
    }
  })

  await t.test("an invite key's tools/list omits the team tools it can never call", async (t) => {
    const res = await n.call(`/admin/rooms/${roomId}/invite`, { method: 'POST', key, json: {} })
    const invite = ((await res.json()) as { key: string }).key
    const names = async (k: string, path = '/mcp') =>
      (
        (await post(n, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, {}, { key: k, path })).json?.result as {
          tools: { name: string }[]
        }
      ).tools.map((x) => x.name)
    const team = await names(key)
    const teamTools = n.node.mcp.lists.full.tools
      .map((x) => x.name)
      .filter((x) => ['list_rooms', 'list_templates', 'create_room_from_template'].includes(x))
    t.equal(teamTools.length, 3, 'the three team tools exist')
    for (const x of teamTools) t.ok(team.includes(x), `a team key sees ${x}`)
    const invited = await names(invite)
    t.same(
      invited,
      team.filter((x) => !teamTools.includes(x)),
      'an invite key sees every room tool and no team tool',
    )
    t.same(
      await names(invite, '/mcp?profile=core'),
      (await names(key, '/mcp?profile=core')).filter((x) => !teamTools.includes(x)),
      'in the core profile too',
    )
  })
})
