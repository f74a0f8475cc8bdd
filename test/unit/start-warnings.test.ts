// Settings that are wrong outside a test run are warned about at start (src/ops/start-warnings.ts).
import t from 'tap'
import { isTestRun, settingsWarnings } from '../../src/ops/start-warnings.js'

t.test('WEBHOOK_TEST_LOOPBACK_CA outside a test run is warned about', async (t) => {
  t.ok(isTestRun({ TAP: '1' }) && isTestRun({ NODE_ENV: 'test' }), 'tap and NODE_ENV=test are test runs')
  t.notOk(isTestRun({ NODE_ENV: 'production' }) || isTestRun({}), 'anything else is not')
  const set = { webhookTestLoopbackCa: '/tmp/ca.pem' }
  const warned = settingsWarnings(set, { NODE_ENV: 'production' })
  t.equal(warned.length, 1)
  t.match(warned[0], {
    obj: { setting: 'WEBHOOK_TEST_LOOPBACK_CA', value: '/tmp/ca.pem' },
    msg: /outside a test run: webhooks may reach loopback addresses/,
  })
  t.same(settingsWarnings(set, { TAP: '1' }), [], 'in a test run: no warning')
  t.same(settingsWarnings({ webhookTestLoopbackCa: undefined }, {}), [], 'unset: no warning')
})
