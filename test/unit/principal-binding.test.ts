// A connection's binding narrows every kind of principal alike (a team key, a room invite key, an
// OAuth grant): what it binds becomes the principal's own binding (bindingOf), the rooms it
// reaches shrink to the bound one (roomFor), the team tools' whole-team reach goes (reachesTeam),
// and what the credential fixes already may be named again but never changed.
import t from 'tap'
import { bindingOf, narrowConnection, reachesTeam, roomFor, type Principal } from '../../src/auth/principal.js'

const team: Principal = { kind: 'team', teamId: 'tm', keyId: 'k1', scope: 'agent', access: 'write' }
const invite: Principal = { kind: 'room', teamId: 'tm', roomId: 'demo', tokenId: 't1', scope: 'agent', access: 'write' }
const grantAll: Principal = {
  kind: 'grant',
  teamId: 'tm',
  roomId: undefined,
  grantId: 'g1',
  agentId: 'worker',
  scope: 'agent',
  access: 'write',
}
const agent = (value: string, field = 'agent') => ({ agent: { value, field } })
const room = (value: string, field = 'room') => ({ room: { value, field } })

t.test('a team key: narrowed to an agent, to a room, to both', async (t) => {
  const a = narrowConnection(team, agent('backend'))
  t.same(bindingOf(a), { agentId: 'backend' })
  t.ok(reachesTeam(a), 'an agent binding keeps the whole team')
  const r = narrowConnection(team, { ...agent('backend'), ...room('demo') })
  t.same(bindingOf(r), { agentId: 'backend', roomId: 'demo' })
  t.notOk(reachesTeam(r), 'a room binding reaches that room only')
  t.same(roomFor(r, 'demo'), { teamId: 'tm', roomId: 'demo' })
  t.equal(roomFor(r, 'other'), undefined, 'another room reads as not found')
  t.match(r, { kind: 'team', keyId: 'k1', scope: 'agent', access: 'write' }, 'the credential is unchanged')
  t.same(bindingOf(team), {}, 'the principal narrowed is a copy: the key itself stays unbound')
  t.ok(reachesTeam(team))
})

t.test('an OAuth grant for every room: bound to one room, its agent named again', async (t) => {
  const g = narrowConnection(grantAll, { ...agent('worker'), ...room('demo') })
  t.same(bindingOf(g), { agentId: 'worker', roomId: 'demo' })
  t.equal(roomFor(g, 'other'), undefined)
  t.throws(() => narrowConnection(grantAll, agent('mallory')), {
    code: 'forbidden',
    message: 'agent: this credential is bound to agent "worker"; its connection may not bind agent "mallory"',
    details: { field: 'agent', bound_agent_id: 'worker' },
  })
})

t.test('a room invite: its room named again, another refused naming the field it came under', async (t) => {
  t.same(bindingOf(narrowConnection(invite, room('demo'))), { roomId: 'demo' })
  t.throws(() => narrowConnection(invite, room('other', 'X-Agentrooms-Room')), {
    code: 'forbidden',
    message: 'X-Agentrooms-Room: this credential reaches only room "demo"; its connection may not bind room "other"',
    details: { field: 'X-Agentrooms-Room', bound_room_id: 'demo' },
  })
  t.throws(() => narrowConnection(invite, agent('human:ann')), { code: 'forbidden', details: { field: 'agent' } })
})
