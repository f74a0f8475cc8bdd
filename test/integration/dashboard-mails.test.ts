// The mails as a person reads them, caught by a real SMTP server: the approval mail tells someone
// who asked days ago that /signin sends a fresh link (and does not tell them to ignore it), the
// sign-in mail says how long its link works, the invite mail counts days properly, and every mail
// has an HTML part beside its text, with the link as a button and every value escaped.
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'
import { Browser, linkIn } from '../helpers/mail.js'
import { uid } from '../helpers/shared.js'

t.test('standalone', async (t) => {
  const { inbox, n, b: op } = await signedInOperator(t)

  t.test('the approval mail', async (t) => {
    const person = `${uid('w')}@example.com`
    await new Browser(n.base).post('/waitlist', { email: person, note: 'days ago' })
    await op.send('/operator/waitlist', { email: person, decision: 'approve' })
    const m = await inbox.next(person)
    t.match(m.subject, 'You are in')
    t.match(m.text, 'Your request to join agentrooms is approved')
    t.match(m.text, 'It works once, within 15 minutes of this mail.')
    t.match(m.text, `${n.base.replace('127.0.0.1', 'localhost')}/signin sends you a fresh link`)
    t.notMatch(m.text, /ignore/i, 'no "ignore this mail" to someone who asked')
    t.ok(m.html, 'an HTML part')
    t.match(m.html, `<a href="${linkIn(m).replaceAll('&', '&amp;')}"`, 'the link as a button')
    t.match(m.html, 'Sign in to agentrooms')
  })

  t.test('the invite mail, then the sign-in mail', async (t) => {
    const person = `${uid('s')}@example.com`
    await op.send('/team/invites', { email: person })
    const invite = await inbox.next(person)
    t.match(invite.text, /It works once, within 7 days\./, 'the invite counts days properly')
    t.notMatch(invite.text, 'day(s)')
    t.ok(invite.html, 'an HTML part')
    t.match(invite.html, 'Accept the invite')
    const b = new Browser(n.base)
    await b.follow(linkIn(invite))
    await b.post('/signout', {})
    await b.post('/signin', { email: person })
    const m = await inbox.next(person)
    t.match(m.text, 'It works once, within 15 minutes.')
    t.match(m.text, '/signin sends you a new one')
    t.ok(m.html, 'an HTML part')
  })

  t.test('values in the HTML are escaped', async (t) => {
    const { inviteMail } = await import('../../src/auth/mail-text.js')
    const m = inviteMail('<b>eve</b>', 'Team & <i>co</i>', 'https://x.test/?a=1&b=2', 86_400_000, 'https://x.test')
    t.notMatch(m.html, '<b>eve</b>')
    t.match(m.html, '&lt;b>eve&lt;/b> invites you to Team &amp; &lt;i>co&lt;/i>')
    t.match(m.text, 'within 1 day.')
  })
})
