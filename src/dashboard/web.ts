// The dashboard's page server, beside the API on every node (docs/dashboard.md, docs/accounts.md):
// a page request is matched here first; anything else goes on to the API dispatcher. Every POST
// passes the same-origin check (CSRF); the session cookie makes the viewer; every page carries
// the security headers of security.ts. The pages themselves come from account-pages.ts (sign-in,
// team, account, operator) and pages.ts (rooms and what it registers), through page().
import type { Accounts } from '../auth/accounts.js'
import type { Teams } from '../auth/teams.js'
import type { Exchange } from '../http/exchange.js'
import type { Lifecycle } from '../shared/lifecycle.js'
import { AppError } from '../shared/errors.js'
import { toStoreError } from '../store/store.js'
import type { Logger } from '../shared/logger.js'
import { ASSETS } from './assets.js'
import { html, see, type Handler, type Headers, type Reply } from './page.js'
import { PAGE_HEADERS, type Origin } from './security.js'
import * as V from './views.js'

export interface WebDeps {
  accounts: Pick<Accounts, 'session' | 'isOperator'>
  teams: Pick<Teams, 'get'>
  lifecycle: Lifecycle
  log: Logger
}

const FORM_BYTES = 16 * 1024

export class Web {
  private readonly routes = new Map<string, { handler: Handler; signedIn: boolean }>()

  constructor(
    private readonly deps: WebDeps,
    private readonly origin: Origin,
  ) {}

  /** Adds (or replaces) a page; the page modules (account-pages.ts, pages.ts) come in through this. */
  page(method: 'GET' | 'POST', path: string, signedIn: boolean, handler: Handler): void {
    this.routes.set(`${method} ${path}`, { handler, signedIn })
  }

  /** Serves the request when it is a page or an asset; false to leave it to the API. */
  handle(ex: Exchange): boolean {
    const { method, path } = ex.req
    const asset = method === 'GET' || method === 'HEAD' ? ASSETS.find((a) => a.path === path) : undefined
    if (asset) {
      ex.send(200, asset.body, {
        'Content-Type': asset.type,
        'Cache-Control': 'public, max-age=31536000, immutable',
        'X-Content-Type-Options': 'nosniff',
      })
      return true
    }
    const route = this.routes.get(`${method === 'HEAD' ? 'GET' : method} ${path}`)
    if (!route) return false
    const done = this.deps.lifecycle.begin()
    const body = method === 'POST' ? ex.readBody(FORM_BYTES) : Promise.resolve(undefined)
    body.catch(() => undefined)
    void this.serve(ex, route, body).finally(done)
    return true
  }

  private async serve(
    ex: Exchange,
    route: { handler: Handler; signedIn: boolean },
    bodyP: Promise<Buffer | undefined>,
  ): Promise<void> {
    let reply: Reply
    let viewer: V.Viewer | undefined
    const start = performance.now()
    let signedInAt = start
    try {
      if (!this.deps.lifecycle.accepting)
        throw new AppError('unavailable', 'this node is shutting down; retry in a moment')
      if (ex.req.method === 'POST') {
        const why = this.origin.crossSite(ex.req)
        if (why) throw new AppError('forbidden', `Refused: ${why}. Forms of this site must be sent from its own pages.`)
      }
      const session = this.origin.sessionToken(ex.req)
      viewer = await this.viewer(session)
      signedInAt = performance.now()
      if (route.signedIn && !viewer) {
        reply =
          ex.req.method === 'GET'
            ? see('/signin')
            : html(
                V.MessagePage({
                  title: 'Signed out',
                  message: 'Your session has ended; sign in again.',
                  link: { href: '/signin', text: 'Sign in' },
                }),
                401,
              )
      } else {
        const raw = await bodyP
        reply = await route.handler({ ex, form: new URLSearchParams(raw?.toString('utf8') ?? ''), viewer, session })
      }
    } catch (err) {
      reply = this.failure(err, viewer)
    }
    if (reply.streamed) return
    const rendering = performance.now()
    const text = reply.body ? V.page(reply.body) : ''
    // Server-Timing for signed-in pages: the session check, the page's reads, the rendering, as
    // browsers' developer tools and the bench show them. Not on the sign-in pages, whose timing
    // must tell nothing about which addresses exist.
    const dur = (name: string, a: number, b: number) => `${name};dur=${(b - a).toFixed(1)}`
    const timing: Headers = viewer
      ? {
          'Server-Timing': [
            dur('session', start, signedInAt),
            dur('app', signedInAt, rendering),
            dur('render', rendering, performance.now()),
          ].join(', '),
        }
      : {}
    ex.send(reply.status, text, { ...PAGE_HEADERS, ...timing, ...reply.headers })
  }

  private failure(thrown: unknown, viewer: V.Viewer | undefined): Reply {
    // A Redis failure reached without the store's scripts (a plain read past its deadline) is
    // `unavailable` or `store_full` here too, as on the API, not an unexpected error.
    const err = toStoreError(thrown)
    if (!(err instanceof AppError)) {
      this.deps.log.error({ err }, 'page failed')
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

  private async viewer(session: string | undefined): Promise<V.Viewer | undefined> {
    const user = await this.deps.accounts.session(session)
    if (!user) return undefined
    const team = await this.deps.teams.get(user.team)
    return { user, teamName: team?.name ?? user.team, operator: this.deps.accounts.isOperator(user.email) }
  }
}
