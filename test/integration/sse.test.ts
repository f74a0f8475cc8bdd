// GET /rooms/:roomId/stream on real nodes over real Redis, standalone and cluster: delivery
// across nodes and the frame format, resuming with Last-Event-ID (header and query) without loss
// or duplicates, the gap frame behind the trimmed history, dropping a consumer that stops
// reading, and which keys may open a room's stream.
import t, { type Test } from 'tap'
import { once } from 'node:events'
import { connect } from 'node:net'
import type { Caller } from '../../src/core/fields.js'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { eventually, sleep } from '../helpers/realtime.js'
import { BACKENDS } from '../helpers/shared.js'
import { eventOf, openStream, type SseStream } from '../helpers/sse.js'

/** A room of `teamId`, created through `n`'s core; and a caller posting in it as `agent`. */
async function newRoomOn(n: TestNode, teamId: string, agent = 'alice'): Promise<{ roomId: string; as: Caller }> {
  const { room } = await n.node.core.rooms.create(teamId, { template: 'blank' }, 'test')
  return { roomId: room.room_id, as: { room: { teamId, roomId: room.room_id }, agent } }
}

/** Waits for the stream's "connected" comment: the node writes it once the stream is live. */
async function live(t: Test, s: SseStream): Promise<void> {
  t.teardown(() => s.close())
  t.equal(s.status, 200, 'the stream opened')
  t.ok(await s.waitFor((f) => f.comments.some((c) => c.startsWith('connected'))), 'the stream says it is connected')
}

const gauge = async (n: TestNode) => (await n.node.metrics.sseConnections.get()).values[0]?.value ?? 0

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('an event posted through node A reaches a stream on node B, framed as id / event / data', async (t) => {
      const a = await startNode(t, backend)
      const b = await startNode(t, backend, { sseKeepaliveMs: 200 })
      const team = await newTeam(a)
      const room = await newRoomOn(a, team.teamId)
      const s = await openStream(b.base, room.roomId, { key: team.key })
      await live(t, s)
      t.match(s.headers.get('content-type'), /^text\/event-stream/)
      t.equal(s.headers.get('cache-control'), 'no-store, no-transform')
      t.match(s.text, /^retry: \d+\n/, 'the first bytes carry a retry hint')
      t.ok((s.frames[0]?.retry ?? 0) > 0, 'parsed as a retry field')

      const posted = await a.node.core.events.post(room.as, {
        type: 'status',
        text: 'hello from A',
        data: { pct: 5, tags: ['x'] },
      })
      const f = await s.waitFor((x) => x.id === posted.event.id)
      t.ok(f, 'the frame arrived on B')
      t.equal(f?.event, 'status', 'event: the event type')
      t.same(eventOf(f!), posted.event, 'data: the event JSON, as the post returned it')
      t.equal(f?.data?.includes('\n'), false, 'one data line')

      const keepalive = await s.waitFor((x) => x.comments.includes('keep-alive'), 4000)
      t.ok(keepalive, 'a keep-alive comment arrives (SSE_KEEPALIVE_S, 200 ms here)')
      t.equal(s.events().length, 1, 'nothing else was framed as an event')
      t.equal(await gauge(b), 1, 'agentrooms_sse_connections counts the stream')
      s.close()
      t.ok(await eventually(async () => (await gauge(b)) === 0), 'and forgets it when the client goes away')
    })

    t.test('reconnecting to the other node with Last-Event-ID resumes without loss or duplicates', async (t) => {
      const a = await startNode(t, backend)
      const b = await startNode(t, backend)
      const team = await newTeam(a)
      const room = await newRoomOn(a, team.teamId)
      const first = await a.node.core.events.post(room.as, { type: 'message', text: 'before any stream' })
      const s1 = await openStream(b.base, room.roomId, { key: team.key, lastEventId: first.event.id })
      await live(t, s1)

      const posted: string[] = []
      let cutAt = 0
      let s2: SseStream | undefined
      for (let i = 0; i < 200; i++) {
        const r = await a.node.core.events.post(room.as, { type: 'message', text: `event ${i}`, data: { i } })
        posted.push(r.event.id)
        if (i % 10 === 9) await sleep(5) // pacing, not waiting: frames flow to the stream while posting goes on
        if (!s2 && s1.events().length >= 60) {
          s1.close()
          await s1.done
          cutAt = i
          const last = s1.events().at(-1)!.id!
          s2 = await openStream(a.base, room.roomId, { key: team.key, lastEventId: last })
          await live(t, s2)
        }
      }
      t.ok(s2, 'the first stream was cut mid-way')
      t.ok(cutAt < 199, `cut while posting went on (after post ${cutAt})`)
      t.ok(await s2!.waitFor((f) => f.id === posted.at(-1)), 'the second stream got the last event')
      const got = [...s1.events(), ...s2!.events()].map((f) => f.id)
      t.same(got, posted, 'the union is every event, in order, once')
      const frames = [...s1.events(), ...s2!.events()]
      t.ok(
        frames.every((f, i) => eventOf(f).id === f.id && eventOf(f).text === `event ${i}`),
        'each frame carries its own event',
      )
    })

    t.test('?lastEventId= resumes like the header', async (t) => {
      const a = await startNode(t, backend)
      const team = await newTeam(a)
      const room = await newRoomOn(a, team.teamId)
      const ids: string[] = []
      for (let i = 0; i < 5; i++)
        ids.push((await a.node.core.events.post(room.as, { type: 'message', text: `m${i}` })).event.id)
      const s = await openStream(a.base, room.roomId, { key: team.key, query: `lastEventId=${ids[1]}` })
      await live(t, s)
      t.ok(await s.waitFor((f) => f.id === ids[4]), 'the stream caught up')
      t.same(
        s.events().map((f) => f.id),
        ids.slice(2),
        'with the events after the given id',
      )
      const more = await a.node.core.events.post(room.as, { type: 'message', text: 'live' })
      t.ok(await s.waitFor((f) => f.id === more.event.id), 'then live events')
      t.same(
        s.events().map((f) => f.id),
        [...ids.slice(2), more.event.id],
      )
    })

    t.test('a Last-Event-ID behind the trimmed history yields a gap frame with the lost count', async (t) => {
      const a = await startNode(t, backend, { eventsRetained: 10 })
      const team = await newTeam(a)
      const room = await newRoomOn(a, team.teamId)
      const ids: string[] = []
      for (let i = 0; i < 26; i++)
        ids.push((await a.node.core.events.post(room.as, { type: 'message', text: `m${i}` })).event.id)
      // Seqs 1..26; 10 retained (17..26), so resuming after seq 1 lost seqs 2..16.
      const s = await openStream(a.base, room.roomId, { key: team.key, lastEventId: ids[0] })
      await live(t, s)
      t.ok(await s.waitFor((f) => f.id === ids[25]), 'the stream caught up')
      const gapAt = s.frames.findIndex((f) => f.event === 'gap')
      t.ok(gapAt >= 0, 'a gap frame')
      t.same(JSON.parse(s.frames[gapAt]!.data!), { lost: 15 }, 'naming how many events were lost')
      t.equal(s.frames[gapAt]!.id, undefined, 'the gap frame has no id (it moves no resume point)')
      t.same(
        s.frames
          .slice(gapAt + 1)
          .filter((f) => f.id !== undefined)
          .map((f) => f.id),
        ids.slice(16),
        'then every retained event, in order',
      )
      t.equal(s.events().length, 10, 'and nothing before the gap')
    })

    t.test('a malformed Last-Event-ID is refused with 400', async (t) => {
      const a = await startNode(t, backend)
      const team = await newTeam(a)
      const room = await newRoomOn(a, team.teamId)
      for (const bad of ['abc', '12', '1-2-3', '-1']) {
        const h = await openStream(a.base, room.roomId, { key: team.key, lastEventId: bad })
        t.equal(h.status, 400, `header ${JSON.stringify(bad)}`)
        t.match(JSON.parse(h.body), {
          error: { code: 'invalid_request', message: /Last-Event-ID/, details: { field: 'Last-Event-ID' } },
        })
      }
      const q = await openStream(a.base, room.roomId, { key: team.key, query: 'lastEventId=nope' })
      t.equal(q.status, 400, 'query form too')
      t.equal(await gauge(a), 0, 'no stream was counted')
    })

    t.test('a consumer that stops reading is dropped past SSE_BUFFER_BYTES; the node goes on', async (t) => {
      const a = await startNode(t, backend, { sseBufferBytes: 16 * 1024, eventsRetained: 50 })
      const team = await newTeam(a)
      const room = await newRoomOn(a, team.teamId)
      const reader = await openStream(a.base, room.roomId, { key: team.key })
      await live(t, reader)

      const sock = connect(a.node.port, '127.0.0.1')
      let closed = false
      sock.on('error', () => undefined)
      sock.on('close', () => (closed = true))
      t.teardown(() => sock.destroy())
      await once(sock, 'connect')
      sock.pause() // never reads: what the node writes piles up in the kernel, then on the node
      sock.write(
        `GET /rooms/${room.roomId}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ` +
          `${team.key}\r\nAccept: text/event-stream\r\n\r\n`,
      )
      t.ok(await eventually(async () => (await gauge(a)) === 2), 'both streams are open')

      // Each event is ~12 KB on the wire; the loop is bounded in events and time.
      const big = { type: 'message', text: 'x'.repeat(4000), data: { pad: 'y'.repeat(7000) } }
      let posted = 0
      let lastId = ''
      const until = Date.now() + 60_000
      while ((await gauge(a)) > 1 && posted < 4000 && Date.now() < until) {
        const batch = await Promise.all(Array.from({ length: 10 }, () => a.node.core.events.post(room.as, big)))
        posted += batch.length
        lastId = batch.at(-1)!.event.id
      }
      t.equal(
        await gauge(a),
        1,
        `the slow consumer was dropped (after ${posted} events, ~${Math.round((posted * 12) / 1024)} MB)`,
      )
      t.ok(posted < 4000, 'within the bound')
      sock.resume()
      t.ok(await eventually(() => closed, 5000), 'its connection was closed')

      t.ok(await reader.waitFor((f) => f.id === lastId, 10_000), 'the reading stream got every event meanwhile')
      t.equal(reader.ended, undefined, 'and is still open')
      const health = await a.call('/health')
      t.equal(health.status, 200, 'the node still serves /health')
      reader.close()
      t.ok(await eventually(async () => (await gauge(a)) === 0), 'agentrooms_sse_connections returns to 0')
      const metrics = await (await a.call('/metrics')).text()
      t.match(metrics, /^agentrooms_sse_connections 0$/m, 'as /metrics reports it')
    })

    t.test("who may open a stream: the team key and that room's invite; others get 404, no key 401", async (t) => {
      const a = await startNode(t, backend)
      const team = await newTeam(a)
      const room = await newRoomOn(a, team.teamId)
      const other = await newRoomOn(a, team.teamId)
      const invite = await a.node.teams.mintInvite(team.teamId, room.roomId, {})
      const otherInvite = await a.node.teams.mintInvite(team.teamId, other.roomId, {})
      const stranger = await newTeam(a)

      for (const [who, key] of [
        ['team key', team.key],
        ["the room's invite key", invite.key],
      ] as const) {
        const s = await openStream(a.base, room.roomId, { key })
        t.equal(s.status, 200, `${who}: 200`)
        await live(t, s)
        const ev = await a.node.core.events.post(room.as, { type: 'message', text: `for ${who}` })
        t.ok(await s.waitFor((f) => f.id === ev.event.id), `${who}: events arrive`)
        s.close()
      }
      for (const [who, key, roomId] of [
        ["another room's invite key", otherInvite.key, room.roomId],
        ["another team's key", stranger.key, room.roomId],
        ['the team key, a room that does not exist', team.key, 'nosuchroom'],
      ] as const) {
        const s = await openStream(a.base, roomId, { key })
        t.equal(s.status, 404, `${who}: 404`)
        t.match(JSON.parse(s.body), { error: { code: 'not_found', message: `room ${roomId} not found` } })
      }
      const anon = await openStream(a.base, room.roomId)
      t.equal(anon.status, 401, 'no key: 401')
      t.match(anon.headers.get('www-authenticate'), /^Bearer/)
      const bad = await openStream(a.base, room.roomId, { key: 'ar_team_nope.nope' })
      t.equal(bad.status, 401, 'an unknown key: 401')
      t.ok(await eventually(async () => (await gauge(a)) === 0), 'no stream left open')
    })
  })
}
