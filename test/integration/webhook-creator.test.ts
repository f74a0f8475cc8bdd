// Every webhook records who registered it: the signed-in person on the dashboard, or the key of an
// admin API call (with the person who minted it). The API returns it; the webhooks page names the
// person by address, never by user id. A person removed from the team (or deleting their account)
// has their webhooks disabled with the keys they minted: no delivery reaches them afterwards, and
// the reason is on the page, in the API and in the audit trail. On standalone Redis and on a
// 3-master Cluster, with a real HTTPS receiver (a test CA) and people signed in by mailed link to a
// real SMTP server.
import t, { type Test } from 'tap'
import type { WebhookView } from '../../src/webhooks/registry.js'
import { testPrefix, userIdIn } from '../helpers/accounts.js'
import { Browser, keyIn, linkIn, startSmtp, type Inbox } from '../helpers/mail.js'
import { startNode, type TestNode } from '../helpers/node.js'
import { BACKENDS, uid, type Backend } from '../helpers/shared.js'
import { fastWebhookSettings, makeTestCa, startReceiver, type Receiver, type TestCa } from '../helpers/webhooks.js'
import { eventually, sleep } from '../helpers/wait.js'

const secretIn = (body: string, id: string) =>
  new RegExp(`<textarea id="${id}"[^>]*>([^<]*)</textarea>`).exec(body)?.[1]

interface Team {
  n: TestNode
  inbox: Inbox
  owner: Browser
  ownerEmail: string
  /** The team's first key (it names nobody). */
  firstKey: string
  teamId: string
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
  const { teamId } = (await (await n.call('/admin/me', { key: firstKey })).json()) as { teamId: string }
  return { n, inbox, owner, ownerEmail, firstKey, teamId }
}

/** A team key minted on the dashboard by the person of `b`. */
async function mintOnPage(t: Test, b: Browser, label: string, scope = 'admin'): Promise<string> {
  const page = await b.send('/team/keys', { label, scope })
  t.equal(page.status, 200)
  return secretIn(page.body, 'minted-key')!
}

/** Invites a new person, who signs in (given `role` by the owner): their browser, address and user id. */
async function newMember(t: Test, s: Team, role = 'member'): Promise<{ email: string; b: Browser; id: string }> {
  const email = `${uid('m')}@example.com`
  await s.owner.send('/team/invites', { email })
  const b = new Browser(s.n.base)
  t.equal((await b.follow(linkIn(await s.inbox.next(email)))).status, 303, 'the member signs in')
  const id = userIdIn((await s.owner.get('/team')).body, email)!
  t.ok(id, 'the owner sees the member')
  if (role !== 'member') t.equal((await s.owner.send('/team/members/role', { user: id, role })).status, 200)
  return { email, b, id }
}

/** Registers a webhook on the page of the person of `b`: its id. */
async function registerOnPage(t: Test, b: Browser, url: string): Promise<string> {
  const made = await b.send('/team/webhooks', { url, description: '', events: '' })
  t.equal(made.status, 200)
  return /Webhook (wh_[A-Za-z0-9]+) is registered/.exec(made.body)![1]!
}

/** Registers a webhook through the admin API with `key`. */
async function registerWithKey(s: Team, key: string, url: string): Promise<WebhookView> {
  const res = await s.n.call('/admin/webhooks', { method: 'POST', key, json: { url } })
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`)
  return (await res.json()) as WebhookView
}

/** Event texts a receiver got on `path`. */
const textsAt = (rx: Receiver, path: string) => rx.received.filter((r) => r.path === path).map((r) => r.body.event.text)

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

    t.test(`${backend}: removing a person disables their webhooks; no delivery reaches them`, async (t) => {
      const s = await signedInTeam(t, backend, ca)
      const rx = await startReceiver(t, ca)
      const m = await newMember(t, s, 'admin')
      const onPage = await registerOnPage(t, m.b, rx.url('/page'))
      const memberKey = await mintOnPage(t, m.b, 'member laptop')
      const withKey = await registerWithKey(s, memberKey, rx.url('/key'))
      const minted = await s.n.call('/admin/keys', {
        key: memberKey,
        method: 'POST',
        json: { label: 'minted with the member key', scope: 'admin' },
      })
      const secondKey = ((await minted.json()) as { key: string }).key
      const withSecond = await registerWithKey(s, secondKey, rx.url('/second'))
      const owners = await registerOnPage(t, s.owner, rx.url('/owner'))
      const first = await registerWithKey(s, s.firstKey, rx.url('/first'))

      const roomId = uid('r')
      await s.n.node.core.rooms.create(s.teamId, { room_id: roomId }, 'test')
      const post = (text: string) =>
        s.n.node.core.events.post({ room: { teamId: s.teamId, roomId }, agent: 'alice' }, { type: 'message', text })
      // The member's page webhook fails for now: its delivery is pending, retrying, at the removal.
      rx.answer = (r) => (r.path === '/page' ? { status: 500 } : { status: 200 })
      await post('before')
      const paths = ['/page', '/key', '/second', '/owner', '/first']
      t.ok(
        await eventually(() => paths.every((p) => textsAt(rx, p).includes('before')), 10_000),
        'every webhook gets the event before',
      )

      const removed = await s.owner.send('/team/members/remove', { user: m.id, confirmed: 'yes' })
      t.equal(removed.status, 200)
      t.match(
        removed.body,
        `${m.email} is removed from the team; the 2 key(s) they minted are revoked; the 3 webhook(s)`,
      )
      const reason = `its creator ${m.email} was removed from the team`
      const after = await listed(s)
      const byId = new Map(after.map((w) => [w.webhookId, w]))
      for (const id of [onPage, withKey.webhookId, withSecond.webhookId]) {
        t.match(byId.get(id), { status: 'disabled', disabledReason: reason, disabledAt: String }, `${id}: disabled`)
      }
      for (const id of [owners, first.webhookId]) t.equal(byId.get(id)?.status, 'active', `${id}: still active`)

      // The pending delivery of the failing webhook is dropped when next due, not sent.
      t.ok(
        await eventually(async () => {
          const h = (await listed(s)).find((w) => w.webhookId === onPage)!.health
          return h.pending === 0 && h.dropped === 1
        }, 10_000),
        'its pending delivery is dropped',
      )
      const tries = textsAt(rx, '/page').length
      await post('after')
      t.ok(
        await eventually(() => textsAt(rx, '/owner').includes('after'), 10_000),
        "the owner's webhook gets the next event",
      )
      t.ok(await eventually(() => textsAt(rx, '/first').includes('after'), 10_000), "so does the first key's")
      // Every webhook's delivery of an event is enqueued in one script: the others got none of it.
      for (const p of ['/key', '/second']) t.notOk(textsAt(rx, p).includes('after'), `${p}: no delivery after removal`)
      t.equal(textsAt(rx, '/page').length, tries, 'the failing one: no attempt after its delivery was dropped')

      const page = (await s.owner.get('/team/webhooks')).body
      t.match(page, `: ${reason}. It gets no deliveries.`, 'the page says why it is disabled')
      t.match(page, 'Registered by a deleted user', 'and names nobody by id once the account is gone')
      t.notMatch(page, m.id)

      const audit = (await (await s.n.call('/admin/audit', { key: s.firstKey })).json()) as {
        entries: { actor: string; action: string; target?: string }[]
      }
      const disabled = audit.entries.filter((e) => e.action === 'disabled webhook')
      t.equal(disabled.length, 3, 'each disabling is audited')
      for (const e of disabled) {
        t.match(e.actor, /^user:usr_\S+ op/, 'as done by the owner who removed the member')
        t.match(
          e.target,
          new RegExp(`^wh_\\S+ https://127\\.0\\.0\\.1:${rx.port} \\(${reason.replace(/\./g, '\\.')}\\)$`),
        )
      }

      // A plain member may re-enable none: the page and the API name what it needs.
      const plain = await newMember(t, s)
      const refused = await plain.b.send('/team/webhooks/enable', { webhook: withSecond.webhookId })
      t.equal(refused.status, 403)
      t.match(
        refused.body,
        'changing webhooks needs the role owner or admin; you are member',
        'the page names the role',
      )
      const agentKey = await mintOnPage(t, plain.b, 'plain agent', 'agent')
      const byKey = await s.n.call(`/admin/webhooks/${withSecond.webhookId}/enable`, { method: 'POST', key: agentKey })
      t.equal(byKey.status, 403)
      t.match(await byKey.json(), {
        error: { code: 'forbidden', message: /needs a key with the admin scope; this key has the agent scope/ },
      })
      t.equal((await listed(s)).find((w) => w.webhookId === withSecond.webhookId)?.status, 'disabled', 'still disabled')

      // The owner re-enables two: through the API with the first key, and on the page.
      rx.answer = () => ({ status: 200 })
      const enabled = await s.n.call(`/admin/webhooks/${withKey.webhookId}/enable`, {
        method: 'POST',
        key: s.firstKey,
      })
      t.equal(enabled.status, 200)
      const back = (await enabled.json()) as WebhookView
      t.match(back, { status: 'active', enabledAt: String, enabledVia: { kind: 'key', id: first.createdVia!.id } })
      t.equal(back.disabledReason, undefined, 'the reason goes with the disabling')
      const again = await s.n.call(`/admin/webhooks/${withKey.webhookId}/enable`, { method: 'POST', key: s.firstKey })
      t.equal(again.status, 409, 'an active webhook: conflict')
      t.match(await again.json(), { error: { code: 'conflict', details: { field: 'webhookId' } } })
      const unknown = await s.n.call('/admin/webhooks/wh_nosuchhook00/enable', { method: 'POST', key: s.firstKey })
      t.equal(unknown.status, 404)
      const onPageBack = await s.owner.send('/team/webhooks/enable', { webhook: onPage })
      t.equal(onPageBack.status, 200)
      t.match(onPageBack.body, `Webhook ${onPage} is enabled again`)
      const shown = (await s.owner.get('/team/webhooks')).body
      t.match(shown, `re-enabled by ${s.ownerEmail} on`, 'the page says who re-enabled it, by address')
      const relisted = new Map((await listed(s)).map((w) => [w.webhookId, w]))
      t.match(relisted.get(onPage), { status: 'active', enabledVia: { kind: 'person' }, enabledBy: `user:` })
      t.match(relisted.get(onPage)?.enabledBy, s.ownerEmail, 'the API names the person who re-enabled it')

      await post('resumed')
      for (const p of ['/page', '/key', '/owner'])
        t.ok(await eventually(() => textsAt(rx, p).includes('resumed'), 10_000), `${p}: delivery resumes`)
      for (const p of ['/page', '/key'])
        t.notOk(textsAt(rx, p).includes('after'), `${p}: nothing posted while it was disabled`)
      t.notOk(textsAt(rx, '/second').includes('resumed'), 'the one left disabled gets nothing')

      const trail = (await (await s.n.call('/admin/audit', { key: s.firstKey })).json()) as {
        entries: { actor: string; action: string; target?: string }[]
      }
      const reEnabled = trail.entries.filter((e) => e.action === 're-enabled webhook')
      t.same(
        reEnabled.map((e) => e.actor).sort(),
        [`key:${first.createdVia!.id}`, relisted.get(onPage)!.enabledBy].sort(),
        'each re-enabling is audited with who did it',
      )
      for (const e of reEnabled) t.match(e.target, `(was disabled: ${reason})`, 'and the reason it had')
    })
  }

  t.test('standalone: deleting an account disables the webhooks of the person', async (t) => {
    const s = await signedInTeam(t, 'standalone', ca)
    const rx = await startReceiver(t, ca)
    const m = await newMember(t, s, 'admin')
    const mine = await registerOnPage(t, m.b, rx.url('/mine'))
    const asked = (await m.b.get('/account/delete')).body
    t.match(asked, 'every webhook you made: it is disabled', 'the page says what happens to them')
    const teamName = /Type the team name, <strong>([^<]+)<\/strong>/.exec(asked)![1]!.replaceAll('&#39;', "'")
    const gone = await m.b.send('/account/delete', { confirm: teamName })
    t.equal(gone.status, 200)
    t.match(gone.body, 'Your account is deleted. The webhook you made is disabled.')
    const w = (await listed(s)).find((h) => h.webhookId === mine)!
    t.match(w, { status: 'disabled', disabledReason: `its creator ${m.email} deleted their account` })

    // The team's only webhook is disabled: events posted now are wanted by none, and stay so.
    const roomId = uid('r')
    await s.n.node.core.rooms.create(s.teamId, { room_id: roomId }, 'test')
    const post = (text: string) =>
      s.n.node.core.events.post({ room: { teamId: s.teamId, roomId }, agent: 'alice' }, { type: 'message', text })
    await post('while disabled')
    // Deliberately lets several webhook passes and sweeps (50 ms, 1 s) run while it is disabled.
    await sleep(1500)
    t.equal(rx.received.length, 0, 'nothing is delivered while it is disabled')
    t.equal((await s.owner.send('/team/webhooks/enable', { webhook: mine })).status, 200)
    await post('back')
    t.ok(await eventually(() => textsAt(rx, '/mine').includes('back'), 10_000), 'delivery resumes once re-enabled')
    t.same(textsAt(rx, '/mine'), ['back'], 'with the events posted from then on only')
  })
})
