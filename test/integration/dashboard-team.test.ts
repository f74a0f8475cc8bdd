// The team page on a real node: an owner renames the team (audited, and every page shows the new
// name at once), a bad name is refused at the field and changes nothing, a member may not rename
// and is told which role may; the roles are explained as the one role table says; the audit trail
// names people by address, never by their user id.
import t from 'tap'
import { ROLES, roleMay } from '../../src/auth/permissions.js'
import { signedInOperator } from '../helpers/accounts.js'
import { Browser, linkIn } from '../helpers/mail.js'
import { uid } from '../helpers/shared.js'

t.test('the team page', async (t) => {
  const { inbox, n, b, op } = await signedInOperator(t)
  const teamId = (await n.node.accounts.session(b.jar.get('ar_session')))!.team
  const name = async () => (await n.node.teams.get(teamId))!.name

  t.test('an owner renames the team; every page shows the new name', async (t) => {
    const before = await name()
    const page = await b.get('/team')
    t.match(page.body, '<summary>Rename the team</summary>')
    const renamed = await b.send('/team/rename', { name: '  Acme <agents>  ' })
    t.equal(renamed.posted.status, 303, 'Post/Redirect/Get')
    t.match(renamed.posted.location, /^\/team\?done=/)
    t.match(renamed.body, 'The team is now called Acme &lt;agents>.')
    t.equal(await name(), 'Acme <agents>', 'stored trimmed')
    t.match(renamed.body, '<h1>Team Acme &lt;agents></h1>')
    for (const path of ['/team/keys', '/team/webhooks'])
      t.match((await b.get(path)).body, 'Acme &lt;agents>', `${path} shows the new name`)
    t.match(renamed.body, `renamed team from &quot;${before}&quot; to &quot;Acme &lt;agents>&quot;`, 'audited')
  })

  t.test('a bad name is refused at the form and changes nothing', async (t) => {
    for (const [given, says] of [
      ['   ', 'The new name must not be blank'],
      ['x'.repeat(101), 'The new name must be at most 100 characters'],
    ] as const) {
      const res = await b.post('/team/rename', { name: given })
      t.equal(res.status, 400)
      t.match(res.body, says)
      t.match(res.body, '<details class="small" open><summary>Rename the team</summary>', 'the form stays open')
      t.match(res.body, /aria-invalid="true" aria-describedby="rename-name-error"/, 'the field is marked')
      t.match(res.body, new RegExp(`<p class="error field" id="rename-name-error" role="alert">${says}`), 'at it')
      t.notMatch(res.body, /<p class="error" role="alert">/, 'not at the top of the page')
      t.match(res.body, `value="${given}"`, 'with what was typed')
      t.equal(await name(), 'Acme <agents>', 'the name is unchanged')
    }
  })

  t.test('people by address in the audit trail, never by user id', async (t) => {
    const page = (await b.get('/team')).body
    const trail = page.slice(page.indexOf('<h2>Audit trail</h2>'))
    t.match(trail, `<td data-label="Who">${op}</td>`)
    t.notMatch(trail, /user:|usr_/, 'no user id in the trail')
    t.notMatch(page, /of team <code>/, 'the team by name, not by id')
  })

  t.test('the roles explained, as the role table says; a member is told what needs which role', async (t) => {
    const email = `${uid('m')}@example.com`
    await b.send('/team/invites', { email })
    const m = new Browser(n.base)
    t.equal((await m.follow(linkIn(await inbox.next(email)))).status, 303)
    const page = (await m.get('/team')).body
    t.match(page, '<summary>What each role may do (you are member)</summary>')
    const rows = [...page.matchAll(/<tr><th scope="row">([^<]+)<\/th>((?:<td>(?:yes|no)<\/td>)+)<\/tr>/g)]
    t.ok(rows.length >= 9, `a row per action (${rows.length})`)
    const rename = rows.find((r) => r[1] === 'Rename the team')!
    t.same(
      [...rename[2]!.matchAll(/<td>(yes|no)<\/td>/g)].map((c) => c[1]),
      ROLES.map((r) => (roleMay(r, 'team.manage') ? 'yes' : 'no')),
      'its cells are the role table',
    )
    t.notMatch(page, 'Rename the team</summary>', 'no rename form for a member')
    t.match(page, 'Renaming or deleting the team needs the role owner; you are member.', 'said where it would be')
    t.match(page, 'Inviting or removing members needs the role owner or admin; you are member.')
    const refused = await m.post('/team/rename', { name: 'Mine' })
    t.equal(refused.status, 403, 'a member posting anyway is refused')
    t.equal(await name(), 'Acme <agents>', 'and nothing changes')
    t.match((await m.get('/team/webhooks')).body, 'Changing webhooks needs the role owner or admin; you are member.')
  })
})
