import { compiled, defaultKey, startChild, startRedis } from './lib.js'
const redis = await startRedis()
const node = await startChild(await compiled('src/main.ts'), { REDIS_URL: `redis://127.0.0.1:${redis.port}`, RATE_LIMIT_PER_MIN: '10000000', ADMIN_EMAILS: 'bench@example.com' }, undefined, ['--cpu-prof', '--cpu-prof-dir=/tmp/dash/prof3'])
const key = await defaultKey(node)
const base = `http://127.0.0.1:${node.port}`
const token = /\/signin\/link\?token=([A-Za-z0-9_-]+)/.exec(node.output())![1]!
const signed = await fetch(`${base}/signin/link`, { method: 'POST', redirect: 'manual', headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'same-origin' }, body: new URLSearchParams({ token }).toString() })
const cookie = signed.headers.get('set-cookie')!.split(';')[0]!
const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }
await fetch(`${base}/admin/rooms`, { method: 'POST', headers, body: JSON.stringify({ roomId: 'big' }) })
const call = (name: string, args: any) => fetch(`${base}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { room_id: 'big', ...args } } }) }).then((r) => r.text())
for (let i = 0; i < 2000; i++) await call('add_task', { agent_id: 'a', title: `Task ${i} ${'x'.repeat(60)}`, depends_on: i % 3 === 0 && i > 0 ? [`t${i}`] : [] })
for (let i = 0; i < 1000; i++) await call('write_context', { agent_id: 'a', type: 'spec', key: `e${i}`, body: 'text '.repeat(200) })
for (let i = 0; i < 256; i++) await call('set_shared_var', { agent_id: 'a', name: `v${i}`, value: 'y'.repeat(1000) })
for (let i = 0; i < 2000; i++) await call('request_review', { agent_id: 'a', target: { kind: 'task', task_id: `t${i + 1}` }, note: 'n'.repeat(100) })
for (let i = 0; i < 60; i++) await call('post_event', { agent_id: 'a', type: 'message', text: 'z'.repeat(4000) })
console.log('filled')
const t0 = Date.now()
for (let i = 0; i < 100; i++) await (await fetch(`${base}/room?id=big`, { headers: { Cookie: cookie } })).text()
console.log('100 views', Date.now() - t0)
await node.stop(); await redis.stop()
