// The settings webhook delivery reads (durations in milliseconds). The composition root's
// Settings (src/config.ts, documented in docs/configuration.md) has every one of them under the
// same name; webhooks declare only what they use, so they never import the root.

export interface WebhookSettings {
  webhooksPerTeam: number
  webhooksEnabled: boolean
  /** Delays between the attempts of a delivery (the first is immediate). */
  webhookRetryScheduleMs: readonly number[]
  webhookRetryJitter: number
  webhookTimeoutMs: number
  webhookLeaseMs: number
  webhookPollMs: number
  webhookSweepMs: number
  webhookConcurrency: number
  webhookPendingMax: number
  /** TESTS ONLY: a PEM CA file; with it, loopback targets are allowed. */
  webhookTestLoopbackCa?: string | undefined
}
