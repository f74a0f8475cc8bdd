// Webhook targets the service refuses (SSRF), through real nodes: at registration (http://,
// loopback, private, link-local and metadata addresses, IPv6 loopback and mapped forms, names that
// resolve to them), at every delivery (DNS rebinding: a name that resolved to a public address at
// registration and to loopback later is never connected to), redirects never followed (not even to
// a loopback receiver the test setting would allow), and the connection pinned to the checked
// address. DNS answers for made-up names come from the node's resolver seam (NodeOptions).
import t, { type Test } from 'tap'
import type { Settings } from '../../src/config.js'
import { systemResolver, type Resolver } from '../../src/webhooks/guard.js'
import type { WebhookView } from '../../src/webhooks/registry.js'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { BACKENDS, uid, type Backend } from '../helpers/shared.js'
import { fastWebhookSettings, makeTestCa, startReceiver, waitFor } from '../helpers/webhooks.js'

/**
 * A node with `resolver` as its DNS for webhook targets, on a KEY_PREFIX of its own (a node of a
 * later test on the same prefix would rightly take over deliveries an earlier test left pending);
 * stopped when the test ends.
 */
function nodeWith(t: Test, backend: Backend, overrides: Partial<Settings>, resolver?: Resolver): Promise<TestNode> {
  return startNode(t, backend, { ...overrides, keyPrefix: uid('ws') }, resolver ? { webhookResolver: resolver } : {})
}

const fakeDns = (answers: Record<string, string[][]>, calls: string[] = []): Resolver => {
  const served = new Map<string, number>()
  return async (host) => {
    if (host === 'localhost') return systemResolver(host)
    calls.push(host)
    const seq = answers[host]
    if (!seq) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
    const i = served.get(host) ?? 0
    served.set(host, i + 1)
    return seq[Math.min(i, seq.length - 1)]!.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  }
}

t.test('webhook targets', async (t) => {
  const ca = await makeTestCa(t)
  for (const backend of BACKENDS) {
    t.test(`${backend}: refused at registration`, async (t) => {
      const dns = fakeDns({
        'internal.example': [['10.0.0.5']],
        'split.example': [['93.184.216.34', '192.168.1.10']],
        'public.example': [['93.184.216.34']],
      })
      const n = await nodeWith(t, backend, {}, dns)
      const { key } = await newTeam(n)
      // Out of the documented shape: 400. Well-formed but not a place the service sends to: 422.
      const refused: [string, 400 | 422, RegExp][] = [
        ['http://example.com/hook', 400, /must be an https:\/\/ URL/],
        ['https://user:pw@public.example/', 400, /no credentials/],
        ['https://public.example/#frag', 400, /no #fragment/],
        ['https://127.0.0.1/hook', 422, /127\.0\.0\.1 is a loopback address/],
        ['https://10.1.2.3/hook', 422, /10\.1\.2\.3 is a private address/],
        ['https://172.20.0.1/', 422, /a private address/],
        ['https://192.168.0.1/', 422, /a private address/],
        ['https://169.254.169.254/latest/meta-data/', 422, /link-local address \(cloud metadata/],
        ['https://100.100.100.200/', 422, /carrier NAT/],
        ['https://0.0.0.0/', 422, /"this network"/],
        ['https://224.0.0.1/', 422, /multicast/],
        ['https://[::1]/hook', 422, /::1 is a loopback address/],
        ['https://[::ffff:127.0.0.1]/', 422, /loopback address \(as 127\.0\.0\.1\)/],
        ['https://[fd00:ec2::254]/', 422, /unique local address/],
        ['https://[fe80::1]/', 422, /link-local/],
        ['https://localhost/hook', 422, /localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/],
        ['https://internal.example/hook', 422, /internal\.example resolves to 10\.0\.0\.5, which is a private address/],
        ['https://split.example/hook', 422, /split\.example resolves to 192\.168\.1\.10, which is a private address/],
        ['https://nowhere.example/hook', 422, /host nowhere\.example does not resolve/],
      ]
      for (const [url, status, why] of refused) {
        const res = await n.call('/admin/webhooks', { method: 'POST', key, json: { url } })
        const body = (await res.json()) as { error: { code: string; message: string; details: { field: string } } }
        t.equal(res.status, status, `${url} is refused with ${status}`)
        t.match(
          body.error,
          { code: status === 400 ? 'invalid_request' : 'url_refused', message: why, details: { field: 'url' } },
          `${url}: ${body.error.message}`,
        )
      }
      const ok = await n.call('/admin/webhooks', { method: 'POST', key, json: { url: 'https://public.example/hook' } })
      t.equal(ok.status, 201, 'a name resolving to public addresses only is accepted')
    })

    t.test(`${backend}: DNS rebinding: the name is resolved and checked again at every delivery`, async (t) => {
      const rx = await startReceiver(t, ca)
      const calls: string[] = []
      // Public when registered, loopback (where the receiver listens) afterwards.
      const dns = fakeDns({ 'rebind.example': [['93.184.216.34'], ['127.0.0.1']] }, calls)
      const n = await nodeWith(t, backend, { ...fastWebhookSettings(ca), webhookTestLoopbackCa: undefined }, dns)
      const { teamId, key } = await newTeam(n)
      const reg = await n.call('/admin/webhooks', {
        method: 'POST',
        key,
        json: { url: `https://rebind.example:${rx.port}/hook` },
      })
      t.equal(reg.status, 201, 'registered while it resolved to a public address')
      await n.node.core.rooms.create(teamId, { room_id: 'r1' }, 'test')
      await n.node.core.events.post({ room: { teamId, roomId: 'r1' }, agent: 'a' }, { type: 'message', text: 'x' })
      const health = async () =>
        ((await (await n.call('/admin/webhooks', { key })).json()) as { webhooks: WebhookView[] }).webhooks[0]!.health
      await waitFor(async () => (await health()).consecutiveFailures >= 2, 5000, 'two refused attempts')
      t.match(await health(), {
        pending: 1,
        delivered: 0,
        lastError: /rebind\.example resolves to 127\.0\.0\.1, which is a loopback address/,
      })
      t.ok(calls.length >= 3, `resolved at registration and at each attempt (${calls.length} lookups)`)
      t.equal(rx.received.length, 0, 'the loopback receiver was never reached')
    })

    t.test(`${backend}: the connection goes to the address that was checked`, async (t) => {
      const rx = await startReceiver(t, ca)
      const calls: string[] = []
      // receiver.test exists only in this resolver: a second lookup by the HTTPS client would fail.
      const dns = fakeDns({ 'receiver.test': [['127.0.0.1']] }, calls)
      const n = await nodeWith(t, backend, fastWebhookSettings(ca), dns)
      const { teamId, key } = await newTeam(n)
      const reg = await n.call('/admin/webhooks', {
        method: 'POST',
        key,
        json: { url: `https://receiver.test:${rx.port}/pinned` },
      })
      t.equal(reg.status, 201)
      await n.node.core.rooms.create(teamId, { room_id: 'r1' }, 'test')
      await n.node.core.events.post({ room: { teamId, roomId: 'r1' }, agent: 'a' }, { type: 'message', text: 'pinned' })
      await waitFor(() => rx.received.length >= 1, 5000, 'the delivery')
      t.equal(rx.received[0]!.headers.host, `receiver.test:${rx.port}`, 'Host names the target')
      const h = ((await (await n.call('/admin/webhooks', { key })).json()) as { webhooks: WebhookView[] }).webhooks[0]!
        .health
      t.equal(h.delivered, 1)
      t.same(
        calls,
        ['receiver.test', 'receiver.test'],
        'one lookup at registration, one for the attempt, none by the HTTPS client',
      )
    })

    t.test(`${backend}: redirects are not followed`, async (t) => {
      const rx = await startReceiver(t, ca)
      const inner = await startReceiver(t, ca)
      const targets = ['https://10.0.0.1/steal', inner.url('/inner')]
      rx.answer = (r) => ({ status: 302, headers: { Location: targets[r.path === '/first' ? 0 : 1]! } })
      const n = await nodeWith(t, backend, { ...fastWebhookSettings(ca), webhookRetryScheduleMs: [100] })
      const { teamId, key } = await newTeam(n)
      for (const path of ['/first', '/second']) {
        const reg = await n.call('/admin/webhooks', { method: 'POST', key, json: { url: rx.url(path) } })
        t.equal(reg.status, 201)
      }
      await n.node.core.rooms.create(teamId, { room_id: 'r1' }, 'test')
      await n.node.core.events.post({ room: { teamId, roomId: 'r1' }, agent: 'a' }, { type: 'message', text: 'go' })
      const hooks = async () =>
        ((await (await n.call('/admin/webhooks', { key })).json()) as { webhooks: WebhookView[] }).webhooks
      await waitFor(async () => (await hooks()).every((w) => w.health.failed === 1), 5000, 'both deliveries to fail')
      for (const w of await hooks()) {
        const where = w.url.endsWith('/first') ? targets[0]! : targets[1]!
        t.match(w.health.recentFailures[0], {
          lastStatus: 302,
          lastError: `redirect to ${where} not followed`,
          attempts: 2,
        })
      }
      t.equal(inner.received.length, 0, 'the redirect target was never requested')
    })
  }
})
