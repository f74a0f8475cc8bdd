// The keys page: a team key minted from the page is shown once (with its copy control) and
// works; revoking it from the page makes the API refuse it; the last live key cannot be revoked;
// room invite keys minted at room creation are listed and revoked, each in two steps (a post
// without the confirmation revokes nothing); every change is audited; each
// key names who minted it ("—" for nobody: the team's first key).
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'
import { Browser, keyIn } from '../helpers/mail.js'

const secretIn = (body: string, id: string) =>
  new RegExp(`<textarea id="${id}"[^>]*>([^<]*)</textarea>`).exec(body)?.[1]

t.test('standalone', async (t) => {
  const { n, b, op, first } = await signedInOperator(t)
  const firstKey = keyIn(first)!

  t.test('the only key cannot be revoked from the page', async (t) => {
    const page = await b.get('/team/keys')
    t.equal(page.status, 200)
    t.match(page.body, 'the last live key cannot be revoked')
    t.notMatch(page.body, firstKey, 'the secret is never shown again')
    t.match(page.body, '<td data-label="Minted by">—</td>', "the team's first key was minted by nobody")
  })

  t.test('mint: shown once with a copy button, works; revoke: refused everywhere at once', async (t) => {
    const long = await b.send('/team/keys', { label: 'x'.repeat(101) })
    t.equal(long.status, 400, 'a label over the limit is refused')
    t.match(long.body, 'must be at most 100 characters')
    const team = (await n.node.accounts.session(b.jar.get('ar_session')))!.team
    const before = (await n.node.teams.listKeys(team)).length
    const minted = await b.send('/team/keys', { label: 'CI <bot>', scope: 'admin' })
    t.equal(minted.posted.status, 303, 'Post/Redirect/Get')
    t.match(minted.posted.location, /^\/team\/keys\?done=[A-Za-z0-9_-]+$/)
    t.equal(minted.status, 200)
    const key = secretIn(minted.body, 'minted-key')!
    t.match(key, /^ar_team_/, 'the new key, once')
    t.match(minted.body, 'data-copy="minted-key"', 'with a copy button')
    t.match(minted.body, 'CI &lt;bot>', 'the label as text')
    t.match(minted.body, `<td data-label="Minted by">${op}</td>`, 'minted by the person signed in, named by address')
    t.equal((await n.call('/admin/me', { key })).status, 200, 'the key works')
    t.notMatch((await b.get('/team/keys')).body, key, 'and is not shown again')
    const reload = await b.get(minted.posted.location!)
    t.equal(secretIn(reload.body, 'minted-key'), key, 'a reload shows the same key')
    t.equal((await n.node.teams.listKeys(team)).length, before + 1, 'and mints no other')
    const stranger = new Browser(n.base)
    stranger.cookie = b.cookie!.replace(/ar_session=[^;]+/, 'ar_session=not-this-session')
    t.notMatch((await stranger.get(minted.posted.location!)).body, key, 'another session cannot open it')
    const keyId = /Key (key_[a-z0-9]+) is minted/.exec(minted.body)![1]!
    const keys = await b.get('/team/keys')
    t.match(keys.body, `<details class="confirm"><summary>Revoke ${keyId}…</summary>`, 'revoking takes two steps')
    t.match(keys.body, `<button class="danger" type="submit">Revoke ${keyId}</button>`, 'the last names the key')
    const asked = await b.send('/team/keys/revoke', { key: keyId })
    t.equal(asked.status, 200, 'a revoke without the confirmation step asks for it')
    t.match(asked.body, `<h1>Revoke ${keyId}?</h1>`)
    t.match(asked.body, 'get 401 on every node within a second', 'saying what follows')
    t.match(asked.body, `<input type="hidden" name="key" value="${keyId}"/>`, 'the same form again')
    t.match(asked.body, '<a href="/team/keys">Cancel: keep it and go back</a>')
    t.equal((await n.call('/admin/me', { key })).status, 200, 'and the key still works')
    const revoked = await b.send('/team/keys/revoke', { key: keyId, confirmed: 'yes' })
    t.equal(revoked.posted.status, 303)
    t.equal(revoked.status, 200)
    t.match(revoked.body, `Key ${keyId} is revoked`)
    t.equal((await n.call('/admin/me', { key })).status, 401, 'the API refuses it')
    t.equal((await n.call('/admin/me', { key: firstKey })).status, 200, 'the other key still works')
    t.equal(
      (await b.send('/team/keys/revoke', { key: 'key_nope', confirmed: 'yes' })).status,
      404,
      'an unknown key: not found',
    )
  })

  t.test('room invite keys: listed and revoked', async (t) => {
    const made = await b.send('/rooms', { name: 'inv', agents: 'solo', template: 'blank', invite: '1' })
    const invite = /Bearer (ar_room_[A-Za-z0-9_.-]+)/.exec(made.body)![1]!
    const mcp = () => n.call('/room/inv', { key: invite })
    t.equal((await mcp()).status, 200, 'the invite key reaches its room')
    const page = await b.get('/team/keys')
    const token = /name="token" value="([^"]+)"/.exec(page.body)?.[1]
    t.ok(token, 'listed with a revoke button')
    t.match(page.body, '<td data-label="Label">agent solo</td>', 'with its label')
    t.match(
      page.body,
      `<td data-label="Label">agent solo</td><td data-label="Access">read and write</td>` +
        `<td data-label="Minted by">${op}</td>`,
      'and who minted it',
    )
    const asked = await b.send('/team/invite-keys/revoke', { room: 'inv', token: token! })
    t.match(asked.body, `<h1>Revoke ${token}?</h1>`, 'asked first')
    t.match(asked.body, 'this invite key of room inv')
    t.equal((await mcp()).status, 200, 'and still working')
    const revoked = await b.send('/team/invite-keys/revoke', { room: 'inv', token: token!, confirmed: 'yes' })
    t.match(revoked.body, 'is revoked')
    t.equal((await mcp()).status, 401, 'refused afterwards')
    const audit = (await (await n.call('/admin/audit', { key: firstKey })).json()) as { entries: { action: string }[] }
    const actions = audit.entries.map((e) => e.action)
    for (const a of ['minted key', 'revoked key', 'revoked room invite']) t.ok(actions.includes(a), `audited: ${a}`)
  })

  t.test("every room's invite keys are listed, past the first 500 rooms", async (t) => {
    const user = (await n.node.accounts.session(b.jar.get('ar_session')))!
    for (let i = 0; i < 500; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          n.node.core.rooms.create(user.team, { room_id: `many-${String(i + j).padStart(3, '0')}` }, 'test'),
        ),
      )
    }
    const late = await n.node.core.rooms.create(user.team, { room_id: 'the-last-room' }, 'test')
    const { info } = await n.node.teams.mintInvite(user.team, late.room.room_id, { label: 'late agent' })
    const page = await b.get('/team/keys')
    t.equal(page.status, 200)
    t.match(page.body, `Revoke ${info.tokenId}`, 'the invite of the 501st room is there to revoke')
  })

  t.test('cross-site and signed-out posts are refused', async (t) => {
    t.equal((await b.send('/team/keys', {}, { site: 'cross-site', origin: 'https://evil.example' })).status, 403)
    t.equal((await new Browser(n.base).send('/team/keys', {})).status, 401)
  })
})
