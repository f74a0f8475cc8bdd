import { startRedisUnderCallgrind } from './lib.js'
import { Store } from '../src/store/store.js'
import { Core } from '../src/core/index.js'
import { loadSettings } from '../src/config.js'
import { readRoom } from '../src/core/snapshot.js'
const grind = await startRedisUnderCallgrind()
const settings = { ...loadSettings({ REDIS_URL: `redis://127.0.0.1:${grind.port}` }) }
const store = new Store(settings)
const core = new Core(store, settings)
const room = { teamId: 'tm', roomId: 'big' }
await core.rooms.create('tm', { room_id: 'big' }, 'b')
for (let n = 1; n <= 2000; n++) await core.plan.addTask({ room, agent: `a${n % 20}` }, { title: `Task ${n} ${'x'.repeat(60)}`, priority: ['urgent', 'high', 'normal', 'low'][n % 4], depends_on: n > 1 && n % 3 === 1 ? [`t${n - 1}`] : [] })
for (let n = 1; n <= 2000; n++) { const s = n % 10 === 2 ? 'in_progress' : n % 5 === 4 ? 'done' : undefined; if (s) await core.plan.updateTask({ room, agent: 'a' }, { task_id: `t${n}`, status: s, force: true }) }
for (let n = 1; n <= 60; n++) await core.events.post({ room, agent: `a${n % 20}` }, { type: 'message', text: `event ${n}` })
const c = { room }
const N = 10
const m = async (label: string, fn: () => Promise<unknown>) => { await fn(); console.log(label, Math.round((await grind.instructions(async () => { for (let i = 0; i < N; i++) await fn() })) / N)) }
await m('page read (board)', () => core.roomPage.read(c, { size: 20, ids: 10, days: 14 }))
await m('snapshot names, whole plan (main-like)', () => readRoom(store, settings, c, { days: 14, namesOnly: true }))
await m('snapshot names, board', () => readRoom(store, settings, c, { days: 14, namesOnly: true, board: { size: 20, ids: 10, from: [0, 0, 0, 0, 0] } }))
await m('snapshot names, board 1 card', () => readRoom(store, settings, c, { days: 14, namesOnly: true, board: { size: 1, ids: 10, from: [0, 0, 0, 0, 0] } }))
await m('snapshot names, board, 0 days', () => readRoom(store, settings, c, { days: 0, namesOnly: true, board: { size: 20, ids: 10, from: [0, 0, 0, 0, 0] } }))
await m('room info', () => core.rooms.info({ room, agent: 'x' }))
await store.close(); await grind.stop()
