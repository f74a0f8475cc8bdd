// Every status the service sends goes out with its reason phrase: the error table's statuses and
// every literal status a route or the MCP endpoint answers with. A status missing from STATUS_TEXT
// would go out as "<code> Unknown".
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { ERRORS } from '../../src/shared/errors.js'
import { STATUS_TEXT, statusLine } from '../../src/http/exchange.js'

t.test('every error code has a status with a reason phrase', async (t) => {
  for (const [code, { status }] of Object.entries(ERRORS)) {
    t.ok(STATUS_TEXT[status], `${code}: status ${status} has a reason phrase`)
    t.notMatch(statusLine(status), /Unknown$/, `${code}: status line of ${status}`)
  }
})

t.test('every literal status sent from src has a reason phrase', async (t) => {
  const files = readdirSync('src', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))
  const sent = new Set<number>()
  for (const f of files) {
    for (const m of readFileSync(join('src', f), 'utf8').matchAll(/\.(?:json|send|stream|answer)\(\s*(\d{3})\b/g))
      sent.add(Number(m[1]))
  }
  t.ok(sent.has(200) && sent.has(202), 'the scan finds the statuses the routes send')
  for (const status of sent) t.ok(STATUS_TEXT[status], `status ${status} has a reason phrase`)
})

t.test('a status outside the table still goes out, as Unknown', async (t) => {
  t.equal(statusLine(599), '599 Unknown')
  t.equal(statusLine(422), '422 Unprocessable Content')
})
