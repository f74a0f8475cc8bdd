// The dashboard's mount on the node's one HTTP edge (src/http/edge.ts; docs/dashboard.md,
// docs/accounts.md): its pages and assets, and how the edge admits and answers them. Every POST
// passes the same-origin check (CSRF: the edge's Origin step); the session cookie is the
// credential that names the viewer (the authentication step); a page that needs a signed-in
// person sends anyone else to /signin; failures are HTML pages; every page carries the security
// headers of security.ts. The pages themselves come from account-pages.ts (sign-in, team,
// account, operator) and pages.ts (rooms and what it registers), through page().
import type { Accounts } from '../auth/accounts.js'
import type { ActionLimiter } from '../auth/action-limit.js'
import type { Teams } from '../auth/teams.js'
import type { Exchange } from '../http/exchange.js'
import type { Credential, Ctx, Mount, MountPolicy, Route } from '../http/router.js'
import { AppError } from '../shared/errors.js'
import { decodeUtf8, invalidUtf8Message, parseUrlEncoded } from '../shared/utf8.js'
import { ASSETS, FAVICON } from './assets.js'
import { ConfirmPage, isConfirmed, type Confirmation } from './confirm.js'
import { html, inPageWords, see, type Handler, type Headers, type Reply, type Request } from './page.js'
import { PAGE_HEADERS, type Origin } from './security.js'
import * as V from './views.js'
import { stampParts } from './patch.js'

export interface WebDeps {
  accounts: Pick<Accounts, 'session' | 'isOperator'>
  teams: Pick<Teams, 'get'>
  /** Charges a signed-in person's posted form to their budget and their team's. */
  actions: Pick<ActionLimiter, 'charge'>
}

/** The largest form a page takes. */
export const FORM_BYTES = 16 * 1024

/**
 * The failure of a request for a signed-in page from someone who is not (any more). No page
 * handler raises `unauthorized` itself, so the failure page can tell it by its code.
 */
const signedOut = () => new AppError('unauthorized', 'Your session has ended; sign in again.')

/**
 * A posted form, each value's line endings made LF: browsers send a textarea's lines as CRLF,
 * while what agents read and write (context, events, notes) is LF, so a body written from a page
 * diffs and matches as one written by an agent.
 */
export function lineFeeds(posted: URLSearchParams): URLSearchParams {
  const form = new URLSearchParams()
  for (const [k, v] of posted) form.append(k, v.replace(/\r\n?/g, '\n'))
  return form
}

/**
 * The confirmation a destructive page's post needs before it runs (with the page to go back to),
 * or undefined when this post needs none (a waitlist approval, say).
 */
export type Confirming = (
  r: Request,
) => Promise<(Confirmation & { back: string }) | undefined> | (Confirmation & { back: string }) | undefined

/** See Web.onCrossSite. */
export type CrossSiteListener = (path: string, why: string, viewer: V.Viewer | undefined) => Promise<void>

export class Web {
  private readonly pages = new Map<
    string,
    { method: 'GET' | 'POST'; path: string; handler: Handler; signedIn: boolean; confirm?: Confirming | undefined }
  >()

  /** Told of POSTs refused as cross-site under a path prefix (onCrossSite). */
  private readonly crossSiteListeners: { prefix: string; listener: CrossSiteListener }[] = []

  /** The session cookie, the credential that names the viewer. */
  private readonly session: Credential<V.Viewer> = {
    kind: 'session',
    read: (req) => this.origin.sessionToken(req),
    verify: (token) => this.viewer(token),
  }

  constructor(
    private readonly deps: WebDeps,
    private readonly origin: Origin,
  ) {}

  /**
   * Tells `listener` of every POST under `prefix` refused as cross-site, after the refusal was
   * answered, with the person whose session cookie it carried (undefined: none, or not live).
   * For pages whose refusals belong in a team's audit trail; a failing listener changes nothing.
   */
  onCrossSite(prefix: string, listener: CrossSiteListener): void {
    this.crossSiteListeners.push({ prefix, listener })
  }

  private crossSiteRefused(path: string, token: string | undefined, why: string): void {
    const listeners = this.crossSiteListeners.filter((l) => path.startsWith(l.prefix))
    if (listeners.length === 0) return
    const viewer = token === undefined ? Promise.resolve(undefined) : this.viewer(token)
    void viewer.then((v) => Promise.all(listeners.map((l) => l.listener(path, why, v)))).catch(() => undefined)
  }

  /**
   * Adds (or replaces) a page; the page modules (account-pages.ts, pages.ts) come in through this.
   * `confirm`: the page makes a destructive change (confirm.tsx); a post without `confirmed=yes`
   * for which it returns a confirmation gets the confirmation page and the handler is not run.
   */
  page(method: 'GET' | 'POST', path: string, signedIn: boolean, handler: Handler, confirm?: Confirming): void {
    this.pages.set(`${method} ${path}`, { method, path, handler, signedIn, confirm })
  }

  /** The mount of the pages added so far and of the assets. */
  mount(): Mount<V.Viewer> {
    const assets: Route<V.Viewer>[] = ASSETS.map((a) => ({
      method: 'GET',
      path: a.path,
      auth: 'none',
      summary: `asset ${a.path}`,
      handle: async ({ ex }) => {
        ex.send(200, a.body, {
          'Content-Type': a.type,
          'Cache-Control': 'public, max-age=31536000, immutable',
          'X-Content-Type-Options': 'nosniff',
        })
        return undefined
      },
    }))
    // Browsers ask for /favicon.ico whatever the page links: sent to the fingerprinted icon, a
    // redirect cached for a day (the icon's name changes when it does).
    assets.push({
      method: 'GET',
      path: '/favicon.ico',
      auth: 'none',
      summary: 'the favicon',
      handle: async ({ ex }) => {
        ex.send(302, '', { Location: FAVICON.path, 'Cache-Control': 'public, max-age=86400' })
        return undefined
      },
    })
    const pages: Route<V.Viewer>[] = [...this.pages.values()].map((p) => ({
      method: p.method,
      path: p.path,
      auth: p.signedIn ? 'any' : 'optional',
      bodyKind: p.method === 'POST' ? 'raw' : 'none',
      summary: `page ${p.path}`,
      handle: (ctx) => this.serve(ctx, p.handler, p.confirm),
    }))
    return {
      name: 'dashboard',
      bodyBytes: FORM_BYTES,
      routes: [...assets, ...pages],
      origin: (req, route) => {
        const why = route.method === 'POST' ? this.origin.crossSite(req) : undefined
        if (why) this.crossSiteRefused(req.path, this.origin.sessionToken(req), why)
        return why
          ? new AppError('forbidden', `Refused: ${why}. Forms of this site must be sent from its own pages.`)
          : undefined
      },
      credentials: [this.session],
      missing: signedOut,
      // A form a signed-in person posts is an action: charged to their budget and their team's.
      rateLimit: (viewer, ex) =>
        ex.req.method === 'POST' ? this.deps.actions.charge(viewer.user.id, viewer.user.team) : undefined,
      render: (ex, err, viewer) => this.send(ex, this.failure(ex, err, viewer)),
    }
  }

  /**
   * The edge's policy for unmatched requests from browsers (Edge.browsers): a 404 or 405 page in
   * the dashboard's layout, signed in (the session cookie is read) or not, with a way home.
   */
  browsers(): MountPolicy<V.Viewer> {
    return {
      name: 'dashboard-unmatched',
      credentials: [this.session],
      render: (ex, err, viewer) => this.send(ex, this.unmatched(ex, err, viewer)),
    }
  }

  private unmatched(ex: Exchange, err: unknown, viewer: V.Viewer | undefined): Reply {
    if (!(err instanceof AppError) || (err.code !== 'not_found' && err.code !== 'method_not_allowed'))
      return this.failure(ex, err, viewer)
    const link = viewer ? { href: '/', text: 'Back to your rooms' } : { href: '/signin', text: 'Sign in' }
    const { method, path } = ex.req
    const found = err.code === 'not_found'
    const title = found ? 'Page not found' : 'Not a page to open'
    const message = found
      ? `There is no page at ${path}. The address may be mistyped, or the page may have moved.`
      : method === 'GET' || method === 'HEAD'
        ? `${path} takes a form sent from a page; it is not a page to open.`
        : `${path} does not take a ${method} request.`
    return html(V.MessagePage({ title, message, viewer, link }), err.status)
  }

  private async serve(ctx: Ctx<V.Viewer>, handler: Handler, confirm?: Confirming): Promise<undefined> {
    const { ex, principal: viewer } = ctx
    const session = this.origin.sessionToken(ex.req)
    const r = { ex, form: lineFeeds(parseForm(ctx.raw)), viewer, session }
    const asked = confirm && !isConfirmed(r.form) ? await confirm(r) : undefined
    const reply = asked
      ? html(ConfirmPage({ viewer, path: ex.req.path, form: r.form, confirm: asked, back: asked.back }))
      : await handler(r)
    if (reply.streamed) return undefined
    const rendering = performance.now()
    const seen = typeof reply.stamp === 'function' ? reply.stamp : undefined
    const text =
      reply.raw ?? (reply.body ? (reply.stamp ? stampParts(V.page(reply.body), seen) : V.page(reply.body)) : '')
    // Server-Timing for signed-in pages: the session check, the page's reads, the rendering, as
    // browsers' developer tools and the bench show them. Not on the sign-in pages, whose timing
    // must tell nothing about which addresses exist.
    const dur = (name: string, a: number, b: number) => `${name};dur=${(b - a).toFixed(1)}`
    const timing: Headers = viewer
      ? {
          'Server-Timing': [
            dur('session', ctx.started, ctx.authenticatedAt),
            dur('app', ctx.authenticatedAt, rendering),
            dur('render', rendering, performance.now()),
          ].join(', '),
        }
      : {}
    ex.send(reply.status, text, { ...PAGE_HEADERS, ...timing, ...reply.headers })
    return undefined
  }

  private send(ex: Exchange, reply: Reply): void {
    ex.send(reply.status, reply.body ? V.page(reply.body) : '', { ...PAGE_HEADERS, ...reply.headers })
  }

  /** The page of a failure (an unexpected one is logged by the edge). */
  private failure(ex: Exchange, raised: unknown, viewer: V.Viewer | undefined): Reply {
    const err = raised instanceof AppError ? inPageWords(raised, viewer) : raised
    if (err instanceof AppError && err.code === 'unauthorized')
      return ex.req.method !== 'GET'
        ? html(
            V.MessagePage({
              title: 'Signed out',
              message: err.message,
              link: { href: '/signin', text: 'Sign in' },
            }),
            401,
          )
        : see('/signin')
    if (!(err instanceof AppError)) {
      return html(
        V.MessagePage({
          title: 'Something went wrong',
          message: 'An unexpected error happened; please try again.',
          viewer,
        }),
        500,
      )
    }
    const headers: Record<string, string> = {}
    if (err.code === 'rate_limited' || err.code === 'unavailable' || err.code === 'store_full')
      headers['Retry-After'] = String(err.details?.retry_after_s ?? 60)
    const title =
      err.code === 'rate_limited'
        ? 'Too many requests'
        : err.code === 'unavailable'
          ? 'Try again in a moment'
          : err.code === 'store_full'
            ? 'Storage is full'
            : err.code === 'forbidden'
              ? 'Not allowed'
              : err.code === 'not_found'
                ? 'Not found'
                : 'Please check'
    const link = viewer ? { href: '/', text: 'Back to your rooms' } : { href: '/signin', text: 'Sign in' }
    return html(V.MessagePage({ title, message: err.message, viewer, link }), err.status, headers)
  }

  private async viewer(session: string): Promise<V.Viewer | undefined> {
    const user = await this.deps.accounts.session(session)
    if (!user) return undefined
    const team = await this.deps.teams.get(user.team)
    return { user, teamName: team?.name ?? user.team, operator: this.deps.accounts.isOperator(user.email) }
  }
}

/** An application/x-www-form-urlencoded body, decoded strictly (parseUrlEncoded). */
export function parseForm(raw: Buffer | undefined): URLSearchParams {
  if (!raw || raw.length === 0) return new URLSearchParams()
  const decoded = decodeUtf8(raw)
  if ('invalidAt' in decoded)
    throw new AppError('invalid_request', invalidUtf8Message('the form', decoded.invalidAt), { field: 'body' })
  return parseUrlEncoded(decoded.text, 'the form')
}
