// Identity bound to the credential: a room invite key minted for an agent acts as that agent. Its
// calls may leave agent_id out; naming another agent is forbidden, naming the bound one; and no
// credential may act as a `human:` id, which belongs to people signed in to the dashboard.
import t from 'tap'
import { callTool, legacyClient } from '../helpers/mcp.js'
import { newTeam, startNode } from '../helpers/node.js'

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

  const alice = await legacyClient(t, n, bound.key)
  const hb = await callTool(alice, 'heartbeat', { room_id: roomId })
  t.notOk(hb.isError, 'agent_id may be left out', { body: hb.body })
  const same = await callTool(alice, 'heartbeat', { room_id: roomId, agent_id: 'alice' })
  t.notOk(same.isError, 'or name the bound agent')
  const other = await callTool(alice, 'heartbeat', { room_id: roomId, agent_id: 'bob' })
  t.ok(other.isError)
  t.match(other.body.error, {
    code: 'forbidden',
    message: 'agent_id: this key is bound to agent "alice"; it may not act as "bob"',
    details: { field: 'agent_id', bound_agent_id: 'alice' },
  })
  const who = await callTool(alice, 'get_presence', { room_id: roomId })
  t.match(JSON.stringify(who.body), /"alice"/, 'the heartbeat was recorded as alice')
  t.notMatch(JSON.stringify(who.body), /"bob"/, 'and nothing as bob')

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
