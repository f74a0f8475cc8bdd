// The keyring after a pub/sub rebuild (resync): every cached key is looked up again on its next
// use, so a revocation whose notice was missed takes effect; and a key this node verified keeps
// working while its team's Redis cannot be asked (stale-if-error), also after a rebuild. The
// rebuild that follows the loss of a cluster node must not lock the team out of the rooms on
// the healthy shards (faults-redis.test.ts shows it on a cluster).
import t from 'tap'
import { Keyring } from '../../src/auth/keyring.js'
import { mintKey } from '../../src/auth/secrets.js'
import { killableRedis } from '../helpers/faults.js'
import { newTeam, startNode } from '../helpers/node.js'
import { eventually } from '../helpers/wait.js'

t.test('resync: a missed revocation takes effect, a verified key outlives its Redis', async (t) => {
  const redis = await killableRedis()
  t.teardown(() => redis.remove())
  const n = await startNode(t, 'standalone', {
    redisUrl: `redis://127.0.0.1:${redis.port}`,
    redisClusterNodes: undefined,
  })
  const { store } = n.node
  // A cache lifetime longer than the test: only a resync makes this keyring ask Redis again.
  const keyring = new Keyring(store, 600_000)
  const team = await newTeam(n)
  const header = `Bearer ${team.key}`
  const first = await keyring.authenticate(header)
  t.match(first, { kind: 'team', teamId: team.teamId })

  // Redis goes away right after a rebuild: the key verified a moment ago still works.
  keyring.resync()
  await redis.kill('SIGKILL')
  t.ok(await eventually(() => !store.health.state().reachable, 5000), 'the node knows Redis is gone')
  t.equal(await keyring.authenticate(header), first, 'the verified key is served from what Redis said before')
  await t.rejects(
    keyring.authenticate(`Bearer ${mintKey('team', team.teamId).key}`),
    { code: 'unavailable' },
    'a key never verified here is not: unavailable',
  )

  await redis.start()
  t.ok(await eventually(() => store.health.state().reachable, 10_000), 'Redis is back')
  const again = await keyring.authenticate(header)
  t.same(again, first, 'looked up again once Redis answers')
  await n.node.teams.mintTeamKey(team.teamId, { label: 'the one left' })
  // Revoked without the notice reaching this node (as while its subscription was down).
  const k = store.keys.team(team.teamId)
  await store.run('revokeKey', [k.team, k.keys, k.secrets], ['k', (first as { keyId: string }).keyId, '', 60_000, ''])
  t.equal(await keyring.authenticate(header), again, 'within its cache lifetime the key is trusted')
  keyring.resync()
  await t.rejects(
    keyring.authenticate(header),
    { code: 'unauthorized' },
    'after a resync it is looked up again: revoked',
  )
})
