// What each kind of key reaches over MCP, on both backends: a room tool (heartbeat) and team tools
// (list_rooms, list_templates, create_room_from_template) called with the team key, this room's
// invite, another room's invite, another team's key, and revoked keys. A room the key cannot
// reach is not_found exactly like a room that does not exist; team tools need a team key; a
// revoked key is refused at HTTP level (401), also for a client that connected before.
import t from 'tap'
import { callTool, legacyCall, legacyClient, post, toolReplyOf } from '../helpers/mcp.js'
import { newTeam, startNode } from '../helpers/node.js'
import { eventually } from '../helpers/realtime.js'
import { BACKENDS } from '../helpers/shared.js'

for (const backend of BACKENDS) {
  t.test(`key scopes over MCP (${backend})`, async (t) => {
    const n = await startNode(t, backend)
    const teamA = await newTeam(n)
    const teamB = await newTeam(n)
    const admin = (method: string, path: string, json?: unknown) =>
      n.call(path, { method, key: teamA.key, ...(json !== undefined ? { json } : {}) })
    const roomX = (await n.node.core.rooms.create(teamA.teamId, { template: 'blank' }, 'test')).room.room_id
    const roomY = (await n.node.core.rooms.create(teamA.teamId, { template: 'blank' }, 'test')).room.room_id
    const roomB = (await n.node.core.rooms.create(teamB.teamId, { template: 'blank' }, 'test')).room.room_id
    const invite = async (room: string) =>
      (await (await admin('POST', `/admin/rooms/${room}/invite`, { label: 'scopes' })).json()) as {
        key: string
        tokenId: string
      }
    const inviteX = await invite(roomX)
    const inviteY = await invite(roomY)
    const keys = {
      team: teamA.key,
      'invite here': inviteX.key,
      'invite other room': inviteY.key,
      'other team': teamB.key,
    }
    const heartbeatX = { room_id: roomX, agent_id: 'scoped' }

    await t.test('room tool (heartbeat on room X)', async (t) => {
      const expect: Record<keyof typeof keys, string | undefined> = {
        team: undefined,
        'invite here': undefined,
        'invite other room': 'not_found',
        'other team': 'not_found',
      }
      for (const [name, key] of Object.entries(keys) as [keyof typeof keys, string][]) {
        const client = await legacyClient(t, n, key)
        const r = await callTool(client, 'heartbeat', heartbeatX)
        if (expect[name] === undefined) {
          t.notOk(r.isError, `${name}: allowed`, { body: r.body })
          t.equal(r.body.room_id, roomX)
        } else {
          t.ok(r.isError, `${name}: refused`)
          t.equal(r.body.error?.code, expect[name], `${name}: ${expect[name]}`)
          t.equal(r.body.error?.details?.field, 'room_id', `${name}: names room_id`)
        }
      }
      // Out of reach is indistinguishable from absent: a team key on a room that does not exist.
      const ghost = await callTool(await legacyClient(t, n, teamA.key), 'heartbeat', {
        room_id: 'no-such-room',
        agent_id: 'scoped',
      })
      const otherTeam = await callTool(await legacyClient(t, n, teamB.key), 'heartbeat', heartbeatX)
      t.same(ghost.body.error, { ...otherTeam.body.error }, "another team's room answers exactly like a missing room")
      const inviteBoth = await callTool(await legacyClient(t, n, inviteX.key), 'heartbeat', {
        room_id: roomB,
        agent_id: 'scoped',
      })
      t.equal(inviteBoth.body.error?.code, 'not_found', "an invite cannot reach another team's room either")
    })

    await t.test('team tools', async (t) => {
      for (const [name, key] of Object.entries(keys) as [keyof typeof keys, string][]) {
        const client = await legacyClient(t, n, key)
        const rooms = await callTool(client, 'list_rooms', {})
        const templates = await callTool(client, 'list_templates', {})
        const create = await callTool(client, 'create_room_from_template', { template: 'blank' })
        if (name.startsWith('invite')) {
          for (const [tool, r] of [
            ['list_rooms', rooms],
            ['list_templates', templates],
            ['create_room_from_template', create],
          ] as const) {
            t.ok(r.isError, `${name}: ${tool} refused`)
            t.equal(r.body.error?.code, 'forbidden', `${name}: ${tool} → forbidden`)
            t.match(r.body.error?.message, /team key/, `${name}: ${tool} says a team key is needed`)
          }
        } else {
          t.notOk(rooms.isError, `${name}: list_rooms allowed`)
          const ids = (rooms.body.rooms as { room_id: string }[]).map((r) => r.room_id)
          if (name === 'team')
            t.ok(ids.includes(roomX) && ids.includes(roomY) && !ids.includes(roomB), 'team A sees its own rooms only')
          else t.ok(ids.includes(roomB) && !ids.includes(roomX), 'team B sees its own rooms only')
          t.notOk(templates.isError, `${name}: list_templates allowed`)
          t.notOk(create.isError, `${name}: create_room_from_template allowed`)
        }
      }
      const rooms = (await n.node.core.rooms.list(teamA.teamId, { limit: 500 })).rooms.length
      t.equal(rooms, 3, "the refused creations made no room (X, Y and the team key's own)")
    })

    await t.test('revoked keys: HTTP 401, also for a client connected before', async (t) => {
      const minted = (await (await admin('POST', '/admin/keys', { label: 'soon revoked' })).json()) as {
        key: string
        keyId: string
      }
      const client = await legacyClient(t, n, minted.key)
      t.notOk((await callTool(client, 'list_rooms', {})).isError, 'the key works before revocation')
      t.equal((await admin('DELETE', `/admin/keys/${minted.keyId}`)).status, 200)
      const inviteZ = await invite(roomX)
      t.equal((await admin('DELETE', `/admin/rooms/${roomX}/invites/${inviteZ.tokenId}`)).status, 200)
      for (const [name, key] of [
        ['revoked team key', minted.key],
        ['revoked invite', inviteZ.key],
      ]) {
        const refused = await eventually(
          async () => (await post(n, legacyCall('heartbeat', heartbeatX), {}, { key })).status === 401,
          2000,
        )
        t.ok(refused, `${name}: refused`)
        for (const [tool, args] of [
          ['heartbeat', heartbeatX],
          ['list_rooms', {}],
        ] as const) {
          const r = await post(n, legacyCall(tool, args), {}, { key })
          t.equal(r.status, 401, `${name}: ${tool} → HTTP 401`)
          t.match(r.headers.get('www-authenticate'), /^Bearer/, `${name}: WWW-Authenticate: Bearer`)
          t.equal((r.json?.error as { code: string }).code, 'unauthorized')
        }
      }
      await t.rejects(
        client.callTool({ name: 'list_rooms', arguments: {} }),
        'the client connected before revocation is refused',
      )
      const still = await post(n, legacyCall('heartbeat', heartbeatX), {}, { key: inviteX.key })
      t.notOk(toolReplyOf(still.json).isError, 'other keys keep working')
    })
  })
}
