// Webhook tests: a test CA and a server certificate made with `openssl` at test time, a real
// HTTPS receiver that records every request's raw body and headers and answers as a test says,
// and independent signature checks (the openssl CLI, and the standardwebhooks package).
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { createServer, type Server } from 'node:https'
import type { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Webhook } from 'standardwebhooks'
import type { Test } from 'tap'
import { uid } from './shared.js'

const run = promisify(execFile)

export interface TestCa {
  dir: string
  /** PEM file of the CA: WEBHOOK_TEST_LOOPBACK_CA. */
  caFile: string
  /** The receiver's key and certificate (names receiver.test, localhost, 127.0.0.1, ::1). */
  key: Buffer
  cert: Buffer
}

/** A CA and a server certificate signed by it, made with openssl; removed when the test ends. */
export async function makeTestCa(t: Test): Promise<TestCa> {
  const dir = mkdtempSync(join(tmpdir(), 'ar-whca-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
  await run(
    'openssl',
    [
      'req',
      '-x509',
      ...ec,
      '-keyout',
      join(dir, 'ca.key'),
      '-out',
      join(dir, 'ca.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=agentrooms webhook test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    { cwd: dir },
  )
  await run(
    'openssl',
    [
      'req',
      '-new',
      ...ec,
      '-keyout',
      join(dir, 'server.key'),
      '-out',
      join(dir, 'server.csr'),
      '-subj',
      '/CN=receiver.test',
    ],
    { cwd: dir },
  )
  writeFileSync(
    join(dir, 'server.ext'),
    'subjectAltName=DNS:receiver.test,DNS:localhost,IP:127.0.0.1,IP:::1\n' +
      'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n',
  )
  await run(
    'openssl',
    [
      'x509',
      '-req',
      '-in',
      join(dir, 'server.csr'),
      '-CA',
      join(dir, 'ca.pem'),
      '-CAkey',
      join(dir, 'ca.key'),
      '-CAcreateserial',
      '-out',
      join(dir, 'server.pem'),
      '-days',
      '2',
      '-extfile',
      join(dir, 'server.ext'),
    ],
    { cwd: dir },
  )
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    key: readFileSync(join(dir, 'server.key')),
    cert: readFileSync(join(dir, 'server.pem')),
  }
}

export interface Received {
  path: string
  headers: IncomingHttpHeaders
  /** The exact bytes received. */
  raw: Buffer
  body: {
    id: string
    type: string
    team_id: string
    room_id: string
    event: {
      id: string
      type: string
      agent_id: string
      text: string
      created_at: string
      data?: unknown
      reply_to?: string
    }
    sent_at: string
  }
  at: number
}

/** How the receiver answers one request: a status (and headers), or 'hang' (never answer). */
export type Answer = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'hang'

/** A real HTTPS server on 127.0.0.1 with a certificate of the test CA. */
export class Receiver {
  readonly received: Received[] = []
  /** Requests left unanswered ('hang'), with their responses. */
  readonly hanging: { r: Received; res: ServerResponse }[] = []
  answer: (r: Received) => Answer = () => ({ status: 200 })
  port = 0
  /** TCP connections accepted (keep-alive reuse shows as fewer connections than requests). */
  connections = 0
  private server: Server
  private readonly sockets = new Set<Socket>()

  constructor(private readonly ca: TestCa) {
    this.server = this.make()
  }

  private make(): Server {
    const server = createServer(
      { key: this.ca.key, cert: this.ca.cert, keepAliveTimeout: 60_000 },
      (req: IncomingMessage, res: ServerResponse) => {
        const chunks: Buffer[] = []
        req.on('data', (c: Buffer) => chunks.push(c))
        req.on('end', () => {
          const raw = Buffer.concat(chunks)
          let body: Received['body']
          try {
            body = JSON.parse(raw.toString('utf8')) as Received['body']
          } catch {
            body = {} as Received['body']
          }
          const r: Received = { path: req.url ?? '', headers: req.headers, raw, body, at: Date.now() }
          this.received.push(r)
          const a = this.answer(r)
          if (a === 'hang') {
            this.hanging.push({ r, res })
            return
          }
          const send = () => {
            if (res.destroyed) return
            res.writeHead(a.status, a.headers ?? {})
            res.end(a.body ?? '')
          }
          if (a.delayMs) setTimeout(send, a.delayMs)
          else send()
        })
      },
    )
    server.on('connection', (s: Socket) => {
      this.connections++
      this.sockets.add(s)
      s.on('close', () => this.sockets.delete(s))
    })
    return server
  }

  /** Starts listening (on the same port again after close(), when it had one). */
  async listen(): Promise<this> {
    this.server = this.make()
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(this.port, '127.0.0.1', () => resolve())
    })
    const addr = this.server.address()
    this.port = typeof addr === 'object' && addr ? addr.port : 0
    return this
  }

  /** Stops listening and cuts every connection (the receiver is down). */
  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  url(path = '/hook', host = '127.0.0.1'): string {
    return `https://${host}:${this.port}${path}`
  }

  /** Answers every hanging request with `status`. */
  release(status = 200): void {
    for (const { res } of this.hanging.splice(0)) {
      if (!res.destroyed) res.writeHead(status).end()
    }
  }
}

/** A receiver listening on a free port; closed when the test ends. */
export async function startReceiver(t: Test, ca: TestCa): Promise<Receiver> {
  const r = await new Receiver(ca).listen()
  t.teardown(() => r.close())
  return r
}

/** X-Service-Signature as `openssl dgst -sha256 -hmac <secret>` computes it over the raw body. */
export async function opensslHmac(secret: string, raw: Buffer): Promise<string> {
  const out = await new Promise<string>((resolve, reject) => {
    const p = spawn('openssl', ['dgst', '-sha256', '-hmac', secret])
    let text = ''
    p.stdout.on('data', (c: Buffer) => (text += c.toString()))
    p.on('error', reject)
    p.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`openssl exited ${code}`))))
    p.stdin.end(raw)
  })
  // "HMAC-SHA2-256(stdin)= <hex>"
  return out.trim().split(/\s+/).pop()!
}

/** Verifies the Standard Webhooks headers with the standardwebhooks package; returns the payload or throws. */
export function verifyStandard(secret: string, r: Received): unknown {
  const h = r.headers
  return new Webhook(secret).verify(r.raw.toString('utf8'), {
    'webhook-id': String(h['webhook-id']),
    'webhook-timestamp': String(h['webhook-timestamp']),
    'webhook-signature': String(h['webhook-signature']),
  })
}

/** Settings for a node that delivers to a loopback receiver of `ca`, fast, on a KEY_PREFIX of its own. */
export function fastWebhookSettings(ca: TestCa) {
  return {
    keyPrefix: uid('wh'),
    webhookTestLoopbackCa: ca.caFile,
    webhookRetryScheduleMs: [200, 300, 500, 500, 1000, 1000, 2000, 2000],
    webhookRetryJitter: 0,
    webhookPollMs: 50,
    webhookLeaseMs: 3000,
    webhookSweepMs: 1000,
  }
}

export { waitFor } from './wait.js'
