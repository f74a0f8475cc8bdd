// A stand-in for a service node with the least work a cross-node delivery can take, so
// bench/sse-latency.ts can measure this machine's floor for the same chain of processes and hops:
// load generator -> node A (HTTP, two Redis round trips, the second one publishing) -> Redis ->
// node B (one subscriber connection) -> SSE streams -> load generator. No auth, no validation, no
// MCP, no storage beyond a counter: what is left is uWebSockets.js, ioredis and the kernel.
// Answers the few routes the bench uses, in the shapes it expects.
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
      const rpc = JSON.parse(text) as {
        id: number
        params: { arguments: { room_id: string; type: string; text: string; data: unknown } }
      }
      const a = rpc.params.arguments
      void (async () => {
        await redis.evalsha(check, 0)
        const ev = JSON.stringify({ type: a.type, text: a.text, data: a.data, created_at: new Date().toISOString() })
        const id = await redis.evalsha(
          append,
          2,
          `floor:{${a.room_id}}:seq`,
          channel(a.room_id),
          ev,
          String(Date.now()),
        )
        if (aborted.has(res)) return
        res.cork(() =>
          res.writeHeader('Content-Type', 'application/json').end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: rpc.id,
              result: { content: [{ type: 'text', text: JSON.stringify({ event: { id } }) }] },
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
