// The HTTP parser's edges (uWebSockets.js 20.51 on Node 22), on a real node: each request below is
// answered, or refused, with a status line, never left waiting for the idle timeout.
// docs/http-api.md ("What the HTTP parser accepts") lists the same cases.
import t from 'tap'
import { connect } from 'node:net'
import { startNode } from '../helpers/node.js'

/** Writes `data` on a fresh connection; resolves with the first status line the node sends. */
function statusLine(port: number, data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    const s = connect(port, '127.0.0.1', () => s.write(data))
    s.on('data', (d) => {
      text += d.toString('latin1')
      const end = text.indexOf('\r\n')
      if (end >= 0) {
        s.destroy()
        resolve(text.slice(0, end))
      }
    })
    s.on('close', () => reject(new Error(`closed without an answer (got ${JSON.stringify(text)})`)))
    s.on('error', () => undefined)
  })
}

const headers = (n: number) => Array.from({ length: n }, (_, i) => `X-Extra-${i}: v\r\n`).join('')

t.test('HTTP parser edges are answered at once (standalone)', async (t) => {
  const n = await startNode(t, 'standalone')
  const port = Number(new URL(n.base).port)
  const cases: [string, string, RegExp][] = [
    ['HTTP/1.0 (curl -0)', 'GET /health HTTP/1.0\r\n\r\n', /^HTTP\/1\.1 505 /],
    ['HTTP/1.0 with Host', 'GET /health HTTP/1.0\r\nHost: x\r\n\r\n', /^HTTP\/1\.1 505 /],
    ['a NUL byte in a header', 'GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n', /^HTTP\/1\.1 400 /],
    ['a control byte in a header', 'GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n', /^HTTP\/1\.1 400 /],
    ['a NUL byte in the path', 'GET /hea\0lth HTTP/1.1\r\nHost: x\r\n\r\n', /^HTTP\/1\.1 (400|505) /],
    ['a control byte in the path', 'GET /hea\x07lth HTTP/1.1\r\nHost: x\r\n\r\n', /^HTTP\/1\.1 (400|505) /],
    ['HTTP/1.1 without Host', 'GET /health HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 400 /],
    ['60 headers', `GET /health HTTP/1.1\r\nHost: x\r\n${headers(59)}\r\n`, /^HTTP\/1\.1 200 /],
    ['98 headers', `GET /health HTTP/1.1\r\nHost: x\r\n${headers(97)}\r\n`, /^HTTP\/1\.1 200 /],
    ['100 headers', `GET /health HTTP/1.1\r\nHost: x\r\n${headers(99)}\r\n`, /^HTTP\/1\.1 431 /],
    ['300 headers', `GET /health HTTP/1.1\r\nHost: x\r\n${headers(299)}\r\n`, /^HTTP\/1\.1 431 /],
  ]
  for (const [name, data, expected] of cases) t.match(await statusLine(port, data), expected, name)
  t.equal((await n.call('/health')).status, 200, 'the node still answers')
})
