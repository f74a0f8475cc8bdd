// Every webhook records who registered it: the signed-in person on the dashboard, or the key of an
// admin API call (with the person who minted it). The API returns it; the webhooks page names the
// person by address, never by user id. On standalone Redis and on a 3-master Cluster, with a real
// HTTPS receiver (a test CA) and people signed in by mailed link to a real SMTP server.
import t, { type Test } from 'tap'
import type { WebhookView } from '../../src/webhooks/registry.js'
import { testPrefix } from '../helpers/accounts.js'
import { Browser, keyIn, linkIn, startSmtp, type Inbox } from '../helpers/mail.js'
import { startNode, type TestNode } from '../helpers/node.js'
import { BACKENDS, uid, type Backend } from '../helpers/shared.js'
import { fastWebhookSettings, makeTestCa, startReceiver, type TestCa } from '../helpers/webhooks.js'

const secretIn = (body: string, id: string) =>
  new RegExp(`<textarea id="${id}"[^>]*>([^<]*)</textarea>`).exec(body)?.[1]

interface Team {
  n: TestNode
  inbox: Inbox
  owner: Browser
  ownerEmail: string
  /** The team's first key (it names nobody). */
  firstKey: string
}

/** A node on `backend` delivering to loopback receivers of `ca`, and an operator signed in with a new team. */
async function signedInTeam(t: Test, backend: Backend, ca: TestCa): Promise<Team> {
  const inbox = await startSmtp(t)
  const ownerEmail = `${uid('op')}@example.com`
  const n = await startNode(t, backend, {
    ...fastWebhookSettings(ca),
    keyPrefix: testPrefix(),
    smtpUrl: inbox.url,
    adminEmails: [ownerEmail],
  })
  const owner = new Browser(n.base)
  await owner.post('/signin', { email: ownerEmail })
  const firstKey = keyIn(await owner.follow(linkIn(await inbox.next(ownerEmail))))!
  return { n, inbox, owner, ownerEmail, firstKey }
}

/** A team key minted on the dashboard by the person of `b`. */
async function mintOnPage(t: Test, b: Browser, label: string, scope = 'admin'): Promise<string> {
  const page = await b.send('/team/keys', { label, scope })
  t.equal(page.status, 200)
  return secretIn(page.body, 'minted-key')!
}

async function listed(s: Team, key = s.firstKey): Promise<WebhookView[]> {
  const res = await s.n.call('/admin/webhooks', { key })
  return ((await res.json()) as { webhooks: WebhookView[] }).webhooks
}

t.test('webhook creators', async (t) => {
  const ca = await makeTestCa(t)
  for (const backend of BACKENDS) {
    t.test(`${backend}: the API and the page record who registered a webhook`, async (t) => {
      const s = await signedInTeam(t, backend, ca)
      const rx = await startReceiver(t, ca)
      const ciKey = await mintOnPage(t, s.owner, 'owner CI')
      const keys = (await (await s.n.call('/admin/keys', { key: s.firstKey })).json()) as {
        keys: { keyId: string; label?: string; createdBy?: string }[]
      }
      const ci = keys.keys.find((k) => k.label === 'owner CI')!
      const ownerId = /^user:(usr_\S+) /.exec(ci.createdBy ?? '')?.[1]
      t.ok(ownerId, 'the key names the owner who minted it')

      const viaApi = await s.n.call('/admin/webhooks', { method: 'POST', key: ciKey, json: { url: rx.url('/api') } })
      t.equal(viaApi.status, 201)
      const api = (await viaApi.json()) as WebhookView
      t.same(
        api.createdVia,
        { kind: 'key', id: ci.keyId, label: 'owner CI', person: ownerId },
        'made through the API: the key, its label and the person who minted it',
      )
      t.equal(api.createdBy, `user:${ownerId} ${s.ownerEmail}`, 'and that person, as the audit trail names people')
      const viaFirst = await s.n.call('/admin/webhooks', {
        method: 'POST',
        key: s.firstKey,
        json: { url: rx.url('/first') },
      })
      const first = (await viaFirst.json()) as WebhookView
      t.equal(first.createdVia?.kind, 'key')
      t.equal(first.createdVia?.person, undefined, 'the first key names no person, nor does its webhook')
      t.equal(first.createdBy, undefined)

      const made = await s.owner.send('/team/webhooks', { url: rx.url('/page'), description: '', events: '' })
      t.equal(made.status, 200)
      const pageId = /Webhook (wh_[A-Za-z0-9]+) is registered/.exec(made.body)![1]!

      const all = await listed(s)
      t.same(
        all.map((w) => [w.webhookId, w.createdVia]),
        [
          [api.webhookId, api.createdVia],
          [first.webhookId, first.createdVia],
          [pageId, { kind: 'person', id: ownerId }],
        ],
        'the list returns who registered each',
      )
      t.equal(all[2]!.createdBy, `user:${ownerId} ${s.ownerEmail}`)

      const page = (await s.owner.get('/team/webhooks')).body
      t.match(page, `Registered by ${s.ownerEmail}, with the key &quot;owner CI&quot;`, 'the API one: person and key')
      t.match(page, `Registered by ${s.ownerEmail} on`, 'the page one: the person by address')
      t.match(page, 'Registered by the key &quot;first key&quot; on', 'the first key: by its label, nobody else')
      t.notMatch(page, ownerId!, 'never the raw user id')

      const audit = (await (await s.n.call('/admin/audit', { key: s.firstKey })).json()) as {
        entries: { actor: string; action: string; target?: string }[]
      }
      const registered = audit.entries.filter((e) => e.action === 'registered webhook')
      t.same(
        registered.map((e) => e.actor).sort(),
        [`key:${ci.keyId}`, `key:${first.createdVia!.id}`, `user:${ownerId} ${s.ownerEmail}`].sort(),
        'each registration is audited with who made it',
      )
    })
  }
})
