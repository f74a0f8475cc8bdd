// The plain tools/call fast path (McpHost.fastCall) and the SDK server answer byte-alike: every
// request of the matrix is sent twice, once with the fast path on and once with it off
// (McpHost.fastPath = false: every call through the SDK server), and the two answers must have
// the same status, Content-Type and body bytes. The matrix: every tool with good arguments, a
// tool error (a room out of reach, or a team tool with an invite key), an unknown argument, an
// unknown tool, a tool the core profile hides, and invite-key scope, each in both protocol eras.
// Mutations carry an idempotency key, so the second call of a pair replays the first's result
// instead of changing the room again; which path goes first alternates, so each path really runs
// half of them. Malformed params (arguments not an object, no name, no params) have no second
// path to compare: McpHost.fastCall refuses them before it reads fastPath. They are checked as
// refusals instead: sent once with the fast path off, answered without the SDK server.
//
// A read whose reply counts time from each call's own clock would make a pair differ while the
// paths agree, so none is compared where the clock can move it: list_locks runs when the room
// holds no lock (a held one shows expires_in_s, rounded up per call), and presence lasts an hour
// here, so no agent goes offline between the two calls of get_presence, get_room_info,
// get_my_summary or get_room_analytics. The rest stands still for the test's length: a room's
// last_active_at moves once per touch interval (5 minutes), and get_room_analytics' window of
// UTC days only at midnight.
import t from 'tap'
import type { McpHost } from '../../src/mcp/host.js'
import { ALL_TOOLS, CORE_TOOL_NAMES } from '../../src/mcp/tools/index.js'
import { envelope, legacyCall, modernHeaders, post, toolReplyOf, type RawReply } from '../helpers/mcp.js'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { goodArgs, matrixRoom, type Args } from '../helpers/tool-matrix.js'

/** A tools/call body of either era; `params` replaces {name, arguments} when given. */
function callBody(era: 'legacy' | 'modern', name: string, args: unknown, params?: Args): Args {
  const p = params ?? { name, arguments: args }
  if (era === 'legacy') return { ...legacyCall(name, {}, 7), params: p }
  return { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { ...p, _meta: envelope() } }
}

t.test('fast path and SDK server answer byte-alike (standalone)', async (t) => {
  // An hour's presence TTL: who is online cannot change between the two calls of a pair. Every
  // tool twice in two eras is more calls a minute than one credential's default budget.
  const n: TestNode = await startNode(t, 'standalone', {
    presenceTtlMs: 3_600_000,
    rateLimitPerMin: 1_000_000,
    rateLimitPerCredentialPerMin: 500_000,
  })
  const host: McpHost = n.node.mcp
  const { key, teamId } = await newTeam(n)
  const other = (await n.node.core.rooms.create(teamId, { template: 'blank' }, 'test')).room.room_id
  /** A room of its own for each era, with what the good calls act on. */
  const setup = () => matrixRoom(n, teamId, key)

  // Counts what reaches the SDK server (its transport), to know which path answered.
  let viaSdk = 0
  const request = host.transport.request.bind(host.transport)
  host.transport.request = (...a: Parameters<typeof request>) => {
    viaSdk++
    return request(...a)
  }
  t.teardown(() => {
    host.transport.request = request
    host.fastPath = true
  })

  let pairs = 0
  /** Sends one request with the fast path on and off (order by `sdkFirst`) and compares the answers. */
  const headersOf = (era: 'legacy' | 'modern', body: Args) => {
    const name = (body.params as { name?: unknown } | undefined)?.name
    return era === 'modern' ? modernHeaders('tools/call', typeof name === 'string' ? name : undefined) : {}
  }
  const both = async (
    what: string,
    era: 'legacy' | 'modern',
    body: Args,
    opts: { key?: string; profile?: string; sdkFirst?: boolean } = {},
  ) => {
    const headers = headersOf(era, body)
    const path = opts.profile ? `/mcp?profile=${opts.profile}` : '/mcp'
    const send = async (fast: boolean): Promise<RawReply & { sdk: number }> => {
      host.fastPath = fast
      const before = viaSdk
      const r = await post(n, body, headers, { key: opts.key ?? key, path })
      return { ...r, sdk: viaSdk - before }
    }
    const first = await send(!opts.sdkFirst)
    const second = await send(!!opts.sdkFirst)
    const [fast, sdk] = opts.sdkFirst ? [second, first] : [first, second]
    pairs++
    const label = `${era} ${what}`
    t.equal(fast.status, sdk.status, `${label}: same status`)
    t.equal(fast.headers.get('content-type'), sdk.headers.get('content-type'), `${label}: same Content-Type`)
    t.equal(fast.text, sdk.text, `${label}: same body bytes`)
    t.equal(fast.sdk, 0, `${label}: the fast path answered without the SDK server`)
    t.equal(sdk.sdk, 1, `${label}: the other call went through the SDK server`)
    return fast
  }

  /**
   * A malformed tools/call: one path only, since fastCall refuses it before it reads fastPath (the
   * SDK server would answer a zod dump instead). Sent with the fast path off, it must still be
   * answered without the SDK server, as -32602 with the one line naming the fault.
   */
  const refusal = async (what: string, era: 'legacy' | 'modern', body: Args, message: string) => {
    host.fastPath = false
    const before = viaSdk
    const r = await post(n, body, headersOf(era, body), { key })
    const label = `${era} ${what}`
    t.equal(viaSdk - before, 0, `${label}: refused before the fork, even with the fast path off`)
    t.equal(r.status, 200, `${label}: 200, as -32602 is in either era`)
    t.equal(r.headers.get('content-type'), 'application/json', `${label}: JSON`)
    t.same(r.json?.error, { code: -32602, message }, `${label}: -32602, ${message}`)
  }

  for (const era of ['legacy', 'modern'] as const) {
    const { room, invite, refs } = await setup()
    await t.test(`${era}: every tool, good calls`, async (t) => {
      let i = 0
      for (const [name, extra] of goodArgs(refs)) {
        const def = ALL_TOOLS.find((d) => d.name === name)!
        const args: Args = {
          ...(def.scope === 'room' ? { room_id: room, agent_id: 'agent' } : {}),
          ...extra,
          ...(def.mutates ? { idempotency_key: `${era}-${name}` } : {}),
        }
        const r = await both(`${name} (good)`, era, callBody(era, name, args), { sdkFirst: i++ % 2 === 1 })
        t.equal(r.status, 200)
        const reply = toolReplyOf(r.json)
        t.notOk(reply.isError, `${era} ${name}: a good call succeeds`, { body: reply.body })
        if (name === 'list_locks')
          t.same(reply.body.locks, [], `${era} list_locks: no lock held, so nothing in the reply reads the clock`)
      }
      t.same(
        goodArgs(refs)
          .map(([name]) => name)
          .sort(),
        ALL_TOOLS.map((d) => d.name).sort(),
        'the matrix covers every tool',
      )
    })

    await t.test(`${era}: every tool, tool errors and bad arguments`, async (t) => {
      const good = new Map(goodArgs(refs))
      for (const def of ALL_TOOLS) {
        const base: Args = {
          ...(def.scope === 'room' ? { room_id: 'no-such-room', agent_id: 'agent' } : {}),
          ...good.get(def.name),
        }
        if (def.scope === 'room') {
          const r = await both(`${def.name} (room out of reach)`, era, callBody(era, def.name, base))
          t.equal(toolReplyOf(r.json).body.error?.code, 'not_found', `${def.name}: not_found`)
        }
        const unknownArg = await both(
          `${def.name} (unknown argument)`,
          era,
          callBody(era, def.name, { ...base, surprise: true }),
        )
        t.equal(
          toolReplyOf(unknownArg.json).body.error?.code,
          'invalid_request',
          `${def.name}: unknown argument refused`,
        )
        await refusal(
          `${def.name} (arguments not an object)`,
          era,
          callBody(era, def.name, 'text'),
          'Invalid params: params.arguments must be an object',
        )
      }
    })

    await t.test(`${era}: protocol errors and key scope`, async (t) => {
      const unknown = await both('unknown tool', era, callBody(era, 'no_such_tool', {}))
      t.match(unknown.json?.error, { code: -32602, message: /unknown tool: no_such_tool/ })
      await refusal(
        'missing name',
        era,
        callBody(era, '', undefined, { arguments: {} }),
        'Invalid params: params.name is required: the name of the tool to call (a string; see tools/list)',
      )
      // A modern request without params has no envelope either: era.ts refuses it earlier.
      if (era === 'legacy')
        await refusal(
          'no params',
          era,
          { jsonrpc: '2.0', id: 7, method: 'tools/call' },
          'Invalid params: tools/call needs params {name, arguments}',
        )
      for (const def of ALL_TOOLS.filter((d) => !CORE_TOOL_NAMES.includes(d.name))) {
        const hidden = await both(`${def.name} (hidden by the core profile)`, era, callBody(era, def.name, {}), {
          profile: 'core',
        })
        t.match(hidden.json?.error, { code: -32602, message: /not in the core profile/ }, `${def.name}: hidden`)
      }
      const core = await both(
        'heartbeat (core profile)',
        era,
        callBody(era, 'heartbeat', { room_id: room, agent_id: 'agent', idempotency_key: `${era}-core-hb` }),
        { profile: 'core' },
      )
      t.notOk(toolReplyOf(core.json).isError)
      for (const def of ALL_TOOLS.filter((d) => d.scope === 'team')) {
        const r = await both(
          `${def.name} (invite key)`,
          era,
          callBody(era, def.name, def.name === 'create_room_from_template' ? { template: 'blank' } : {}),
          { key: invite },
        )
        t.equal(toolReplyOf(r.json).body.error?.code, 'forbidden', `${def.name}: an invite key is refused`)
      }
      const elsewhere = await both(
        'heartbeat (invite key, other room)',
        era,
        callBody(era, 'heartbeat', { room_id: other, agent_id: 'agent' }),
        { key: invite },
      )
      t.equal(toolReplyOf(elsewhere.json).body.error?.code, 'not_found')
      const here = await both(
        'heartbeat (invite key, its room)',
        era,
        callBody(era, 'heartbeat', { room_id: room, agent_id: 'agent', idempotency_key: `${era}-invite-hb` }),
        { key: invite },
      )
      t.notOk(toolReplyOf(here.json).isError)
    })
  }
  t.ok(pairs > 300, `${pairs} requests compared`)
})
