// A person whose role is lowered keeps no key beyond the new role: lowered from admin to member,
// the admin-scope keys they minted are revoked (their agent keys keep working); lowered to
// viewer, every key they minted is. Each revocation is in the audit trail, and the page says so.
import t from 'tap'
import { signedInOperator, userIdIn } from '../helpers/accounts.js'
import { Browser, keyIn, linkIn } from '../helpers/mail.js'
import { uid } from '../helpers/shared.js'

t.test('lowering a role revokes the keys beyond it', async (t) => {
  const { inbox, n, b: owner } = await signedInOperator(t)
  const email = `${uid('admin')}@example.com`
  t.equal((await owner.send('/team/invites', { email })).status, 200)
  const admin = new Browser(n.base)
  await admin.follow(linkIn(await inbox.next(email)))
  const id = userIdIn((await owner.get('/team')).body, email)!
  t.equal((await owner.send('/team/members/role', { user: id, role: 'admin' })).status, 200)

  const mint = async (scope: string) => {
    const page = await admin.send('/team/keys', { label: `${scope}-key`, scope })
    t.equal(page.status, 200, `the admin mints a key with the ${scope} scope`)
    return { key: keyIn(page)!, keyId: /Key (key_[A-Za-z0-9_-]+) is minted/.exec(page.body)![1]! }
  }
  const adminKey = await mint('admin')
  const agentKey = await mint('agent')
  const me = (key: string) => n.call('/admin/me', { key })
  const rooms = (key: string) => n.call('/admin/rooms', { key })
  t.equal((await me(adminKey.key)).status, 200, 'the admin key reaches the admin API')

  const lowered = await owner.send('/team/members/role', { user: id, role: 'member' })
  t.equal(lowered.status, 200)
  t.match(lowered.body, `${email} is now member; the 1 key(s) they minted beyond it are revoked.`)
  const refused = await me(adminKey.key)
  t.equal(refused.status, 401, 'the admin-scope key is revoked')
  t.match(await refused.text(), /unknown or revoked key/)
  const agent = await rooms(agentKey.key)
  t.equal(agent.status, 403, 'the agent key still works, as far as its scope goes')
  t.match(await agent.text(), /needs a key with the admin scope; this key has the agent scope/)
  const trail = (await n.node.audit.read((await n.node.accounts.session(owner.jar.get('ar_session')!))!.team, 50)).map(
    (e) => `${e.action}: ${e.target ?? ''}`,
  )
  t.ok(trail.includes(`revoked key: ${adminKey.keyId} (minted by ${email}, now member)`), 'audited')
  t.notOk(
    trail.some((e) => e.startsWith(`revoked key: ${agentKey.keyId}`)),
    'the agent key is not revoked',
  )

  const viewer = await owner.send('/team/members/role', { user: id, role: 'viewer' })
  t.match(viewer.body, `${email} is now viewer; the 1 key(s) they minted beyond it are revoked.`)
  t.equal((await rooms(agentKey.key)).status, 401, 'lowered to viewer: the agent key is revoked too')
})
