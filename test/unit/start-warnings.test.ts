// Settings that are wrong outside a test run are warned about at start (src/ops/start-warnings.ts).
import t from 'tap'
import { isTestRun, settingsWarnings } from '../../src/ops/start-warnings.js'

t.test('WEBHOOK_TEST_LOOPBACK_CA outside a test run is warned about', async (t) => {
  t.ok(isTestRun({ TAP: '1' }) && isTestRun({ NODE_ENV: 'test' }), 'tap and NODE_ENV=test are test runs')
  t.notOk(isTestRun({ NODE_ENV: 'production' }) || isTestRun({}), 'anything else is not')
  const quiet = { metricsToken: 'scrape', publicUrl: undefined, host: '127.0.0.1' }
  const set = { ...quiet, webhookTestLoopbackCa: '/tmp/ca.pem' }
  const warned = settingsWarnings(set, { NODE_ENV: 'production' })
  t.equal(warned.length, 1)
  t.match(warned[0], {
    obj: { setting: 'WEBHOOK_TEST_LOOPBACK_CA', value: '/tmp/ca.pem' },
    msg: /outside a test run: webhooks may reach loopback addresses/,
  })
  t.same(settingsWarnings(set, { TAP: '1' }), [], 'in a test run: no warning')
  t.same(settingsWarnings({ ...quiet, webhookTestLoopbackCa: undefined }, {}), [], 'unset: no warning')
})

t.test('an open /metrics outside development is warned about', async (t) => {
  const open = { webhookTestLoopbackCa: undefined, metricsToken: '' }
  for (const where of [
    { publicUrl: 'https://rooms.example.com', host: '127.0.0.1' },
    { publicUrl: undefined, host: '0.0.0.0' },
  ]) {
    const warned = settingsWarnings({ ...open, ...where }, { NODE_ENV: 'production' })
    t.match(warned, [{ obj: { setting: 'METRICS_TOKEN' }, msg: /GET \/metrics answers anyone/ }], JSON.stringify(where))
    t.same(settingsWarnings({ ...open, ...where, metricsToken: 'scrape' }, {}), [], 'with the token: none')
  }
  t.same(settingsWarnings({ ...open, publicUrl: undefined, host: '127.0.0.1' }, {}), [], 'in development: none')
})
