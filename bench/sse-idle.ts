// What idle SSE streams cost a node: one node (a child process) on a Redis of the bench's own;
// N idle streams opened in steps over a set of rooms; at each step the node's RSS and JS heap
// (its /metrics, after a forced full GC), their growth per stream over the baseline, and the Redis connections the node
// holds (CLIENT LIST minus the bench's own), which must not grow with streams.
//   npx tsx bench/sse-idle.ts [--steps 1000,2000,5000] [--rooms 100]
import { Redis } from 'ioredis'
import { connect, type Socket } from 'node:net'
import { parseArgs } from 'node:util'
import { defaultKey, fmt, startChild, startRedis } from './lib.js'

const { values } = parseArgs({
  options: { steps: { type: 'string', default: '1000,2000,5000' }, rooms: { type: 'string', default: '100' } },
})
const steps = values.steps.split(',').map(Number)
const roomCount = Number(values.rooms)

const redis = await startRedis()
const node = await startChild('bench/gc-node.ts', {
  REDIS_URL: `redis://127.0.0.1:${redis.port}`,
  RATE_LIMIT_PER_MIN: '10000000',
  KEY_PREFIX: 'bench',
})
const key = await defaultKey(node)
const raw = new Redis(redis.port, '127.0.0.1')
const ownId = Number(await raw.client('ID'))

const rooms: string[] = []
for (let i = 0; i < roomCount; i++) {
  const roomId = `idle-${i}`
  const r = await fetch(`http://127.0.0.1:${node.port}/admin/rooms`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ roomId }),
  })
  if (r.status !== 201) throw new Error(`room creation: ${r.status} ${await r.text()}`)
  rooms.push(roomId)
}

/** A raw idle stream: sends the GET, resolves once the node says "connected", then reads and drops. */
function openIdle(roomId: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const sock = connect(node.port, '127.0.0.1')
    let head = ''
    let connected = false
    const timer = setTimeout(() => reject(new Error(`stream on ${roomId} did not connect`)), 30_000)
    sock.on('error', reject)
    sock.on('connect', () =>
      sock.write(
        `GET /rooms/${roomId}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nAccept: ` +
          `text/event-stream\r\n\r\n`,
      ),
    )
    sock.on('data', (d: Buffer) => {
      if (connected) return // keep-alives: read and dropped
      head += d.toString('latin1')
      if (head.includes(': connected')) {
        connected = true
        clearTimeout(timer)
        resolve(sock)
      } else if (/^HTTP\/1\.1 (?!200)/.test(head)) reject(new Error(`stream: ${head.split('\r\n')[0]}`))
    })
  })
}

/** The node's own view: resident memory, JS heap used, and open SSE streams. */
async function nodeStats(): Promise<{ rss: number; heap: number; streams: number }> {
  const text = await (await fetch(`http://127.0.0.1:${node.port}/metrics`)).text()
  const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN)
  return {
    rss: metric('agentrooms_process_resident_memory_bytes'),
    heap: metric('agentrooms_nodejs_heap_size_used_bytes'),
    streams: metric('agentrooms_sse_connections'),
  }
}

/** Connections to this Redis other than the bench's own: the node's (store client, hub subscriber). */
async function nodeConnections(): Promise<{ total: number; names: string }> {
  const lines = String(await raw.client('LIST'))
    .split('\n')
    .filter((l) => l.trim() !== '' && Number(/(?:^|\s)id=(\d+)/.exec(l)?.[1]) !== ownId)
  const names = lines
    .map((l) => /(?:^|\s)name=(\S*)/.exec(l)?.[1] || '(unnamed)')
    .map((n) => n.replace(/-hub-.*/, '-hub-*'))
  return {
    total: lines.length,
    names: [...new Set(names)].map((n) => `${n} x${names.filter((x) => x === n).length}`).join(', '),
  }
}

/** Stats once the node settled, after a full GC in the node (bench/gc-node.ts, SIGUSR2). */
async function settled(): Promise<{ rss: number; heap: number; streams: number }> {
  await new Promise((r) => setTimeout(r, 1000))
  node.proc.kill('SIGUSR2')
  await new Promise((r) => setTimeout(r, 1000))
  return nodeStats()
}

const MB = 1024 * 1024
console.log(`# ${new Date().toISOString()} node ${process.version}; one node; idle SSE streams over ${roomCount} rooms`)
const base = await settled()
const baseConns = await nodeConnections()
console.log(`sse-idle streams=0 rss: ${fmt(base.rss / MB)} MB`)
console.log(`sse-idle streams=0 heap: ${fmt(base.heap / MB)} MB`)
console.log(`sse-idle streams=0 redis connections: ${baseConns.total} (${baseConns.names})`)

const open: Socket[] = []
for (const n of steps) {
  const started = performance.now()
  while (open.length < n) {
    const batch = Array.from({ length: Math.min(200, n - open.length) }, (_, i) =>
      openIdle(rooms[(open.length + i) % rooms.length]!),
    )
    open.push(...(await Promise.all(batch)))
  }
  const opened = (performance.now() - started) / 1000
  const s = await settled()
  const conns = await nodeConnections()
  const label = `sse-idle streams=${n}`
  console.log(`${label} open on the node: ${s.streams} (opened in ${fmt(opened, 1)} s)`)
  console.log(`${label} rss: ${fmt(s.rss / MB)} MB`)
  console.log(`${label} heap: ${fmt(s.heap / MB)} MB`)
  console.log(`${label} rss per stream: ${fmt((s.rss - base.rss) / n / 1024)} KB`)
  console.log(`${label} heap per stream: ${fmt((s.heap - base.heap) / n / 1024)} KB`)
  console.log(`${label} redis connections: ${conns.total} (${conns.names})`)
}

for (const s of open) s.destroy()
const after = await settled()
console.log(`sse-idle closed all: open on the node: ${after.streams}`)
console.log(`sse-idle closed all: heap: ${fmt(after.heap / MB)} MB (baseline ${fmt(base.heap / MB)} MB)`)
raw.disconnect()
await node.stop()
await redis.stop()
