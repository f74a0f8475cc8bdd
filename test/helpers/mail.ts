// A real SMTP server for the tests (smtp-server), whose received mails are parsed with mailparser;
// and a small browser stand-in for the pages: it keeps the session cookie, sends the headers a
// browser sends with a same-origin form post, and never follows redirects by itself.
import { simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import type { Test } from 'tap'

export interface Received {
  to: string
  subject: string
  text: string
  /** The HTML part, when the mail has one. */
  html?: string
}

export interface Inbox {
  url: string
  mails: Received[]
  /** The next mail to `to` (waits up to 5 s). */
  next(to: string): Promise<Received>
}

export async function startSmtp(t: Test): Promise<Inbox> {
  const mails: Received[] = []
  const waiters: { to: string; resolve: (m: Received) => void }[] = []
  const taken = new Set<Received>()
  const deliver = (m: Received) => {
    mails.push(m)
    const i = waiters.findIndex((w) => w.to === m.to)
    if (i >= 0) {
      taken.add(m)
      waiters.splice(i, 1)[0]!.resolve(m)
    }
  }
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          for (const r of session.envelope.rcptTo)
            deliver({
              to: r.address.toLowerCase(),
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              ...(typeof parsed.html === 'string' ? { html: parsed.html } : {}),
            })
          callback()
        })
        .catch(callback)
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as { port: number }).port
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    next(to) {
      const ready = mails.find((m) => m.to === to.toLowerCase() && !taken.has(m))
      if (ready) {
        taken.add(ready)
        return Promise.resolve(ready)
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no mail to ${to} within 5 s`)), 5000)
        waiters.push({
          to: to.toLowerCase(),
          resolve: (m) => {
            clearTimeout(timer)
            resolve(m)
          },
        })
      })
    },
  }
}

/** The first link of a mail. */
export function linkIn(mail: Received): string {
  const m = /https?:\/\/\S+/.exec(mail.text)
  if (!m) throw new Error(`no link in mail "${mail.subject}"`)
  return m[0]
}

export interface Page {
  status: number
  location: string | null
  headers: Headers
  body: string
}

/** A browser stand-in on one node: a cookie jar, same-origin form posts, no automatic redirects. */
export class Browser {
  readonly jar = new Map<string, string>()

  constructor(
    public base: string,
    public origin = base.replace('127.0.0.1', 'localhost'),
  ) {}

  /** The Cookie header the browser sends (undefined: none); setting it replaces the jar. */
  get cookie(): string | undefined {
    return this.jar.size === 0 ? undefined : [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ')
  }

  set cookie(value: string | undefined) {
    this.jar.clear()
    for (const pair of (value ?? '').split(';')) {
      const eq = pair.indexOf('=')
      if (eq > 0) this.jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim())
    }
  }

  private remember(res: Response): void {
    for (const set of res.headers.getSetCookie()) {
      const pair = set.split(';')[0]!
      const eq = pair.indexOf('=')
      const [name, value] = [pair.slice(0, eq), pair.slice(eq + 1)]
      if (value === '' || /Max-Age=0/i.test(set)) this.jar.delete(name)
      else this.jar.set(name, value)
    }
  }

  async get(path: string): Promise<Page> {
    const res = await fetch(new URL(path, this.base), {
      redirect: 'manual',
      headers: this.cookie ? { Cookie: this.cookie } : {},
    })
    this.remember(res)
    return { status: res.status, location: res.headers.get('location'), headers: res.headers, body: await res.text() }
  }

  /**
   * A form post; `site` is what Sec-Fetch-Site says ('none' sends neither it nor Origin). A string
   * or Buffer `form` is sent as the body as it is.
   */
  async post(
    path: string,
    form: Record<string, string> | string | Buffer,
    opts: { site?: string; origin?: string } = {},
  ): Promise<Page> {
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' }
    if (this.cookie) headers.Cookie = this.cookie
    const site = opts.site ?? 'same-origin'
    if (site !== 'none') {
      headers['Sec-Fetch-Site'] = site
      headers.Origin = opts.origin ?? this.origin
    }
    const res = await fetch(new URL(path, this.base), {
      method: 'POST',
      redirect: 'manual',
      headers,
      body:
        typeof form === 'string'
          ? form
          : Buffer.isBuffer(form)
            ? new Uint8Array(form)
            : new URLSearchParams(form).toString(),
    })
    this.remember(res)
    return { status: res.status, location: res.headers.get('location'), headers: res.headers, body: await res.text() }
  }

  /**
   * A form sent the way a browser sends it: the post, then, when it answers with a redirect (Post/
   * Redirect/Get), the page it redirects to, as `posted` says (the post's own answer otherwise).
   */
  async send(
    path: string,
    form: Record<string, string>,
    opts: { site?: string; origin?: string } = {},
  ): Promise<Page & { posted: Page }> {
    const posted = await this.post(path, form, opts)
    if (posted.status !== 303 || !posted.location) return { ...posted, posted }
    return { ...(await this.get(posted.location)), posted }
  }

  /** Follows a mailed link the way a person does: opens it, then presses Continue. */
  async follow(link: string): Promise<Page> {
    const url = new URL(link)
    const page = await this.get(url.pathname + url.search)
    if (page.status !== 200) return page
    return this.post('/signin/link', { token: url.searchParams.get('token') ?? '' })
  }
}

/** The text of the one-time key on a key page. */
export function keyIn(page: Page): string | undefined {
  return /ar_team_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{32}/.exec(page.body)?.[0]
}
