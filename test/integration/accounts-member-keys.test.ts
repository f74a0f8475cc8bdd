// A person who leaves the team keeps no access through the keys they minted: removing a
// member revokes every team key and room invite key the member minted (on the dashboard, and
// through the admin API with one of their keys), on the normal revocation path: the next call of
// each key is 401, an open SSE stream of one ends with `event: revoked`, and each revocation is in
// the audit trail. Keys of other people keep working. A member deleting their own account loses
// theirs the same way.
import t from 'tap'
import { signedInOperator, userIdIn } from '../helpers/accounts.js'
import { Browser, keyIn, linkIn } from '../helpers/mail.js'
import { openStream } from '../helpers/sse.js'
import { uid } from '../helpers/shared.js'

const secretIn = (body: string, id: string) =>
  new RegExp(`<textarea id="${id}"[^>]*>([^<]*)</textarea>`).exec(body)?.[1]

t.test('standalone', async (t) => {
  const { inbox, n, b: owner, first } = await signedInOperator(t)
  const ownerKey = keyIn(first)!

  /** Invites a new member, who signs in: their browser and user id. */
  async function newMember(role = 'member'): Promise<{ email: string; b: Browser; id: string }> {
    const email = `${uid('m')}@example.com`
    await owner.send('/team/invites', { email })
    const b = new Browser(n.base)
    t.equal((await b.follow(linkIn(await inbox.next(email)))).status, 303, 'the member signs in')
    const home = (await owner.get('/team')).body
    const id = home.includes(`Remove ${email}`) ? userIdIn(home, email) : undefined
    t.ok(id, 'the owner sees the member, with a remove button')
    if (role !== 'member') t.equal((await owner.send('/team/members/role', { user: id!, role })).status, 200)
    return { email, b, id: id! }
  }

  /** A team key minted on the dashboard by the person of `b`, of the admin scope unless said otherwise. */
  async function mintOnPage(b: Browser, label: string, scope = 'admin'): Promise<string> {
    const page = await b.send('/team/keys', { label, scope })
    t.equal(page.status, 200)
    return secretIn(page.body, 'minted-key')!
  }

  const status = async (path: string, key: string) => (await n.call(path, { key })).status

  t.test('the owner removes a member: every key the member minted is revoked, and its open stream ends', async (t) => {
    const m = await newMember('admin')
    const pageKey = await mintOnPage(m.b, 'member laptop')
    const apiMint = await n.call('/admin/keys', {
      key: pageKey,
      method: 'POST',
      json: { label: 'minted with the member key', scope: 'admin' },
    })
    t.equal(apiMint.status, 201)
    const apiKey = ((await apiMint.json()) as { key: string }).key
    const roomId = `mk-${Date.now()}`
    t.equal(
      (await n.call('/admin/rooms', { key: pageKey, method: 'POST', json: { roomId, template: 'blank' } })).status,
      201,
    )
    const inv = await n.call(`/admin/rooms/${roomId}/invite`, {
      key: pageKey,
      method: 'POST',
      json: { label: 'agent of the member' },
    })
    t.equal(inv.status, 201)
    const inviteKey = ((await inv.json()) as { key: string }).key
    const made = await m.b.send('/rooms', { name: `${roomId}-b`, agents: 'solo', template: 'blank', invite: '1' })
    const pageInvite = /Bearer (ar_room_[A-Za-z0-9_.-]+)/.exec(made.body)?.[1]
    t.ok(pageInvite, 'the member created a room on the dashboard, with an invite key')
    const ownersOther = await mintOnPage(owner, 'owner CI')

    for (const key of [pageKey, apiKey]) t.equal(await status('/admin/me', key), 200, "the member's team keys work")
    t.equal(await status(`/room/${roomId}`, inviteKey), 200, 'so does the invite minted with one')
    const stream = await openStream(n.base, roomId, { key: pageKey })
    t.teardown(() => stream.close())
    t.equal(stream.status, 200)
    t.ok(
      await stream.waitFor((f) => f.comments.some((c) => c.startsWith('connected'))),
      "a stream of the member's key is live",
    )

    const asked = await owner.send('/team/members/remove', { user: m.id })
    t.equal(asked.status, 200, 'without the confirmation step: the confirmation page')
    t.match(asked.body, `<h1>Remove ${m.email}?</h1>`, 'naming the person by address')
    t.match(asked.body, 'every key and room invite key they minted is revoked', 'and what goes')
    t.equal(await status('/admin/me', pageKey), 200, 'nothing is revoked yet')
    t.match((await owner.get('/team')).body, `>${m.email}<`, 'the member is still listed')
    const removed = await owner.send('/team/members/remove', { user: m.id, confirmed: 'yes' })
    t.equal(removed.status, 200)
    t.match(removed.body, `${m.email} is removed from the team; the 4 key(s) they minted are revoked`)

    t.ok(await stream.waitFor((f) => f.event === 'revoked'), 'the open stream ends with event: revoked')
    t.equal(await status('/admin/me', pageKey), 401, 'the key minted on the dashboard: 401 on the next call')
    t.equal(await status('/admin/me', apiKey), 401, 'the key minted through the API with it: 401')
    t.equal(await status(`/room/${roomId}`, inviteKey), 401, 'the invite minted with it: 401')
    t.equal(await status(`/room/${roomId}-b`, pageInvite!), 401, 'the invite minted on the dashboard: 401')
    t.equal(await status('/admin/me', ownerKey), 200, "the owner's first key works")
    t.equal(await status('/admin/me', ownersOther), 200, 'and so does a key the owner minted')

    const audit = (await (await n.call('/admin/audit', { key: ownerKey })).json()) as {
      entries: { action: string; target?: string }[]
    }
    const revocations = audit.entries.filter(
      (e) => e.action.startsWith('revoked') && e.target?.includes(`minted by ${m.email}`),
    )
    t.equal(revocations.length, 4, 'each revocation is in the audit trail, naming who minted it')
    const keys = (await (await n.call('/admin/keys', { key: ownerKey })).json()) as {
      keys: { label?: string; revokedAt?: string }[]
    }
    t.ok(
      keys.keys
        .filter((k) => k.label === 'member laptop' || k.label === 'minted with the member key')
        .every((k) => k.revokedAt),
      'listed as revoked',
    )
  })

  t.test('a member who deletes their own account loses the keys they minted', async (t) => {
    const m = await newMember()
    const key = await mintOnPage(m.b, 'mine', 'agent')
    t.equal(await status('/admin/me', key), 403, 'their agent key is live (and has no admin API)')
    const asked = (await m.b.get('/account/delete')).body
    t.match(asked, 'every team key and room invite key you minted: they are revoked', 'the page says what goes')
    t.notMatch(asked, 'its keys stay')
    const teamName = /Type the team name, <strong>([^<]+)<\/strong>/.exec(asked)![1]!.replaceAll('&#39;', "'")
    const gone = await m.b.send('/account/delete', { confirm: teamName })
    t.equal(gone.posted.status, 303, 'Post/Redirect/Get')
    t.equal(gone.status, 200, 'the member deletes the account')
    t.match(gone.body, /<p class="notice" role="status">Your account is deleted, and the key you minted is revoked\./)
    t.notMatch(gone.body, 'class="error"', 'a confirmation, not an error')
    t.equal(m.b.cookie, undefined, 'and the session cookie is cleared')
    t.equal(await status('/admin/me', key), 401, 'their key: 401')
    const keys = (await owner.get('/team/keys')).body
    t.match(keys, '<td data-label="Minted by">a deleted user</td>', 'the Keys page names no raw id')
    t.notMatch(keys, m.id, "not the deleted person's user id")
    t.equal(await status('/admin/me', ownerKey), 200, "the owner's key works")
  })
})
