// The accounts model on real Redis (standalone and cluster): admission through the waitlist and
// invites, single-use links, sessions, deletion, and a team's teardown that leaves nothing.
import { decode, encode } from '@msgpack/msgpack'
import t from 'tap'
import { Accounts } from '../../src/auth/accounts.js'
import { Keyring } from '../../src/auth/keyring.js'
import { hashKey } from '../../src/auth/secrets.js'
import { Teams } from '../../src/auth/teams.js'
import { Core } from '../../src/core/index.js'
import { AppError } from '../../src/shared/errors.js'
import { Store } from '../../src/store/store.js'
import { testPrefix, traces } from '../helpers/accounts.js'
import { BACKENDS, rawClient, settingsFor, uid } from '../helpers/shared.js'
import { waitFor } from '../helpers/wait.js'

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof AppError ? e.code : String(e)),
  )

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const prefix = testPrefix()
    const settings = settingsFor(backend, { keyPrefix: prefix, adminEmails: ['op@example.com'] })
    const store = new Store(settings)
    const raw = rawClient(backend)
    t.teardown(async () => {
      await store.close()
      raw.disconnect()
    })
    const accounts = new Accounts(store, settings)
    const keyring = new Keyring(store)
    const teams = new Teams(store, undefined, (hash) => keyring.publishRevocation(hash))
    const core = new Core(store, settings)

    t.test('waitlist -> approval -> first sign-in makes an owner of a new team; the link works once', async (t) => {
      const who = `${uid('w')}@example.com`
      t.equal(await accounts.requestSignIn(who), undefined, 'an unknown address gets no link')
      await accounts.joinWaitlist({ email: who.toUpperCase(), note: 'building agents' })
      await accounts.joinWaitlist({ email: who, note: 'again' })
      const listed = (await accounts.waitlist()).filter((e) => e.email === who)
      t.equal(listed.length, 1, 'listed once, lower-cased')
      t.equal(listed[0]!.note, 'building agents', 'a second request changes nothing')
      t.equal(await accounts.requestSignIn(who), undefined, 'still no link while pending')
      const { token } = await accounts.decideWaitlist(who, 'approve')
      const signed = await accounts.consume(token!)
      t.equal(signed.user.email, who)
      t.equal(signed.user.role, 'owner')
      t.ok(signed.createdTeam && signed.newUser, 'a new person with a team to create')
      t.equal(await code(accounts.consume(token!)), 'forbidden', 'the same link again is refused')
      t.equal((await accounts.session(signed.session))?.id, signed.user.id, 'the session is live')
      t.notOk(
        (await accounts.waitlist()).some((e) => e.email === who),
        'the entry leaves the waitlist',
      )
      const again = await accounts.requestSignIn(who)
      t.ok(again, 'a person with an account gets sign-in links')
      const second = await accounts.consume(again!, signed.session)
      t.equal(second.user.id, signed.user.id, 'the same person')
      t.notOk(second.createdTeam, 'no second team')
      t.equal(await accounts.session(signed.session), undefined, 'the earlier session ended (rotation)')
      t.ok(await accounts.endSession(second.session), 'sign-out')
      t.equal(await accounts.session(second.session), undefined, 'the session is gone after sign-out')
    })

    t.test('a declined, unknown, altered or expired link admits nobody and changes nothing', async (t) => {
      const who = `${uid('d')}@example.com`
      await accounts.joinWaitlist({ email: who })
      await accounts.decideWaitlist(who, 'decline')
      t.equal(await accounts.requestSignIn(who), undefined, 'declined: no link')
      t.equal(await code(accounts.consume('x'.repeat(32))), 'forbidden', 'an unknown token')
      t.equal(await code(accounts.consume('short')), 'forbidden', 'a malformed token')
      const op = await accounts.requestSignIn('op@example.com')
      t.ok(op, 'an operator may always ask')
      t.equal(
        await code(accounts.consume(op!.slice(0, 31) + (op!.endsWith('A') ? 'B' : 'A'))),
        'forbidden',
        'one character altered',
      )
      const short = new Accounts(store, { ...settings, inviteTtlMs: 300 })
      const inv = await short.invite({ email: `${uid('e')}@example.com` }, {})
      await waitFor(async () => !(await accounts.tokenLive(inv.token)), 5000, 'the 300 ms invite link to expire')
      t.equal(await code(accounts.consume(inv.token)), 'forbidden', 'an expired invite link')
      t.equal(
        await code(accounts.decideWaitlist(`${uid('n')}@example.com`, 'approve')),
        'not_found',
        'approving an address not listed',
      )
      t.equal(
        await code(accounts.joinWaitlist({ email: 'not an address' })),
        'invalid_request',
        'a bad address names the field',
      )
    })

    t.test('a session ends after its idle lifetime, and after its absolute lifetime however used', async (t) => {
      // Signed in under the default lifetimes (a week idle, 30 days in all), so both sessions are
      // live however slow the machine. Their end is made on purpose. The idle lifetime is the
      // reader's setting: read under a 1 ms one, a session unused since sign-in has outlived it (a
      // read moves the idle deadline at most once a minute, so the reads before do not count). The
      // absolute deadline is stored at sign-in: it is moved to now through the test's connection.
      const a = await accounts.consume((await accounts.requestSignIn('op@example.com'))!)
      const b = await accounts.consume((await accounts.requestSignIn('op@example.com'))!)
      t.ok(await accounts.session(a.session), 'live at first')
      t.ok(await accounts.session(b.session), 'live at first')
      const idle = new Accounts(store, { ...settings, sessionIdleMs: 1 })
      await waitFor(
        async () => (await idle.session(a.session)) === undefined,
        5000,
        'the session unused past a 1 ms idle lifetime to end',
      )
      t.equal(await accounts.session(a.session), undefined, 'and stays ended under longer settings (it was removed)')

      const sessions = store.keys.accounts().sessions
      const field = hashKey(b.session)
      const stored = decode((await raw.hgetBuffer(sessions, field))!) as { created_at: number; abs: number }
      t.equal(
        stored.abs - stored.created_at,
        settings.sessionMaxMs,
        'sign-in sets the absolute deadline SESSION_MAX_S after it',
      )
      await raw.hset(sessions, field, Buffer.from(encode({ ...stored, abs: Date.now() })))
      t.equal(
        await accounts.session(b.session),
        undefined,
        'past its absolute deadline: ended, though used within the idle lifetime',
      )
      t.equal(await raw.hexists(sessions, field), 0, 'and removed')
    })

    t.test('invites: owner -> member; members cannot invite; deletion rules; teardown leaves nothing', async (t) => {
      const owner = await accounts.consume((await accounts.invite({ email: `${uid('o')}@example.com` }, {})).token)
      t.ok(owner.createdTeam, 'an operator invite to a new team')
      const teamId = owner.user.team
      const created = await teams.create({ teamId, name: 'Acme' })
      t.ok(created.created && created.key, 'the node creates the team and its first key')
      const memberEmail = `${uid('m')}@example.com`
      const inv = await accounts.invite({ email: memberEmail }, { by: owner.user })
      t.equal(
        await code(accounts.invite({ email: memberEmail }, { by: owner.user })),
        'conflict',
        'one pending invite per address',
      )
      t.equal(
        await code(accounts.invite({ email: owner.user.email }, { by: owner.user })),
        'conflict',
        'an address of a member of the team',
      )
      const member = await accounts.consume(inv.token)
      t.same([member.user.team, member.user.role, member.createdTeam], [teamId, 'member', false])
      t.equal(
        await code(accounts.invite({ email: `${uid('x')}@example.com` }, { by: member.user })),
        'forbidden',
        'a member cannot invite',
      )
      const revokable = await accounts.invite({ email: `${uid('r')}@example.com` }, { by: owner.user })
      await accounts.revokeInvite(revokable.invite.id, teamId)
      t.equal(await code(accounts.consume(revokable.token)), 'forbidden', 'a revoked invite link')
      const people = await accounts.people(teamId)
      t.same(people.members.map((m) => m.role).sort(), ['member', 'owner'])
      t.same(
        people.invites.map((i) => i.state).sort(),
        ['accepted', 'accepted', 'revoked'],
        'the operator invite, the member invite, the revoked one',
      )

      t.equal(await code(accounts.deleteUser(owner.user.id)), 'conflict', 'the owner cannot go while a member remains')
      t.equal(
        await code(accounts.deleteUser(owner.user.id, member.user)),
        'forbidden',
        'a member cannot remove the owner',
      )
      const gone = await accounts.deleteUser(member.user.id)
      t.notOk(gone.last, 'the owner remains')
      t.equal(await accounts.session(member.session), undefined, "the member's session ended")

      await core.rooms.create(teamId, { room_id: 'r1' }, 'test')
      const c = { room: { teamId, roomId: 'r1' }, agent: 'a1' }
      await core.events.post(c, { type: 'message', text: 'hello' })
      await core.locks.acquire(c, { name: 'deploy', ttl_s: 60 })
      const extra = await teams.mintTeamKey(teamId, { label: 'ci' })
      t.ok(await keyring.authenticate(`Bearer ${extra.key}`), 'the key works before')
      const last = await accounts.deleteUser(owner.user.id)
      t.ok(last.last, 'the owner was the last member')
      const down = await teams.deleteTeam(teamId)
      t.equal(down.revoked, 2, 'both team keys revoked')
      t.equal(await code(keyring.authenticate(`Bearer ${extra.key}`)), 'unauthorized', 'the key is refused')
      t.same(
        await traces(raw, prefix, [teamId, owner.user.id, member.user.id, owner.user.email, memberEmail]),
        [],
        'nothing of the team or its people is left',
      )
    })
    t.test('other teams are invisible: an address or id there gets the answer an unknown one gets', async (t) => {
      const ownerOf = async () => {
        const o = await accounts.consume((await accounts.invite({ email: `${uid('o')}@example.com` }, {})).token)
        await teams.create({ teamId: o.user.team, name: 'T' })
        return o.user
      }
      const a = await ownerOf()
      const b = await ownerOf()
      const invited = await accounts.invite({ email: b.email }, { by: a })
      const unknown = await accounts.invite({ email: `${uid('n')}@example.com` }, { by: a })
      t.same(
        [invited.invite.state, invited.invite.team],
        [unknown.invite.state, unknown.invite.team],
        'an address with an account in another team is invited like an unknown one',
      )
      const follow = await accounts.consume(invited.token).then(
        () => 'accepted',
        (e: AppError) => `${e.code}: ${e.message}`,
      )
      t.match(follow, /^conflict: email: .* already has an account in a team/, "the link tells the address's owner")
      t.equal(
        await code(accounts.invite({ email: b.email }, {})),
        'conflict',
        'an operator still sees that the address has an account',
      )
      const answer = (p: Promise<unknown>) =>
        p.then(
          () => 'ok',
          (e: AppError) => `${e.code} ${e.message} ${JSON.stringify(e.details ?? {})}`,
        )
      t.equal(
        await answer(accounts.deleteUser(b.id, a)),
        await answer(accounts.deleteUser(`usr_${uid()}`, a)),
        "removing another team's person answers as for an unknown id",
      )
      t.ok(await accounts.session((await accounts.consume((await accounts.requestSignIn(b.email))!)).session))
      t.equal((await accounts.people(b.team)).members.length, 1, 'and removes nobody')
    })

    t.test(
      "a team's finished invites are capped, pruned after their retention, and listed from its index",
      async (t) => {
        const owner = await accounts.consume((await accounts.invite({ email: `${uid('o')}@example.com` }, {})).token)
        const team = owner.user.team
        await teams.create({ teamId: team, name: 'Churn' })
        const K = store.keys.accounts()
        for (let i = 0; i < 103; i++) {
          const inv = await accounts.invite({ email: `${uid('c')}@example.com` }, { by: owner.user })
          await accounts.revokeInvite(inv.invite.id, team)
        }
        const pending = await accounts.invite({ email: `${uid('p')}@example.com` }, { by: owner.user })
        const listed = (await accounts.people(team)).invites
        t.equal(listed.filter((i) => i.state !== 'pending').length, 100, 'at most 100 finished invites are kept')
        t.ok(
          listed.some((i) => i.id === pending.invite.id && i.state === 'pending'),
          'pending ones are never dropped',
        )
        t.equal(
          await raw.zlexcount(K.tinvites, `[${team}|`, `[${team}|\xff`),
          listed.length,
          'the index holds what is listed',
        )
        const oldest = listed.filter((i) => i.state === 'revoked').at(-1)!
        await raw.zadd(K.invexp, Date.now() - 1, oldest.id)
        await accounts.revokeInvite(pending.invite.id, team)
        t.notOk(
          (await accounts.people(team)).invites.some((i) => i.id === oldest.id),
          'an invite past its retention is deleted by the next invite change',
        )
        t.equal(await raw.hexists(K.invites, oldest.id), 0, 'record and index both')

        const legacy = { ...pending.invite, id: `inv_${uid()}` }
        await raw.hset(
          K.invites,
          legacy.id,
          Buffer.from(
            encode({
              id: legacy.id,
              email: legacy.email,
              team,
              role: 'member',
              new_team: false,
              by: owner.user.id,
              hash: 'h',
              created_at: Date.now(),
              expires_at: Date.now() + 60_000,
              state: 'pending',
            }),
          ),
        )
        t.ok(
          (await accounts.people(team)).invites.some((i) => i.id === legacy.id),
          'an invite stored without the index is still listed',
        )
        await accounts.invite({ email: `${uid('q')}@example.com` }, { by: owner.user })
        t.equal(await raw.zscore(K.tinvites, `${team}|${legacy.id}`), '0', 'and the next invite indexes it')
      },
    )
  })
}
