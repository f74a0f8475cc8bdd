// Webhooks: how many a team may have, and how deliveries are made, retried, leased and bounded.
// Rows of the settings table (src/config.ts); read by src/webhooks (src/webhooks/settings.ts
// WebhookSettings).
import { z } from 'zod'
import { int, seconds, type Row } from './row.js'

export const WEBHOOK_SETTINGS = {
  webhooksPerTeam: {
    env: 'LIMIT_WEBHOOKS_PER_TEAM',
    schema: int(1, 1000, 20),
    unit: 'webhooks',
    doc: 'Webhooks a team may register.',
  },
  webhooksEnabled: {
    env: 'WEBHOOKS_ENABLED',
    schema: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true'),
    unit: 'boolean',
    doc: 'Whether this node delivers webhooks. Any number of nodes may; "false" makes a node serve the API only.',
  },
  webhookRetryScheduleMs: {
    env: 'WEBHOOK_RETRY_SCHEDULE_S',
    schema: z
      .string()
      .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'must be a comma-separated list of seconds, e.g. "5,300,1800"')
      .default('5,300,1800,7200,18000,36000,36000')
      .transform((v) => v.split(',').map((s) => Math.round(Number(s) * 1000))),
    unit: 's list',
    doc:
      'Delays between the attempts of a delivery (the first attempt is immediate); after the last, the ' +
      'delivery is failed. Each delay gets WEBHOOK_RETRY_JITTER.',
  },
  webhookRetryJitter: {
    env: 'WEBHOOK_RETRY_JITTER',
    schema: z.coerce.number().min(0).max(1).default(0.2),
    unit: 'fraction',
    doc: 'Each retry delay is scaled by a random factor within 1 ± this.',
  },
  webhookTimeoutMs: {
    env: 'WEBHOOK_TIMEOUT_MS',
    schema: int(100, 120_000, 10_000),
    unit: 'ms',
    doc: 'A delivery attempt (DNS, connection, TLS, request and response) that takes longer fails and is retried.',
  },
  webhookLeaseMs: {
    env: 'WEBHOOK_LEASE_MS',
    schema: int(500, 600_000, 30_000),
    unit: 'ms',
    doc:
      'A node holds each delivery it claimed under a lease it renews while the attempt runs; a delivery whose ' +
      'lease ran out (its node died) is taken over by another node.',
  },
  webhookPollMs: {
    env: 'WEBHOOK_POLL_MS',
    schema: int(10, 60_000, 1000),
    unit: 'ms',
    doc: 'How often an idle node looks for due webhook work (a node that posts an event looks at once).',
  },
  webhookSweepMs: {
    env: 'WEBHOOK_SWEEP_S',
    schema: seconds(1, 86_400, 30),
    unit: 's',
    doc:
      'How often every room of a team with webhooks is checked for events not yet fanned out (the backstop for ' +
      'a node that died right after storing an event).',
  },
  webhookConcurrency: {
    env: 'WEBHOOK_CONCURRENCY',
    schema: int(1, 10_000, 32),
    unit: 'requests',
    doc: 'Delivery attempts one node runs at once.',
  },
  webhookPendingMax: {
    env: 'WEBHOOK_PENDING_MAX',
    schema: int(1, 10_000_000, 10_000),
    unit: 'deliveries',
    doc:
      'Deliveries a webhook may have waiting; events past it are dropped for that webhook and counted in its ' +
      'health.',
  },
  webhookTestLoopbackCa: {
    env: 'WEBHOOK_TEST_LOOPBACK_CA',
    schema: z.string().min(1).optional(),
    unit: 'path',
    doc:
      'TESTS ONLY: a PEM CA file. When set, webhooks may target loopback addresses, and receivers with ' +
      'certificates from this CA are trusted. Never set in production.',
  },
} as const satisfies Record<string, Row>
