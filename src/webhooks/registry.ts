// The webhooks of a team: registration (the URL is checked, the secret returned once), the list
// with delivery health, and deletion. Records live under the team's hash tag; the team is also
// entered in the global schedule of webhook teams (docs/webhooks.md), before its first webhook.
import { decode, encode } from '../shared/msgpack.js'
import { z } from 'zod'
import { AppError, RoomNotFound } from '../shared/errors.js'
import { EVENT_TYPE, type Via } from '../shared/fields.js'
import { newId } from '../shared/ids.js'
import { iso } from '../shared/time.js'
import { parse } from '../shared/validate.js'
import type { Logger } from '../shared/logger.js'
import type { StoredHealth, StoredWebhook } from '../store/records.js'
import type { Store } from '../store/store.js'
import type { WaitBudget } from '../shared/wait-budget.js'
import { parseTargetUrl, resolveTarget, TargetError, URL_MAX, type Resolver } from './guard.js'
import { newSecret } from './signing.js'

/** Event types one webhook may filter on. */
export const EVENT_FILTER_MAX = 20
/** Failures kept per webhook in its health. */
export const RECENT_FAILURES = 10
/** Attempts kept per webhook in its health. */
export const RECENT_ATTEMPTS = 20
/** The previous secret signs beside a new one for this long by default after a rotation (Svix's default too). */
export const ROTATION_OVERLAP_S = 24 * 3600
/** The longest overlap a rotation may ask for. */
export const ROTATION_OVERLAP_MAX_S = 7 * 24 * 3600

export const webhookSchemas = {
  create: z.strictObject({
    url: z
      .string()
      .max(URL_MAX, `must be at most ${URL_MAX} characters`)
      // The scheme in any case (URL schemes are case-insensitive; it is stored lowercased), spelt
      // out rather than with the i flag so the OpenAPI pattern says the same.
      .regex(/^[Hh][Tt][Tt][Pp][Ss]:\/\//, 'must be an https:// URL: webhooks are only sent over TLS')
      .regex(
        /^[Hh][Tt][Tt][Pp][Ss]:\/\/[^@/?#\s]+(?:[/?][^#\s]*)?$/,
        'must look like https://host[:port][/path][?query]: no credentials (user@), no #fragment, no spaces',
      )
      .describe(
        'The https:// URL deliveries are POSTed to. Its host must resolve to public addresses only (else 422 ' +
          'url_refused)',
      ),
    description: z
      .string()
      .max(200, 'must be at most 200 characters')
      .regex(/\S/, 'must not be blank')
      .transform((v) => v.trim())
      .optional()
      .describe('A note for people reading the list'),
    events: z
      .array(z.string().regex(EVENT_TYPE, 'must be an event type: 1-32 lowercase letters, digits, "_", "." or "-"'))
      .min(1, 'must list at least one event type (omit it to get every event)')
      .max(EVENT_FILTER_MAX, `must list at most ${EVENT_FILTER_MAX} event types`)
      .optional()
      .describe('Deliver only events of these types (e.g. ["blocker", "question"]); every event when omitted'),
  }),
  rotate: z.strictObject({
    overlapSeconds: z
      .number()
      .int('must be a whole number of seconds')
      .min(0, 'must be at least 0 (0: the previous secret stops signing at once)')
      .max(ROTATION_OVERLAP_MAX_S, `must be at most ${ROTATION_OVERLAP_MAX_S} (7 days)`)
      .default(ROTATION_OVERLAP_S)
      .describe(
        `How long the previous secret keeps signing beside the new one, in seconds (default ` +
          `${ROTATION_OVERLAP_S}: 24 h)`,
      ),
  }),
}

/** A failed delivery, as kept in its webhook's health. */
const failureView = z.object({
  deliveryId: z.string(),
  roomId: z.string(),
  eventId: z.string(),
  attempts: z.number(),
  failedAt: z.string(),
  lastStatus: z.number().optional(),
  lastError: z.string().optional(),
})

/** One attempt of a delivery, as kept in its webhook's health. */
const attemptView = z.object({
  deliveryId: z.string(),
  roomId: z.string(),
  eventId: z.string(),
  attempt: z.number().describe('1 for the first attempt of the delivery'),
  at: z.string(),
  outcome: z
    .enum(['ok', 'retry', 'fail', 'gone'])
    .describe(
      'ok: delivered (2xx); retry: failed, tried again later; fail: failed, no attempt left; gone: 410, the ' +
        'webhook was disabled',
    ),
  status: z.number().optional().describe('HTTP status; absent when no answer came'),
  error: z.string().optional(),
})

export const healthView = z.object({
  pending: z.number().describe('Deliveries waiting or in flight'),
  delivered: z.number(),
  failed: z.number().describe('Deliveries that ran out of attempts (or got 410)'),
  dropped: z.number().describe('Deliveries dropped: the webhook was disabled, or had WEBHOOK_PENDING_MAX waiting'),
  lost: z.number().describe('Events trimmed from their room before they could be fanned out'),
  takeovers: z.number().describe('Deliveries taken over from a node whose lease ran out'),
  consecutiveFailures: z.number(),
  lastAttemptAt: z.string().optional(),
  lastStatus: z.number().optional().describe('HTTP status of the last attempt; absent when no answer came'),
  lastError: z.string().optional(),
  lastSuccessAt: z.string().optional(),
  recentFailures: z
    .array(failureView)
    .describe('The latest failed deliveries, newest first (POST …/deliveries/:deliveryId/replay sends one again)'),
  recentAttempts: z
    .array(attemptView)
    .describe(`The latest attempts of any outcome, newest first (at most ${RECENT_ATTEMPTS})`),
})

/** Who made or re-enabled a webhook: a signed-in person, or the credential of an admin API call. */
export const viaView = z
  .object({
    kind: z.enum(['person', 'key', 'invite', 'grant']).describe('person: on the dashboard; key: through the admin API'),
    id: z.string().describe('The user id of the person, or the key id or grant id of the credential'),
    label: z.string().optional().describe("The key's label, when it has one"),
    person: z.string().optional().describe('User id of the person who minted the key, when known'),
  })
  .describe('Never a secret: the kind and id of who acted')

export const webhookView = z.object({
  webhookId: z.string(),
  url: z.string(),
  description: z.string().optional(),
  events: z.array(z.string()).optional(),
  createdAt: z.string(),
  createdVia: viaView
    .optional()
    .describe('Who registered it (absent for webhooks registered before this was recorded)'),
  createdBy: z
    .string()
    .optional()
    .describe(
      'The person behind createdVia (who signed in, or who minted the key), named as the audit trail names ' +
        'people: user:<id> <address> (user:<id> once their account is gone); absent when no person is known',
    ),
  status: z.enum(['active', 'disabled']),
  disabledAt: z.string().optional(),
  disabledReason: z
    .string()
    .optional()
    .describe('Why it is disabled: its receiver answered 410, or the person whose webhook it is left the team'),
  enabledAt: z
    .string()
    .optional()
    .describe('When it was last re-enabled: it gets the events posted from then on, none from while disabled'),
  enabledVia: viaView.optional().describe('Who last re-enabled it (POST /admin/webhooks/:webhookId/enable)'),
  enabledBy: z.string().optional().describe('The person behind enabledVia, named as createdBy is'),
  secretRotatedAt: z.string().optional(),
  previousSecretValidUntil: z
    .string()
    .optional()
    .describe('After a rotation: until when the previous secret signs too (docs/webhooks.md)'),
  health: healthView,
})

export type WebhookView = z.infer<typeof webhookView>

const pack = (v: unknown) => Buffer.from(encode(v))

function healthOf(h: StoredHealth | undefined): WebhookView['health'] {
  const v: WebhookView['health'] = {
    pending: h?.pending ?? 0,
    delivered: h?.delivered ?? 0,
    failed: h?.failed ?? 0,
    dropped: h?.dropped ?? 0,
    lost: h?.lost ?? 0,
    takeovers: h?.takeovers ?? 0,
    consecutiveFailures: h?.consecutive_failures ?? 0,
    recentFailures: [],
    recentAttempts: [],
  }
  if (h?.last_attempt_at) v.lastAttemptAt = iso(h.last_attempt_at)
  if (h?.last_status !== undefined) v.lastStatus = h.last_status
  if (h?.last_error) v.lastError = h.last_error
  if (h?.last_success_at) v.lastSuccessAt = iso(h.last_success_at)
  // An empty Lua table comes back as a map, not a list.
  const recent = Array.isArray(h?.recent) ? h.recent : []
  v.recentFailures = recent.map((f) => {
    const out: WebhookView['health']['recentFailures'][number] = {
      deliveryId: f.id,
      roomId: f.room,
      eventId: f.ev,
      attempts: f.n,
      failedAt: iso(f.at),
    }
    if (f.status !== undefined) out.lastStatus = f.status
    if (f.error) out.lastError = f.error
    return out
  })
  const attempts = Array.isArray(h?.attempts) ? h.attempts : []
  v.recentAttempts = attempts.map((a) => {
    const out: WebhookView['health']['recentAttempts'][number] = {
      deliveryId: a.id,
      roomId: a.room,
      eventId: a.ev,
      attempt: a.n,
      at: iso(a.at),
      outcome: a.outcome,
    }
    if (a.status !== undefined) out.status = a.status
    if (a.error) out.error = a.error
    return out
  })
  return v
}

/**
 * How the audit trail names a webhook: its id and its URL's origin. The path and query may carry
 * a secret of the receiver's (a token in the URL), and every member of the team reads the trail.
 */
export function auditedWebhook(w: { webhookId: string; url: string }): string {
  return `${w.webhookId} ${new URL(w.url).origin}`
}

/** A stored `via` (a msgpack map) as the API shows it; undefined when absent or malformed. */
function viaOf(v: StoredWebhook['created_via']): Via | undefined {
  if (!v || typeof v !== 'object' || typeof v.id !== 'string' || typeof v.kind !== 'string') return undefined
  const out: Via = { kind: v.kind, id: v.id }
  if (typeof v.label === 'string' && v.label !== '') out.label = v.label
  if (typeof v.person === 'string' && v.person !== '') out.person = v.person
  return out
}

/** The public form of a webhook: never its secret. */
export function toView(w: StoredWebhook, h?: StoredHealth): WebhookView {
  const v: WebhookView = {
    webhookId: w.id,
    url: w.url,
    createdAt: iso(w.created_at),
    status: w.disabled_at ? 'disabled' : 'active',
    health: healthOf(h),
  }
  if (w.description) v.description = w.description
  if (Array.isArray(w.events)) v.events = w.events
  const made = viaOf(w.created_via)
  if (made) v.createdVia = made
  if (w.disabled_at) v.disabledAt = iso(w.disabled_at)
  if (w.disabled_reason) v.disabledReason = w.disabled_reason
  if (w.enabled_at) v.enabledAt = iso(w.enabled_at)
  const enabled = viaOf(w.enabled_via)
  if (enabled) v.enabledVia = enabled
  if (w.rotated_at) v.secretRotatedAt = iso(w.rotated_at)
  if (w.prev_until !== undefined && w.prev_until > Date.now()) v.previousSecretValidUntil = iso(w.prev_until)
  return v
}

export interface RegistryOptions {
  limit: number
  resolve?: Resolver | undefined
  allowLoopback: boolean
  /** Tells every node that a team's webhooks changed (its hint cache forgets the team). */
  announce?: (teamId: string) => Promise<void>
  /** WEBHOOK_PENDING_MAX: a replay is refused past it. */
  pendingMax: number
  /** Asks for a pass over the team now (a replayed delivery is due). */
  wake?: (teamId: string) => Promise<void>
  log?: Logger | undefined
}

export class WebhookRegistry {
  constructor(
    private readonly store: Store,
    private readonly opts: RegistryOptions,
  ) {}

  /**
   * Registers a webhook; the secret is in the result only. Refuses URLs the dispatcher would refuse.
   * `by`: who registers it (the signed-in person, or the credential of the admin API call), kept in
   * the record as `created_via`: a person removed from the team has theirs disabled
   * (Teams.revokeMemberKeys). `budget` (here and below): the calling request's time waiting for
   * Redis (src/shared/wait-budget.ts).
   */
  async create(
    teamId: string,
    input: unknown,
    by?: Via,
    budget?: WaitBudget,
  ): Promise<{ webhook: WebhookView; secret: string }> {
    const v = parse(webhookSchemas.create, input)
    let url: URL
    try {
      url = parseTargetUrl(v.url)
      await resolveTarget(url, { resolve: this.opts.resolve, allowLoopback: this.opts.allowLoopback })
    } catch (err) {
      if (err instanceof TargetError) throw new AppError('url_refused', `url: ${err.message}`, { field: 'url' })
      throw err
    }
    const secret = newSecret()
    const rec = {
      id: newId('wh'),
      url: url.href,
      secret,
      description: v.description,
      events: v.events,
      created_via: by && viaOf(by),
    }
    const g = this.store.keys
    await this.store.run('registerWebhookTeam', [g.webhookTeams(), g.webhookRegistrations()], [teamId], budget)
    const k = g.webhooks(teamId)
    const r = await this.store.run('createWebhook', [k.hooks, k.health], [pack(rec), this.opts.limit], budget)
    await this.announce(teamId)
    return { webhook: toView(r.record), secret }
  }

  /** The team's webhooks with their delivery health, oldest first. */
  async list(teamId: string, budget?: WaitBudget): Promise<WebhookView[]> {
    const k = this.store.keys.webhooks(teamId)
    const r = await this.store.run('listWebhooks', [k.hooks, k.health], [], budget)
    const out: WebhookView[] = []
    for (let i = 0; i + 1 < r.rows.length; i += 2) {
      const h = r.rows[i + 1]!
      out.push(toView(decode(r.rows[i]!) as StoredWebhook, h.length > 0 ? (decode(h) as StoredHealth) : undefined))
    }
    return out.sort((a, b) =>
      a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.webhookId < b.webhookId ? -1 : 1,
    )
  }

  /**
   * Re-enables a disabled webhook (`by`: who does it, kept as enabled_via): it gets the events
   * posted from now on, none of those posted while it was disabled. `was`: the reason it had.
   * Not found, or conflict when it is active; nothing changes then.
   */
  async enable(
    teamId: string,
    webhookId: string,
    by: Via,
    budget?: WaitBudget,
  ): Promise<{ webhook: WebhookView; was: string }> {
    const g = this.store.keys
    // The team may have left the schedule while it had no active webhook: back in it first.
    await this.store.run('registerWebhookTeam', [g.webhookTeams(), g.webhookRegistrations()], [teamId], budget)
    const k = g.webhooks(teamId)
    const r = await this.store.run('enableWebhook', [k.hooks], [webhookId, pack(viaOf(by))], budget)
    await this.announce(teamId)
    const listed = (await this.list(teamId, budget)).find((w) => w.webhookId === webhookId)
    return { webhook: listed ?? toView(r.record), was: r.was }
  }

  /** Deletes a webhook: no delivery of it is claimed afterwards (one already in flight completes). */
  async delete(teamId: string, webhookId: string, budget?: WaitBudget): Promise<WebhookView> {
    const k = this.store.keys.webhooks(teamId)
    const r = await this.store.run('deleteWebhook', [k.hooks, k.health], [webhookId], budget)
    await this.announce(teamId)
    // Its health as it was at deletion: the last word on how its deliveries went.
    return toView(r.record, r.health)
  }

  /**
   * Gives a webhook a new secret (in the result only); the previous one keeps signing beside it
   * for `overlapSeconds` (signing.ts says how), so receivers switch without losing a delivery.
   */
  async rotateSecret(
    teamId: string,
    webhookId: string,
    input: unknown,
    budget?: WaitBudget,
  ): Promise<{ webhook: WebhookView; secret: string }> {
    const v = parse(webhookSchemas.rotate, input)
    const secret = newSecret()
    const r = await this.store.run(
      'rotateWebhookSecret',
      [this.store.keys.webhooks(teamId).hooks],
      [webhookId, secret, v.overlapSeconds * 1000],
      budget,
    )
    return { webhook: toView(r.record), secret }
  }

  /**
   * Sends one of a webhook's recent failures again, under the same delivery id, with a fresh
   * schedule of attempts. The event comes from its room's stream, so it must still be retained.
   */
  async replay(
    teamId: string,
    webhookId: string,
    deliveryId: string,
    budget?: WaitBudget,
  ): Promise<{ deliveryId: string; webhookId: string; dueAt: string }> {
    const k = this.store.keys.webhooks(teamId)
    const keys: [string, string, string, string] = [k.hooks, k.health, k.deliveries, k.due]
    const { pendingMax } = this.opts
    const found = await this.store.run('replayDelivery', keys, [webhookId, deliveryId, pendingMax, ''], budget)
    const room = { teamId, roomId: String(found.room) }
    const read = await this.store
      .room('readEvent', room, { touch: false, budget }, [String(found.ev), 'deliveryId'])
      .catch((err: unknown) => {
        // The room itself is gone (expired or deleted): name what the caller sent.
        if (err instanceof RoomNotFound) {
          throw new AppError(
            'not_found',
            `deliveryId: the room of ${deliveryId}, ${String(found.room)}, no longer exists`,
            { field: 'deliveryId' },
          )
        }
        throw err
      })
    const r = await this.store.run('replayDelivery', keys, [webhookId, deliveryId, pendingMax, read.rows[0]!], budget)
    await this.opts.wake?.(teamId)
    return { deliveryId, webhookId, dueAt: iso(r.due) }
  }

  /**
   * Announces a change, never failing the call: the webhook is already stored (or deleted), and
   * a create that answered 500 would lose the secret it returns once. Without the notice, nodes
   * see the change when their cached answer expires (HINT_CACHE_MS), and the sweep finds any
   * event posted meanwhile.
   */
  private async announce(teamId: string): Promise<void> {
    try {
      await this.opts.announce?.(teamId)
    } catch (err) {
      this.opts.log?.warn(
        { err: (err as Error).message, team: teamId },
        'webhooks: could not announce a webhook change; nodes see it within their hint cache time',
      )
    }
  }
}
