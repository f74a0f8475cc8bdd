// GET /admin/keys pages (limit + after), and revoked keys are kept for REVOKED_KEY_RETENTION_S
// only, and 100 at most, so a team that mints and revokes keys in a loop does not grow a list (and
// the scan every mint and revocation makes of it) without end.
// Keys and invites name the person who minted them (createdBy), as the audit trail names people.
import t from 'tap'
import { AUDIT_KEEP_MS } from '../../src/auth/audit.js'
import { signedInOperator } from '../helpers/accounts.js'
import { keyIn } from '../helpers/mail.js'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'

interface Key {
  keyId: string
  createdBy?: string
  revokedAt?: string
}

const list = async (n: TestNode, key: string, query = '') => {
  const res = await n.call(`/admin/keys${query}`, { key })
  return {
    status: res.status,
    body: (await res.json()) as { keys: Key[]; next?: string; error?: { code: string; details?: { field?: string } } },
  }
}

const mint = async (n: TestNode, key: string) =>
  (await (await n.call('/admin/keys', { method: 'POST', key, json: {} })).json()) as Key & { key: string }
const revoke = (n: TestNode, key: string, keyId: string) => n.call(`/admin/keys/${keyId}`, { method: 'DELETE', key })

t.test('GET /admin/keys pages with limit and after', async (t) => {
  const n = await startNode(t, 'standalone')
  const team = await newTeam(n)
  const minted = [] as string[]
  for (let i = 0; i < 6; i++) minted.push((await mint(n, team.key)).keyId)
  await revoke(n, team.key, minted[0]!)
  const all = (await list(n, team.key)).body
  t.equal(all.keys.length, 7, 'the first key, six minted (one revoked, listed within the retention)')
  t.notOk(all.next, 'one page holds them all')
  const seen: string[] = []
  let after: string | undefined
  for (let page = 0; page < 10; page++) {
    const r = await list(n, team.key, `?limit=3${after ? `&after=${after}` : ''}`)
    t.equal(r.status, 200)
    t.ok(r.body.keys.length <= 3, 'at most limit keys')
    seen.push(...r.body.keys.map((k) => k.keyId))
    after = r.body.next
    if (!after) break
  }
  t.same(
    seen,
    all.keys.map((k) => k.keyId),
    'the pages together are the whole list, in order, once each',
  )
  const bad = await list(n, team.key, '?after=key_nope')
  t.equal(bad.status, 400)
  t.match(bad.body.error, { code: 'invalid_request', details: { field: 'after' } })
  t.equal((await list(n, team.key, '?limit=0')).status, 400, 'limit 0 is refused')
  t.equal((await list(n, team.key, '?limit=501')).status, 400, 'limit over 500 is refused')
})

t.test('revoked keys are kept for the retention only', async (t) => {
  const n = await startNode(t, 'standalone', { revokedKeyRetentionMs: 0 })
  const team = await newTeam(n)
  for (let i = 0; i < 5; i++) {
    const k = await mint(n, team.key)
    t.equal((await revoke(n, team.key, k.keyId)).status, 200)
  }
  await new Promise((r) => setTimeout(r, 5)) // past the millisecond of the last revocation
  const listed = (await list(n, team.key)).body.keys
  t.same(
    listed.map((k) => k.revokedAt),
    [undefined],
    'with a retention of 0 only the live key is listed',
  )
  await mint(n, team.key)
  const stored = await n.node.store.client.hlen(n.node.store.keys.team(team.teamId).keys)
  t.equal(stored, 2, 'and the next mint deleted the expired records: two live keys remain stored')
})

t.test('at most 100 revoked keys are kept, the newest, however long the retention', async (t) => {
  const n = await startNode(t, 'standalone', { rateLimitPerMin: 1_000_000, rateLimitPerCredentialPerMin: 500_000 })
  const team = await newTeam(n)
  const revoked: string[] = []
  for (let i = 0; i < 104; i++) {
    const k = await mint(n, team.key)
    t.equal((await revoke(n, team.key, k.keyId)).status, 200)
    revoked.push(k.keyId)
  }
  const stored = await n.node.store.client.hlen(n.node.store.keys.team(team.teamId).keys)
  t.equal(stored, 101, 'the live key and 100 revoked ones are stored, whatever the loop did')
  const listed = (await list(n, team.key, '?limit=200')).body.keys
  const ids = new Set(listed.map((k) => k.keyId))
  t.notOk(
    revoked.slice(0, 4).some((id) => ids.has(id)),
    'the four oldest revocations are gone',
  )
  t.ok(
    revoked.slice(4).every((id) => ids.has(id)),
    'the newest 100 are listed',
  )
})

t.test('keys and invites name who minted them: a person, or nobody', async (t) => {
  const { n, b, op, first } = await signedInOperator(t)
  const firstKey = keyIn(first)!
  const user = (await n.node.accounts.session(b.jar.get('ar_session')))!
  const person = `user:${user.id} ${op}`
  const minted = await b.send('/team/keys', { label: 'by a person', scope: 'admin' })
  const personKeyId = /Key (key_[a-z0-9]+) is minted/.exec(minted.body)![1]!
  const personKey = new RegExp('<textarea id="minted-key"[^>]*>([^<]*)</textarea>').exec(minted.body)![1]!
  const inherited = await mint(n, personKey)
  t.equal(
    inherited.createdBy,
    person,
    "a key minted through the API with a person's key is theirs, named in the answer",
  )
  const gone = await n.node.teams.mintTeamKey(user.team, {}, { user: 'usr_gone' })
  const keys = (await list(n, firstKey)).body.keys
  const by = Object.fromEntries(keys.map((k) => [k.keyId, k.createdBy]))
  t.equal(keys.length, 4)
  t.equal(by[keys[0]!.keyId], undefined, "the team's first key names nobody")
  t.equal(by[personKeyId], person, 'a key minted on the dashboard: user:<id> <address>')
  t.equal(by[inherited.keyId], person)
  t.equal(by[gone.info.keyId], 'user:usr_gone', 'a person without an account (deleted): the user id')
  await b.send('/rooms', { name: 'minted', agents: 'solo', template: 'blank', invite: '1' })
  await n.node.core.rooms.create(user.team, { room_id: 'by-nobody' }, 'test')
  const api = await n.call('/admin/rooms/by-nobody/invite', { method: 'POST', key: firstKey, json: {} })
  t.equal(
    ((await api.json()) as { createdBy?: string }).createdBy,
    undefined,
    'an invite minted with the first key names nobody',
  )
  const invites = async (room: string) =>
    (
      (await (await n.call(`/admin/rooms/${room}/invites`, { key: firstKey })).json()) as {
        invites: { createdBy?: string }[]
      }
    ).invites
  t.same(
    (await invites('minted')).map((i) => i.createdBy),
    [person],
    'the invite minted with the room on the dashboard names the person',
  )
  t.same(
    (await invites('by-nobody')).map((i) => i.createdBy),
    [undefined],
  )
  const revoked = (await (await revoke(n, firstKey, personKeyId)).json()) as { revoked: Key }
  t.equal(revoked.revoked.createdBy, person, 'and so does a revocation')
})

t.test('the audit trail keeps about AUDIT_KEEP_MAX entries, the newest, however busy the team', async (t) => {
  const n = await startNode(t, 'standalone')
  const team = await newTeam(n)
  const key = n.node.store.keys.team(team.teamId).audit
  const entry = Buffer.from('{}')
  for (let i = 0; i < 600; i++) await n.node.store.auth.appendAudit(team.teamId, entry, AUDIT_KEEP_MS, 150)
  const kept = await n.node.store.client.xlen(key)
  t.ok(kept >= 150 && kept < 600, `trimmed to about the cap, by whole stream nodes (kept ${kept} of 600)`)
  await n.node.audit.record(team.teamId, 'operator', 'test')
  t.equal((await n.node.audit.read(team.teamId, 1))[0]!.action, 'test', 'the newest entry is always kept')
})
