// The mails a person can make the service send are limited per recipient address and per team:
// an owner who invites and revokes one address in a loop stops mailing it at the address limit,
// and a team stops at its own limit across addresses. A refused invite stores nothing and sends
// nothing.
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'
import { sleep } from '../helpers/realtime.js'
import { uid } from '../helpers/shared.js'

t.test('invite mails: per address, then per team', async (t) => {
  const { n, b, inbox } = await signedInOperator(t, { signInRatePerAddress: 3, mailRatePerTeam: 4 })
  const team = (await n.node.accounts.session(b.jar.get('ar_session')))!.team
  const pending = async (email: string) =>
    (await n.node.accounts.people(team)).invites.filter((i) => i.email === email && i.state === 'pending')

  const target = `${uid('target')}@example.com`
  for (let i = 0; i < 3; i++) {
    const sent = await b.send('/team/invites', { email: target })
    t.match(sent.body, `Invite sent to ${target}`, `invite ${i + 1} of 3 is sent`)
    await inbox.next(target)
    const [invite] = await pending(target)
    await b.send('/team/invites/revoke', { invite: invite!.id, confirmed: 'yes' })
  }
  const refused = await b.send('/team/invites', { email: target })
  t.equal(refused.status, 429, 'the fourth invite to the same address is refused')
  t.match(refused.body, 'Too many mails to this address (the limit is 3 an hour)')
  t.ok(Number(refused.headers.get('retry-after')) > 0, 'with Retry-After')
  t.same(await pending(target), [], 'and no invite is stored')

  const other = `${uid('other')}@example.com`
  t.match((await b.send('/team/invites', { email: other })).body, `Invite sent to ${other}`, "the team's fourth mail")
  const fifth = `${uid('fifth')}@example.com`
  const overTeam = await b.send('/team/invites', { email: fifth })
  t.equal(overTeam.status, 429, "the team's fifth is refused, to a fresh address too")
  t.match(overTeam.body, 'Too many invites mailed by this team (the limit is 4 an hour)')
  t.same(await pending(fifth), [], 'nothing stored')

  await sleep(500)
  t.equal(inbox.mails.filter((m) => m.to === target).length, 3, 'the target got three mails, not four')
  t.equal(inbox.mails.filter((m) => m.to === fifth).length, 0, 'the fifth address got none')
})
