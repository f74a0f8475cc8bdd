// A stand-in for a service node with the least work a call can take, so the benches can measure
// this machine's floor for the same chain of processes and hops. bench/sse-latency.ts: load
// generator -> node A (HTTP, two Redis round trips, the second one publishing) -> Redis -> node B
// (one subscriber connection) -> SSE streams -> load generator. bench/mcp-throughput.ts --floor:
// the tools/call shapes of lib.ts BENCH_CALLS, each a JSON parse, two Redis round trips (the rate
// check, then one script on the room's keys doing the least the tool's effect needs) and a JSON-RPC
// answer. No auth, no validation, no MCP, no storage beyond a counter and a few hash fields: what
// is left is uWebSockets.js, ioredis and the kernel. Answers the few routes the benches use, in the
// shapes they expect.
//   PORT=... REDIS_URL=redis://... npx tsx bench/floor-node.ts
import { Redis } from 'ioredis'
import { createRequire } from 'node:module'
import type * as UWS from 'uWebSockets.js'

// Plain uWebSockets.js on purpose (the floor); loaded as src/http/exchange.ts does.
const uWS = createRequire(import.meta.url)('uWebSockets.js') as typeof UWS

const port = Number(process.env.PORT)
const redis = new Redis(process.env.REDIS_URL!)
const sub = new Redis(process.env.REDIS_URL!)
const channel = (roomId: string) => `floor:{${roomId}}`
// Stand-ins for the rate check and the append: one round trip each, the second publishes.
const check = (await redis.script('LOAD', 'return 1')) as string
const append = (await redis.script(
  'LOAD',
  "local seq = redis.call('INCR', KEYS[1]) local id = ARGV[2] .. '-' .. seq " +
    "redis.call('SPUBLISH', KEYS[2], id .. '\\n' .. ARGV[1]) return id",
)) as string
// heartbeat: the agent's last-seen time. get_unread_events: the agent's cursor, read and moved.
// update_task claim: the task's status and assignee.
const stamp = (await redis.script('LOAD', "redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) return 1")) as string
const cursor = (await redis.script(
  'LOAD',
  "local c = redis.call('HGET', KEYS[1], ARGV[1]) redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) return c",
)) as string
const claim = (await redis.script(
  'LOAD',
  "local s = redis.call('HMGET', KEYS[1], 'status', 'assignee') " +
    "redis.call('HSET', KEYS[1], 'status', 'in_progress', 'assignee', ARGV[1]) return s",
)) as string

interface Call {
  jsonrpc: '2.0'
  id: number
  params: {
    name: string
    arguments: { room_id: string; agent_id: string; type?: string; text?: string; data?: unknown; task_id?: string }
  }
}

/** One tool call's Redis work (after the rate check): what its answer carries besides room_id. */
async function run(name: string, a: Call['params']['arguments']): Promise<object> {
  const room = `floor:{${a.room_id}}`
  switch (name) {
    case 'post_event': {
      const ev = JSON.stringify({ type: a.type, text: a.text, data: a.data, created_at: new Date().toISOString() })
      const id = await redis.evalsha(append, 2, `${room}:seq`, channel(a.room_id), ev, String(Date.now()))
      return { event: { id } }
    }
    case 'heartbeat':
      await redis.evalsha(stamp, 1, `${room}:presence`, a.agent_id, String(Date.now()))
      return { agent_id: a.agent_id, online: true }
    case 'get_unread_events':
      await redis.evalsha(cursor, 1, `${room}:cursors`, a.agent_id, String(Date.now()))
      return { events: [], has_more: false }
    case 'update_task':
      await redis.evalsha(claim, 1, `${room}:task:${a.task_id}`, a.agent_id)
      return { task: { id: a.task_id, status: 'in_progress', assignee: a.agent_id } }
    default:
      throw new Error(`the floor answers no tool ${name}`)
  }
}

const aborted = new WeakSet<UWS.HttpResponse>()

/** Reads a request body (uWS hands it over in chunks; onAborted before anything async). */
function body(res: UWS.HttpResponse, done: (text: string) => void): void {
  let buf = Buffer.alloc(0)
  res.onAborted(() => aborted.add(res))
  res.onData((chunk, last) => {
    buf = Buffer.concat([buf, Buffer.from(chunk)])
    if (last) done(buf.toString())
  })
}

const streams = new Map<string, Set<UWS.HttpResponse>>()
sub.on('smessage', (ch: string, msg: string) => {
  const roomId = ch.slice('floor:{'.length, -1)
  const nl = msg.indexOf('\n')
  const frame = `id: ${msg.slice(0, nl)}\ndata: ${msg.slice(nl + 1)}\n\n`
  for (const res of streams.get(roomId) ?? []) res.cork(() => res.write(frame))
})

uWS
  .App()
  .get('/health', (res) => void res.end('{"status":"ok"}'))
  .post('/admin/rooms', (res) => body(res, () => res.cork(() => res.writeStatus('201 Created').end('{}'))))
  .post('/mcp', (res) =>
    body(res, (text) => {
      const rpc = JSON.parse(text) as Call
      const a = rpc.params.arguments
      void (async () => {
        await redis.evalsha(check, 0)
        const result = { room_id: a.room_id, ...(await run(rpc.params.name, a)) }
        if (aborted.has(res)) return
        res.cork(() =>
          res.writeHeader('Content-Type', 'application/json').end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: rpc.id,
              result: { content: [{ type: 'text', text: JSON.stringify(result) }] },
            }),
          ),
        )
      })()
    }),
  )
  .get('/rooms/:roomId/stream', (res, req) => {
    const roomId = req.getParameter(0)!
    let set = streams.get(roomId)
    if (!set) {
      streams.set(roomId, (set = new Set()))
      void sub.ssubscribe(channel(roomId))
    }
    const room = set
    room.add(res)
    res.onAborted(() => room.delete(res))
    res.writeHeader('Content-Type', 'text/event-stream').write(': connected\n\n')
  })
  .listen('127.0.0.1', port, (ok) => {
    if (!ok) throw new Error(`port ${port} is taken`)
    // The bench reads a team key from the first node's output; this stand-in checks none.
    console.log(`ar_team_default.${'f'.repeat(32)}`)
  })
