// The whole accounts path on two nodes sharing one Redis (standalone and cluster): waitlist ->
// operator approval on the other node -> mail -> sign-in -> key shown once -> the key works over
// MCP on both nodes -> invite a member -> the member signs in -> the owner deletes the account ->
// every key of the team answers 401 on both nodes, and a scan of Redis finds nothing of the team
// (its rooms, its webhook and the deliveries still pending for it included).
import t from 'tap'
import { testPrefix, traces } from '../helpers/accounts.js'
import { Browser, keyIn, linkIn, startSmtp } from '../helpers/mail.js'
import { callTool, legacyClient } from '../helpers/mcp.js'
import { openStream } from '../helpers/sse.js'
import { startNode, type TestNode } from '../helpers/node.js'
import { BACKENDS, rawClient, uid } from '../helpers/shared.js'
import { fastWebhookSettings, makeTestCa, startReceiver, waitFor } from '../helpers/webhooks.js'

/** Polls `path` with `key` on `n` every 50 ms until it answers 401; the ms it took, or Infinity after 5 s. */
async function refusedAfter(n: TestNode, key: string, since: number): Promise<number> {
  for (;;) {
    const res = await n.call('/admin/me', { key })
    await res.arrayBuffer()
    if (res.status === 401) return Date.now() - since
    if (Date.now() - since > 5000) return Infinity
    await new Promise((r) => setTimeout(r, 50))
  }
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const inbox = await startSmtp(t)
    const ca = await makeTestCa(t)
    const rx = await startReceiver(t, ca)
    rx.answer = () => ({ status: 500 })
    const prefix = testPrefix()
    const op = `${uid('op')}@example.com`
    const settings = { ...fastWebhookSettings(ca), keyPrefix: prefix, smtpUrl: inbox.url, adminEmails: [op] }
    const a = await startNode(t, backend, settings)
    const b = await startNode(t, backend, settings)
    const raw = rawClient(backend)
    t.teardown(() => raw.disconnect())

    const owner = `${uid('ow')}@example.com`
    const ownerA = new Browser(a.base)
    t.equal((await ownerA.post('/waitlist', { email: owner, note: 'two nodes' })).status, 200, 'waitlist on A')

    const opB = new Browser(b.base)
    await opB.post('/signin', { email: op })
    t.equal((await opB.follow(linkIn(await inbox.next(op)))).status, 200, 'the operator signs in on B')
    t.match(
      (await opB.send('/operator/waitlist', { email: owner, decision: 'approve' })).body,
      'is approved',
      'and approves on B',
    )

    const keyPage = await ownerA.follow(linkIn(await inbox.next(owner)))
    const key = keyIn(keyPage)!
    t.ok(key, 'the owner signs in on A and sees the new key once')
    const mcpB = await legacyClient(t, b, key)
    const made = await callTool(mcpB, 'create_room_from_template', { template: 'blank', room_id: 'two-nodes' })
    t.notOk(made.isError, 'the key works over MCP on B')
    const hook = await b.call('/admin/webhooks', { method: 'POST', key, json: { url: rx.url() } })
    t.equal(hook.status, 201, 'a webhook (its receiver fails, so deliveries stay pending)')
    const mcpA = await legacyClient(t, a, key)
    t.notOk(
      (await callTool(mcpA, 'post_event', { room_id: 'two-nodes', agent_id: 'planner', type: 'message', text: 'hi' }))
        .isError,
      'and on A',
    )
    await waitFor(() => rx.received.length >= 1, 5000, 'a first delivery attempt')
    const audit = (await (await a.call('/admin/audit', { key })).json()) as { entries: { action: string }[] }
    t.ok(
      audit.entries.some((e) => e.action === 'registered webhook'),
      'the audit trail records the webhook',
    )
    const minted = await b.call('/admin/keys', { method: 'POST', key, json: { label: 'worker', scope: 'admin' } })
    const extra = (await minted.json()) as {
      key: string
    }
    const roomKey = (await (
      await a.call('/admin/rooms/two-nodes/invite', { method: 'POST', key, json: {} })
    ).json()) as { key: string }

    const member = `${uid('mb')}@example.com`
    const ownerB = new Browser(b.base)
    ownerB.cookie = ownerA.cookie
    t.match(
      (await ownerB.send('/team/invites', { email: member })).body,
      'Invite sent',
      "the owner's session works on B: invite a member there",
    )
    const memberA = new Browser(a.base)
    t.equal((await memberA.follow(linkIn(await inbox.next(member)))).status, 303, 'the member signs in on A')
    const memberB = new Browser(b.base)
    memberB.cookie = memberA.cookie
    t.match((await memberB.get('/team')).body, 'member of team', "the member's session works on B")

    // The member goes first (an owner with members cannot), then the owner, on B.
    const teamName = /Type the team name, <strong>([^<]+)<\/strong>/
      .exec((await memberB.get('/account/delete')).body)![1]!
      .replaceAll('&#39;', "'")
    t.equal(
      (await memberB.send('/account/delete', { confirm: teamName })).status,
      200,
      'the member deletes their account on B',
    )
    const me = (await (await a.call('/admin/me', { key })).json()) as { teamId: string }
    for (const k of [key, extra.key])
      t.equal((await a.call('/admin/me', { key: k })).status, 200, "A holds the team's keys in its cache")
    const streams = [
      await openStream(a.base, 'two-nodes', { key }),
      await openStream(b.base, 'two-nodes', { key: roomKey.key }),
    ]
    t.same(
      streams.map((s) => s.status),
      [200, 200],
      'streams of a team key on A and a room invite key on B are open',
    )
    t.equal(
      (await ownerB.send('/account/delete', { confirm: teamName })).status,
      200,
      'the owner deletes the account and the team on B',
    )
    const since = Date.now()
    const timeout = new Promise<'open'>((r) => setTimeout(() => r('open'), 5000))
    t.same(
      await Promise.all(streams.map((s) => Promise.race([s.done, timeout]))),
      ['end', 'end'],
      'both streams are closed by the server',
    )
    const times: number[] = []
    for (const n of [a, b]) for (const k of [key, extra.key]) times.push(await refusedAfter(n, k, since))
    t.ok(times.every(Number.isFinite), 'every team key answers 401 on both nodes')
    t.comment(`401 on both nodes after ${Math.max(...times)} ms`)
    const roomRes = await a.call('/room/two-nodes', { key: roomKey.key })
    t.equal(roomRes.status, 401, 'the room invite key too')
    t.equal((await ownerA.get('/')).location, '/signin', "the owner's cookie no longer signs in on A")
    t.same(
      await traces(raw, prefix, [me.teamId, owner, member]),
      [],
      'a scan of Redis finds nothing of the team or its people',
    )
  })
}
