// What a node logs when Redis fails on a path that handles a secret, on a Redis of the test's own:
// the error is logged (an operator must see what failed) but never with the command's arguments,
// which carry webhook secrets in plain text (a new secret on rotation) or packed in a record (on
// registration). And Redis' transient refusals (BUSY, a script running past its time) answer 503
// `unavailable` with Retry-After, as an unreachable Redis does, not 500.
import t from 'tap'
import { Redis } from 'ioredis'
import { Keys } from '../../src/store/keys.js'
import { killableRedis, recordingLogger } from '../helpers/faults.js'
import { newTeam, startNode } from '../helpers/node.js'
import { eventually } from '../helpers/realtime.js'
import { fastWebhookSettings, makeTestCa, startReceiver } from '../helpers/webhooks.js'

t.test('a Redis error on the webhook paths logs the error without the secret', async (t) => {
  const ca = await makeTestCa(t)
  const receiver = await startReceiver(t, ca)
  const redis = await killableRedis()
  t.teardown(() => redis.remove())
  const raw = new Redis({ port: redis.port, lazyConnect: true })
  t.teardown(() => raw.disconnect())
  const { log, raw: lines } = recordingLogger()
  const settings = { ...fastWebhookSettings(ca), redisUrl: `redis://127.0.0.1:${redis.port}` }
  const n = await startNode(t, 'standalone', { ...settings, redisClusterNodes: undefined }, { log })
  const team = await newTeam(n)
  const url = `https://localhost:${receiver.port}/in`

  const created = await n.call('/admin/webhooks', { method: 'POST', key: team.key, json: { url } })
  t.equal(created.status, 201, 'a webhook registers while Redis is well')
  const { webhookId, secret } = (await created.json()) as { webhookId: string; secret: string }

  // The team's webhooks hash replaced by a string: every script on it fails with WRONGTYPE after
  // receiving its arguments (the new secret, the new record).
  const hooks = new Keys(settings.keyPrefix).webhooks(team.teamId).hooks
  const saved = await raw.dumpBuffer(hooks)
  await raw.set(hooks, 'not a hash')
  const rotate = await n.call(`/admin/webhooks/${webhookId}/rotate-secret`, { method: 'POST', key: team.key, json: {} })
  t.equal(rotate.status, 500, 'rotation fails as internal')
  const register = await n.call('/admin/webhooks', { method: 'POST', key: team.key, json: { url } })
  t.equal(register.status, 500, 'registration fails as internal')
  await raw.del(hooks)
  await raw.restore(hooks, 0, saved!)

  // Background work (the webhook dispatcher) may log the same failure by its message alone.
  const failed = () =>
    lines.map((l) => JSON.parse(l) as { msg: string; err?: object }).filter((l) => l.msg === 'request failed')
  t.ok(await eventually(async () => failed().length >= 2, 5000), 'both requests logged their failure')
  for (const f of failed()) {
    t.match(JSON.stringify(f.err), /WRONGTYPE/, 'with what failed')
    t.same(Object.keys(f.err!).sort(), ['message', 'stack', 'type'], 'the error as name, message and stack only')
  }
  const all = lines.join('\n')
  t.notMatch(all, /whsec_/, 'no webhook secret, old or new, in any line')
  t.notOk(all.includes(secret), 'not the registered secret either')
  t.notMatch(all, /"args"|"command"/, 'no command or arguments')
  const listed = await n.call('/admin/webhooks', { key: team.key })
  t.match(await listed.json(), { webhooks: [{ webhookId }] }, 'nothing changed: the webhook is as it was')
})

t.test('BUSY (a script past its time) answers 503 unavailable, not 500', async (t) => {
  const redis = await killableRedis(['--busy-reply-threshold', '50'])
  t.teardown(() => redis.remove())
  const n = await startNode(t, 'standalone', {
    redisUrl: `redis://127.0.0.1:${redis.port}`,
    redisClusterNodes: undefined,
    redisCommandTimeoutMs: 10_000,
  })
  const team = await newTeam(n)
  const blocker = new Redis({ port: redis.port })
  t.teardown(() => blocker.disconnect())
  // A read-only script that spins for 1.5 s: past the threshold, Redis answers BUSY to the others.
  const spin = blocker.eval(
    "local t0 = redis.call('TIME') local s = tonumber(t0[1]) + tonumber(t0[2]) / 1e6 " +
      ("while true do local t = redis.call('TIME') if tonumber(t[1]) + tonumber(t[2]) / 1e6 - s > 1.5 then " +
        'break end end ') +
      'return 1',
    0,
  )
  const probe = new Redis({ port: redis.port })
  t.teardown(() => probe.disconnect())
  t.ok(
    await eventually(async () => (await probe.ping().catch((e: Error) => e.message)).startsWith('BUSY'), 1000),
    'Redis answers BUSY while the script runs',
  )
  const res = await n.call('/admin/rooms', { method: 'POST', key: team.key, json: { roomId: 'busy' } })
  const body = (await res.json()) as { error?: { code: string } }
  t.equal(res.status, 503, '503')
  t.equal(body.error?.code, 'unavailable')
  t.ok(res.headers.get('retry-after'), 'with Retry-After')
  await spin
})
