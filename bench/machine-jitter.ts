// What this machine alone adds to a latency, with no service running: how late an idle process's
// 5 ms timer fires, and the round trip of one byte between two processes over loopback TCP at
// 200 per second. Any request that crosses processes pays these wake-ups; compare them with
// bench/sse-latency.ts (and its --floor) before reading a p99 as the service's own.
//   npx tsx bench/machine-jitter.ts [--seconds 10]
import { fork } from 'node:child_process'
import { connect, createServer } from 'node:net'
import { parseArgs } from 'node:util'
import { fmt, freePort, percentile } from './lib.js'

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, serve: { type: 'string' } } })

if (values.serve) {
  // The echo side, in its own process.
  createServer((s) => {
    s.setNoDelay(true)
    s.on('data', (d) => s.write(d))
  }).listen(Number(values.serve), '127.0.0.1', () => process.send!('up'))
} else {
  const seconds = Number(values.seconds)
  const line = (name: string, xs: number[]) => {
    xs.sort((a, b) => a - b)
    console.log(
      `${name}: p50 ${fmt(percentile(xs, 50), 2)} ms, p99 ${fmt(percentile(xs, 99), 2)} ms, p99.9 ` +
        `${fmt(percentile(xs, 99.9), 2)} ms, max ${fmt(xs.at(-1)!, 2)} ms (${xs.length})`,
    )
  }
  console.log(`# ${new Date().toISOString()} node ${process.version}, ${seconds} s each`)

  const late: number[] = []
  let last = performance.now()
  const end = Date.now() + seconds * 1000
  await new Promise<void>((done) => {
    const tick = () => {
      const now = performance.now()
      late.push(now - last - 5)
      last = now
      if (Date.now() < end) setTimeout(tick, 5)
      else done()
    }
    setTimeout(tick, 5)
  })
  line('5 ms timer of an idle process, lateness', late)

  const port = await freePort()
  const echo = fork(new URL(import.meta.url).pathname, ['--serve', String(port)], { execArgv: process.execArgv })
  await new Promise((r) => echo.once('message', r))
  const sock = connect(port, '127.0.0.1')
  sock.setNoDelay(true)
  await new Promise((r) => sock.once('connect', r))
  const rtt: number[] = []
  let sent = 0
  sock.on('data', () => rtt.push(performance.now() - sent))
  for (let i = 0; i < seconds * 200; i++) {
    await new Promise((r) => setTimeout(r, 5))
    sent = performance.now()
    sock.write('x')
  }
  await new Promise((r) => setTimeout(r, 50))
  line('loopback TCP round trip between two processes, 200/s', rtt)
  sock.destroy()
  echo.kill()
}
