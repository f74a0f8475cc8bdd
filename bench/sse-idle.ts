// What idle streams cost a node: for each kind of stream (`sse`: GET /rooms/:id/stream; `listen`:
// an MCP subscriptions/listen stream on the room's plan and one agent's unread events), a fresh
// node (a child process) on a fresh Redis of the bench's own; N idle streams opened in steps over a
// set of rooms; at each step the node's RSS and JS heap (its /metrics, after a forced full GC),
// their growth per stream over the baseline, and the Redis connections the node holds (CLIENT
// LIST minus the bench's own), which must not grow with streams. With both kinds, the listen
// figures are also given as a ratio of the SSE ones of the same run. --snapshot takes a heap
// snapshot of the node at the baseline and at the last step and prints what the heap grew by per
// stream, by kind of object (profile first: where the bytes of a stream are).
//   npx tsx bench/sse-idle.ts [--kinds sse,listen] [--steps 1000,2000,5000] [--rooms 100] [--snapshot [--keep]]
import { Redis } from 'ioredis'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { resourceUri } from '../src/mcp/resources.js'
import {
  censusGrowth,
  defaultKey,
  fmt,
  heapCensus,
  listenRequest,
  startChild,
  startRedis,
  type ChildNode,
  type HeapCensus,
} from './lib.js'

const { values } = parseArgs({
  options: {
    kinds: { type: 'string', default: 'sse,listen' },
    steps: { type: 'string', default: '1000,2000,5000' },
    rooms: { type: 'string', default: '100' },
    snapshot: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
})
const kinds = values.kinds.split(',') as ('sse' | 'listen')[]
for (const k of kinds) if (k !== 'sse' && k !== 'listen') throw new Error(`--kinds: ${k}: one of sse, listen`)
const steps = values.steps.split(',').map(Number)
const roomCount = Number(values.rooms)
const MB = 1024 * 1024

interface Stats {
  rss: number
  heap: number
  streams: number
}

/** The node's own view: resident memory, JS heap used, and open SSE sessions (both kinds count). */
async function nodeStats(node: ChildNode): Promise<Stats> {
  const text = await (await fetch(`http://127.0.0.1:${node.port}/metrics`)).text()
  const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN)
  return {
    rss: metric('agentrooms_process_resident_memory_bytes'),
    heap: metric('agentrooms_nodejs_heap_size_used_bytes'),
    streams: metric('agentrooms_sse_connections'),
  }
}

/**
 * A raw idle stream: sends `request`, resolves once the node's first frame says the stream is
 * live (`ready` found in what came), then reads and drops.
 */
function openIdle(port: number, request: string, ready: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1')
    let head = ''
    let live = false
    const timer = setTimeout(() => reject(new Error(`stream did not start: ${head.slice(0, 300)}`)), 30_000)
    sock.on('error', reject)
    sock.on('connect', () => sock.write(request))
    sock.on('data', (d: Buffer) => {
      if (live) return // keep-alives: read and dropped
      head += d.toString('latin1')
      if (head.includes(ready)) {
        live = true
        clearTimeout(timer)
        resolve(sock)
      } else if (/^HTTP\/1\.1 (?!200)/.test(head)) reject(new Error(`stream: ${head.split('\r\n')[0]}`))
    })
  })
}

const perKind = new Map<string, Map<number, { rss: number; heap: number }>>()
console.log(
  `# ${new Date().toISOString()} node ${process.version}; one node per kind (${kinds.join(', ')}); idle streams ` +
    `over ${roomCount} rooms`,
)
for (const kind of kinds) {
  const redis = await startRedis()
  const dir = values.snapshot ? mkdtempSync(join(tmpdir(), 'ar-heap-')) : undefined
  const node = await startChild('bench/gc-node.ts', {
    REDIS_URL: `redis://127.0.0.1:${redis.port}`,
    RATE_LIMIT_PER_MIN: '10000000',
    RATE_LIMIT_PER_CREDENTIAL_PER_MIN: '5000000',
    // One key opens every stream: the per-node caps on open streams set out of the way.
    OPEN_PER_CREDENTIAL: '1000000',
    OPEN_PER_TEAM: '1000000',
    KEY_PREFIX: 'bench',
    ...(dir ? { HEAP_SNAPSHOT_DIR: dir } : {}),
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
  const open1 = (i: number): Promise<Socket> => {
    const roomId = rooms[i % rooms.length]!
    if (kind === 'sse')
      return openIdle(
        node.port,
        `GET /rooms/${roomId}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nAccept: ` +
          `text/event-stream\r\n\r\n`,
        ': connected',
      )
    const uris = [resourceUri({ kind: 'plan', roomId }), resourceUri({ kind: 'unread', roomId, agent: `agent-${i}` })]
    return openIdle(node.port, listenRequest(key, uris, i), 'notifications/subscriptions/acknowledged')
  }

  /** Connections to this Redis other than the bench's own: the node's (store client, hub subscriber). */
  const nodeConnections = async (): Promise<{ total: number; names: string }> => {
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
  const settled = async (): Promise<Stats> => {
    await new Promise((r) => setTimeout(r, 1000))
    node.proc.kill('SIGUSR2')
    await new Promise((r) => setTimeout(r, 1000))
    return nodeStats(node)
  }
  /** A heap snapshot of the node (bench/gc-node.ts, SIGUSR1), summed by kind of object. */
  const census = async (): Promise<HeapCensus> => {
    const seen = node.output().length
    node.proc.kill('SIGUSR1')
    for (let i = 0; i < 1200; i++) {
      const file = /heap snapshot: (\S+)/.exec(node.output().slice(seen))?.[1]
      if (file) {
        await new Promise((r) => setTimeout(r, 200)) // the line comes once the file is written
        return heapCensus(file)
      }
      await new Promise((r) => setTimeout(r, 100))
    }
    throw new Error('no heap snapshot written')
  }

  const base = await settled()
  const baseCensus = dir ? await census() : undefined
  const baseConns = await nodeConnections()
  const l0 = `sse-idle kind=${kind} streams=0`
  console.log(`${l0} rss: ${fmt(base.rss / MB)} MB`)
  console.log(`${l0} heap: ${fmt(base.heap / MB)} MB`)
  console.log(`${l0} redis connections: ${baseConns.total} (${baseConns.names})`)

  const figures = new Map<number, { rss: number; heap: number }>()
  perKind.set(kind, figures)
  const open: Socket[] = []
  for (const n of steps) {
    const started = performance.now()
    while (open.length < n) {
      const batch = Array.from({ length: Math.min(200, n - open.length) }, (_, i) => open1(open.length + i))
      open.push(...(await Promise.all(batch)))
    }
    const opened = (performance.now() - started) / 1000
    const s = await settled()
    const conns = await nodeConnections()
    const label = `sse-idle kind=${kind} streams=${n}`
    const per = { rss: (s.rss - base.rss) / n, heap: (s.heap - base.heap) / n }
    figures.set(n, per)
    console.log(`${label} open on the node: ${s.streams} (opened in ${fmt(opened, 1)} s)`)
    console.log(`${label} rss: ${fmt(s.rss / MB)} MB`)
    console.log(`${label} heap: ${fmt(s.heap / MB)} MB`)
    console.log(`${label} rss per stream: ${fmt(per.rss / 1024, 2)} KB`)
    console.log(`${label} heap per stream: ${fmt(per.heap / 1024, 2)} KB`)
    console.log(`${label} redis connections: ${conns.total} (${conns.names})`)
  }
  if (baseCensus) {
    const n = steps.at(-1)!
    for (const line of censusGrowth(baseCensus, await census(), n)) console.log(`sse-idle kind=${kind} ${line}`)
  }

  for (const s of open) s.destroy()
  const after = await settled()
  console.log(`sse-idle kind=${kind} closed all: open on the node: ${after.streams}`)
  console.log(`sse-idle kind=${kind} closed all: heap: ${fmt(after.heap / MB)} MB (baseline ${fmt(base.heap / MB)} MB)`)
  raw.disconnect()
  await node.stop()
  await redis.stop()
  if (dir && values.keep) console.log(`sse-idle kind=${kind} heap snapshots kept in ${dir}`)
  else if (dir) rmSync(dir, { recursive: true, force: true })
}

const sse = perKind.get('sse')
const listen = perKind.get('listen')
if (sse && listen)
  for (const n of steps) {
    const [s, l] = [sse.get(n)!, listen.get(n)!]
    console.log(
      `sse-idle streams=${n} listen/sse per stream: heap ${fmt(l.heap / s.heap, 2)}, rss ${fmt(l.rss / s.rss, 2)}`,
    )
  }
