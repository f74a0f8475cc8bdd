// Warnings a node logs at start about settings that are wrong outside the place they are meant
// for (the Redis checks are src/ops/redis-check.ts).
import type { Settings } from '../config.js'
import { isDevelopment } from './development.js'

/** Whether this process is a test run: NODE_ENV=test, or under tap (which sets TAP=1). */
export function isTestRun(env: Record<string, string | undefined>): boolean {
  return env.NODE_ENV === 'test' || env.TAP === '1'
}

/** The warning lines (object, message) for `settings` in a process with `env`. */
export function settingsWarnings(
  settings: Pick<Settings, 'webhookTestLoopbackCa' | 'metricsToken' | 'publicUrl' | 'host'>,
  env: Record<string, string | undefined>,
): { obj: object; msg: string }[] {
  const out: { obj: object; msg: string }[] = []
  // Outside development the node is reachable from elsewhere, and so is GET /metrics unless guarded.
  if (settings.metricsToken === '' && !isDevelopment(settings) && !isTestRun(env)) {
    out.push({
      obj: { setting: 'METRICS_TOKEN' },
      msg:
        'METRICS_TOKEN is not set: GET /metrics answers anyone who reaches this node. Set it (in Kubernetes, ' +
        'the agentrooms-metrics Secret) and give the scrape job the token',
    })
  }
  if (settings.webhookTestLoopbackCa !== undefined && !isTestRun(env)) {
    out.push({
      obj: { setting: 'WEBHOOK_TEST_LOOPBACK_CA', value: settings.webhookTestLoopbackCa },
      msg:
        'WEBHOOK_TEST_LOOPBACK_CA is set outside a test run: webhooks may reach loopback addresses of this ' +
        'machine. Unset it in production',
    })
  }
  return out
}
