// Warnings a node logs at start about settings that are wrong outside the place they are meant
// for (the Redis checks are src/ops/redis-check.ts).
import type { Settings } from '../config.js'

/** Whether this process is a test run: NODE_ENV=test, or under tap (which sets TAP=1). */
export function isTestRun(env: Record<string, string | undefined>): boolean {
  return env.NODE_ENV === 'test' || env.TAP === '1'
}

/** The warning lines (object, message) for `settings` in a process with `env`. */
export function settingsWarnings(
  settings: Pick<Settings, 'webhookTestLoopbackCa'>,
  env: Record<string, string | undefined>,
): { obj: object; msg: string }[] {
  const out: { obj: object; msg: string }[] = []
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
