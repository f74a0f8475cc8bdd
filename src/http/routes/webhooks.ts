// The webhook admin API (team keys only): register, list with delivery health, delete. The
// delivery machinery is src/webhooks; this file translates.
import { z } from 'zod'
import { webhookSchemas, webhookView } from '../../webhooks/registry.js'
import type { ServiceNode } from '../../node.js'
import type { Route } from '../router.js'
import { teamOf } from './admin.js'

export function webhookRoutes(node: ServiceNode): Route[] {
  return [
    {
      method: 'POST',
      path: '/admin/webhooks',
      auth: 'team',
      tag: 'webhooks',
      status: 201,
      summary: 'Register a webhook: every new event of the team\'s rooms is POSTed, signed, to its https URL. The secret is in this response only.',
      body: webhookSchemas.create,
      errors: [409, 422],
      response: webhookView.extend({ secret: z.string().describe('whsec_… : keys X-Service-Signature (as is) and webhook-signature (Standard Webhooks)') }),
      handle: async (ctx) => {
        const { webhook, secret } = await node.webhooks.registry.create(teamOf(ctx), ctx.body)
        return { ...webhook, secret }
      },
    },
    {
      method: 'GET',
      path: '/admin/webhooks',
      auth: 'team',
      tag: 'webhooks',
      summary: 'List the team\'s webhooks with their delivery health: pending, delivered, failed, last attempt and status, recent failures.',
      response: z.object({ webhooks: z.array(webhookView) }),
      handle: async (ctx) => ({ webhooks: await node.webhooks.registry.list(teamOf(ctx)) }),
    },
    {
      method: 'DELETE',
      path: '/admin/webhooks/:webhookId',
      auth: 'team',
      tag: 'webhooks',
      summary: 'Delete a webhook: no delivery of it starts afterwards. The answer carries its delivery health as it was at deletion.',
      response: z.object({ deleted: webhookView }),
      handle: async (ctx) => ({ deleted: await node.webhooks.registry.delete(teamOf(ctx), ctx.params.webhookId!) }),
    },
  ]
}
