// The team's webhooks page (/team/webhooks): register an https URL (the secret shown once),
// delivery health with the last error and recent attempts, send a test request, replay a failed
// delivery, rotate the secret with an overlap, delete. The same registry and dispatcher as the
// HTTP admin API (/admin/webhooks…); registering and deleting are audited as there.
import type { Accounts } from '../auth/accounts.js'
import type { Audit } from '../auth/audit.js'
import { requireRole, roleMay } from '../auth/permissions.js'
import { AppError } from '../shared/errors.js'
import type { Via } from '../shared/fields.js'
import type { Webhooks } from '../webhooks/index.js'
import { auditedWebhook, type WebhookView } from '../webhooks/registry.js'
import { CONFIRM, Confirm } from './confirm.js'
import { Copyable, Flash, Layout, utc, type Viewer } from './layout.js'
import { NeedsRole } from './views.js'
import { actorOf, changePage, done, html, type Reply, type Request } from './page.js'
import type { Web } from './web.js'

export interface WebhooksDeps {
  webhooks: Pick<Webhooks, 'registry' | 'dispatcher'>
  audit: Pick<Audit, 'record'>
  accounts: Pick<Accounts, 'emails'>
}

interface View {
  viewer: Viewer
  hooks: WebhookView[]
  /** E-mail address of each person a listed webhook names (user id -> address), where the account remains. */
  people: Map<string, string>
  secret?: { webhookId: string; secret: string }
  notice?: string
  error?: string
}

const when = (iso: string | undefined) => utc(iso)

/** A person by address: "a deleted user" once the account is gone (never the raw id). */
const personOf = (id: string, people: Map<string, string>) => people.get(id) ?? 'a deleted user'

/**
 * Who acted, as the page says it: the person's address, or the credential's label (else its id)
 * and the address of the person who minted it, when known.
 */
export function whoDid(v: Via, people: Map<string, string>): string {
  if (v.kind === 'person') return personOf(v.id, people)
  const kind = v.kind === 'grant' ? 'connected agent' : v.kind === 'invite' ? 'room invite key' : 'key'
  const cred = v.label ? `${kind} "${v.label}"` : `${kind} ${v.id}`
  return v.person ? `${personOf(v.person, people)}, with the ${cred}` : `the ${cred}`
}

/** The user ids a webhook's records name (whose addresses the page shows). */
export const peopleOf = (hooks: WebhookView[]): string[] =>
  hooks
    .flatMap((w) =>
      [w.createdVia, w.enabledVia].flatMap((v) => (v ? [v.kind === 'person' ? v.id : (v.person ?? '')] : [])),
    )
    .filter((id) => id !== '')
const eventsOf = (w: WebhookView) => (w.events ? `Events: ${w.events.join(', ')}` : 'Every event')

export function WebhooksPage(p: View) {
  return (
    <Layout title="Webhooks" viewer={p.viewer} wide>
      <h1>Webhooks of {p.viewer.teamName}</h1>
      <Flash notice={p.notice} error={p.error} />
      {p.secret ? (
        <div class="notice" role="status">
          <p>
            <strong>The signing secret of {p.secret.webhookId}. Copy it now: it is shown this once.</strong>
          </p>
          <Copyable id="webhook-secret" label="Signing secret" text={p.secret.secret} wrap />
        </div>
      ) : null}
      {p.hooks.length === 0 ? (
        <p class="muted">No webhooks. Register one below to receive every room event of the team as a signed POST.</p>
      ) : null}
      {p.hooks.map((w) => (
        <section key={w.webhookId} aria-labelledby={`wh-${w.webhookId}`}>
          <h2 id={`wh-${w.webhookId}`}>
            {w.webhookId} <span class="tag">{w.status}</span>
          </h2>
          <p>
            <code>{w.url}</code>
            {w.description ? <span class="muted"> — {w.description}</span> : null}
          </p>
          {w.status === 'disabled' ? (
            <p class="error small" role="note">
              {`Disabled ${when(w.disabledAt)}: ${w.disabledReason ?? 'no reason recorded'}. It gets no deliveries.`}
            </p>
          ) : null}
          <p class="small">
            {w.createdVia
              ? `Registered by ${whoDid(w.createdVia, p.people)}`
              : 'Registered before makers were recorded'}{' '}
            on {when(w.createdAt)}
            {w.enabledVia ? ` · re-enabled by ${whoDid(w.enabledVia, p.people)} on ${when(w.enabledAt)}` : ''}
          </p>
          <p class="small">
            {eventsOf(w)} · delivered {w.health.delivered} · pending {w.health.pending} · failed {w.health.failed} ·
            last attempt {when(w.health.lastAttemptAt)}
            {w.health.lastStatus !== undefined ? ` (HTTP ${w.health.lastStatus})` : ''}
            {w.previousSecretValidUntil ? ` · previous secret signs until ${when(w.previousSecretValidUntil)}` : ''}
          </p>
          {w.health.lastError ? (
            <p class="error small" role="note">
              Last error: {w.health.lastError}
            </p>
          ) : null}
          {w.health.recentAttempts.length > 0 ? (
            <details class="small">
              <summary>{`Recent deliveries of ${w.webhookId}`}</summary>
              <ul class="plain">
                {w.health.recentAttempts.map((a) => (
                  <li key={`${a.deliveryId}-${a.attempt}`}>
                    {when(a.at)} · {a.deliveryId} · room {a.roomId} · attempt {a.attempt} · {a.outcome}
                    {a.status !== undefined ? ` · HTTP ${a.status}` : ''}
                    {a.error ? ` · ${a.error}` : ''}
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
          {w.health.recentFailures.length > 0 ? (
            <ul class="plain small">
              {w.health.recentFailures.map((f) => (
                <li key={f.deliveryId}>
                  <form class="inline" method="post" action="/team/webhooks/replay">
                    <input type="hidden" name="webhook" value={w.webhookId} />
                    <input type="hidden" name="delivery" value={f.deliveryId} />
                    <button class="link" type="submit">{`Replay failed delivery ${f.deliveryId}`}</button>
                  </form>
                </li>
              ))}
            </ul>
          ) : null}
          <div class="buttons">
            {w.status === 'disabled' ? (
              <>
                <form class="inline" method="post" action="/team/webhooks/enable">
                  <input type="hidden" name="webhook" value={w.webhookId} />
                  <button type="submit">{`Re-enable ${w.webhookId}`}</button>
                </form>{' '}
              </>
            ) : null}
            <form class="inline" method="post" action="/team/webhooks/test">
              <input type="hidden" name="webhook" value={w.webhookId} />
              <button class="secondary" type="submit">{`Send a test to ${w.webhookId}`}</button>
            </form>{' '}
            <form class="inline" method="post" action="/team/webhooks/rotate">
              <input type="hidden" name="webhook" value={w.webhookId} />
              <button
                class="secondary"
                type="submit"
              >{`Rotate the secret of ${w.webhookId} (old one signs 24 h more)`}</button>
            </form>{' '}
            <Confirm action="/team/webhooks/delete" confirm={CONFIRM.deleteWebhook(w.webhookId, w.url)}>
              <input type="hidden" name="webhook" value={w.webhookId} />
            </Confirm>
          </div>
        </section>
      ))}
      {roleMay(p.viewer.user.role, 'webhooks.manage') ? null : (
        <NeedsRole action="webhooks.manage" role={p.viewer.user.role} />
      )}
      <h2>Register a webhook</h2>
      <form class="stack" method="post" action="/team/webhooks">
        <label>
          URL (https, public host)
          <input type="text" name="url" required inputMode="url" />
        </label>
        <label>
          Description (optional, up to 200 characters)
          <input type="text" name="description" maxLength={200} />
        </label>
        <label>
          Only these event types, separated by commas (optional; empty: every event)
          <input type="text" name="events" />
        </label>
        <button type="submit">Register webhook</button>
      </form>
    </Layout>
  )
}

const PATH = '/team/webhooks'

export class WebhooksPages {
  constructor(private readonly deps: WebhooksDeps) {}

  register(web: Web): void {
    web.page('GET', '/team/webhooks', true, (r) => this.show(r))
    web.page('POST', '/team/webhooks', true, (r) => this.change(r, () => this.create(r)))
    web.page(
      'POST',
      '/team/webhooks/delete',
      true,
      (r) => this.change(r, () => this.remove(r)),
      // A webhook this team does not have needs no confirmation: the change refuses it.
      async (r) => {
        const id = r.form.get('webhook') ?? ''
        const w = (await this.deps.webhooks.registry.list(r.viewer!.user.team)).find((h) => h.webhookId === id)
        return w ? { ...CONFIRM.deleteWebhook(w.webhookId, w.url), back: PATH } : undefined
      },
    )
    web.page('POST', '/team/webhooks/enable', true, (r) => this.change(r, () => this.enable(r)))
    web.page('POST', '/team/webhooks/rotate', true, (r) => this.change(r, () => this.rotate(r)))
    web.page('POST', '/team/webhooks/test', true, (r) => this.change(r, () => this.test(r)))
    web.page('POST', '/team/webhooks/replay', true, (r) => this.change(r, () => this.replay(r)))
  }

  private async show(r: Request, extra: Partial<View> = {}, status = 200): Promise<Reply> {
    const hooks = await this.deps.webhooks.registry.list(r.viewer!.user.team)
    const people = await this.deps.accounts.emails(peopleOf(hooks))
    return html(WebhooksPage({ viewer: r.viewer!, hooks, people, ...done<View>(r, PATH), ...extra }), status)
  }

  /** Runs a change, for people whose role may change webhooks; a refused one changes nothing. */
  private change(r: Request, run: () => Promise<Partial<View>>): Promise<Reply> {
    return changePage(
      r,
      PATH,
      () => {
        requireRole(r.viewer!.user.role, 'webhooks.manage')
        return run()
      },
      (extra, status) => this.show(r, extra, status),
    )
  }

  private async create(r: Request): Promise<Partial<View>> {
    const user = r.viewer!.user
    const input: Record<string, unknown> = { url: (r.form.get('url') ?? '').trim() }
    const description = (r.form.get('description') ?? '').trim()
    if (description !== '') input.description = description
    const events = (r.form.get('events') ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter((e) => e !== '')
    if (events.length > 0) input.events = events
    const { webhook, secret } = await this.deps.webhooks.registry.create(user.team, input, {
      kind: 'person',
      id: user.id,
    })
    await this.deps.audit.record(user.team, actorOf(user), 'registered webhook', auditedWebhook(webhook))
    return { secret: { webhookId: webhook.webhookId, secret }, notice: `Webhook ${webhook.webhookId} is registered.` }
  }

  private async remove(r: Request): Promise<Partial<View>> {
    const user = r.viewer!.user
    const deleted = await this.deps.webhooks.registry.delete(user.team, r.form.get('webhook') ?? '')
    await this.deps.audit.record(user.team, actorOf(user), 'deleted webhook', auditedWebhook(deleted))
    return { notice: `Webhook ${deleted.webhookId} is deleted.` }
  }

  /** Re-enables a disabled webhook; audited with the reason it had. */
  private async enable(r: Request): Promise<Partial<View>> {
    const user = r.viewer!.user
    const { webhook, was } = await this.deps.webhooks.registry.enable(user.team, r.form.get('webhook') ?? '', {
      kind: 'person',
      id: user.id,
    })
    const why = was === '' ? '' : ` (was disabled: ${was})`
    await this.deps.audit.record(user.team, actorOf(user), 're-enabled webhook', `${auditedWebhook(webhook)}${why}`)
    return { notice: `Webhook ${webhook.webhookId} is enabled again: it gets the events posted from now on.` }
  }

  private async rotate(r: Request): Promise<Partial<View>> {
    const user = r.viewer!.user
    const { webhook, secret } = await this.deps.webhooks.registry.rotateSecret(
      user.team,
      r.form.get('webhook') ?? '',
      {},
    )
    await this.deps.audit.record(user.team, actorOf(user), 'rotated webhook secret', webhook.webhookId)
    return {
      secret: { webhookId: webhook.webhookId, secret },
      notice:
        `The secret of ${webhook.webhookId} is rotated; the previous one signs beside it until ` +
        `${when(webhook.previousSecretValidUntil)}.`,
    }
  }

  private async test(r: Request): Promise<Partial<View>> {
    const id = r.form.get('webhook') ?? ''
    const t = await this.deps.webhooks.dispatcher.sendTest(r.viewer!.user.team, id)
    if (!t) throw new AppError('not_found', `webhook: no webhook ${id} in this team`, { field: 'webhook' })
    const what = t.status !== undefined ? `HTTP ${t.status}` : 'no answer'
    return t.delivered
      ? { notice: `Test request ${t.testId} delivered: ${what} in ${t.durationMs} ms.` }
      : { error: `Test request ${t.testId} not delivered: ${what}${t.error ? `, ${t.error}` : ''}.` }
  }

  private async replay(r: Request): Promise<Partial<View>> {
    const d = await this.deps.webhooks.registry.replay(
      r.viewer!.user.team,
      r.form.get('webhook') ?? '',
      r.form.get('delivery') ?? '',
    )
    return { notice: `Delivery ${d.deliveryId} is queued again (first attempt ${when(d.dueAt)}).` }
  }
}
