// The HTTPS side of one attempt (src/webhooks/send.ts), against real HTTPS servers on loopback
// with a certificate from a CA made by openssl at test time: the pooled agent never makes a new
// receiver wait for another receiver's idle connections, the checked addresses are tried in turn
// when one cannot be connected to, and a kept-alive connection the receiver had dropped is retried
// once on a fresh one.
import t, { type Test } from 'tap'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:https'
import type { Socket } from 'node:net'
import type { Address, Target } from '../../src/webhooks/guard.js'
import { deliverTo, deliveryAgent, type SendOptions } from '../../src/webhooks/send.js'
import { makeTestCa, startReceiver, type TestCa } from '../helpers/webhooks.js'
import { sleep, waitFor } from '../helpers/wait.js'

const body = Buffer.from('{"id":"dlv_test"}')

function targetOf(port: number, addresses: string[], host = 'receiver.test'): Target {
  return {
    url: new URL(`https://${host}:${port}/hook`),
    host,
    port,
    addresses: addresses.map((address): Address => ({ address, family: 4 })),
  }
}

function options(t: Test, ca: TestCa, concurrency: number, timeoutMs = 2000): SendOptions {
  const agent = deliveryAgent(concurrency)
  t.teardown(() => agent.destroy())
  return { timeoutMs, agent, ca: readFileSync(ca.caFile), userAgent: 'test' }
}

t.test('attempts', async (t) => {
  const ca = await makeTestCa(t)

  t.test('idle connections to one receiver never hold up a request to another', async (t) => {
    const a = await startReceiver(t, ca)
    const b = await startReceiver(t, ca)
    // One slot: the pool keeps the connection to A open (idle) after its answer.
    const opts = options(t, ca, 1)
    t.match(await deliverTo(targetOf(a.port, ['127.0.0.1']), body, {}, opts), { status: 200 }, 'A answers')
    const started = Date.now()
    const toB = await deliverTo(targetOf(b.port, ['127.0.0.1']), body, {}, opts)
    t.match(toB, { status: 200 }, "B answers within the deadline, though A's connection is idle in the pool")
    t.notOk(toB.error, `no error (${Date.now() - started} ms)`)
    t.equal(b.received.length, 1)
  })

  t.test('an address that refuses the connection passes to the next checked one', async (t) => {
    const rx = await startReceiver(t, ca)
    const opts = options(t, ca, 4)
    // The receiver listens on 127.0.0.1 only: 127.0.0.2 (loopback too) refuses.
    const a = await deliverTo(targetOf(rx.port, ['127.0.0.2', '127.0.0.1']), body, {}, opts)
    t.match(a, { status: 200 })
    t.equal(rx.received.length, 1, 'one request reached the receiver')
    t.equal(rx.received[0]!.headers.host, `receiver.test:${rx.port}`)

    const none = await deliverTo(targetOf(rx.port, ['127.0.0.2', '127.0.0.3']), body, {}, opts)
    t.match(none, { unreachable: true, error: /ECONNREFUSED.*127\.0\.0\.3/ }, 'all refused: the last error is kept')
    t.notOk('status' in none)

    rx.answer = () => ({ status: 500, body: 'broken' })
    const answered = await deliverTo(targetOf(rx.port, ['127.0.0.1', '127.0.0.1']), body, {}, opts)
    t.match(answered, { status: 500, error: 'broken' })
    t.equal(rx.received.length, 2, 'an answer, even a failing one, is not sent to another address')
  })

  t.test('a kept-alive connection the receiver dropped is retried once on a fresh one', async (t) => {
    let requests = 0
    let connections = 0
    const sockets = new Set<Socket>()
    const server = createServer({ key: ca.key, cert: ca.cert, keepAliveTimeout: 60_000 }, (req, res) => {
      requests++
      req.resume()
      req.on('end', () => {
        // The second request comes on the kept-alive connection: drop it unanswered, as a
        // receiver that closed an idle connection at that moment does.
        if (requests === 2 && connections === 1) {
          req.socket.destroy()
          return
        }
        res.writeHead(200).end('ok')
      })
    })
    server.on('connection', (s: Socket) => {
      connections++
      sockets.add(s)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    t.teardown(() => {
      for (const s of sockets) s.destroy()
      server.close()
    })
    const port = (server.address() as { port: number }).port
    const opts = options(t, ca, 4)
    t.match(await deliverTo(targetOf(port, ['127.0.0.1']), body, {}, opts), { status: 200 })
    const again = await deliverTo(targetOf(port, ['127.0.0.1']), body, {}, opts)
    t.match(again, { status: 200 }, 'answered on a fresh connection')
    t.equal(requests, 3, 'sent again once')
    t.equal(connections, 2, 'over a new connection')
  })

  t.test('an aborted attempt is not retried', async (t) => {
    const rx = await startReceiver(t, ca)
    rx.answer = () => 'hang'
    const ac = new AbortController()
    const opts = { ...options(t, ca, 4), signal: ac.signal }
    const pending = deliverTo(targetOf(rx.port, ['127.0.0.1', '127.0.0.1']), body, {}, opts)
    await waitFor(() => rx.received.length === 1, 5000, 'the attempt to reach the receiver')
    ac.abort()
    const a = await pending
    t.notOk('status' in a)
    t.match(a.error, /abort/i)
    await sleep(100) // time passes on purpose: a window in which a retry to the second address would arrive
    t.equal(rx.received.length, 1, 'sent once')
  })
})
