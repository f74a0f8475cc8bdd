// The sign-in and account pages (docs/accounts.md): sign-in by e-mail link and OAuth/OIDC, the
// waitlist, the team's members and invites, account deletion, and the operators' page. Sign-in,
// waitlist and link requests are rate limited per address and per client IP (auth's
// SignInLimiter). Mounted by Web (web.ts); registered before pages.ts, which replaces "/" with the
// rooms page.
import { z } from 'zod'
import { type Accounts, type SignedIn, type User, email as emailField } from '../auth/accounts.js'
import type { Audit } from '../auth/audit.js'
import { approvalMail, inviteMail, signInMail, type MailBody } from '../auth/mail-text.js'
import type { Mailer } from '../auth/mailer.js'
import { providers, type OAuthSettings, type Provider } from '../auth/oauth.js'
import type { SignInLimiter } from '../auth/signin-limit.js'
import { requireRole, roleMay } from '../auth/permissions.js'
import type { Teams } from '../auth/teams.js'
import { parse } from '../shared/validate.js'
import type { SearchEngine } from '../search/engine.js'
import { AppError } from '../shared/errors.js'
import type { Logger } from '../shared/logger.js'
import { auditedWebhook } from '../webhooks/registry.js'
import { CONFIRM } from './confirm.js'
import { keep, type Kept } from './kept.js'
import { actorOf, done, html, refusal, see, seeDone, type Reply, type Request } from './page.js'
import { clientBucket } from '../http/client-address.js'
import type { Origin } from './security.js'
import * as V from './views.js'
import type { Web } from './web.js'

export interface AccountPagesDeps {
  settings: OAuthSettings & {
    signInRatePerAddress: number
    mailRatePerTeam: number
    signInRatePerIp: number
    signInLinkTtlMs: number
    inviteTtlMs: number
    sessionMaxMs: number
  }
  signInLimiter: Pick<SignInLimiter, 'check'>
  accounts: Accounts
  teams: Teams
  audit: Audit
  mailer: Mailer
  /** The search engine: what it keeps outside Redis goes before a team is deleted. */
  search?: Pick<SearchEngine, 'dropTeam'>
  log: Logger
}

export class AccountPages {
  private readonly providers: Provider[]

  constructor(
    private readonly deps: AccountPagesDeps,
    private readonly origin: Origin,
  ) {
    this.providers = providers(deps.settings)
  }

  register(web: Web): void {
    web.page('GET', '/', true, (r) => this.home(r))
    web.page('GET', '/team', true, (r) => this.home(r))
    const offered = this.providers.map((p) => ({ id: p.id, label: p.label }))
    web.page('GET', '/signin', false, async () => html(V.SignInPage({ providers: offered })))
    for (const p of this.providers) {
      web.page('GET', `/auth/${p.id}`, false, (r) => this.oauthStart(r, p))
      web.page('GET', `/auth/${p.id}/callback`, false, (r) => this.oauthCallback(r, p))
    }
    web.page('POST', '/signin', false, (r) => this.signIn(r))
    web.page('GET', '/signin/link', false, (r) => this.linkPage(r))
    web.page('POST', '/signin/link', false, (r) => this.followLink(r))
    web.page('POST', '/signout', false, (r) => this.signOut(r))
    web.page('GET', '/waitlist', false, async () => html(V.WaitlistPage({})))
    web.page('POST', '/waitlist', false, (r) => this.joinWaitlist(r))
    web.page('POST', '/team/invites', true, (r) => this.invite(r))
    // An invite or member this team does not have needs no confirmation: the change refuses it.
    web.page(
      'POST',
      '/team/invites/revoke',
      true,
      (r) => this.revokeInvite(r),
      async (r) => {
        const { invites } = await this.deps.accounts.people(r.viewer!.user.team)
        const i = invites.find((v) => v.id === r.form.get('invite') && v.state === 'pending')
        return i ? { ...CONFIRM.revokeMemberInvite(i.email), back: '/team' } : undefined
      },
    )
    web.page(
      'POST',
      '/team/members/remove',
      true,
      (r) => this.removeMember(r),
      async (r) => {
        const { members } = await this.deps.accounts.people(r.viewer!.user.team)
        const m = members.find((v) => v.id === r.form.get('user') && v.id !== r.viewer!.user.id)
        return m ? { ...CONFIRM.removeMember(m.email, r.viewer!.teamName), back: '/team' } : undefined
      },
    )
    web.page('POST', '/team/members/role', true, (r) => this.setRole(r))
    web.page('POST', '/team/rename', true, (r) => this.rename(r))
    web.page('GET', '/account/delete', true, (r) => this.deletePage(r))
    web.page('POST', '/account/delete', true, (r) => this.deleteAccount(r))
    web.page('GET', '/account/deleted', false, (r) => this.deleted(r))
    web.page('GET', '/operator', true, (r) => this.operator(r))
    web.page(
      'POST',
      '/operator/waitlist',
      true,
      (r) => this.decide(r),
      (r) =>
        r.form.get('decision') === 'decline' && r.viewer!.operator
          ? { ...CONFIRM.declineWaitlist(r.form.get('email') ?? ''), back: '/operator' }
          : undefined,
    )
    web.page('POST', '/operator/invites', true, (r) => this.operatorInvite(r))
  }

  private limitIp(r: Request): Promise<void> {
    return this.deps.signInLimiter.check('ip', clientBucket(r.ex.req.client), this.deps.settings.signInRatePerIp)
  }

  private link(token: string): string {
    return `${this.origin.base}/signin/link?token=${token}`
  }

  /** Sends a mail without making the page wait for it (so timing tells nothing either). */
  private mail(to: string, subject: string, body: MailBody): void {
    this.deps.mailer
      .send({ to, subject, ...body })
      .catch((err: unknown) => this.deps.log.error({ err: (err as Error).message, to }, 'mail not sent'))
  }

  private async signIn(r: Request): Promise<Reply> {
    await this.limitIp(r)
    const given = r.form.get('email') ?? ''
    const v = emailField.safeParse(given)
    if (!v.success)
      return html(V.SignInPage({ error: `E-mail address: ${v.error.issues[0]!.message}.`, email: given }), 400)
    await this.deps.signInLimiter.check('address', v.data, this.deps.settings.signInRatePerAddress)
    const token = await this.deps.accounts.requestSignIn(v.data)
    if (token)
      this.mail(
        v.data,
        'Your agentrooms sign-in link',
        signInMail(this.link(token), this.deps.settings.signInLinkTtlMs, this.origin.base),
      )
    return html(V.CheckMailPage({ email: v.data }))
  }

  private async linkPage(r: Request): Promise<Reply> {
    const token = r.ex.req.query.get('token') ?? ''
    if (!(await this.deps.accounts.tokenLive(token)))
      return html(
        V.MessagePage({
          title: 'Link not valid',
          message: BAD_LINK,
          link: { href: '/signin', text: 'Ask for a new link' },
        }),
        400,
      )
    return html(V.ContinuePage({ token }))
  }

  private async followLink(r: Request): Promise<Reply> {
    await this.limitIp(r)
    let signed
    try {
      signed = await this.deps.accounts.consume(r.form.get('token') ?? '', r.session)
    } catch (err) {
      if (err instanceof AppError && err.details?.field === 'token')
        return html(
          V.MessagePage({
            title: 'Link not valid',
            message: BAD_LINK,
            link: { href: '/signin', text: 'Ask for a new link' },
          }),
          400,
        )
      throw err
    }
    return this.signedIn(r, signed, [], 'an e-mail link')
  }

  /**
   * After a sign-in: the session cookie, the new team (and its key, shown once) of a first sign-in,
   * the audit entry; then the page this browser was sent to sign in from (a consent request, the
   * only kind kept: Origin.returnTo), or the home page.
   */
  private async signedIn(r: Request, signed: SignedIn, cookies: string[], how: string): Promise<Reply> {
    const back = this.origin.returnTo(r.ex.req)
    const cookie = {
      'Set-Cookie': [
        this.origin.sessionCookie(signed.session, Math.ceil(this.deps.settings.sessionMaxMs / 1000)),
        ...cookies,
        ...(back ? [this.origin.clearCookie(this.origin.returnCookieName)] : []),
      ],
    }
    const { user } = signed
    let key: string | undefined
    if (signed.createdTeam) {
      const made = await this.deps.teams.create({ teamId: user.team, name: `${user.name}'s team` })
      key = made.key
      if (made.keyId) await this.deps.audit.record(user.team, actorOf(user), 'minted key', made.keyId)
    }
    await this.deps.audit.record(
      user.team,
      actorOf(user),
      `${signed.newUser ? 'joined and signed in' : 'signed in'} with ${how}`,
    )
    if (!key) return see(back ?? '/', cookie)
    const viewer = await this.viewerOf(user)
    return html(V.KeyOncePage({ viewer, key, next: back }), 200, cookie)
  }

  private async oauthStart(r: Request, p: Provider): Promise<Reply> {
    await this.limitIp(r)
    const { url, flow } = await p.start(`${this.origin.base}/auth/${p.id}/callback`)
    return see(url.toString(), {
      'Set-Cookie': this.origin.flowCookie([p.id, flow.state, flow.verifier, flow.nonce].join('.')),
    })
  }

  private async oauthCallback(r: Request, p: Provider): Promise<Reply> {
    await this.limitIp(r)
    const [id, state, verifier, nonce] = (this.origin.flowToken(r.ex.req) ?? '').split('.')
    const query = r.ex.req.query
    if (id !== p.id || !state || state !== query.get('state')) {
      throw new AppError(
        'forbidden',
        'Sign-in was not completed: this answer does not belong to a sign-in started in this browser (or it ' +
          'took over 10 minutes). Start again.',
      )
    }
    const identity = await p.finish(`${this.origin.base}/auth/${p.id}/callback`, query, {
      state,
      verifier: verifier ?? '',
      nonce: nonce ?? '',
    })
    const signed = await this.deps.accounts.signInIdentity(identity.ident, identity.email, identity.name, r.session)
    return this.signedIn(r, signed, [this.origin.clearCookie(this.origin.flowCookieName)], p.label)
  }

  private async viewerOf(user: User): Promise<V.Viewer> {
    const team = await this.deps.teams.get(user.team)
    return { user, teamName: team?.name ?? user.team, operator: this.deps.accounts.isOperator(user.email) }
  }

  private async signOut(r: Request): Promise<Reply> {
    await this.deps.accounts.endSession(r.session)
    return see('/signin', { 'Set-Cookie': this.origin.clearCookie() })
  }

  private async joinWaitlist(r: Request): Promise<Reply> {
    await this.limitIp(r)
    const email = r.form.get('email') ?? ''
    const note = r.form.get('note') ?? ''
    try {
      const v = parse(z.object({ email: emailField }), { email })
      await this.deps.signInLimiter.check('address', v.email, this.deps.settings.signInRatePerAddress)
      await this.deps.accounts.joinWaitlist({ email, note })
    } catch (err) {
      if (err instanceof AppError && (err.code === 'invalid_request' || err.code === 'limit_reached'))
        return html(V.WaitlistPage({ error: err.message, email, note }), err.status)
      throw err
    }
    return html(V.WaitlistThanksPage())
  }

  private async home(
    r: Request,
    extra: { notice?: string; error?: string; renaming?: Kept } = {},
    status = 200,
  ): Promise<Reply> {
    const viewer = r.viewer!
    extra = { ...done<{ notice: string }>(r, '/team'), ...extra }
    const [{ members, invites }, audit] = await Promise.all([
      this.deps.accounts.people(viewer.user.team),
      this.deps.audit.read(viewer.user.team, 50),
    ])
    return html(V.HomePage({ viewer, members, invites, audit, ...extra }), status)
  }

  /** Runs a change of the home page; a refused one shows the home page with the error, changing nothing. */
  private async onHome(r: Request, change: () => Promise<string>): Promise<Reply> {
    try {
      return seeDone(r, '/team', { notice: await change() })
    } catch (err) {
      const refused = refusal(err)
      if (refused) return this.home(r, { error: refused.message }, refused.status)
      throw err
    }
  }

  /** Counts a mail to `address` (and, for a team's invite, one of the team's): refused past either limit. */
  private async limitMail(address: string, team?: string): Promise<void> {
    const v = parse(z.object({ email: emailField }), { email: address })
    await this.deps.signInLimiter.check('address', v.email, this.deps.settings.signInRatePerAddress)
    if (team) await this.deps.signInLimiter.check('team', team, this.deps.settings.mailRatePerTeam)
  }

  private invite(r: Request): Promise<Reply> {
    return this.onHome(r, async () => {
      const user = r.viewer!.user
      requireRole(user.role, 'members.manage')
      await this.limitMail(r.form.get('email') ?? '', user.team)
      const { invite, token } = await this.deps.accounts.invite({ email: r.form.get('email') ?? '' }, { by: user })
      this.mail(
        invite.email,
        `${user.email} invites you to agentrooms`,
        inviteMail(user.email, r.viewer!.teamName, this.link(token), this.deps.settings.inviteTtlMs, this.origin.base),
      )
      await this.deps.audit.record(user.team, actorOf(user), 'invited member', invite.email)
      return `Invite sent to ${invite.email}.`
    })
  }

  private revokeInvite(r: Request): Promise<Reply> {
    return this.onHome(r, async () => {
      const user = r.viewer!.user
      requireRole(user.role, 'members.manage')
      const inv = await this.deps.accounts.revokeInvite(r.form.get('invite') ?? '', user.team)
      await this.deps.audit.record(user.team, actorOf(user), 'revoked invite', inv.email)
      return `The invite of ${inv.email} is revoked.`
    })
  }

  private removeMember(r: Request): Promise<Reply> {
    return this.onHome(r, async () => {
      const user = r.viewer!.user
      const target = r.form.get('user') ?? ''
      requireRole(user.role, 'members.manage')
      if (target === user.id) throw new AppError('invalid_request', 'to remove yourself, delete your account')
      const { user: gone } = await this.deps.accounts.deleteUser(target, user)
      await this.deps.audit.record(user.team, actorOf(user), 'removed member', gone.email)
      const n = await this.revokeKeysOf(gone, actorOf(user), `its creator ${gone.email} was removed from the team`)
      const keys = n.keys > 0 ? `; the ${n.keys} key(s) they minted are revoked` : ''
      const hooks = n.webhooks > 0 ? `; the ${n.webhooks} webhook(s) they made are disabled` : ''
      return `${gone.email} is removed from the team${keys}${hooks}.`
    })
  }

  /** Renames the team (owners): every page shows the new name from the next one on; audited. */
  private async rename(r: Request): Promise<Reply> {
    const user = r.viewer!.user
    const name = r.form.get('name') ?? ''
    try {
      requireRole(user.role, 'team.manage')
      const { from, to } = await this.deps.teams.rename(user.team, { name })
      await this.deps.audit.record(user.team, actorOf(user), 'renamed team', `from "${from}" to "${to}"`)
      return seeDone(r, '/team', { notice: `The team is now called ${to}.` })
    } catch (err) {
      const refused = refusal(err)
      if (!refused) throw err
      // The schema names the field `name`; the form calls it the team's new name. A refusal of the
      // role is about no field: it sits at the top of the form (or of the page, for a role with no form).
      const kept = keep('rename', r.form, refused)
      if (kept.field === 'name') kept.message = `The new name ${refused.message.replace(/^name: /, '')}`
      return this.home(
        r,
        roleMay(user.role, 'team.manage') ? { renaming: kept } : { error: kept.message },
        refused.status,
      )
    }
  }

  private setRole(r: Request): Promise<Reply> {
    return this.onHome(r, async () => {
      const user = r.viewer!.user
      requireRole(user.role, 'members.roles')
      const changed = await this.deps.accounts.setRole(r.form.get('user') ?? '', r.form.get('role') ?? '', user)
      await this.deps.audit.record(user.team, actorOf(user), `set role ${changed.role} of`, changed.email)
      const n = await this.revokeBeyondRole(changed, actorOf(user))
      const revoked = n > 0 ? `; the ${n} key(s) they minted beyond it are revoked` : ''
      return `${changed.email} is now ${changed.role}${revoked}.`
    })
  }

  /**
   * A person whose role is lowered keeps no key that does more than the role may: a member, who may
   * mint no admin-scope key, loses the admin-scope keys they minted; a viewer, who changes nothing,
   * every key and room invite key they minted. Each revocation is announced and audited as when a
   * person leaves. Returns how many were revoked.
   */
  private async revokeBeyondRole(person: User, actor: string): Promise<number> {
    if (person.role !== 'member' && person.role !== 'viewer') return 0
    const only = person.role === 'member' ? 'admin' : ''
    const { keys, invites } = await this.deps.teams.revokeMemberKeys(person.team, person.id, only)
    const why = `minted by ${person.email}, now ${person.role}`
    for (const k of keys) await this.deps.audit.record(person.team, actor, 'revoked key', `${k.keyId} (${why})`)
    for (const i of invites)
      await this.deps.audit.record(person.team, actor, 'revoked room invite', `${i.tokenId} (room ${i.roomId}; ${why})`)
    return keys.length + invites.length
  }

  /**
   * A person who left the team keeps no access through the keys they minted, and no webhook of
   * theirs keeps receiving the team's events: each key is revoked (announced to every node: open
   * streams and parked waits end) and each webhook disabled with `why` as its reason, in one
   * script; each change audited. After the person is deleted, so a refused removal changes
   * nothing; the accounts and the team's keys live in different Cluster slots, so the two cannot
   * be one script. Returns how many keys were revoked and webhooks disabled.
   */
  private async revokeKeysOf(gone: User, actor: string, why: string): Promise<{ keys: number; webhooks: number }> {
    const { keys, invites, webhooks } = await this.deps.teams.revokeMemberKeys(gone.team, gone.id, '', why)
    for (const k of keys)
      await this.deps.audit.record(
        gone.team,
        actor,
        'revoked key',
        `${k.keyId} (minted by ${gone.email}, who left the team)`,
      )
    for (const i of invites)
      await this.deps.audit.record(
        gone.team,
        actor,
        'revoked room invite',
        `${i.tokenId} (room ${i.roomId}; minted by ${gone.email}, who left the team)`,
      )
    for (const w of webhooks)
      await this.deps.audit.record(gone.team, actor, 'disabled webhook', `${auditedWebhook(w)} (${w.reason})`)
    return { keys: keys.length + invites.length, webhooks: webhooks.length }
  }

  private async deletePage(r: Request, error?: string, status = 200): Promise<Reply> {
    const viewer = r.viewer!
    const { members } = await this.deps.accounts.people(viewer.user.team)
    const others = members.filter((m) => m.id !== viewer.user.id).length
    const owners = members.filter((m) => m.role === 'owner').length
    return html(V.DeletePage({ viewer, last: others === 0, others, owners, ...(error ? { error } : {}) }), status)
  }

  private async deleteAccount(r: Request): Promise<Reply> {
    const viewer = r.viewer!
    if ((r.form.get('confirm') ?? '').trim() !== viewer.teamName)
      return this.deletePage(
        r,
        `The name typed does not match the team name, ${viewer.teamName}; nothing was deleted.`,
        400,
      )
    // The last member takes the team along: the search documents kept outside Redis go first, so
    // an unreachable search index stops the deletion before anything changed.
    const { members } = await this.deps.accounts.people(viewer.user.team)
    if (members.every((m) => m.id === viewer.user.id)) {
      try {
        await this.deps.search?.dropTeam?.(viewer.user.team)
      } catch (err) {
        if (err instanceof AppError && err.code === 'unavailable') return this.deletePage(r, err.message, 503)
        throw err
      }
    }
    let last: boolean
    try {
      ;({ last } = await this.deps.accounts.deleteUser(viewer.user.id))
    } catch (err) {
      if (err instanceof AppError && err.code === 'conflict') return this.deletePage(r, err.message, 409)
      throw err
    }
    let message: string
    if (last) {
      await this.deps.teams.deleteTeam(viewer.user.team)
      message =
        `Your account and team ${viewer.teamName} are deleted: every key of the team is revoked and every ` +
        'room is gone.'
    } else {
      await this.deps.audit.record(viewer.user.team, actorOf(viewer.user), 'deleted account')
      const n = await this.revokeKeysOf(
        viewer.user,
        actorOf(viewer.user),
        `its creator ${viewer.user.email} deleted their account`,
      )
      const keys =
        n.keys === 0
          ? ''
          : n.keys === 1
            ? ', and the key you minted is revoked'
            : `, and the ${n.keys} keys you minted are revoked`
      const hooks =
        n.webhooks === 0
          ? ''
          : ` The ${n.webhooks === 1 ? 'webhook you made is' : `${n.webhooks} webhooks you made are`} disabled.`
      message =
        `Your account is deleted${keys}.${hooks} ` +
        `Team ${viewer.teamName} and its rooms stay with its other members.`
    }
    // Post/Redirect/Get: the confirmation is sealed with the (now ended) session's token, which
    // the browser still sends once, to the page that clears it.
    return seeDone(r, '/account/deleted', { message })
  }

  /** The confirmation of a deletion; it clears the session cookie. */
  private async deleted(r: Request): Promise<Reply> {
    const { message } = done<{ message: string }>(r, '/account/deleted')
    return html(
      V.MessagePage({
        title: 'Account deleted',
        message: typeof message === 'string' ? message : 'This account is deleted.',
        tone: 'done',
        link: { href: '/signin', text: 'Sign in page' },
      }),
      200,
      { 'Set-Cookie': this.origin.clearCookie() },
    )
  }

  private requireOperator(r: Request): V.Viewer {
    if (!r.viewer?.operator) throw new AppError('forbidden', 'This page is for operators (ADMIN_EMAILS).')
    return r.viewer
  }

  private async operator(r: Request, extra: { notice?: string; error?: string } = {}, status = 200): Promise<Reply> {
    const viewer = this.requireOperator(r)
    extra = { ...done<{ notice: string }>(r, '/operator'), ...extra }
    const [entries, refusals] = await Promise.all([this.deps.accounts.waitlist(), this.deps.audit.readServer(20)])
    return html(V.OperatorPage({ viewer, entries, refusals, ...extra }), status)
  }

  private async onOperator(r: Request, change: () => Promise<string>): Promise<Reply> {
    this.requireOperator(r)
    try {
      return seeDone(r, '/operator', { notice: await change() })
    } catch (err) {
      if (err instanceof AppError && err.status < 500) return this.operator(r, { error: err.message }, err.status)
      throw err
    }
  }

  private decide(r: Request): Promise<Reply> {
    return this.onOperator(r, async () => {
      const decision =
        r.form.get('decision') === 'approve' ? 'approve' : r.form.get('decision') === 'decline' ? 'decline' : undefined
      if (!decision)
        throw new AppError('invalid_request', 'decision: must be approve or decline', { field: 'decision' })
      if (decision === 'approve') await this.limitMail(r.form.get('email') ?? '')
      const { entry, token } = await this.deps.accounts.decideWaitlist(r.form.get('email') ?? '', decision)
      if (token)
        this.mail(
          entry.email,
          'You are in: your agentrooms sign-in link',
          approvalMail(this.link(token), this.deps.settings.signInLinkTtlMs, this.origin.base),
        )
      return decision === 'approve'
        ? `${entry.email} is approved; a sign-in link is on its way.`
        : `${entry.email} is declined.`
    })
  }

  private operatorInvite(r: Request): Promise<Reply> {
    return this.onOperator(r, async () => {
      await this.limitMail(r.form.get('email') ?? '')
      const { invite, token } = await this.deps.accounts.invite({ email: r.form.get('email') ?? '' }, {})
      this.mail(
        invite.email,
        'You are invited to agentrooms',
        inviteMail(
          'An operator',
          'a new team of your own',
          this.link(token),
          this.deps.settings.inviteTtlMs,
          this.origin.base,
        ),
      )
      return `Invite to a new team sent to ${invite.email}.`
    })
  }
}

const BAD_LINK = 'This link is not valid: it was used already, it has expired, or it was altered. Ask for a new one.'
