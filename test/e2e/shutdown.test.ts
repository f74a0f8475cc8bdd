// Graceful shutdown on real Redis, standalone and cluster. In process: ServiceNode.stop() with
// open SSE streams, a parked wait_for_events and a request whose body is still arriving — the
// streams get a final shutdown frame, the wait returns an empty result, the request completes,
// new requests are refused, and stop() resolves within the grace period. As a process: SIGTERM
// to `npx tsx src/main.ts` ends an open stream the same way and the process exits 0.
import t, { type Test } from 'tap'
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { freePort } from '../helpers/redis.js'
import { eventually, sleep } from '../helpers/realtime.js'
import { BACKENDS, sharedRedis } from '../helpers/shared.js'
import { openStream, parseFrames, type SseStream } from '../helpers/sse.js'

const GRACE_MS = 5000

async function createRoom(base: string, key: string, roomId?: string): Promise<string> {
  const res = await fetch(`${base}/admin/rooms`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(roomId ? { roomId } : {}),
  })
  if (res.status !== 201) throw new Error(`POST /admin/rooms: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { room: { roomId: string } }).room.roomId
}

const isConnected = (s: SseStream) => s.waitFor((f) => f.comments.some((c) => c.startsWith('connected')))

/** Checks that a stream ended cleanly with the shutdown frame and its retry hint. */
function endedWithShutdown(t: Test, s: SseStream, name: string): void {
  t.equal(s.ended, 'end', `${name}: the body ended cleanly (not cut)`)
  const last = s.frames.at(-1)
  t.equal(last?.event, 'shutdown', `${name}: the last frame is event: shutdown`)
  t.ok((last?.retry ?? 0) > 0, `${name}: with a retry hint (${last?.retry} ms)`)
  t.equal(last?.data, '{}')
}

/** Sends the head and part of a POST /admin/rooms body; the rest is sent by finish(). */
async function slowRequest(n: TestNode, key: string, roomId: string): Promise<{ finish(): Promise<string> }> {
  const body = JSON.stringify({ roomId, name: 'created while draining' })
  const sock: Socket = connect(n.node.port, '127.0.0.1')
  sock.on('error', () => undefined)
  await once(sock, 'connect')
  let got = ''
  sock.on('data', (d: Buffer) => (got += d.toString('utf8')))
  sock.write(
    `POST /admin/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: ` +
      `application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 5)}`,
  )
  return {
    async finish() {
      sock.write(body.slice(5))
      await eventually(() => /\r\n\r\n[\s\S]*\}$/.test(got), 5000)
      sock.destroy()
      return got
    },
  }
}

/** The JSON-RPC response of an MCP call answered as JSON or as an SSE stream. */
function rpcOf(
  res: Response,
  text: string,
): { result?: { content: { text: string }[]; isError?: boolean }; error?: unknown } {
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const msg = parseFrames(text).frames.find((f) => f.event === 'message')
    return JSON.parse(msg?.data ?? 'null')
  }
  return JSON.parse(text)
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test(
      'stop(): streams get a shutdown frame, the parked wait returns empty, the request in flight completes',
      async (t) => {
        const n = await startNode(t, backend, { shutdownGraceMs: GRACE_MS })
        const team = await newTeam(n)
        const roomId = await createRoom(n.base, team.key)
        const streams = [
          await openStream(n.base, roomId, { key: team.key }),
          await openStream(n.base, roomId, { key: team.key }),
        ]
        for (const s of streams) {
          t.teardown(() => s.close())
          t.ok(await isConnected(s), 'a stream is open')
        }

        const waitCall = fetch(`${n.base}/mcp`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${team.key}`,
            Accept: 'application/json, text/event-stream',
            'Content-Type': 'application/json',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 7,
            method: 'tools/call',
            params: { name: 'wait_for_events', arguments: { room_id: roomId, agent_id: 'alice', timeout_s: 30 } },
          }),
        })
        const parked = async () => (await n.node.metrics.parkedWaiters.get()).values[0]?.value ?? 0
        t.ok(await eventually(async () => (await parked()) === 1), 'wait_for_events is parked')

        const before = n.node.lifecycle.inFlight
        const slow = await slowRequest(n, team.key, `${roomId}-late`)
        t.ok(
          await eventually(() => n.node.lifecycle.inFlight === before + 1),
          'a request is in flight, its body unfinished',
        )

        const started = performance.now()
        let stopped: { clean: boolean } | undefined
        const stopping = n.node.stop(GRACE_MS).then((r) => (stopped = r))

        // The streams and the wait end at once, while the request in flight holds stop().
        const waitRes = await waitCall
        const waitText = await waitRes.text()
        t.equal(waitRes.status, 200, 'the wait call is answered 200')
        const rpc = rpcOf(waitRes, waitText)
        t.equal(rpc.error, undefined, 'not a JSON-RPC error')
        t.notOk(rpc.result?.isError, 'not a tool error')
        const result = JSON.parse(rpc.result?.content[0]?.text ?? '{}') as { events?: unknown[] }
        t.match(result, { room_id: roomId, unread: 0 }, 'a result for the room')
        t.same(result.events, [], 'with no events')
        for (const [i, s] of streams.entries()) {
          await Promise.race([s.done, sleep(GRACE_MS)])
          endedWithShutdown(t, s, `stream ${i + 1}`)
        }
        t.equal(await parked(), 0, 'no waiter left parked')
        t.equal((await n.node.metrics.sseConnections.get()).values[0]?.value, 0, 'no stream left open')

        const refused = await fetch(`${n.base}/health`).then(
          (r) => r.status,
          (err: unknown) => (err as { cause?: { code?: string } }).cause?.code ?? String(err),
        )
        t.ok(refused === 503 || refused === 'ECONNREFUSED', `a new request is refused (${refused})`)
        t.equal(stopped, undefined, 'stop() waits for the request in flight')

        const reply = await slow.finish()
        t.match(reply, /^HTTP\/1\.1 201 /, 'the request in flight completes')
        t.match(reply, new RegExp(`"roomId":"${roomId}-late"`))
        await stopping
        const took = performance.now() - started
        t.same(stopped, { clean: true }, 'stop() reports a clean drain')
        t.ok(took < GRACE_MS, `stop() resolved within the grace period (${Math.round(took)} ms)`)
      },
    )

    t.test('stop() with nothing in flight resolves at once and refuses new connections', async (t) => {
      const n = await startNode(t, backend)
      const started = performance.now()
      t.same(await n.node.stop(GRACE_MS), { clean: true })
      t.ok(performance.now() - started < 2000, 'quickly')
      const status = await fetch(`${n.base}/health`).then(
        (r) => r.status,
        (err: unknown) => (err as { cause?: { code?: string } }).cause?.code,
      )
      t.ok(status === 'ECONNREFUSED' || status === 503, `refused (${status})`)
    })

    t.test(
      'process: SIGTERM ends open streams with the shutdown frame, returns a parked wait empty and exits 0 within 10 s',
      async (t) => {
        const shared = sharedRedis()
        const port = await freePort()
        const env: Record<string, string> = {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          PORT: String(port),
          HOST: '127.0.0.1',
          // A prefix of its own: the default team it creates is no other test's.
          KEY_PREFIX: `sd${randomBytes(5).toString('hex')}`,
          LOG_LEVEL: 'info',
          ...(backend === 'cluster'
            ? { REDIS_CLUSTER_NODES: shared.cluster.seeds }
            : { REDIS_URL: `redis://127.0.0.1:${shared.standalone.port}` }),
        }
        const child = spawn('npx', ['tsx', 'src/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
        let out = ''
        child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')))
        child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')))
        const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
        t.teardown(() => {
          for (const pid of processTree(child.pid!).reverse()) killQuietly(pid)
        })

        t.ok(await eventually(() => /ar_team_\S+/.test(out), 60_000), 'the node printed the default team key')
        const key = /ar_team_[^\s"]+/.exec(out)![0]
        const base = `http://127.0.0.1:${port}`
        const roomId = await createRoom(base, key)
        const s = await openStream(base, roomId, { key })
        t.teardown(() => s.close())
        t.ok(await isConnected(s), 'a stream is open')
        const waitCall = fetch(`${base}/mcp`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${key}`,
            Accept: 'application/json, text/event-stream',
            'Content-Type': 'application/json',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 8,
            method: 'tools/call',
            params: { name: 'wait_for_events', arguments: { room_id: roomId, agent_id: 'bob', timeout_s: 30 } },
          }),
        })
        const parked = async () => /^agentrooms_parked_waiters 1$/m.test(await (await fetch(`${base}/metrics`)).text())
        t.ok(await eventually(parked, 5000), 'a wait_for_events is parked')

        // npx and tsx run the node as a grandchild and npx does not pass SIGTERM on: signal the
        // node itself, as an orchestrator signals a container's main process.
        const nodePid = processTree(child.pid!)
          .filter((pid) => cmdlineOf(pid).includes('src/main.ts'))
          .at(-1)!
        t.match(cmdlineOf(nodePid), /loader\.mjs.*src\/main\.ts/, "the node process (tsx's loader running src/main.ts)")
        const started = performance.now()
        process.kill(nodePid, 'SIGTERM')

        await Promise.race([s.done, sleep(10_000)])
        endedWithShutdown(t, s, 'the stream')
        const waitRes = await waitCall
        const rpc = rpcOf(waitRes, await waitRes.text())
        t.equal(waitRes.status, 200, 'the parked wait is answered 200')
        t.same(
          (JSON.parse(rpc.result?.content[0]?.text ?? '{}') as { events?: unknown[] }).events,
          [],
          'with no events',
        )
        const [code, signal] = await Promise.race([exited, sleep(10_000).then(() => [undefined, undefined] as const)])
        const took = performance.now() - started
        t.equal(code, 0, `exit code 0 (signal ${signal})`)
        t.ok(took < 10_000, `exited within 10 s (${Math.round(took)} ms)`)
        t.match(out, /"msg":"draining"/, 'logged draining')
        t.match(out, /"clean":true,"msg":"stopped"/, 'logged a clean stop')
      },
    )
  })
}

/** `pid` and its descendants, parents first (Linux /proc). */
function processTree(pid: number): number[] {
  const out = [pid]
  let children: number[] = []
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    // already gone
  }
  for (const c of children) out.push(...processTree(c))
  return out
}

function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')
  } catch {
    return ''
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL')
  } catch {
    // already gone
  }
}
