// The webhooks page against a real HTTPS receiver (a test CA): register (bad URL refused, naming
// the field; the secret shown once, and it signs what arrives), a test request, rotation with the
// previous secret still signing, and delete; each in the audit trail.
import t from 'tap'
import { Browser, keyIn, linkIn, startSmtp } from '../helpers/mail.js'
import { startNode } from '../helpers/node.js'
import { uid } from '../helpers/shared.js'
import { fastWebhookSettings, makeTestCa, opensslHmac, startReceiver } from '../helpers/webhooks.js'

const secretIn = (body: string) => /<textarea id="webhook-secret"[^>]*>([^<]*)<\/textarea>/.exec(body)?.[1]

t.test('standalone', async (t) => {
  const ca = await makeTestCa(t)
  const receiver = await startReceiver(t, ca)
  const inbox = await startSmtp(t)
  const op = `${uid('op')}@example.com`
  const n = await startNode(t, 'standalone', { ...fastWebhookSettings(ca), smtpUrl: inbox.url, adminEmails: [op] })
  const b = new Browser(n.base)
  await b.post('/signin', { email: op })
  const teamKey = keyIn(await b.follow(linkIn(await inbox.next(op))))!

  const empty = await b.get('/team/webhooks')
  t.equal(empty.status, 200)
  t.match(empty.body, 'No webhooks')
  const bad = await b.send('/team/webhooks', { url: 'http://example.com/hook' })
  t.equal(bad.status, 400)
  t.match(bad.body, 'url: must be an https:// URL')
  t.match(bad.body, 'No webhooks', 'nothing registered')

  const made = await b.send('/team/webhooks', {
    url: `https://localhost:${receiver.port}/hook/t0ken?sig=s3cret`,
    description: 'CI <bot>',
    events: '',
  })
  t.equal(made.status, 200)
  const secret = secretIn(made.body)!
  t.match(secret, /^whsec_/, 'the secret, once')
  t.match(made.body, 'CI &lt;bot>')
  const webhookId = /Webhook (wh_[A-Za-z0-9]+) is registered/.exec(made.body)?.[1]
  t.ok(webhookId)
  t.notMatch((await b.get('/team/webhooks')).body, secret, 'not shown again')

  const tested = await b.send('/team/webhooks/test', { webhook: webhookId! })
  t.match(tested.body, /Test request \S+ delivered: HTTP 200/)
  const got = receiver.received.at(-1)!
  t.equal(got.headers['x-service-signature'], await opensslHmac(secret, got.raw), 'signed with the secret shown')

  const rotated = await b.send('/team/webhooks/rotate', { webhook: webhookId! })
  const next = secretIn(rotated.body)!
  t.ok(next && next !== secret, 'a new secret, shown once')
  t.match(rotated.body, 'previous secret signs until')

  const asked = await b.send('/team/webhooks/delete', { webhook: webhookId! })
  t.equal(asked.status, 200, 'a delete without the confirmation step asks for it')
  t.match(asked.body, `<h1>Delete ${webhookId}?</h1>`)
  t.match(asked.body, 'No more deliveries go to https://', 'naming its URL')
  t.match((await b.get('/team/webhooks')).body, `Delete ${webhookId}…`, 'and deletes nothing')
  const gone = await b.send('/team/webhooks/delete', { webhook: webhookId!, confirmed: 'yes' })
  t.match(gone.body, `Webhook ${webhookId} is deleted`)
  t.equal((await b.send('/team/webhooks/test', { webhook: webhookId! })).status, 404, 'a deleted webhook: not found')
  const audit = (await (await n.call('/admin/audit', { key: teamKey })).json()) as {
    entries: { action: string; target?: string }[]
  }
  const actions = audit.entries.map((e) => e.action)
  for (const a of ['registered webhook', 'rotated webhook secret', 'deleted webhook'])
    t.ok(actions.includes(a), `audited: ${a}`)
  const named = audit.entries.filter((e) => e.action !== 'rotated webhook secret' && e.action.includes('webhook'))
  for (const e of named)
    t.equal(e.target, `${webhookId} https://localhost:${receiver.port}`, `${e.action}: the URL's origin only`)
  t.notMatch(JSON.stringify(audit), /t0ken|s3cret/, "the URL's path and query are nowhere in the trail")
})
