// The webhook admin API (team keys only): register, list with delivery health, delete, rotate the
// secret, send a test request, replay a failed delivery. The delivery machinery is src/webhooks;
// this file translates.
import { z } from 'zod'
import type { Accounts } from '../../auth/accounts.js'
import type { Audit } from '../../auth/audit.js'
import { viaFor, type Principal } from '../../auth/principal.js'
import { AppError } from '../../shared/errors.js'
import type { Webhooks } from '../../webhooks/index.js'
import {
  auditedWebhook,
  ROTATION_OVERLAP_S,
  webhookSchemas,
  webhookView,
  type WebhookView,
} from '../../webhooks/registry.js'
import type { Route } from '../router.js'
import { actorOf, budgetOf, teamOf } from './access.js'
import type { WaitBudget } from '../../shared/wait-budget.js'

/** What the webhook admin API uses: the registry and the dispatcher (test sends), and the audit trail. */
export interface WebhookRouteDeps {
  webhooks: Pick<Webhooks, 'registry' | 'dispatcher'>
  audit: Pick<Audit, 'record'>
  accounts: Pick<Accounts, 'emails'>
}

/** The person behind a via: the signed-in person, or the person who minted the key used. */
const personOf = (v: WebhookView['createdVia']) => (v?.kind === 'person' ? v.id : v?.person)

/**
 * Names the person behind each webhook's creator and re-enabler as the audit trail names people
 * (`user:<id> <address>`; `user:<id>` once the account is gone), as the key listings do: one read
 * of the accounts directory for the whole list.
 */
async function withCreators(
  accounts: Pick<Accounts, 'emails'>,
  hooks: WebhookView[],
  budget: WaitBudget | undefined,
): Promise<WebhookView[]> {
  const ids = hooks.flatMap((w) => [personOf(w.createdVia), personOf(w.enabledVia)].flatMap((id) => id ?? []))
  if (ids.length === 0) return hooks
  const emails = await accounts.emails(ids, budget)
  const named = (id: string) => {
    const email = emails.get(id)
    return email ? `user:${id} ${email}` : `user:${id}`
  }
  return hooks.map((w) => {
    const made = personOf(w.createdVia)
    const enabled = personOf(w.enabledVia)
    return {
      ...w,
      ...(made !== undefined ? { createdBy: named(made) } : {}),
      ...(enabled !== undefined ? { enabledBy: named(enabled) } : {}),
    }
  })
}

export function webhookRoutes(deps: WebhookRouteDeps): Route[] {
  return [
    {
      method: 'POST',
      path: '/admin/webhooks',
      auth: 'team',
      needs: 'webhooks.manage',
      tag: 'webhooks',
      status: 201,
      summary:
        "Register a webhook: every new event of the team's rooms is POSTed, signed, to its https URL. The " +
        'secret is in this response only.',
      body: webhookSchemas.create,
      errors: [409, 422],
      response: webhookView.extend({
        secret: z
          .string()
          .describe('whsec_… : keys X-Service-Signature (as is) and webhook-signature (Standard Webhooks)'),
      }),
      handle: async (ctx) => {
        const budget = budgetOf(ctx)
        const { webhook, secret } = await deps.webhooks.registry.create(
          teamOf(ctx),
          ctx.body,
          viaFor(ctx.principal as Principal),
          budget,
        )
        const audited = auditedWebhook(webhook)
        await deps.audit.record(teamOf(ctx), actorOf(ctx.principal), 'registered webhook', audited, budget)
        const [named] = await withCreators(deps.accounts, [webhook], budget)
        return { ...named!, secret }
      },
    },
    {
      method: 'GET',
      path: '/admin/webhooks',
      auth: 'team',
      tag: 'webhooks',
      summary:
        "List the team's webhooks with their delivery health: pending, delivered, failed, last attempt and " +
        'status, recent failures.',
      response: z.object({ webhooks: z.array(webhookView) }),
      handle: async (ctx) => ({
        webhooks: await withCreators(
          deps.accounts,
          await deps.webhooks.registry.list(teamOf(ctx), budgetOf(ctx)),
          budgetOf(ctx),
        ),
      }),
    },
    {
      method: 'DELETE',
      path: '/admin/webhooks/:webhookId',
      auth: 'team',
      needs: 'webhooks.manage',
      tag: 'webhooks',
      summary:
        'Delete a webhook: no delivery of it starts afterwards. The answer carries its delivery health as it ' +
        'was at deletion.',
      response: z.object({ deleted: webhookView }),
      handle: async (ctx) => {
        const budget = budgetOf(ctx)
        const deleted = await deps.webhooks.registry.delete(teamOf(ctx), ctx.params.webhookId!, budget)
        const audited = auditedWebhook(deleted)
        await deps.audit.record(teamOf(ctx), actorOf(ctx.principal), 'deleted webhook', audited, budget)
        return { deleted }
      },
    },
    {
      method: 'POST',
      path: '/admin/webhooks/:webhookId/enable',
      auth: 'team',
      needs: 'webhooks.manage',
      tag: 'webhooks',
      summary:
        'Re-enable a disabled webhook (its creator left the team, or its receiver answered 410). It gets the ' +
        'events posted from now on, none of those posted while it was disabled; who re-enabled it is kept.',
      errors: [409],
      response: webhookView,
      handle: async (ctx) => {
        const budget = budgetOf(ctx)
        const { webhook, was } = await deps.webhooks.registry.enable(
          teamOf(ctx),
          ctx.params.webhookId!,
          viaFor(ctx.principal as Principal),
          budget,
        )
        const why = was === '' ? '' : ` (was disabled: ${was})`
        await deps.audit.record(
          teamOf(ctx),
          actorOf(ctx.principal),
          're-enabled webhook',
          `${auditedWebhook(webhook)}${why}`,
          budget,
        )
        const [named] = await withCreators(deps.accounts, [webhook], budget)
        return named!
      },
    },
    {
      method: 'POST',
      path: '/admin/webhooks/:webhookId/rotate-secret',
      auth: 'team',
      needs: 'webhooks.manage',
      tag: 'webhooks',
      summary:
        `Give a webhook a new secret, in this response only. The previous one keeps signing beside it for ` +
        `overlapSeconds (default ${ROTATION_OVERLAP_S}: 24 h): webhook-signature carries both, ` +
        `X-Service-Signature stays on the previous one until the overlap ends.`,
      body: webhookSchemas.rotate,
      response: webhookView.extend({ secret: z.string().describe('the new whsec_… secret') }),
      handle: async (ctx) => {
        const { webhook, secret } = await deps.webhooks.registry.rotateSecret(
          teamOf(ctx),
          ctx.params.webhookId!,
          ctx.body,
          budgetOf(ctx),
        )
        return { ...webhook, secret }
      },
    },
    {
      method: 'POST',
      path: '/admin/webhooks/:webhookId/test',
      auth: 'team',
      needs: 'webhooks.manage',
      tag: 'webhooks',
      summary:
        'Send a test request to the webhook now ({id, type: "webhook.test", team_id, webhook_id, sent_at}, ' +
        'signed like a delivery) and answer what came back. Not queued, not retried, not counted in its ' +
        'health.',
      response: z.object({
        testId: z.string().describe("The request's id (webhook-id, X-Service-Delivery)"),
        delivered: z.boolean().describe('The receiver answered 2xx'),
        status: z.number().optional().describe('HTTP status; absent when no answer came'),
        error: z.string().optional().describe('What went wrong: the transport error, or the start of the answer'),
        durationMs: z.number(),
      }),
      handle: async (ctx) => {
        const id = ctx.params.webhookId!
        const r = await deps.webhooks.dispatcher.sendTest(teamOf(ctx), id)
        if (!r) throw new AppError('not_found', `webhookId: no webhook ${id} in this team`, { field: 'webhookId' })
        return r
      },
    },
    {
      method: 'POST',
      path: '/admin/webhooks/:webhookId/deliveries/:deliveryId/replay',
      auth: 'team',
      needs: 'webhooks.manage',
      tag: 'webhooks',
      status: 202,
      summary:
        'Send a failed delivery (one of health.recentFailures) again, under the same delivery id, with a ' +
        'fresh schedule of attempts. Its event must still be retained by its room.',
      errors: [409],
      response: z.object({ deliveryId: z.string(), webhookId: z.string(), dueAt: z.string() }),
      handle: async (ctx) =>
        deps.webhooks.registry.replay(teamOf(ctx), ctx.params.webhookId!, ctx.params.deliveryId!, budgetOf(ctx)),
    },
  ]
}
