// Revocation across nodes: two nodes on one Redis. A key that node B has just used (so B holds it
// in its cache) is revoked through node A; B must refuse it within 1 s. Measured by polling B
// every 50 ms from the moment A answered the revocation. A revocation outside any node (an
// operator tool's Teams, without a keyring) is announced all the same.
import t from 'tap'
import { Teams } from '../../src/auth/teams.js'
import { Store } from '../../src/store/store.js'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { BACKENDS } from '../helpers/shared.js'

const POLL_MS = 50
const DEADLINE_MS = 1000

/** Milliseconds until `path` with `key` stops answering 2xx on `n` (polled every 50 ms), or Infinity. */
async function deniedAfter(
  n: TestNode,
  path: string,
  key: string,
  since: number,
): Promise<{ ms: number; status: number }> {
  for (;;) {
    const res = await n.call(path, { key })
    await res.arrayBuffer()
    const ms = Date.now() - since
    if (res.status === 401) return { ms, status: res.status }
    if (ms > DEADLINE_MS * 3) return { ms: Infinity, status: res.status }
    await new Promise((r) => setTimeout(r, POLL_MS))
  }
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const a = await startNode(t, backend)
    const b = await startNode(t, backend)
    const team = await newTeam(a)

    t.test('a team key revoked on node A is refused by node B within 1 s', async (t) => {
      const minted = (await (
        await a.call('/admin/keys', { method: 'POST', key: team.key, json: { label: 'worker', scope: 'admin' } })
      ).json()) as { key: string; keyId: string }
      t.equal((await b.call('/admin/me', { key: minted.key })).status, 200, 'B accepts the key (and caches it)')
      const del = await a.call(`/admin/keys/${minted.keyId}`, { method: 'DELETE', key: team.key })
      const since = Date.now()
      t.equal(del.status, 200, 'A revokes it')
      const got = await deniedAfter(b, '/admin/me', minted.key, since)
      t.equal(got.status, 401, 'B refuses it with 401')
      t.ok(got.ms < DEADLINE_MS, `B refused it ${got.ms} ms after the revocation (< ${DEADLINE_MS} ms)`)
      t.equal((await a.call('/admin/me', { key: minted.key })).status, 401, 'A refuses it too')
      t.equal((await b.call('/admin/me', { key: team.key })).status, 200, "the team's other key still works on B")
    })

    t.test('an invite revoked on node A is refused by node B within 1 s', async (t) => {
      await a.node.core.rooms.create(team.teamId, { room_id: 'revoke-room' }, 'test')
      const res = await a.call('/admin/rooms/revoke-room/invite', {
        method: 'POST',
        key: team.key,
        json: { label: 'guest' },
      })
      const invite = (await res.json()) as { key: string; tokenId: string }
      t.equal(
        (await b.call('/room/revoke-room', { key: invite.key })).status,
        200,
        'B accepts the invite (and caches it)',
      )
      const del = await a.call(`/admin/rooms/revoke-room/invites/${invite.tokenId}`, {
        method: 'DELETE',
        key: team.key,
      })
      const since = Date.now()
      t.equal(del.status, 200, 'A revokes it')
      const got = await deniedAfter(b, '/room/revoke-room', invite.key, since)
      t.equal(got.status, 401, 'B refuses it with 401')
      t.ok(got.ms < DEADLINE_MS, `B refused it ${got.ms} ms after the revocation (< ${DEADLINE_MS} ms)`)
      const listed = (await (await b.call('/admin/rooms/revoke-room/invites', { key: team.key })).json()) as {
        invites: { tokenId: string; revokedAt?: string }[]
      }
      t.ok(
        listed.invites.find((i) => i.tokenId === invite.tokenId)?.revokedAt,
        'the listing shows it revoked, with when',
      )
    })

    t.test("revoking twice, or the team's last key, changes nothing", async (t) => {
      const solo = await newTeam(a)
      const keys = (await (await a.call('/admin/keys', { key: solo.key })).json()) as { keys: { keyId: string }[] }
      t.equal(keys.keys.length, 1)
      const last = await a.call(`/admin/keys/${keys.keys[0]!.keyId}`, { method: 'DELETE', key: solo.key })
      t.equal(last.status, 409, 'the last live key cannot be revoked')
      t.match(await last.json(), { error: { code: 'conflict', details: { field: 'keyId' } } })
      t.equal((await b.call('/admin/me', { key: solo.key })).status, 200, 'and it still works on B')
      const spare = (await (await a.call('/admin/keys', { method: 'POST', key: solo.key, json: {} })).json()) as {
        keyId: string
      }
      t.equal((await a.call(`/admin/keys/${spare.keyId}`, { method: 'DELETE', key: solo.key })).status, 200)
      const again = await a.call(`/admin/keys/${spare.keyId}`, { method: 'DELETE', key: solo.key })
      t.equal(again.status, 404, 'a second revocation is not_found')
      t.match(await again.json(), { error: { code: 'not_found', details: { field: 'keyId' } } })
    })

    t.test(
      "a key revoked outside any node (an operator tool's Teams) is refused by both nodes within 1 s",
      async (t) => {
        const minted = (await (
          await a.call('/admin/keys', { method: 'POST', key: team.key, json: { label: 'ops', scope: 'admin' } })
        ).json()) as { key: string; keyId: string }
        t.equal((await a.call('/admin/me', { key: minted.key })).status, 200, 'A accepts it (and caches it)')
        t.equal((await b.call('/admin/me', { key: minted.key })).status, 200, 'B too')
        const store = new Store(a.node.settings)
        t.teardown(() => store.close())
        // The notice itself, not only the cache's 1 s lifetime, must end the key.
        const heard = new Promise<unknown>((resolve) =>
          b.node.hub.onControl((n) => n.k === 'revoked' && resolve(n.hash)),
        )
        await new Teams(store).revokeKey(team.teamId, minted.keyId)
        const since = Date.now()
        t.type(await heard, 'string', 'B heard the revocation notice')
        for (const [name, n] of [
          ['A', a],
          ['B', b],
        ] as const) {
          const got = await deniedAfter(n, '/admin/me', minted.key, since)
          t.ok(got.status === 401 && got.ms < DEADLINE_MS, `${name} refused it ${got.ms} ms after the revocation`)
        }
      },
    )
  })
}
