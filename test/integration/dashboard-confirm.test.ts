// Destructive changes take two steps on a real node: the page offers each as a <details> whose
// final button names what goes and carries `confirmed=yes`; a post without it is answered with a
// confirmation page naming what goes, and changes nothing; the confirmed post makes the change
// and redirects (Post/Redirect/Get). Changes that destroy nothing (an approval) take one step.
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'
import { Browser } from '../helpers/mail.js'
import { uid } from '../helpers/shared.js'

t.test('confirmation steps', async (t) => {
  const { n, b } = await signedInOperator(t)

  t.test('declining a waitlist entry; approving takes one step', async (t) => {
    const [declined, approved] = [`${uid('d')}@example.com`, `${uid('a')}@example.com`]
    const visitor = new Browser(n.base)
    for (const email of [declined, approved]) await visitor.post('/waitlist', { email, note: 'agents' })
    const list = await b.get('/operator')
    t.match(list.body, `<summary>Decline ${declined}…</summary>`, 'decline is a two-step control')
    t.match(list.body, `>Approve ${approved}</button>`, 'approve is one button')
    const asked = await b.post('/operator/waitlist', { email: declined, decision: 'decline' })
    t.equal(asked.status, 200)
    t.match(asked.body, `<h1>Decline ${declined}?</h1>`)
    t.match(asked.body, 'gets no sign-in link', 'it says what follows')
    t.match(asked.body, '<input type="hidden" name="decision" value="decline"/>', 'the form again')
    t.match(asked.body, '<a href="/operator">Cancel: keep it and go back</a>')
    const state = async (email: string) => (await n.node.accounts.waitlist()).find((e) => e.email === email)?.state
    t.equal(await state(declined), 'pending', 'nothing is declined yet')
    const done = await b.send('/operator/waitlist', { email: declined, decision: 'decline', confirmed: 'yes' })
    t.equal(done.posted.status, 303, 'the confirmed post redirects')
    t.match(done.body, `${declined} is declined.`)
    t.equal(await state(declined), 'declined')
    const ok = await b.send('/operator/waitlist', { email: approved, decision: 'approve' })
    t.equal(ok.posted.status, 303, 'an approval needs no confirmation')
    t.equal(await state(approved), 'approved')
  })

  t.test("revoking a member's invite", async (t) => {
    const email = `${uid('i')}@example.com`
    await b.send('/team/invites', { email })
    const team = await b.get('/team')
    t.match(team.body, `<summary>Revoke invite of ${email}…</summary>`)
    const id = /name="invite" value="([^"]+)"/.exec(team.body)![1]!
    const asked = await b.post('/team/invites/revoke', { invite: id })
    t.equal(asked.status, 200)
    t.match(asked.body, `<h1>Revoke invite of ${email}?</h1>`)
    t.match(asked.body, `The link mailed to ${email} stops working`)
    const pending = async () => (await b.get('/team')).body.includes(`Revoke invite of ${email}…`)
    t.ok(await pending(), 'the invite is still pending')
    const done = await b.send('/team/invites/revoke', { invite: id, confirmed: 'yes' })
    t.equal(done.posted.status, 303)
    t.match(done.body, `The invite of ${email} is revoked.`)
    t.notOk(await pending(), 'and is gone from the pending ones')
  })

  t.test('an unknown target needs no confirmation: the change refuses it, naming it', async (t) => {
    const res = await b.post('/team/invites/revoke', { invite: 'inv_nope' })
    t.equal(res.status, 404)
    t.notMatch(res.body, 'Please confirm')
  })
})
