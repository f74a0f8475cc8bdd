// Archiving and deleting a room through the admin API, on standalone Redis and on a Cluster: an
// archived room refuses agents' writes (room_archived, naming the room) while reads, search and the
// snapshot go on, keeps its keys without a TTL, and is writable again once restored; deleting a
// room leaves no key of it on any master, no search documents, and no invite key that works.
import t from 'tap'
import { testPrefix, traces } from '../helpers/accounts.js'
import { callTool, legacyClient } from '../helpers/mcp.js'
import { newTeam, startNode } from '../helpers/node.js'
import { BACKENDS, rawClient, uid } from '../helpers/shared.js'
import { TEMPLATES } from '../../src/core/templates.js'

const webApp = TEMPLATES.find((x) => x.id === 'web-app')!

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const prefix = testPrefix()
    const n = await startNode(t, backend, { keyPrefix: prefix })
    const { teamId, key } = await newTeam(n)
    const raw = rawClient(backend)
    t.teardown(() => raw.quit())
    const roomId = uid('arch')
    const admin = (path: string, method = 'POST', k = key) =>
      n.call(`/admin/rooms/${roomId}${path}`, { key: k, method })
    t.equal((await n.call('/admin/rooms', { key, method: 'POST', json: { roomId, template: 'web-app' } })).status, 201)
    const inv = await n.call(`/admin/rooms/${roomId}/invite`, { key, method: 'POST', json: {} })
    const invite = ((await inv.json()) as { key: string }).key
    const agent = await legacyClient(t, n, invite)
    const at = { room_id: roomId, agent_id: 'dev' }
    t.notOk((await callTool(agent, 'write_context', { ...at, type: 'note', key: 'k', body: 'v1' })).isError)
    t.notOk((await callTool(agent, 'post_event', { ...at, type: 'message', text: 'searchable words' })).isError)
    t.notOk((await callTool(agent, 'acquire_lock', { ...at, name: 'db', ttl_s: 600 })).isError)
    const meta = `${prefix}:{r:${teamId}/${roomId}}:meta`

    t.test('an archived room refuses writes, naming its state, and keeps serving reads', async (t) => {
      const res = await admin('/archive')
      t.equal(res.status, 200)
      const { room } = (await res.json()) as { room: { archivedAt?: string } }
      t.ok(room.archivedAt, 'archivedAt is set')
      t.equal(await raw.pttl(meta), -1, 'its keys are kept: no TTL')
      const again = await admin('/archive')
      t.equal(again.status, 409)
      t.match(((await again.json()) as { error: { message: string } }).error.message, 'already archived')
      for (const [tool, args] of [
        ['write_context', { type: 'note', key: 'k', body: 'v2' }],
        ['post_event', { type: 'message', text: 'hello' }],
        ['add_task', { title: 'more work' }],
        ['acquire_lock', { name: 'cache', ttl_s: 60 }],
      ] as const) {
        const r = await callTool(agent, tool, { ...at, ...args })
        t.ok(r.isError, `${tool} is refused`)
        t.match(r.body.error, {
          code: 'room_archived',
          message: new RegExp(`room ${roomId} is archived, so it is read-only`),
          details: { state: 'archived', room_id: roomId },
        })
      }
      const read = await callTool(agent, 'read_context', { ...at, type: 'note', key: 'k' })
      t.notOk(read.isError, 'reads work')
      t.match(JSON.stringify(read.body), 'v1', 'and nothing changed')
      t.notOk((await callTool(agent, 'read_events', at)).isError, 'read_events works (moving the cursor)')
      t.equal((await n.call(`/room/${roomId}`, { key })).status, 200, 'the snapshot works')
      const found = await n.call(`/rooms/${roomId}/search?q=searchable`, { key })
      t.equal(found.status, 200, 'search works')
      t.equal(await raw.pttl(meta), -1, 'reads gave it no TTL')
      const list = (await (await n.call('/admin/rooms', { key })).json()) as {
        rooms: { roomId: string; archivedAt?: string }[]
      }
      t.ok(list.rooms.find((r) => r.roomId === roomId)?.archivedAt, 'listed as archived')
    })

    t.test('restored, it is writable again and expires as any room', async (t) => {
      const res = await admin('/restore')
      t.equal(res.status, 200)
      t.notOk(((await res.json()) as { room: { archivedAt?: string } }).room.archivedAt)
      t.ok((await raw.pttl(meta)) > 0, 'the room TTL again')
      t.notOk((await callTool(agent, 'write_context', { ...at, type: 'note', key: 'k', body: 'v2' })).isError)
      t.equal((await admin('/restore')).status, 409, 'restoring a room that is not archived is a conflict')
    })

    t.test('an agent-scope key may not archive or delete; the refusal names the scope', async (t) => {
      const minted = await n.call('/admin/keys', { key, method: 'POST', json: {} })
      const agentKey = ((await minted.json()) as { key: string }).key
      for (const [path, method] of [
        ['/archive', 'POST'],
        ['', 'DELETE'],
      ] as const) {
        const res = await admin(path, method, agentKey)
        t.equal(res.status, 403)
        t.match(((await res.json()) as { error: { message: string } }).error.message, /admin scope/)
      }
    })

    t.test('deleting removes every key of the room, its search entries and its invite keys', async (t) => {
      t.equal((await admin('/archive')).status, 200, 'archived rooms can be deleted')
      const res = await admin('', 'DELETE')
      t.equal(res.status, 200)
      const gone = (await res.json()) as Record<string, number>
      t.match(gone, { roomId, tasks: webApp.tasks.length, context: webApp.context.length + 1, invites: 1, live: 1 })
      t.equal(gone.events, 1, 'the one event')
      t.ok(gone.keys! >= 8, `keys counted (${gone.keys})`)
      const left = await traces(raw, prefix, [`${teamId}/${roomId}`, roomId])
      t.same(
        left.filter((l) => !l.includes(':audit: ')),
        [],
        'nothing of the room on any master but the audit trail',
      )
      t.equal((await n.call(`/room/${roomId}`, { key })).status, 404, 'the snapshot: not found')
      t.equal((await n.call(`/rooms/${roomId}/search?q=searchable`, { key })).status, 404, 'search: not found')
      t.equal((await n.call(`/room/${roomId}`, { key: invite })).status, 401, 'the invite key is gone')
      t.equal((await admin('', 'DELETE')).status, 404, 'deleting again: not found')
      const audit = (await (await n.call('/admin/audit', { key })).json()) as {
        entries: { action: string; target?: string }[]
      }
      const actions = audit.entries.map((e) => `${e.action} ${e.target ?? ''}`)
      for (const a of ['archived room', 'restored room', 'deleted room'])
        t.ok(
          actions.some((x) => x.startsWith(`${a} ${roomId}`)),
          `audited: ${a}`,
        )
      t.ok(
        actions.some((x) =>
          /deleted room \S+ \(\d+ tasks, 1 events, \d+ context entries, \d+ keys, 1 room invite keys\)/.test(x),
        ),
        'with what went',
      )
    })
  })
}
