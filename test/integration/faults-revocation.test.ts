// Revocation reaches what is already open: two nodes on one Redis. A stream
// or a parked wait_for_events on node B, of a key that node A then revokes, ends on B:
// the stream with an `event: revoked` frame and no later event, the wait with an unauthorized
// error instead of the event posted after the revocation. Other keys' streams stay open.
import t from 'tap'
import { legacyCall, parkedWaiters, post, sseMessages, streamedPost, toolReplyOf } from '../helpers/mcp.js'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { eventually } from '../helpers/realtime.js'
import { openStream } from '../helpers/sse.js'
import { BACKENDS } from '../helpers/shared.js'

const ACCEPT = { Accept: 'application/json, text/event-stream' }
/**
 * How long a test waits for what should take well under a second (no timing assertion:
 * bench/faults.ts measures it).
 */
const DEADLINE_MS = 5000

async function postEvent(n: TestNode, key: string, roomId: string, text: string): Promise<void> {
  const r = await post(
    n,
    legacyCall('post_event', { room_id: roomId, agent_id: 'poster', type: 'status', text }),
    ACCEPT,
    { key },
  )
  if (toolReplyOf(r.json).isError) throw new Error(`post_event failed: ${r.text}`)
}

/** The tool reply a streamed wait_for_events ended with: its last SSE message, or its JSON. */
function waitReply(body: string): ReturnType<typeof toolReplyOf> {
  return toolReplyOf(
    body.startsWith('event:') || body.startsWith(':')
      ? sseMessages(body).at(-1)
      : (JSON.parse(body) as Record<string, unknown>),
  )
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const a = await startNode(t, backend)
    const b = await startNode(t, backend)
    const team = await newTeam(a)
    const { room } = await a.node.core.rooms.create(team.teamId, { template: 'blank' }, 'test')
    const roomId = room.room_id as string

    t.test('a team key revoked on A ends its open stream on B', async (t) => {
      const minted = (await (
        await a.call('/admin/keys', { method: 'POST', key: team.key, json: { label: 'streamer' } })
      ).json()) as { key: string; keyId: string }
      const doomed = await openStream(b.base, roomId, { key: minted.key })
      const kept = await openStream(b.base, roomId, { key: team.key })
      t.equal(doomed.status, 200, 'the stream opens on B')
      t.ok(await doomed.waitFor((f) => f.comments.some((c) => c.startsWith('connected'))), 'and is live')
      t.ok(
        await kept.waitFor((f) => f.comments.some((c) => c.startsWith('connected'))),
        'a stream of another key is live too',
      )
      const del = await a.call(`/admin/keys/${minted.keyId}`, { method: 'DELETE', key: team.key })
      const since = Date.now()
      t.equal(del.status, 200, 'A revokes the key')
      const frame = await doomed.waitFor((f) => f.event === 'revoked', DEADLINE_MS)
      const ms = Date.now() - since
      t.ok(frame, 'the stream gets an event: revoked frame')
      t.match(JSON.parse(frame?.data ?? '{}'), { error: { code: 'unauthorized' } }, 'carrying the unauthorized error')
      t.equal(await doomed.done, 'end', 'and the server ends it')
      t.comment(`${ms} ms after the revocation (bench/faults.ts measures it)`)
      await postEvent(a, team.key, roomId, 'after revocation')
      t.ok(await kept.waitFor((f) => f.event === 'status'), "the other key's stream gets the next event")
      t.equal(doomed.events().length, 0, 'the revoked stream got no event')
      kept.close()
    })

    t.test('an invite revoked on A ends its open stream and its parked wait on B', async (t) => {
      const res = await a.call(`/admin/rooms/${roomId}/invite`, {
        method: 'POST',
        key: team.key,
        json: { label: 'guest' },
      })
      const invite = (await res.json()) as { key: string; tokenId: string }
      const stream = await openStream(b.base, roomId, { key: invite.key })
      t.ok(
        await stream.waitFor((f) => f.comments.some((c) => c.startsWith('connected'))),
        "the invite's stream is live on B",
      )
      const drained = await post(
        b,
        legacyCall('get_unread_events', { room_id: roomId, agent_id: 'guest', limit: 100 }),
        ACCEPT,
        { key: invite.key },
      )
      t.notOk(toolReplyOf(drained.json).isError, 'the guest reads what is there, so its wait parks')
      const wait = streamedPost(
        b,
        legacyCall('wait_for_events', { room_id: roomId, agent_id: 'guest', timeout_s: 20 }),
        { Authorization: `Bearer ${invite.key}`, ...ACCEPT },
      )
      t.ok(await eventually(async () => (await parkedWaiters(b)) === 1, 5000), 'its wait_for_events is parked on B')
      const del = await a.call(`/admin/rooms/${roomId}/invites/${invite.tokenId}`, { method: 'DELETE', key: team.key })
      const since = Date.now()
      t.equal(del.status, 200, 'A revokes the invite')
      const body = await wait.done
      const ms = Date.now() - since
      const reply = waitReply(body)
      t.ok(reply.isError, 'the wait returns an error')
      t.equal(reply.body.error?.code, 'unauthorized', 'unauthorized')
      t.comment(`${ms} ms after the revocation (bench/faults.ts measures it)`)
      t.ok(await stream.waitFor((f) => f.event === 'revoked', DEADLINE_MS), 'the stream ends with event: revoked')
      t.equal(await stream.done, 'end')
      await postEvent(a, team.key, roomId, 'after invite revocation')
      t.equal(stream.events().length, 0, 'neither got an event posted after the revocation')
    })

    t.test("a key's connection bound by its headers: revoking the key ends its parked wait", async (t) => {
      const minted = (await (
        await a.call('/admin/keys', { method: 'POST', key: team.key, json: { label: 'bound' } })
      ).json()) as { key: string; keyId: string }
      // The binding narrows the key's principal to a new one: it must be held as the key's is.
      const bound = { ...ACCEPT, 'X-Agentrooms-Agent': 'binder', 'X-Agentrooms-Room': roomId }
      const drained = await post(b, legacyCall('get_unread_events', { limit: 100 }), bound, { key: minted.key })
      t.notOk(toolReplyOf(drained.json).isError, 'the bound connection reads what is there, so its wait parks')
      const wait = streamedPost(b, legacyCall('wait_for_events', { timeout_s: 20 }), {
        Authorization: `Bearer ${minted.key}`,
        ...bound,
      })
      t.ok(await eventually(async () => (await parkedWaiters(b)) === 1, 5000), 'its wait_for_events is parked on B')
      const del = await a.call(`/admin/keys/${minted.keyId}`, { method: 'DELETE', key: team.key })
      t.equal(del.status, 200, 'A revokes the key')
      const body = await wait.done
      const reply = waitReply(body)
      t.ok(reply.isError, 'the wait returns an error, not the 20 s timeout')
      t.equal(reply.body.error?.code, 'unauthorized', 'unauthorized')
    })

    t.test('a stream opened with a key revoked a moment before is ended', async (t) => {
      const minted = (await (
        await a.call('/admin/keys', { method: 'POST', key: team.key, json: { scope: 'admin' } })
      ).json()) as {
        key: string
        keyId: string
      }
      t.equal((await b.call('/admin/me', { key: minted.key })).status, 200, 'B caches the key')
      // Revoked on B's own keyring as a notice would, but with the cache entry kept: the stream is
      // admitted from the cache as a request in flight at the notice would be.
      const principal = await b.node.keyring.authenticate(`Bearer ${minted.key}`)
      const ended: string[] = []
      const release = b.node.keyring.hold(principal, () => ended.push('first'))
      t.equal((await a.call(`/admin/keys/${minted.keyId}`, { method: 'DELETE', key: team.key })).status, 200)
      t.ok(await eventually(() => ended.length === 1, DEADLINE_MS), 'a hold taken before the notice ends')
      b.node.keyring.hold(principal, () => ended.push('late'))
      t.ok(
        await eventually(() => ended.includes('late'), DEADLINE_MS),
        'a hold taken after the notice with the old principal ends at once',
      )
      release()
    })
  })
}
