// Webhooks end to end, on standalone Redis and on a 3-master Cluster: registration over HTTP, real
// signed deliveries to a real HTTPS receiver (certificate from a CA made with openssl at test time)
// checked with independent verifiers, retries after the receiver was down, Retry-After, 410,
// failure after the last attempt, the sweep that recovers an event whose hint was lost, event
// filters, deletion and team isolation. Every test uses its own KEY_PREFIX, so the nodes of
// other tests never see these teams.
import t, { type Test } from 'tap'
import { Core } from '../../src/core/index.js'
import { Store } from '../../src/store/store.js'
import type { WebhookView } from '../../src/webhooks/registry.js'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { BACKENDS, uid, type Backend } from '../helpers/shared.js'
import {
  fastWebhookSettings,
  makeTestCa,
  opensslHmac,
  startReceiver,
  verifyStandard,
  type Received,
  type TestCa,
} from '../helpers/webhooks.js'
import { sleep, waitFor } from '../helpers/wait.js'

interface Setup {
  n: TestNode
  teamId: string
  key: string
}

async function setup(t: Test, backend: Backend, ca: TestCa, overrides: Record<string, unknown> = {}): Promise<Setup> {
  // A KEY_PREFIX per test: a node of a later test would rightly take over what an earlier one left pending.
  const n = await startNode(t, backend, { ...fastWebhookSettings(ca), ...overrides })
  const { teamId, key } = await newTeam(n)
  return { n, teamId, key }
}

async function register(s: Setup, body: Record<string, unknown>): Promise<WebhookView & { secret: string }> {
  const res = await s.n.call('/admin/webhooks', { method: 'POST', key: s.key, json: body })
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`)
  return (await res.json()) as WebhookView & { secret: string }
}

async function list(s: Setup): Promise<WebhookView[]> {
  const res = await s.n.call('/admin/webhooks', { key: s.key })
  return ((await res.json()) as { webhooks: WebhookView[] }).webhooks
}

async function room(s: Setup, roomId = uid('r')): Promise<string> {
  await s.n.node.core.rooms.create(s.teamId, { room_id: roomId }, 'test')
  return roomId
}

const post = (s: Setup, roomId: string, text: string, extra: Record<string, unknown> = {}) =>
  s.n.node.core.events.post({ room: { teamId: s.teamId, roomId }, agent: 'alice' }, { type: 'message', text, ...extra })

t.test('webhooks', async (t) => {
  const ca = await makeTestCa(t)
  for (const backend of BACKENDS) {
    t.test(`${backend}: registration, listing and deletion over HTTP`, async (t) => {
      const s = await setup(t, backend, ca, { webhooksPerTeam: 2 })
      const rx = await startReceiver(t, ca)
      const bad = await s.n.call('/admin/webhooks', {
        method: 'POST',
        key: s.key,
        json: { url: 'http://example.com/hook' },
      })
      t.equal(bad.status, 400)
      t.match(await bad.json(), {
        error: { code: 'invalid_request', message: /^url: must be an https:\/\/ URL/, details: { field: 'url' } },
      })
      const missing = await s.n.call('/admin/webhooks', { method: 'POST', key: s.key, json: {} })
      t.match(await missing.json(), { error: { code: 'invalid_request', details: { field: 'url' } } })
      const filter = await s.n.call('/admin/webhooks', {
        method: 'POST',
        key: s.key,
        json: { url: rx.url(), events: ['Not A Type'] },
      })
      t.match(await filter.json(), { error: { code: 'invalid_request', details: { field: 'events[0]' } } })

      const a = await register(s, { url: rx.url('/a'), description: 'ops bot', events: ['blocker'] })
      t.match(a, {
        webhookId: /^wh_[a-z2-7]{12}$/,
        url: rx.url('/a'),
        description: 'ops bot',
        events: ['blocker'],
        status: 'active',
        secret: /^whsec_[A-Za-z0-9+/]{43}=$/,
      })
      t.match(a.health, { pending: 0, delivered: 0, failed: 0, consecutiveFailures: 0, recentFailures: [] })
      const b = await register(s, { url: rx.url('/b') })
      const third = await s.n.call('/admin/webhooks', { method: 'POST', key: s.key, json: { url: rx.url('/c') } })
      t.equal(third.status, 409)
      t.match(await third.json(), { error: { code: 'limit_reached', details: { limit: 2 } } })

      const listed = await list(s)
      t.same(
        listed.map((w) => w.webhookId),
        [a.webhookId, b.webhookId],
        'listed oldest first',
      )
      t.notOk(JSON.stringify(listed).includes('whsec_'), 'the list never shows a secret')

      const other = await newTeam(s.n)
      const foreign = await s.n.call(`/admin/webhooks/${a.webhookId}`, { method: 'DELETE', key: other.key })
      t.equal(foreign.status, 404, 'another team cannot delete it')
      const del = await s.n.call(`/admin/webhooks/${a.webhookId}`, { method: 'DELETE', key: s.key })
      t.equal(del.status, 200)
      t.match(await del.json(), { deleted: { webhookId: a.webhookId } })
      const again = await s.n.call(`/admin/webhooks/${a.webhookId}`, { method: 'DELETE', key: s.key })
      t.equal(again.status, 404)
      t.match(await again.json(), { error: { code: 'not_found', details: { field: 'webhookId' } } })
      t.same(
        (await list(s)).map((w) => w.webhookId),
        [b.webhookId],
      )
    })

    t.test(`${backend}: deliveries are signed; openssl and standardwebhooks verify them`, async (t) => {
      const s = await setup(t, backend, ca)
      const rx = await startReceiver(t, ca)
      const wh = await register(s, { url: rx.url() })
      const roomId = await room(s)
      const first = await post(s, roomId, 'hello')
      await post(s, roomId, 'with data', { data: { n: 1, tags: ['a'] }, reply_to: first.event.id })
      await s.n.node.core.presence.heartbeat({ room: { teamId: s.teamId, roomId }, agent: 'bob' })
      await s.n.node.core.presence.leave({ room: { teamId: s.teamId, roomId }, agent: 'bob' })
      await waitFor(() => rx.received.length >= 3, 5000, '3 deliveries')

      // Sent in order, one after another; a very slow machine may let one overtake (docs/webhooks.md).
      rx.received.sort((x, y) => Number(x.body.event.id.split('-')[1]) - Number(y.body.event.id.split('-')[1]))
      t.same(
        rx.received.map((r) => r.body.event.text),
        ['hello', 'with data', 'bob left the room'],
        'one delivery per event',
      )
      for (const r of rx.received) {
        t.equal(
          await opensslHmac(wh.secret, r.raw),
          r.headers['x-service-signature'],
          `${r.body.id}: openssl dgst -sha256 -hmac agrees`,
        )
        t.same(verifyStandard(wh.secret, r), JSON.parse(r.raw.toString()), `${r.body.id}: standardwebhooks verifies`)
        t.match(r.body, {
          id: /^dlv_\d{12}[0-9a-f]{12}$/,
          type: 'room.event',
          team_id: s.teamId,
          room_id: roomId,
          sent_at: /Z$/,
        })
        t.equal(r.headers['x-service-delivery'], r.body.id)
        t.equal(r.headers['webhook-id'], r.body.id)
        t.equal(r.headers['x-service-timestamp'], r.headers['webhook-timestamp'])
        t.ok(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000) < 30, 'timestamp is now, in seconds')
        t.equal(r.headers['content-type'], 'application/json')
        t.match(r.headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/)
      }
      t.match(rx.received[1]!.body.event, {
        type: 'message',
        agent_id: 'alice',
        data: { n: 1, tags: ['a'] },
        reply_to: first.event.id,
        id: /^\d+-2$/,
      })
      t.match(rx.received[2]!.body.event, { type: 'agent_left', agent_id: 'bob' })

      const tampered: Received = {
        ...rx.received[0]!,
        raw: Buffer.from(rx.received[0]!.raw.toString().replace('hello', 'hellO')),
      }
      t.not(
        await opensslHmac(wh.secret, tampered.raw),
        tampered.headers['x-service-signature'],
        'a changed body no longer matches',
      )
      t.throws(() => verifyStandard(wh.secret, tampered), 'standardwebhooks refuses a changed body')

      await waitFor(async () => (await list(s))[0]!.health.delivered === 3, 3000, 'health to count 3')
      t.match((await list(s))[0]!.health, {
        pending: 0,
        delivered: 3,
        failed: 0,
        consecutiveFailures: 0,
        lastStatus: 200,
        lastSuccessAt: /Z$/,
      })
      const health = (await list(s))[0]!.health
      const del = await s.n.call(`/admin/webhooks/${wh.webhookId}`, { method: 'DELETE', key: s.key })
      t.same(
        ((await del.json()) as { deleted: WebhookView }).deleted.health,
        health,
        'DELETE answers with its real last delivery health, not zeros',
      )
    })

    t.test(`${backend}: receiver down, then up: the delivery arrives after retries`, async (t) => {
      const s = await setup(t, backend, ca)
      const rx = await startReceiver(t, ca)
      await register(s, { url: rx.url() })
      await rx.close()
      const roomId = await room(s)
      await post(s, roomId, 'while down')
      await waitFor(async () => (await list(s))[0]!.health.consecutiveFailures >= 2, 5000, 'two failed attempts')
      const down = (await list(s))[0]!.health
      t.match(down, { pending: 1, delivered: 0, lastError: /ECONNREFUSED/ })
      t.notOk('lastStatus' in down, 'no status: no answer came')
      await rx.listen()
      await waitFor(() => rx.received.length >= 1, 5000, 'the delivery')
      t.equal(rx.received[0]!.body.event.text, 'while down')
      await waitFor(async () => (await list(s))[0]!.health.delivered === 1, 3000, 'health to count it')
      t.match((await list(s))[0]!.health, { pending: 0, consecutiveFailures: 0, lastStatus: 200 })
    })

    t.test(`${backend}: 429 with Retry-After is honoured`, async (t) => {
      const s = await setup(t, backend, ca)
      const rx = await startReceiver(t, ca)
      rx.answer = () => (rx.received.length === 1 ? { status: 429, headers: { 'Retry-After': '1' } } : { status: 200 })
      await register(s, { url: rx.url() })
      await post(s, await room(s), 'slow down')
      await waitFor(() => rx.received.length >= 2, 6000, 'the second attempt')
      const gap = rx.received[1]!.at - rx.received[0]!.at
      t.ok(
        gap >= 1000,
        `the retry waited Retry-After (1 s; the smallest a header says), not the schedule's 0.2 s: ${gap} ms`,
      )
      t.ok(gap < 5000, `and not much longer: ${gap} ms`)
      t.equal(rx.received[1]!.body.id, rx.received[0]!.body.id, 'the same delivery id')
    })

    t.test(`${backend}: 410 disables the webhook`, async (t) => {
      const s = await setup(t, backend, ca)
      const rx = await startReceiver(t, ca)
      // The first attempt is held open until two more events are pending (claimed behind it, or due).
      rx.answer = () => 'hang'
      await register(s, { url: rx.url() })
      const roomId = await room(s)
      await post(s, roomId, 'one')
      await waitFor(() => rx.received.length === 1, 3000, 'the first attempt')
      await post(s, roomId, 'two')
      await post(s, roomId, 'three')
      await waitFor(async () => (await list(s))[0]!.health.pending === 3, 3000, 'three pending deliveries')
      rx.answer = () => ({ status: 410 })
      rx.release(410)
      await waitFor(async () => (await list(s))[0]!.status === 'disabled', 5000, 'the webhook to be disabled')
      await post(s, roomId, 'four')
      await waitFor(async () => (await list(s))[0]!.health.pending === 0, 3000, 'nothing pending')
      // Time passes on purpose: a window in which nothing more may reach the receiver.
      await sleep(300)
      t.equal(rx.received.length, 1, 'nothing more is sent to a disabled webhook, not even what was claimed before')
      const w = (await list(s))[0]!
      t.match(w, { status: 'disabled', disabledAt: /Z$/, disabledReason: /410/ })
      t.match(w.health, {
        failed: 1,
        dropped: 2,
        pending: 0,
        recentFailures: [{ deliveryId: rx.received[0]!.body.id, lastStatus: 410, attempts: 1 }],
      })
    })

    t.test(`${backend}: after the last attempt the delivery is failed and listed`, async (t) => {
      const s = await setup(t, backend, ca, { webhookRetryScheduleMs: [100, 100] })
      const rx = await startReceiver(t, ca)
      rx.answer = () => ({ status: 500, body: 'database is down' })
      await register(s, { url: rx.url() })
      const roomId = await room(s)
      const { event } = await post(s, roomId, 'doomed')
      await waitFor(async () => (await list(s))[0]!.health.failed === 1, 5000, 'the delivery to fail')
      // Time passes on purpose: three times the retry delay, in which no fourth attempt may come.
      await sleep(300)
      t.equal(rx.received.length, 3, 'one attempt and two retries')
      t.equal(new Set(rx.received.map((r) => r.body.id)).size, 1, 'all with the same delivery id')
      t.match((await list(s))[0]!.health, {
        pending: 0,
        failed: 1,
        consecutiveFailures: 3,
        lastStatus: 500,
        lastError: 'database is down',
        recentFailures: [
          {
            deliveryId: rx.received[0]!.body.id,
            roomId,
            eventId: event.id,
            attempts: 3,
            lastStatus: 500,
            failedAt: /Z$/,
          },
        ],
      })
    })

    t.test(`${backend}: a receiver that never answers is a timeout failure`, async (t) => {
      const s = await setup(t, backend, ca, { webhookTimeoutMs: 300, webhookRetryScheduleMs: [100] })
      const rx = await startReceiver(t, ca)
      rx.answer = () => 'hang'
      await register(s, { url: rx.url() })
      await post(s, await room(s), 'into the void')
      await waitFor(async () => (await list(s))[0]!.health.failed === 1, 5000, 'the delivery to fail')
      t.equal(rx.received.length, 2, 'both attempts reached the receiver')
      const h = (await list(s))[0]!.health
      t.match(h, {
        pending: 0,
        delivered: 0,
        failed: 1,
        consecutiveFailures: 2,
        lastError: /^no answer within \d+ ms$/,
      })
      t.notOk('lastStatus' in h, 'no status: no answer came')
      t.match(h.recentFailures, [{ attempts: 2, lastError: /^no answer within \d+ ms$/ }])
      t.notOk('lastStatus' in h.recentFailures[0]!)
    })

    t.test(`${backend}: a long answer is read only up to 4 KiB and the delivery counts`, async (t) => {
      const s = await setup(t, backend, ca, { webhookTimeoutMs: 3000 })
      const rx = await startReceiver(t, ca)
      // A 200 whose body never ends: only a reader that stops at its cap can finish the attempt.
      rx.answer = () => 'hang'
      let written = 0
      let cut = false
      await register(s, { url: rx.url() })
      await post(s, await room(s), 'chatty receiver')
      await waitFor(() => rx.hanging.length === 1, 5000, 'the attempt')
      const { res } = rx.hanging[0]!
      res.on('close', () => (cut = true))
      res.writeHead(200, { 'Content-Type': 'text/plain' })
      const chunk = Buffer.alloc(16 * 1024, 'x')
      const pump = setInterval(() => {
        if (res.destroyed) return clearInterval(pump)
        res.write(chunk)
        written += chunk.length
      }, 5)
      t.teardown(() => clearInterval(pump))
      await waitFor(async () => (await list(s))[0]!.health.delivered === 1, 5000, 'the delivery to count as delivered')
      await waitFor(() => cut, 2000, 'the node to close the connection')
      t.match((await list(s))[0]!.health, {
        pending: 0,
        delivered: 1,
        failed: 0,
        consecutiveFailures: 0,
        lastStatus: 200,
      })
      t.notOk((await list(s))[0]!.health.lastError, 'no error recorded')
      t.equal(rx.received.length, 1, 'one attempt')
      t.comment(`the receiver wrote ${written} bytes before the node closed the connection`)
    })

    t.test(`${backend}: an attempt cut by shutdown is not settled; another node takes it over`, async (t) => {
      // A lease of a minute (renewed while the attempt runs): however long this node stalls, its
      // own dispatcher cannot find the lease run out and take the delivery over itself.
      const s = await setup(t, backend, ca, { webhookLeaseMs: 60_000 })
      const rx = await startReceiver(t, ca)
      rx.answer = () => 'hang'
      await register(s, { url: rx.url() })
      await post(s, await room(s), 'mid-flight')
      await waitFor(() => rx.hanging.length === 1, 5000, 'the attempt')
      const id = rx.received[0]!.body.id
      // The dispatcher stops; its grace (50 ms) runs out while the receiver still holds the request.
      await s.n.node.webhooks.stop(50)
      await waitFor(
        () => s.n.node.webhooks.dispatcher.busy === 0,
        5000,
        'the cut attempt to end (a settle would come before)',
      )
      const h = (await list(s))[0]!.health
      t.match(h, { pending: 1, consecutiveFailures: 0, failed: 0 }, 'not counted as a failure')
      t.notOk(h.lastError, 'no error recorded for the receiver')
      const k = s.n.node.store.keys.webhooks(s.teamId)
      t.ok(await s.n.node.store.client.zscore(k.leased, id), 'still leased: left to the lease takeover')
      t.equal(await s.n.node.store.client.zscore(k.due, id), null, 'not scheduled as a retry')

      // Another node on the same KEY_PREFIX takes it over when the lease runs out: made so here,
      // its end moved to now.
      await s.n.node.store.client.zadd(k.leased, 'XX', Date.now(), id)
      rx.answer = () => ({ status: 200 })
      await startNode(t, backend, { ...fastWebhookSettings(ca), keyPrefix: s.n.node.settings.keyPrefix })
      await waitFor(async () => (await list(s))[0]!.health.delivered === 1, 8000, 'the takeover to deliver it')
      t.equal(rx.received.at(-1)!.body.id, id, 'sent again under the same delivery id')
      t.match((await list(s))[0]!.health, { pending: 0, delivered: 1, takeovers: 1, consecutiveFailures: 0 })
    })

    t.test(`${backend}: an event whose hint was lost is found by the sweep`, async (t) => {
      const s = await setup(t, backend, ca, { webhookSweepMs: 200 })
      const rx = await startReceiver(t, ca)
      await register(s, { url: rx.url() })
      const roomId = await room(s)
      // First a hinted event, so the team's first pass (which sweeps at once) is over.
      await post(s, roomId, 'hinted')
      await waitFor(() => rx.received.length >= 1, 5000, 'the hinted event')
      // A store with no webhook hints: like a node that died right after its script stored the event.
      const store = new Store(s.n.node.settings)
      t.teardown(() => store.close())
      const core = new Core(store, store.settings)
      // And the position of a room that left the team's index (expired): the sweep forgets it.
      const positions = store.keys.webhooks(s.teamId).positions
      await store.client.hset(positions, 'expired-room', '1-1')
      await core.events.post(
        { room: { teamId: s.teamId, roomId }, agent: 'ghost' },
        { type: 'status', text: 'unhinted' },
      )
      const posted = Date.now()
      await waitFor(() => rx.received.length >= 2, 5000, 'the sweep to find it (every 200 ms here)')
      t.equal(rx.received[1]!.body.event.text, 'unhinted')
      t.comment(`found by the sweep ${rx.received[1]!.at - posted} ms after it was stored`)
      t.equal(await store.client.hexists(positions, 'expired-room'), 0, 'the sweep forgot the expired room')
      t.equal(await store.client.hexists(positions, roomId), 1, 'and kept the live one')
    })

    t.test(`${backend}: an event filter and deletion stop what is not wanted`, async (t) => {
      const s = await setup(t, backend, ca, { webhookRetryScheduleMs: [50, 50, 50] })
      const rx = await startReceiver(t, ca)
      const blockers = await register(s, { url: rx.url('/blockers'), events: ['blocker'] })
      const all = await register(s, { url: rx.url('/all') })
      const roomId = await room(s)
      await post(s, roomId, 'chatter')
      await post(s, roomId, 'stuck', { type: 'blocker' })
      await waitFor(() => rx.received.length >= 3, 5000, '3 deliveries')
      t.same(
        rx.received.filter((r) => r.path === '/blockers').map((r) => r.body.event.text),
        ['stuck'],
      )
      t.same(
        rx.received
          .filter((r) => r.path === '/all')
          .map((r) => r.body.event.text)
          .sort(),
        ['chatter', 'stuck'],
      )
      rx.answer = (r) => (r.path === '/all' ? { status: 500 } : { status: 200 })
      await post(s, roomId, 'retried')
      await waitFor(() => rx.received.some((r) => r.body.event.text === 'retried'), 3000, 'a failing attempt')
      const del = await s.n.call(`/admin/webhooks/${all.webhookId}`, { method: 'DELETE', key: s.key })
      t.equal(del.status, 200)
      // An attempt already in flight at the delete may still land: wait until none is.
      const idle = () => waitFor(() => s.n.node.webhooks.dispatcher.busy === 0, 5000, 'no attempt in flight')
      await idle()
      const seen = rx.received.length
      await post(s, roomId, 'after delete')
      await post(s, roomId, 'witness', { type: 'blocker' })
      await waitFor(
        () => rx.received.some((r) => r.body.event.text === 'witness'),
        5000,
        'the blocker webhook to get an event posted after the one the deleted webhook wanted',
      )
      await idle()
      // Time passes on purpose: a retry of the deleted webhook's failed attempt would come 50 ms
      // after it (this test's schedule); in 300 ms all three would have.
      await sleep(300)
      t.same(
        rx.received.slice(seen).map((r) => r.path),
        ['/blockers'],
        'no retry and no new delivery after the delete: only the witness, to the other webhook',
      )
      t.equal((await list(s)).length, 1)
      t.equal((await list(s))[0]!.webhookId, blockers.webhookId)
    })

    t.test(`${backend}: a webhook never receives another team's events`, async (t) => {
      const a = await setup(t, backend, ca)
      const bTeam = await newTeam(a.n)
      const b: Setup = { n: a.n, teamId: bTeam.teamId, key: bTeam.key }
      const rx = await startReceiver(t, ca)
      await register(a, { url: rx.url('/a') })
      await register(b, { url: rx.url('/b') })
      // The same room id in both teams.
      const roomId = uid('shared')
      await room(a, roomId)
      await room(b, roomId)
      for (let i = 0; i < 5; i++) {
        await post(a, roomId, `a${i}`)
        await post(b, roomId, `b${i}`)
      }
      await waitFor(() => rx.received.length >= 10, 5000, '10 deliveries')
      // Time passes on purpose: a window in which a delivery to the wrong team would show up.
      await sleep(300)
      const got = (path: string) => rx.received.filter((r) => r.path === path)
      t.same(
        got('/a')
          .map((r) => r.body.event.text)
          .sort(),
        ['a0', 'a1', 'a2', 'a3', 'a4'],
      )
      t.same(
        got('/b')
          .map((r) => r.body.event.text)
          .sort(),
        ['b0', 'b1', 'b2', 'b3', 'b4'],
      )
      t.ok(
        got('/a').every((r) => r.body.team_id === a.teamId),
        "A's webhook got only A's team",
      )
      t.ok(
        got('/b').every((r) => r.body.team_id === b.teamId),
        "B's webhook got only B's team",
      )
    })
  }
})
