// GET /metrics behind METRICS_TOKEN: refused without it or with another, served with it.
import t from 'tap'
import { startNode } from '../helpers/node.js'

t.test('METRICS_TOKEN guards /metrics', async (t) => {
  const token = 'scrape-0123456789abcdef'
  const n = await startNode(t, 'standalone', { metricsToken: token })
  const none = await n.call('/metrics')
  t.equal(none.status, 401, 'no token: 401')
  t.match(((await none.json()) as { error: { message: string } }).error.message, /METRICS_TOKEN/)
  const wrong = await n.call('/metrics', { headers: { Authorization: `Bearer ${token}x` } })
  t.equal(wrong.status, 401, 'another token: 401')
  await wrong.arrayBuffer()
  const ok = await n.call('/metrics', { headers: { Authorization: `Bearer ${token}` } })
  t.equal(ok.status, 200, 'the token: the metrics')
  t.match(await ok.text(), /^# TYPE agentrooms_http_requests_total counter/m)
  t.equal((await n.call('/health')).status, 200, 'the other operational endpoints stay open')
})
