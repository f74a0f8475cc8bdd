// Operational endpoints: liveness, readiness, Prometheus metrics, the OpenAPI document.
import { z } from 'zod'
import type { ServiceNode } from '../../node.js'
import { VERSION } from '../../version.js'
import { openApiDocument } from '../openapi.js'
import type { Route } from '../router.js'

export function opsRoutes(node: ServiceNode): Route[] {
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
      summary: 'Readiness: Redis answers and the node is not draining (503 otherwise).',
      response: z.object({ status: z.enum(['ready', 'unavailable']), redis: z.boolean() }),
      handle: async ({ ex }) => {
        const redis = await node.store.ping()
        const ok = redis && node.lifecycle.accepting
        ex.json(ok ? 200 : 503, { status: ok ? 'ready' : 'unavailable', redis })
        return undefined
      },
    },
    {
      method: 'GET',
      path: '/metrics',
      auth: 'none',
      summary: 'Prometheus metrics of this node.',
      handle: async ({ ex }) => {
        const text = await node.metrics.registry.metrics()
        ex.send(200, text, { 'Content-Type': node.metrics.registry.contentType })
        return undefined
      },
    },
    {
      method: 'GET',
      path: '/openapi.json',
      auth: 'none',
      summary: 'This OpenAPI 3.1 document.',
      handle: async ({ ex }) => {
        openapi ??= JSON.stringify(openApiDocument(node.router.list(), VERSION))
        ex.send(200, openapi, { 'Content-Type': 'application/json' })
        return undefined
      },
    },
  ]
}
