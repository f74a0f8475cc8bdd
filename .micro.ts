// In-process cost of the /mcp handler around a fast-path call: fake Exchange, anonymous key.
const [root, modPath] = [process.argv[2], process.argv[3]]
const { mcpRoutes } = await import(root + modPath)
const settings = { mcpAllowedOrigins: [], sseKeepaliveS: 15, sseBufferBytes: 1 << 20 }
const result = { content: [{ type: 'text', text: '{"ok":true}' }] }
const host = { transport: {}, serverInfo: { name: 'x', version: '1' }, capabilities: {}, fastCall: (m: any) => (m.method === 'tools/call' ? Promise.resolve(result) : undefined) }
const routes = mcpRoutes({ settings } as any, host as any, { anonymous: { kind: 'team', teamId: 't', keyId: 'k' } })
const post = routes.find((r: any) => r.method === 'POST')
const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'post_event', arguments: { room_id: 'bench', agent_id: 'a', type: 'status', text: 'hello' } } }))
let sent = 0
const ex: any = {
  req: { headers: { host: '127.0.0.1:8080', accept: 'application/json, text/event-stream', 'content-type': 'application/json' }, query: new URLSearchParams('') },
  aborted: false, responded: false,
  onAbort() {}, send() { sent++ }, json() { sent++ },
}
const N = 200000
for (let i = 0; i < 50000; i++) await post.handle({ ex, raw: body })
const t0 = process.cpuUsage(); const w0 = performance.now()
for (let i = 0; i < N; i++) await post.handle({ ex, raw: body })
const cpu = process.cpuUsage(t0); const wall = performance.now() - w0
console.log(root, ((cpu.user + cpu.system) / N).toFixed(2), 'us CPU per call', (wall * 1000 / N).toFixed(2), 'us wall', sent)
