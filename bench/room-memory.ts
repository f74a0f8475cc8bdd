// Redis memory a room takes, for the capacity notes of docs/operations.md: a fresh redis-server,
// then rooms made from the web-app template (8 tasks, 2 context entries), then events of 200
// characters in one room (up to the default EVENTS_RETAINED), with agents' cursors and presence.
// Prints one line a figure. Run: npx tsx bench/room-memory.ts
import { defaultSettings } from '../src/config.js'
import { Core } from '../src/core/index.js'
import { Store } from '../src/store/store.js'
import { startRedis } from './lib.js'

const ROOMS = 500
const EVENTS = 10_000

const redis = await startRedis()
const settings = defaultSettings({ redisUrl: `redis://127.0.0.1:${redis.port}` })
const store = new Store(settings)
const core = new Core(store, settings)
const used = async () =>
  Number(/used_memory:(\d+)/.exec(await (store.client as { info(s: string): Promise<string> }).info('memory'))?.[1])

try {
  const base = await used()
  for (let i = 0; i < ROOMS; i++)
    await core.rooms.create('bench', { room_id: `room-${i}`, template: 'web-app' }, 'bench')
  const rooms = await used()
  console.log(`room (web-app template, empty feed): ${Math.round((rooms - base) / ROOMS)} bytes`)

  const room = { teamId: 'bench', roomId: 'room-0' }
  const text = 'x'.repeat(200)
  for (let i = 0; i < EVENTS; i++) await core.events.post({ room, agent: `agent-${i % 5}` }, { type: 'message', text })
  for (let a = 0; a < 5; a++) await core.presence.heartbeat({ room, agent: `agent-${a}` }, {})
  const events = await used()
  console.log(`event (200-character text, in a room of ${EVENTS}): ${Math.round((events - rooms) / EVENTS)} bytes`)
  console.log(
    `room holding ${EVENTS} such events: ` +
      `${((events - rooms) / 1024 / 1024 + (rooms - base) / ROOMS / 1024 / 1024).toFixed(1)} MiB`,
  )
} finally {
  await store.close()
  await redis.stop()
}
