// The sign-in pages on a real node with a real SMTP server (smtp-server + mailparser): the
// waitlist, an operator's approval, e-mail links (GET shows Continue, only POST consumes), the key
// shown once, invites, sessions, CSRF, security headers, rate limits, and account deletion.
import t from 'tap'
import { operatorNode, signedInOperator, traces } from '../helpers/accounts.js'
import { Browser, keyIn, linkIn } from '../helpers/mail.js'
import { rawClient, uid } from '../helpers/shared.js'

t.test('standalone', async (t) => {
  const { inbox, op, prefix, n } = await operatorNode(t, { signInRatePerAddress: 8 })
  const raw = rawClient('standalone')
  t.teardown(() => raw.disconnect())

  t.test('every page carries the security headers; the sign-in form is labelled', async (t) => {
    const page = await new Browser(n.base).get('/signin')
    t.equal(page.status, 200)
    const csp = page.headers.get('content-security-policy') ?? ''
    t.match(csp, /frame-ancestors 'none'/)
    t.match(csp, /script-src 'self'/)
    t.notMatch(csp, /unsafe-inline/, 'no inline script or style allowed')
    t.equal(page.headers.get('referrer-policy'), 'no-referrer')
    t.equal(page.headers.get('x-content-type-options'), 'nosniff')
    t.match(page.body, /<label>E-mail address<input type="email" name="email"/)
    const css = /href="(\/assets\/app\.[0-9a-f]{12}\.css)"/.exec(page.body)?.[1]
    t.ok(css, 'the stylesheet has a fingerprinted name')
    const asset = await fetch(n.base + css!)
    t.equal(asset.status, 200)
    t.match(asset.headers.get('cache-control') ?? '', /immutable/)
    t.equal((await new Browser(n.base).get('/')).location, '/signin', 'signed out: / sends to the sign-in page')
  })

  const person = `${uid('p')}@example.com`
  let personBrowser: Browser
  let teamKey: string

  t.test('waitlist -> operator approval -> mail -> Continue -> key shown once -> the key works', async (t) => {
    const b = new Browser(n.base)
    const first = await b.post('/waitlist', { email: person, note: '<script>alert(1)</script> agents' })
    t.equal(first.status, 200)
    const unknownAgain = await b.post('/waitlist', { email: person, note: 'again' })
    t.equal(unknownAgain.body, first.body, 'the same answer for an address already listed (no enumeration)')
    t.equal(
      (await b.post('/waitlist', { email: 'nope', note: '' })).status,
      400,
      'a bad address is refused, naming the field',
    )

    const o = new Browser(n.base)
    await o.post('/signin', { email: op })
    const opPage = await o.follow(linkIn(await inbox.next(op)))
    t.equal(opPage.status, 200, 'the operator signs in (first time: a team of their own, key shown)')
    t.ok(keyIn(opPage), "the operator's own new team key is shown once")
    const list = await o.get('/operator')
    t.equal(list.status, 200)
    t.match(list.body, person)
    t.match(
      list.body,
      '&lt;script>alert(1)&lt;/script> agents',
      'a note is shown as text, escaped by the template library',
    )
    t.notMatch(list.body, '<script>alert', 'never as markup')
    const approved = await o.send('/operator/waitlist', { email: person, decision: 'approve' })
    t.match(approved.body, 'is approved')

    const link = linkIn(await inbox.next(person))
    const url = new URL(link)
    t.equal(url.pathname, '/signin/link')
    const shown = await b.get(url.pathname + url.search)
    t.match(shown.body, 'Continue')
    const shownAgain = await b.get(url.pathname + url.search)
    t.match(shownAgain.body, 'Continue', 'opening the link (a mail scanner) does not consume it')
    const crossSite = await b.post(
      '/signin/link',
      { token: url.searchParams.get('token')! },
      { site: 'cross-site', origin: 'https://evil.example' },
    )
    t.equal(crossSite.status, 403, 'a cross-site POST is refused')
    const bare = await b.post('/signin/link', { token: url.searchParams.get('token')! }, { site: 'none' })
    t.equal(bare.status, 403, 'a POST with neither Sec-Fetch-Site nor Origin is refused')
    const page = await b.post('/signin/link', { token: url.searchParams.get('token')! })
    t.equal(page.status, 200)
    t.equal(page.headers.get('cache-control'), 'no-store', 'the key page is never cached')
    t.match(
      page.headers.get('set-cookie') ?? '',
      /^ar_session=[A-Za-z0-9_-]{32}; Path=\/; HttpOnly; SameSite=Lax/,
      'plain-HTTP localhost: no __Host- prefix, not Secure',
    )
    teamKey = keyIn(page)!
    t.ok(teamKey, 'the new team key is shown once')
    const me = await n.call('/admin/me', { key: teamKey })
    t.equal(me.status, 200, 'the key works on the API')
    const home = await b.get('/team')
    t.equal(home.status, 200)
    t.notMatch(home.body, teamKey, 'the key is not shown again')
    t.notMatch(home.body, /ar_team_/, 'no key in the signed-in page')
    t.match(home.body, 'joined and signed in', 'the audit trail records the sign-in')
    const reused = await new Browser(n.base).follow(link)
    t.equal(reused.status, 400, 'the link a second time is refused')
    t.match(reused.body, 'not valid')
    personBrowser = b
  })

  t.test('an altered link and a cookie replayed after sign-out are refused', async (t) => {
    const b = new Browser(n.base)
    await b.post('/signin', { email: person })
    const link = linkIn(await inbox.next(person))
    const altered = link.slice(0, -1) + (link.endsWith('a') ? 'b' : 'a')
    t.equal((await b.follow(altered)).status, 400, 'altered: refused')
    const ok = await b.follow(link)
    t.equal(ok.status, 303, 'the real one still works (an altered one burnt nothing)')
    const cookie = b.cookie
    t.equal((await b.get('/')).status, 200)
    await b.post('/signout', {})
    t.equal(b.cookie, undefined, 'sign-out clears the cookie')
    const replay = new Browser(n.base)
    replay.cookie = cookie
    t.equal((await replay.get('/')).location, '/signin', 'the old cookie no longer signs in')
  })

  t.test(
    'sign-in flooding is refused per address with a clear page; unknown and known addresses get the same answer',
    async (t) => {
      const b = new Browser(n.base)
      const unknown = `${uid('u')}@example.com`
      const a = await b.post('/signin', { email: unknown })
      const k = await b.post('/signin', { email: person })
      t.equal(
        a.body.replace(unknown, 'X'),
        k.body.replace(person, 'X'),
        'same wording for a known and an unknown address',
      )
      // The limit counts requests for any address, known or not: the 9th within the hour is refused.
      let last
      for (let i = 0; i < 7; i++) last = await b.post('/signin', { email: unknown })
      t.equal(last!.status, 200, 'the 8th is still answered')
      last = await b.post('/signin', { email: unknown })
      t.equal(last.status, 429)
      t.ok(Number(last!.headers.get('retry-after')) > 0, 'with Retry-After')
      t.match(last.body, 'Too many mails to this address (the limit is 8 an hour). Try again in ')
    },
  )

  t.test('invite a member; the member signs in; deletion of member then owner leaves nothing', async (t) => {
    const member = `${uid('m')}@example.com`
    const sent = await personBrowser.send('/team/invites', { email: member })
    t.match(sent.body, `Invite sent to ${member}`)
    const mb = new Browser(n.base)
    const joined = await mb.follow(linkIn(await inbox.next(member)))
    t.equal(joined.status, 303, 'the member signs in (no key: the team has one)')
    const home = await personBrowser.get('/team')
    t.match(home.body, member, 'the owner sees the member')
    t.match(home.body, 'invited member', 'the audit trail records the invite')

    const ownerDelete = await personBrowser.get('/account/delete')
    t.match(ownerDelete.body, 'other member(s)', 'the owner must remove members first')
    const memberCookie = mb.cookie
    const gone = await mb.post('/account/delete', { confirm: 'wrong' })
    t.equal(gone.status, 400, 'a wrong team name deletes nothing')
    const teamName = /Type the team name, <strong>([^<]+)<\/strong>/
      .exec((await mb.get('/account/delete')).body)![1]!
      .replaceAll('&#39;', "'")
    t.equal((await mb.send('/account/delete', { confirm: teamName })).status, 200, 'the member deletes the account')
    const replay = new Browser(n.base)
    replay.cookie = memberCookie
    t.equal((await replay.get('/')).location, '/signin', "the deleted member's cookie is dead")

    const me = (await (await n.call('/admin/me', { key: teamKey })).json()) as { teamId: string }
    const minted = (await (
      await n.call('/admin/keys', { method: 'POST', key: teamKey, json: { label: 'ci' } })
    ).json()) as { keyId: string }
    await n.call(`/admin/keys/${minted.keyId}`, { method: 'DELETE', key: teamKey })
    const audit = (await (await n.call('/admin/audit?limit=5', { key: teamKey })).json()) as {
      entries: { actor: string; action: string; target?: string }[]
    }
    t.match(
      audit.entries.slice(0, 2),
      [
        { action: 'revoked key', target: minted.keyId, actor: /^key:key_/ },
        { action: 'minted key', target: minted.keyId },
      ],
      "the API's key changes are in the audit trail, newest first",
    )
    t.match((await personBrowser.get('/team')).body, `revoked key ${minted.keyId}`, "and on the members' page")
    t.equal((await n.call('/admin/audit?limit=0', { key: teamKey })).status, 400, 'a bad limit is refused')
    const page = await personBrowser.get('/account/delete')
    t.match(page.body, 'every team key and room invite key', 'the page states what will go')
    await n.call('/admin/rooms', { method: 'POST', key: teamKey, json: { roomId: 'doomed' } })
    t.equal(
      (await personBrowser.send('/account/delete', { confirm: teamName })).status,
      200,
      'the owner deletes the account',
    )
    t.equal((await n.call('/admin/me', { key: teamKey })).status, 401, 'the team key is refused')
    t.same(await traces(raw, prefix, [me.teamId, person, member]), [], 'nothing of the team is left in Redis')
  })
})

t.test("an unreachable search index (Meilisearch) stops a team's deletion before anything changed", async (t) => {
  const { n, b, first } = await signedInOperator(t, { meiliUrl: 'http://127.0.0.1:1', meiliIndex: uid('down') })
  const key = keyIn(first)!
  t.ok(key, "the owner signed in and has the new team's key")
  const teamName = /Type the team name, <strong>([^<]+)<\/strong>/
    .exec((await b.get('/account/delete')).body)![1]!
    .replaceAll('&#39;', "'")
  const refused = await b.post('/account/delete', { confirm: teamName })
  t.equal(refused.status, 503)
  t.match(
    refused.body,
    /Meilisearch\) is unreachable.*nothing was deleted/s,
    'the page says why and that nothing changed',
  )
  t.equal((await n.call('/admin/me', { key })).status, 200, 'the team key still works')
  t.equal((await b.get('/account/delete')).status, 200, 'the owner is still signed in')
})
