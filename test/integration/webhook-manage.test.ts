// Managing a webhook after registration, on standalone Redis and on a 3-master Cluster, with a real
// HTTPS receiver: rotating the secret (both secrets sign during the overlap, checked with openssl
// and the standardwebhooks package), a test request answered synchronously, the recent attempts
// in its health, and replaying a failed delivery under the same id. Bad input changes nothing.
import t, { type Test } from 'tap'
import type { WebhookView } from '../../src/webhooks/registry.js'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { BACKENDS, uid, type Backend } from '../helpers/shared.js'
import {
  fastWebhookSettings,
  makeTestCa,
  opensslHmac,
  startReceiver,
  verifyStandard,
  waitFor,
  type TestCa,
} from '../helpers/webhooks.js'

interface Setup {
  n: TestNode
  teamId: string
  key: string
}

type Registered = WebhookView & { secret: string }

async function setup(t: Test, backend: Backend, ca: TestCa, overrides: Record<string, unknown> = {}): Promise<Setup> {
  const n = await startNode(t, backend, { ...fastWebhookSettings(ca), ...overrides })
  const { teamId, key } = await newTeam(n)
  return { n, teamId, key }
}

async function call(
  s: Setup,
  path: string,
  json?: unknown,
  key = s.key,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await s.n.call(path, { method: 'POST', key, ...(json === undefined ? {} : { json }) })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

async function register(s: Setup, url: string): Promise<Registered> {
  const r = await call(s, '/admin/webhooks', { url })
  if (r.status !== 201) throw new Error(`register: ${r.status} ${JSON.stringify(r.body)}`)
  return r.body as unknown as Registered
}

async function hook(s: Setup, id: string): Promise<WebhookView> {
  const res = await s.n.call('/admin/webhooks', { key: s.key })
  return ((await res.json()) as { webhooks: WebhookView[] }).webhooks.find((w) => w.webhookId === id)!
}

async function room(s: Setup): Promise<string> {
  const roomId = uid('r')
  await s.n.node.core.rooms.create(s.teamId, { room_id: roomId }, 'test')
  return roomId
}

const post = (s: Setup, roomId: string, text: string) =>
  s.n.node.core.events.post({ room: { teamId: s.teamId, roomId }, agent: 'alice' }, { type: 'message', text })

t.test('managing webhooks', async (t) => {
  const ca = await makeTestCa(t)
  for (const backend of BACKENDS) {
    t.test(`${backend}: rotating the secret: both sign during the overlap, then only the new one`, async (t) => {
      const s = await setup(t, backend, ca)
      const rx = await startReceiver(t, ca)
      const wh = await register(s, rx.url())
      const roomId = await room(s)

      for (const [body, field, message] of [
        [{ overlapSeconds: -1 }, 'overlapSeconds', /must be at least 0/],
        [{ overlapSeconds: 8 * 24 * 3600 }, 'overlapSeconds', /must be at most 604800/],
        [{ overlapSeconds: 1.5 }, 'overlapSeconds', /whole number/],
      ] as const) {
        const bad = await call(s, `/admin/webhooks/${wh.webhookId}/rotate-secret`, body)
        t.equal(bad.status, 400, `${JSON.stringify(body)} is refused`)
        t.match(bad.body, { error: { code: 'invalid_request', message, details: { field } } })
      }
      const missing = await call(s, '/admin/webhooks/wh_nosuchhook0/rotate-secret', {})
      t.equal(missing.status, 404)
      t.match(missing.body, { error: { code: 'not_found', details: { field: 'webhookId' } } })
      const other = await newTeam(s.n)
      t.equal(
        (await call(s, `/admin/webhooks/${wh.webhookId}/rotate-secret`, {}, other.key)).status,
        404,
        'another team cannot rotate it',
      )
      t.notOk((await hook(s, wh.webhookId)).secretRotatedAt, 'nothing changed by the refusals')

      const rotated = await call(s, `/admin/webhooks/${wh.webhookId}/rotate-secret`, { overlapSeconds: 600 })
      t.equal(rotated.status, 200)
      const next = rotated.body as unknown as Registered
      t.match(next, {
        webhookId: wh.webhookId,
        secret: /^whsec_[A-Za-z0-9+/]{43}=$/,
        secretRotatedAt: /Z$/,
        previousSecretValidUntil: /Z$/,
      })
      t.not(next.secret, wh.secret)
      const until = Date.parse(next.previousSecretValidUntil!)
      t.ok(until > Date.now() + 590_000 && until < Date.now() + 610_000, 'the overlap is the one asked for')
      const listed = await hook(s, wh.webhookId)
      t.equal(listed.previousSecretValidUntil, next.previousSecretValidUntil, 'the list shows the overlap')
      t.notOk(JSON.stringify(listed).includes('whsec_'), 'and no secret')

      await post(s, roomId, 'during the overlap')
      await waitFor(() => rx.received.length === 1, 5000, 'the first delivery')
      const during = rx.received[0]!
      t.equal(
        await opensslHmac(wh.secret, during.raw),
        during.headers['x-service-signature'],
        'X-Service-Signature: still the previous secret',
      )
      t.ok(verifyStandard(wh.secret, during), 'standardwebhooks verifies with the previous secret')
      t.ok(verifyStandard(next.secret, during), 'and with the new one')

      const now = await call(s, `/admin/webhooks/${wh.webhookId}/rotate-secret`, { overlapSeconds: 0 })
      const newest = now.body as unknown as Registered
      t.notOk(newest.previousSecretValidUntil, 'no overlap asked: none shown')
      await post(s, roomId, 'after it')
      await waitFor(() => rx.received.length === 2, 5000, 'the second delivery')
      const after = rx.received[1]!
      t.equal(
        await opensslHmac(newest.secret, after.raw),
        after.headers['x-service-signature'],
        'X-Service-Signature: the newest secret',
      )
      t.ok(verifyStandard(newest.secret, after))
      t.throws(() => verifyStandard(next.secret, after), 'the replaced secret no longer verifies')
      t.throws(() => verifyStandard(wh.secret, after), 'nor the first one')
    })

    t.test(`${backend}: a test request is sent now and answered, and not counted`, async (t) => {
      const s = await setup(t, backend, ca)
      const rx = await startReceiver(t, ca)
      const wh = await register(s, rx.url('/hook'))
      const ok = await call(s, `/admin/webhooks/${wh.webhookId}/test`)
      t.equal(ok.status, 200)
      t.match(ok.body, { testId: /^test_[a-z2-7]{16}$/, delivered: true, status: 200, durationMs: Number })
      t.equal(rx.received.length, 1)
      const got = rx.received[0]!
      t.match(got.body, {
        id: ok.body.testId,
        type: 'webhook.test',
        team_id: s.teamId,
        webhook_id: wh.webhookId,
        sent_at: /Z$/,
      })
      t.equal(got.path, '/hook')
      t.equal(await opensslHmac(wh.secret, got.raw), got.headers['x-service-signature'], 'signed like a delivery')
      t.ok(verifyStandard(wh.secret, got))

      rx.answer = () => ({ status: 503, body: 'maintenance' })
      const down = await call(s, `/admin/webhooks/${wh.webhookId}/test`)
      t.match(down.body, { delivered: false, status: 503, error: /maintenance/ })
      await rx.close()
      const gone = await call(s, `/admin/webhooks/${wh.webhookId}/test`)
      t.match(gone.body, { delivered: false, error: /ECONNREFUSED|connect/ })
      t.notOk('status' in gone.body, 'no status when no answer came')
      t.match(
        (await hook(s, wh.webhookId)).health,
        { pending: 0, delivered: 0, failed: 0, recentAttempts: [] },
        'tests are not counted',
      )

      const missing = await call(s, '/admin/webhooks/wh_nosuchhook0/test')
      t.equal(missing.status, 404)
      t.match(missing.body, { error: { code: 'not_found', details: { field: 'webhookId' } } })
    })

    t.test(`${backend}: recent attempts, and a failed delivery replayed under its id`, async (t) => {
      const s = await setup(t, backend, ca, { webhookRetryScheduleMs: [100] })
      const rx = await startReceiver(t, ca)
      rx.answer = () => ({ status: 500, body: 'database is down' })
      const wh = await register(s, rx.url())
      const roomId = await room(s)
      const { event } = await post(s, roomId, 'doomed at first')
      await waitFor(async () => (await hook(s, wh.webhookId)).health.failed === 1, 5000, 'the delivery to fail')
      const failed = (await hook(s, wh.webhookId)).health
      const deliveryId = failed.recentFailures[0]!.deliveryId
      t.match(
        failed.recentAttempts,
        [
          {
            deliveryId,
            roomId,
            eventId: event.id,
            attempt: 2,
            outcome: 'fail',
            status: 500,
            error: 'database is down',
            at: /Z$/,
          },
          { deliveryId, roomId, eventId: event.id, attempt: 1, outcome: 'retry', status: 500 },
        ],
        'both attempts, newest first',
      )

      const missing = await call(s, `/admin/webhooks/${wh.webhookId}/deliveries/dlv_000000000000aaaaaaaaaaaa/replay`)
      t.equal(missing.status, 404)
      t.match(missing.body, { error: { code: 'not_found', details: { field: 'deliveryId' } } })

      rx.answer = () => ({ status: 200 })
      const replay = await call(s, `/admin/webhooks/${wh.webhookId}/deliveries/${deliveryId}/replay`)
      t.equal(replay.status, 202)
      t.match(replay.body, { deliveryId, webhookId: wh.webhookId, dueAt: /Z$/ })
      await waitFor(
        () => rx.received.some((r) => r.headers['x-service-delivery'] === deliveryId && rx.received.indexOf(r) >= 2),
        5000,
        'the replayed delivery',
      )
      const resent = rx.received[2]!
      t.equal(resent.body.id, deliveryId, 'the same delivery id')
      t.equal(resent.body.event.id, event.id)
      t.equal(resent.body.event.text, 'doomed at first')
      await waitFor(async () => (await hook(s, wh.webhookId)).health.delivered === 1, 3000, 'the replay to be settled')
      const health = (await hook(s, wh.webhookId)).health
      t.match(
        health,
        { pending: 0, delivered: 1, failed: 1, recentFailures: [] },
        'it left the recent failures; failed still counts what happened',
      )
      t.match(health.recentAttempts[0], { deliveryId, attempt: 1, outcome: 'ok', status: 200 })
      const twice = await call(s, `/admin/webhooks/${wh.webhookId}/deliveries/${deliveryId}/replay`)
      t.equal(twice.status, 404, 'replayed already')
      t.match(twice.body, { error: { message: /not among the recent failures/ } })

      // A failure whose room is gone (expired) cannot be replayed either; the answer names the delivery.
      rx.answer = () => ({ status: 500 })
      const other = await room(s)
      await post(s, other, 'in a room that will expire')
      await waitFor(async () => (await hook(s, wh.webhookId)).health.failed === 2, 5000, 'the second delivery to fail')
      const lost = (await hook(s, wh.webhookId)).health.recentFailures[0]!.deliveryId
      const store = s.n.node.store
      await Promise.all(
        store.keys
          .room({ teamId: s.teamId, roomId: other })
          .list.slice(0, -1)
          .map((k) => store.client.del(k)),
      )
      const roomGone = await call(s, `/admin/webhooks/${wh.webhookId}/deliveries/${lost}/replay`)
      t.equal(roomGone.status, 404)
      t.match(
        roomGone.body,
        { error: { code: 'not_found', message: /room of .* no longer exists/, details: { field: 'deliveryId' } } },
        'a room that is gone is named',
      )
    })

    t.test(
      `${backend}: a replay is refused when the event is trimmed or the webhook is disabled, changing nothing`,
      async (t) => {
        const s = await setup(t, backend, ca, { webhookRetryScheduleMs: [100], eventsRetained: 3 })
        const rx = await startReceiver(t, ca)
        rx.answer = () => ({ status: 500 })
        const wh = await register(s, rx.url())
        const roomId = await room(s)
        await post(s, roomId, 'first')
        await waitFor(async () => (await hook(s, wh.webhookId)).health.failed === 1, 5000, 'the first delivery to fail')
        const deliveryId = (await hook(s, wh.webhookId)).health.recentFailures[0]!.deliveryId
        rx.answer = () => ({ status: 500 })
        for (let i = 0; i < 4; i++) await post(s, roomId, `later ${i}`)
        await waitFor(async () => (await hook(s, wh.webhookId)).health.pending === 0, 5000, 'the later ones to settle')
        const before = (await hook(s, wh.webhookId)).health
        const trimmed = await call(s, `/admin/webhooks/${wh.webhookId}/deliveries/${deliveryId}/replay`)
        t.equal(trimmed.status, 404)
        t.match(trimmed.body, {
          error: { code: 'not_found', message: /no longer retained/, details: { field: 'deliveryId' } },
        })
        t.same((await hook(s, wh.webhookId)).health.recentFailures, before.recentFailures, 'nothing changed')

        // 410 disables the webhook: a replay names what to do instead.
        rx.answer = () => ({ status: 410 })
        await post(s, roomId, 'gone')
        await waitFor(
          async () => (await hook(s, wh.webhookId)).status === 'disabled',
          5000,
          'the webhook to be disabled',
        )
        const other = (await hook(s, wh.webhookId)).health.recentFailures[0]!.deliveryId
        const disabled = await call(s, `/admin/webhooks/${wh.webhookId}/deliveries/${other}/replay`)
        t.equal(disabled.status, 409)
        t.match(disabled.body, {
          error: { code: 'conflict', message: /disabled.*register the URL again/, details: { field: 'webhookId' } },
        })
      },
    )
  }
})
