// Operational endpoints: liveness, readiness, Prometheus metrics, the OpenAPI document.
import { createHash, timingSafeEqual } from 'node:crypto'
import { z } from 'zod'
import { AppError } from '../../shared/errors.js'
import type { Lifecycle } from '../../shared/lifecycle.js'
import type { Metrics } from '../../shared/metrics.js'
import type { StoreHealth } from '../../store/health.js'
import { VERSION } from '../../shared/version.js'
import { openApiDocument } from '../openapi.js'
import type { Route, Router } from '../router.js'

/** What the operational endpoints read: Redis' health, the drain, the metrics, the route table. */
export interface OpsDeps {
  health: Pick<StoreHealth, 'state'>
  lifecycle: Pick<Lifecycle, 'accepting'>
  metrics: Pick<Metrics, 'registry'>
  router: Pick<Router, 'list'>
  /** METRICS_TOKEN: when set, /metrics answers only `Authorization: Bearer <it>`. */
  metricsToken?: string
}

export function opsRoutes(deps: OpsDeps): Route[] {
  let openapi: string | undefined
  return [
    {
      method: 'GET',
      path: '/health',
      auth: 'none',
      summary: 'Liveness: the process serves requests. No authentication.',
      response: z.object({ status: z.literal('ok'), version: z.string() }),
      handle: async () => ({ status: 'ok', version: VERSION }),
    },
    {
      method: 'GET',
      path: '/ready',
      auth: 'none',
      summary:
        'Readiness: 503 while Redis is unreachable or the node drains; 200 otherwise, with status read_only ' +
        'while Redis is full (reads work, writes fail with store_full), and degraded while a Redis Cluster ' +
        'master does not answer but the others serve (unreachable_shards lists them; calls on their slots ' +
        "fail with unavailable). From the node's Redis checks (every 0.5 s, with hysteresis), not a call of " +
        'its own.',
      response: z.object({
        status: z.enum(['ready', 'degraded', 'read_only', 'unavailable']),
        redis: z.boolean(),
        writable: z.boolean(),
        unreachable_shards: z.array(z.string()).optional(),
      }),
      handle: async ({ ex }) => {
        const { reachable, full, unreachableShards } = deps.health.state()
        const ok = reachable && deps.lifecycle.accepting
        const status = !ok ? 'unavailable' : full ? 'read_only' : unreachableShards.length > 0 ? 'degraded' : 'ready'
        ex.json(ok ? 200 : 503, {
          status,
          redis: reachable,
          writable: reachable && !full,
          ...(unreachableShards.length > 0 ? { unreachable_shards: unreachableShards } : {}),
        })
        return undefined
      },
    },
    {
      method: 'GET',
      path: '/metrics',
      auth: 'none',
      summary:
        'Prometheus metrics of this node. With METRICS_TOKEN set it needs `Authorization: Bearer <METRICS_TOKEN>` ' +
        '(401 otherwise); label values come from fixed sets (routes as declared, methods outside the usual ' +
        'seven as other), so what clients send never adds series.',
      handle: async ({ ex }) => {
        if (deps.metricsToken && !sameSecret(ex.req.headers.authorization ?? '', `Bearer ${deps.metricsToken}`))
          throw new AppError('unauthorized', 'GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>"')
        const text = await deps.metrics.registry.metrics()
        ex.send(200, text, { 'Content-Type': deps.metrics.registry.contentType })
        return undefined
      },
    },
    {
      method: 'GET',
      path: '/openapi.json',
      auth: 'none',
      summary: 'This OpenAPI 3.1 document.',
      handle: async ({ ex }) => {
        openapi ??= JSON.stringify(openApiDocument(deps.router.list(), VERSION))
        ex.send(200, openapi, { 'Content-Type': 'application/json' })
        return undefined
      },
    },
  ]
}

/** Compares two secrets in time that does not depend on where they differ. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (v: string) => createHash('sha256').update(v).digest()
  return timingSafeEqual(digest(given), digest(expected))
}
