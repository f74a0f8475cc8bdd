// The room page of a room at the limits: server time of GET /room (snapshot read, analytics and
// render) and of the render alone, p50/p95 over N requests; the HTML size and the JavaScript the
// page ships, gzipped. One node in this process on its own Redis.
//   npx tsx bench/dashboard-render.ts [--tasks 2000] [--context 1000] [--vars 256] [--events 60] [--runs 60]
import { gzipSync } from 'node:zlib'
import { parseArgs } from 'node:util'
import { defaultSettings } from '../src/config.js'
import { createLogger } from '../src/logger.js'
import { ServiceNode } from '../src/node.js'
import { LIVE_SCRIPT } from '../src/dashboard/assets.js'
import { RoomPage } from '../src/dashboard/room.js'
import { page } from '../src/dashboard/views.js'
import { fmt, percentile, startRedis } from './lib.js'

const { values } = parseArgs({
  options: {
    tasks: { type: 'string', default: '2000' },
    context: { type: 'string', default: '1000' },
    vars: { type: 'string', default: '256' },
    events: { type: 'string', default: '60' },
    runs: { type: 'string', default: '60' },
  },
})
const redis = await startRedis()
const node = new ServiceNode(defaultSettings({ redisUrl: `redis://127.0.0.1:${redis.port}`, port: 0, host: '127.0.0.1', adminEmails: ['bench@example.com'] }), { log: createLogger('silent'), defaultMetrics: false })
const port = await node.start()
try {
  const token = await node.accounts.requestSignIn('bench@example.com')
  const base = `http://127.0.0.1:${port}`
  const form = (body: Record<string, string>, cookie?: string) => ({
    method: 'POST',
    redirect: 'manual' as const,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin', ...(cookie ? { Cookie: cookie } : {}) },
    body: new URLSearchParams(body).toString(),
  })
  const signed = await fetch(`${base}/signin/link`, form({ token: token! }))
  const cookie = signed.headers.get('set-cookie')!.split(';')[0]!
  const user = (await node.accounts.session(cookie.split('=')[1]))!
  await node.core.rooms.create(user.team, { room_id: 'big', name: 'big' }, 'bench')
  const room = { teamId: user.team, roomId: 'big' }
  const c = (agent: string) => ({ room, agent })
  const t0 = Date.now()
  for (let i = 0; i < Number(values.tasks); i++) {
    await node.core.plan.addTask(c(`a${i % 20}`), { title: `Task ${i}: ${'x'.repeat(60)}`, priority: ['urgent', 'high', 'normal', 'low'][i % 4], depends_on: i > 0 && i % 3 === 0 ? [`t${i}`] : [] })
  }
  for (let i = 0; i < Number(values.context); i++) await node.core.context.write(c(`a${i % 20}`), { type: 'spec', key: `entry-${i}`, body: `# Entry ${i}\n${'text '.repeat(200)}` })
  for (let i = 0; i < Number(values.vars); i++) await node.core.vars.set(c('a1'), { name: `v${i}`, value: 'y'.repeat(100) })
  for (let i = 0; i < Number(values.events); i++) await node.core.events.post(c(`a${i % 20}`), { type: i % 5 === 0 ? 'question' : 'message', text: `Event ${i} ${'z'.repeat(300)}` })
  for (let i = 0; i < 20; i++) await node.core.presence.heartbeat(c(`a${i}`), {})
  console.log(`filled: ${values.tasks} tasks, ${values.context} context entries, ${values.vars} vars, ${values.events} events in ${((Date.now() - t0) / 1000).toFixed(1)} s`)

  const runs = Number(values.runs)
  const http: number[] = []
  let size = 0
  for (let i = 0; i < runs + 5; i++) {
    const s = performance.now()
    const res = await fetch(`${base}/room?id=big`, { headers: { Cookie: cookie } })
    const body = await res.text()
    if (res.status !== 200) throw new Error(`GET /room: ${res.status}`)
    if (i >= 5) http.push(performance.now() - s)
    size = body.length
    if (i === 0) console.log(`html: ${(size / 1024).toFixed(0)} kB, ${(gzipSync(body).length / 1024).toFixed(0)} kB gzipped`)
  }
  const snap = await node.core.snapshot.room({ room })
  const stats = await node.core.analytics.room({ room }, { days: 7 }, false)
  const viewer = { user, teamName: 'bench', operator: false }
  const render: number[] = []
  for (let i = 0; i < runs + 5; i++) {
    const s = performance.now()
    page(RoomPage({ viewer, human: 'human:bench', snap, stats }))
    if (i >= 5) render.push(performance.now() - s)
  }
  http.sort((a, b) => a - b)
  render.sort((a, b) => a - b)
  console.log(`GET /room (read + render) ms: p50 ${fmt(percentile(http, 50))} p95 ${fmt(percentile(http, 95))}`)
  console.log(`render only ms: p50 ${fmt(percentile(render, 50))} p95 ${fmt(percentile(render, 95))}`)
  console.log(`javascript shipped: ${LIVE_SCRIPT.body.length} B, ${gzipSync(LIVE_SCRIPT.body).length} B gzipped`)
} finally {
  await node.stop(2000)
  await redis.stop()
}
