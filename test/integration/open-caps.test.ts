// What one tenant keeps open on a node is capped (OPEN_PER_CREDENTIAL, OPEN_PER_TEAM): room
// streams, subscriptions/listen streams, parked wait_for_events calls and Stop-hook waits all
// count; past a cap the next one is refused with limit_reached naming the cap, before anything
// opens or is consumed; a closed stream frees its place; other teams are not affected.
import t from 'tap'
import { holderOf } from '../../src/auth/open-caps.js'
import { legacyCall, modernBody, modernHeaders, post, streamedPost, toolReplyOf } from '../helpers/mcp.js'
import { newTeam, startNode } from '../helpers/node.js'
import { openStream } from '../helpers/sse.js'
import { eventually } from '../helpers/wait.js'

interface Refusal {
  error: { code: string; message: string; details?: { field?: string; limit?: number } }
}

t.test('open streams and waits are capped per credential and per team, on each node', async (t) => {
  const n = await startNode(t, 'standalone', { openPerCredential: 2, openPerTeam: 3, rateLimitPerMin: 1_000_000 })
  const team = await newTeam(n)
  const second = (await n.node.teams.mintTeamKey(team.teamId, { label: 'second' })).key
  const other = await newTeam(n)
  const room = (await n.node.core.rooms.create(team.teamId, { template: 'blank' }, 'test')).room.room_id
  const otherRoom = (await n.node.core.rooms.create(other.teamId, { template: 'blank' }, 'test')).room.room_id
  const opened: { close(): void }[] = []
  t.teardown(() => opened.forEach((s) => s.close()))
  const stream = async (key: string, roomId = room) => {
    const s = await openStream(n.base, roomId, { key })
    opened.push(s)
    return s
  }

  const a1 = await stream(team.key)
  const a2 = await stream(team.key)
  t.same([a1.status, a2.status], [200, 200], 'two streams of one key')
  const a3 = await stream(team.key)
  t.equal(a3.status, 409, 'a third is refused')
  const refusal = JSON.parse(a3.body) as Refusal
  t.equal(refusal.error.code, 'limit_reached')
  t.match(refusal.error.message, /holds 2 open streams and waits on this node; the limit is 2 \(OPEN_PER_CREDENTIAL\)/)
  t.same(refusal.error.details, { field: 'streams', limit: 2 }, 'naming the field and the limit')

  const wait = await post(
    n,
    legacyCall('wait_for_events', { room_id: room, agent_id: 'w', timeout_s: 5 }),
    {},
    {
      key: team.key,
      timeoutMs: 10_000,
    },
  )
  const waited = toolReplyOf(wait.json)
  t.ok(waited.isError, 'a wait that would park is refused too')
  t.match(JSON.stringify(waited.body), /OPEN_PER_CREDENTIAL/)

  const listen = streamedPost(
    n,
    modernBody('subscriptions/listen', { notifications: { resourcesListChanged: true } }, 'L'),
    {
      ...modernHeaders('subscriptions/listen'),
      Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${team.key}`,
    },
  )
  const listened = await listen.done
  t.match(listened, /OPEN_PER_CREDENTIAL/, 'and so is a listen stream')

  const b1 = await stream(second)
  t.equal(b1.status, 200, "another key of the team has its own place, within the team's")
  const b2 = await stream(second)
  t.equal(b2.status, 409, "past the team's cap")
  t.match((JSON.parse(b2.body) as Refusal).error.message, /team .* holds 3 open streams .* \(OPEN_PER_TEAM\)/)
  const hook = await n.call(`/rooms/${room}/agents/h/hooks/stop?wait_s=5`, { method: 'POST', key: second, json: {} })
  t.equal(hook.status, 409, "a Stop hook's wait counts too")

  const c1 = await stream(other.key, otherRoom)
  t.equal(c1.status, 200, 'another team is not affected')

  a1.close()
  const holder = holderOf(await n.node.keyring.authenticate(`Bearer ${team.key}`))
  t.ok(await eventually(() => n.node.openCaps.held(holder).credential === 1), 'a closed stream frees its place')
  t.equal((await stream(team.key)).status, 200, 'and the key opens one again')
})
