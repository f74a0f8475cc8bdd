// Identity bound to the credential: a room invite key minted for an agent, or an OAuth grant, acts
// as that agent. Its calls may leave agent_id out (and room_id, when it reaches one room); naming
// another agent is forbidden, naming the bound one; and no credential may act as a `human:` id,
// which belongs to people signed in to the dashboard. Its tools/list (the bound listing) leaves
// out of every input schema what the credential fixes; an unbound team key's listing is the
// full one. Both protocol eras: the SDK 1.x client (initialize) and the 2.x client (2026-07-28).
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import t, { type Test } from 'tap'
import { listEntry } from '../../src/mcp/host.js'
import { ALL_TOOLS } from '../../src/mcp/tools/index.js'
import { signedInOperator } from '../helpers/accounts.js'
import { keyIn } from '../helpers/mail.js'
import { callTool, legacyClient, modernClient } from '../helpers/mcp.js'
import { MemoryAuthProvider } from '../helpers/mcp-oauth.js'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { uid } from '../helpers/shared.js'

type Listed = { tools: Tool[] }
type AnyClient = Parameters<typeof callTool>[0] & { listTools(): Promise<Listed> }

/** The legacy and the modern client of one key. */
async function bothEras(t: Test, n: TestNode, key: string): Promise<[string, AnyClient][]> {
  return [
    ['legacy', (await legacyClient(t, n, key)) as unknown as AnyClient],
    ['modern', (await modernClient(t, n, key)) as unknown as AnyClient],
  ]
}

const props = (tool: Tool) => (tool.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>

/**
 * Holds a listing to a binding: agent_id never listed when the agent is bound; room_id never
 * listed when the room is, except as the one nullable argument of a tool that takes nothing else.
 */
function heldTo(t: Test, list: Listed, bound: { agent: boolean; room: boolean }, era: string): void {
  t.ok(list.tools.length > 0, `${era}: tools are listed`)
  const offenders: string[] = []
  for (const tool of list.tools) {
    if (['list_rooms', 'list_templates', 'create_room_from_template'].includes(tool.name))
      offenders.push(`${tool.name}: a team tool`)
    const p = props(tool)
    if (bound.agent && 'agent_id' in p) offenders.push(`${tool.name}: agent_id listed`)
    if (!bound.agent && p.agent_id?.type !== 'string') offenders.push(`${tool.name}: agent_id not listed, required`)
    if (!bound.room && p.room_id?.type !== 'string') offenders.push(`${tool.name}: room_id not listed, required`)
    if (
      bound.room &&
      'room_id' in p &&
      (Object.keys(p).length !== 1 || JSON.stringify(p.room_id!.type) !== '["string","null"]')
    )
      offenders.push(`${tool.name}: room_id listed beside other arguments, or not nullable`)
  }
  t.same(offenders, [], `${era}: the listing is held to the binding ${JSON.stringify(bound)}`)
}

t.test('a key bound to an agent acts as it, and only as it', async (t) => {
  const n = await startNode(t, 'standalone')
  const team = await newTeam(n)
  const roomId = (await n.node.core.rooms.create(team.teamId, { template: 'blank' }, 'test')).room.room_id
  const mint = async (json: unknown) => {
    const res = await n.call(`/admin/rooms/${roomId}/invite`, { method: 'POST', key: team.key, json })
    t.equal(res.status, 201)
    return (await res.json()) as { key: string; agentId?: string }
  }
  const bound = await mint({ label: 'alice', agentId: 'alice' })
  t.equal(bound.agentId, 'alice', 'the invite names its agent')
  const unbound = await mint({ label: 'anyone' })
  t.notOk(unbound.agentId)
  const teamClient = await legacyClient(t, n, team.key)

  for (const [era, alice] of await bothEras(t, n, bound.key)) {
    t.test(`${era}: the bound listing, and calls without room_id or agent_id`, async (t) => {
      heldTo(t, await alice.listTools(), { agent: true, room: true }, era)
      const hb = await callTool(alice, 'heartbeat', {})
      t.notOk(hb.isError, 'room_id and agent_id may be left out', { body: hb.body })
      t.equal(hb.body.room_id, roomId, 'the reply names the bound room')
      const nulls = await callTool(alice, 'heartbeat', { room_id: null, agent_id: null })
      t.notOk(nulls.isError, 'null reads as left out', { body: nulls.body })
      t.notOk((await callTool(alice, 'heartbeat', { room_id: roomId })).isError, 'agent_id may be left out')
      const same = await callTool(alice, 'heartbeat', { room_id: roomId, agent_id: 'alice' })
      t.notOk(same.isError, 'or name the bound agent and room')
      const posted = await callTool(alice, 'post_event', { type: 'note', text: `from ${era}` })
      t.notOk(posted.isError, 'a write without them', { body: posted.body })
      const feed = await callTool(teamClient, 'read_events', { room_id: roomId, agent_id: 'reader', limit: 100 })
      const mine = (feed.body.events as { text?: string; agent_id: string }[]).find((e) => e.text === `from ${era}`)
      t.equal(mine?.agent_id, 'alice', 'recorded as the bound agent')
      const other = await callTool(alice, 'heartbeat', { agent_id: 'bob' })
      t.ok(other.isError)
      t.match(other.body, { room_id: roomId })
      t.match(other.body.error, {
        code: 'forbidden',
        message: 'agent_id: this key is bound to agent "alice"; it may not act as "bob"',
        details: { field: 'agent_id', bound_agent_id: 'alice' },
      })
      const elsewhere = await callTool(alice, 'heartbeat', { room_id: 'another-room' })
      t.match(elsewhere.body.error, { code: 'not_found', details: { field: 'room_id' } }, 'another room: not found')
      const who = await callTool(alice, 'get_presence', {})
      t.match(JSON.stringify(who.body), /"alice"/, 'the heartbeat was recorded as alice')
      t.notMatch(JSON.stringify(who.body), /"bob"/, 'and nothing as bob')
    })
  }

  for (const [era, anyone] of await bothEras(t, n, unbound.key)) {
    t.test(`${era}: an invite bound to its room only`, async (t) => {
      heldTo(t, await anyone.listTools(), { agent: false, room: true }, era)
      const hb = await callTool(anyone, 'heartbeat', { agent_id: 'carol' })
      t.notOk(hb.isError, 'room_id may be left out', { body: hb.body })
      const none = await callTool(anyone, 'heartbeat', {})
      t.match(none.body.error, { code: 'invalid_request', details: { field: 'agent_id' } }, 'agent_id is needed')
    })
  }

  for (const [era, client] of await bothEras(t, n, team.key)) {
    t.test(`${era}: a team key's listing is the unbound one`, async (t) => {
      const list = await client.listTools()
      t.same(
        list.tools.map((x) => x.inputSchema),
        ALL_TOOLS.map((d) => listEntry(d).inputSchema),
        'every tool, every schema as the unbound listing has it',
      )
      t.ok(
        list.tools.some((x) => x.name === 'list_rooms'),
        'with the team tools',
      )
      const missing = await callTool(client, 'heartbeat', { agent_id: 'dave' })
      t.match(missing.body.error, { code: 'invalid_request', details: { field: 'room_id' } }, 'room_id is needed')
    })
  }

  for (const [name, key] of [
    ['the team key', team.key],
    ['an unbound invite', unbound.key],
  ] as const) {
    const r = await callTool(await legacyClient(t, n, key), 'post_event', {
      room_id: roomId,
      agent_id: 'human:owner',
      type: 'note',
      text: 'Approved: ship it',
    })
    t.ok(r.isError, `${name}: may not act as a person`)
    t.match(r.body.error, { code: 'forbidden', message: /human: ids are reserved for people/ })
  }
})

t.test('an OAuth grant: bound to its agent, and to its room when it has one', async (t) => {
  const { n, b, first } = await signedInOperator(t)
  const adminKey = keyIn(first)!
  const teamId = (await n.node.accounts.session(b.jar.get('ar_session')!))!.team
  const roomId = uid('room')
  await n.node.core.rooms.create(teamId, { room_id: roomId }, 'test')
  // The token's resource is the node's /mcp by the name the client used.
  const base = n.base.replace('127.0.0.1', 'localhost')
  b.base = base
  const local = { ...n, base }
  const grant = async (room: string, agent: string) => {
    const provider = new MemoryAuthProvider('http://127.0.0.1:40224/callback', undefined, `Agent ${agent}`)
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider })
    await t.rejects(new Client({ name: 'bound-test', version: '1.0.0' }).connect(transport), /Unauthorized/)
    const toConsent = await b.get(provider.authorizationUrl!.toString())
    const form = { team: teamId, room, agent, access: 'write', decision: 'allow' }
    const answered = await b.post(toConsent.location!, form)
    const to = new URL((await b.get(answered.location!)).location!)
    await transport.finishAuth(to.searchParams.get('code')!)
    return provider.saved!.access_token
  }
  const reader = await legacyClient(t, n, adminKey)
  const recordedAs = async (text: string) => {
    const feed = await callTool(reader, 'read_events', { room_id: roomId, agent_id: 'reader', limit: 100 })
    return (feed.body.events as { text?: string; agent_id: string }[]).find((e) => e.text === text)?.agent_id
  }

  const oneRoom = await grant(roomId, 'builder')
  for (const [era, client] of await bothEras(t, local, oneRoom)) {
    t.test(`${era}: a grant for one room`, async (t) => {
      heldTo(t, await client.listTools(), { agent: true, room: true }, era)
      const posted = await callTool(client, 'post_event', { type: 'status', text: `built ${era}` })
      t.notOk(posted.isError, 'no room_id, no agent_id', { body: posted.body })
      t.equal(posted.body.room_id, roomId)
      t.equal(await recordedAs(`built ${era}`), 'builder', 'as its bound agent')
      const other = await callTool(client, 'heartbeat', { agent_id: 'mallory' })
      t.match(other.body.error, { code: 'forbidden', details: { bound_agent_id: 'builder' } })
    })
  }

  const everyRoom = await grant('*', 'worker')
  for (const [era, client] of await bothEras(t, local, everyRoom)) {
    t.test(`${era}: a grant for every room of the team`, async (t) => {
      heldTo(t, await client.listTools(), { agent: true, room: false }, era)
      const posted = await callTool(client, 'post_event', { room_id: roomId, type: 'status', text: `work ${era}` })
      t.notOk(posted.isError, 'no agent_id', { body: posted.body })
      t.equal(await recordedAs(`work ${era}`), 'worker', 'as its bound agent')
      const missing = await callTool(client, 'heartbeat', {})
      t.match(missing.body.error, { code: 'invalid_request', details: { field: 'room_id' } }, 'room_id is needed')
    })
  }
})
