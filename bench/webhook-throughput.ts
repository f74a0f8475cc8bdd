// Webhook delivery throughput: N events in R rooms of one team, delivered by K service nodes (child
// processes on a Redis of their own) to a local HTTPS receiver that answers 200 at once. The events
// are stored first, without hints, so what is timed is the sweep finding them, fan-out, claims,
// attempts and settles; from the first delivery to the last.
//   npx tsx bench/webhook-throughput.ts [events=2000] [rooms=8] [nodes=1]
// Prints one line per figure.
import { Teams } from '../src/auth/teams.js'
import { defaultSettings } from '../src/config.js'
import { Core } from '../src/core/index.js'
import { Store } from '../src/store/store.js'
import { makeTestCa, Receiver } from '../test/helpers/webhooks.js'
import { startChild, startRedis } from './lib.js'

const [events = 2000, rooms = 8, nodes = 1] = process.argv.slice(2).map(Number)
const cleanups: (() => unknown)[] = []
const t = { teardown: (fn: () => unknown) => void cleanups.push(fn) } as unknown as Parameters<typeof makeTestCa>[0]

const redis = await startRedis()
try {
  const ca = await makeTestCa(t)
  const rx = await new Receiver(ca).listen()
  const settings = defaultSettings({ redisUrl: `redis://127.0.0.1:${redis.port}` })
  const store = new Store(settings)
  const { team, key } = await new Teams(store).create({ name: 'bench' })
  const env = {
    REDIS_URL: settings.redisUrl!,
    WEBHOOK_TEST_LOOPBACK_CA: ca.caFile,
    WEBHOOK_SWEEP_S: '1',
    WEBHOOK_POLL_MS: '50',
    RATE_LIMIT_PER_MIN: '10000000',
    RATE_LIMIT_PER_CREDENTIAL_PER_MIN: '5000000',
  }
  const children = []
  for (let i = 0; i < nodes; i++) children.push(await startChild('src/main.ts', env))
  const base = `http://127.0.0.1:${children[0]!.port}`
  const reg = await fetch(`${base}/admin/webhooks`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: rx.url() }),
  })
  if (reg.status !== 201) throw new Error(`register: ${reg.status} ${await reg.text()}`)
  const core = new Core(store, settings)
  for (let r = 0; r < rooms; r++) await core.rooms.create(team.teamId, { room_id: `room-${r}` }, 'bench')
  await Promise.all(
    Array.from({ length: rooms }, async (_, r) => {
      for (let i = r; i < events; i += rooms)
        await core.events.post(
          { room: { teamId: team.teamId, roomId: `room-${r}` }, agent: 'bench' },
          { type: 'message', text: `e${i}` },
        )
    }),
  )
  const until = Date.now() + 120_000
  while (rx.received.length < events && Date.now() < until) await new Promise((r) => setTimeout(r, 20))
  const got = rx.received.length
  console.log(`webhook deliveries: ${got} of ${events} events, ${rooms} rooms, ${nodes} node(s)`)
  console.log(`webhook receiver connections: ${rx.connections} for ${got} requests`)
  const first = rx.received[0]
  const last = rx.received.at(-1)
  // With fewer than two deliveries there is no span to divide by (nothing arrived: see the nodes' logs).
  if (first && last && last.at > first.at) {
    const span = (last.at - first.at) / 1000
    console.log(`webhook delivery rate: ${Math.round(got / span)} deliveries/s (first to last: ${span.toFixed(2)} s)`)
  } else {
    console.log(`webhook delivery rate: n/a (${got} delivered within 120 s)`)
  }
  if (got < events) process.exitCode = 1
  for (const c of children) await c.stop()
  await store.close()
  await rx.close()
} finally {
  for (const fn of cleanups.reverse()) await fn()
  await redis.stop()
}
