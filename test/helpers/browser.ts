// A real browser for the dashboard's end-to-end tests: Debian's chromium driven by playwright-core,
// and what the tests check in it: axe-core's serious violations, the order in which Tab reaches
// the page's controls, anything wider than the window; and a TCP relay whose connections can be
// cut, to drop the network under a page.
import { createConnection, createServer, type Socket } from 'node:net'
import axe from 'axe-core'
import { chromium, type Browser, type BrowserContext, type Cookie, type Page } from 'playwright-core'
import type { Test } from 'tap'
import type { User } from '../../src/auth/accounts.js'
import type { Settings } from '../../src/config.js'
import { linkIn, startSmtp, type Inbox } from './mail.js'
import { startNode, type TestNode } from './node.js'
import { uid } from './shared.js'

/**
 * Signs `page` in at `site` as `email` by the link mailed to `inbox` (the site's own origin, so the
 * session cookie is the site's); returns once the signed-in person's first page shows.
 */
export async function signInByMail(page: Page, site: string, inbox: Inbox, email: string): Promise<void> {
  await page.goto(`${site}/signin`)
  await page.getByLabel('E-mail address').fill(email)
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click()
  await page.getByRole('heading', { name: 'Check your mail' }).waitFor()
  await page.goto(linkIn(await inbox.next(email)).replace('127.0.0.1', 'localhost'))
  await page.getByRole('button', { name: 'Continue' }).click()
  await page.getByLabel('Team key').waitFor()
}

/** Creates the room `name` for `agents` (comma-separated) on the rooms page; returns once it is ready. */
export async function createRoomInPage(page: Page, site: string, name: string, agents: string): Promise<void> {
  await page.goto(`${site}/`)
  await page.getByLabel(/^Name/).fill(name)
  await page.getByLabel(/^Agent ids/).fill(agents)
  await page.getByRole('button', { name: 'Create room' }).click()
  await page.getByRole('heading', { name: `Room ${name} is ready` }).waitFor()
}

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium'

export async function launch(t: Test): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
  t.teardown(() => browser.close())
  return browser
}

/**
 * An operator signed in by mail in chromium at 1280 px, on a node of its own (`settings` on top)
 * with a real SMTP server: the node, the site's address (localhost: the session cookie's origin),
 * the browser, the context, its page, the session cookie and the signed-in user. `bypassCSP` only
 * so that axe's script can be injected: the pages are the same.
 */
export async function operatorInBrowser(
  t: Test,
  settings: Partial<Settings> = {},
  bypassCSP = true,
): Promise<{
  n: TestNode
  inbox: Inbox
  op: string
  site: string
  browser: Browser
  ctx: BrowserContext
  page: Page
  session: Cookie
  user: User
}> {
  const inbox = await startSmtp(t)
  const op = `${uid('op')}@example.com`
  const n = await startNode(t, 'standalone', { smtpUrl: inbox.url, adminEmails: [op], ...settings })
  const site = n.base.replace('127.0.0.1', 'localhost')
  const browser = await launch(t)
  const ctx = await browser.newContext({ bypassCSP, viewport: { width: 1280, height: 900 } })
  const page = await ctx.newPage()
  await signInByMail(page, site, inbox, op)
  const session = (await ctx.cookies()).find((c) => c.name === 'ar_session')!
  const user = (await n.node.accounts.session(session.value))!
  return { n, inbox, op, site, browser, ctx, page, session, user }
}

/**
 * A signed-in operator (operatorInBrowser) who created room `room` (blank template) for `agents`
 * on the page: the page, its context, the site's address, and the room model as the room's
 * agents (`as`).
 */
export async function roomInBrowser(
  t: Test,
  room: string,
  agents: string,
): Promise<{
  n: TestNode
  site: string
  ctx: BrowserContext
  page: Page
  as: (agent: string) => { room: { teamId: string; roomId: string }; agent: string }
}> {
  const { n, site, ctx, page, user } = await operatorInBrowser(t)
  await createRoomInPage(page, site, room, agents)
  return { n, site, ctx, page, as: (agent) => ({ room: { teamId: user.team, roomId: room }, agent }) }
}

/**
 * The documents the page's main frame loads from now on (navigations, form posts, and each
 * redirect on the way) as "METHOD /path status", so that a test asserts the status of every page
 * it opens and every form it sends: a 4xx or 5xx page looks like any other page to a locator.
 * `take()` returns (and forgets) those loaded since its last call.
 */
export function documents(page: Page): { take(): string[] } {
  const seen: string[] = []
  page.on('response', (res) => {
    const req = res.request()
    if (req.isNavigationRequest() && req.frame() === page.mainFrame())
      seen.push(`${req.method()} ${new URL(res.url()).pathname} ${res.status()}`)
  })
  return { take: () => seen.splice(0) }
}

/**
 * axe-core's serious and critical violations on the page, as "rule: targets" (only the rules
 * `only` names, when given). The page's context must bypass the CSP (only so that axe's own
 * script can be injected; the pages are the same).
 */
export async function axeViolations(page: Page, only?: string[]): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.addScriptTag({ content: axe.source })
  return (await page.evaluate(async (rules) => {
    const r = await (
      window as unknown as {
        axe: {
          run(
            ctx: Document,
            opts: object,
          ): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>
        }
      }
    ).axe.run(document, rules ? { runOnly: rules } : {})
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${v.id}: ${v.nodes
            .map((n) => n.target.join(' '))
            .slice(0, 3)
            .join(', ')}`,
      )
  }, only)) as string[]
}

/**
 * Opens every <details> (so the controls inside count), then presses Tab from the top of the
 * page until focus leaves it. Returns the controls in document order (`expected`: every visible,
 * enabled link, button, field, summary and focusable element, each described) and those Tab
 * reached, in the order reached; and any element that orders itself with a positive tabindex.
 */
export async function tabOrder(page: Page): Promise<{ expected: string[]; reached: string[]; positive: string[] }> {
  // In-page code as text: tsx would wrap its named functions in a helper the page does not have.
  const { expected, positive } = (await page.evaluate(`(() => {
    document.querySelectorAll('details').forEach((d) => (d.open = true))
    const describe = (el) => {
      const text = el.innerText || el.name || el.getAttribute('aria-label') || ''
      return el.tagName.toLowerCase() + ' "' + text.trim().slice(0, 40) + '"'
    }
    const shown = (el) => {
      const r = el.getBoundingClientRect()
      return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden'
    }
    const selector = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]'
    const all = [...document.querySelectorAll(selector)]
    const controls = all.filter((el) => el.tabIndex >= 0 && !el.disabled && shown(el))
    controls.forEach((el, i) => el.setAttribute('data-tab', i + ' ' + describe(el)))
    window.__focused = []
    document.addEventListener('focusin', (e) => {
      window.__focused.push(e.target.getAttribute('data-tab') || describe(e.target))
    })
    document.activeElement && document.activeElement.blur && document.activeElement.blur()
    return {
      expected: controls.map((el) => el.getAttribute('data-tab')),
      positive: all.filter((el) => el.tabIndex > 0).map(describe),
    }
  })()`)) as { expected: string[]; positive: string[] }
  for (let i = 0; i <= expected.length; i++) await page.keyboard.press('Tab')
  const reached = ((await page.evaluate('window.__focused')) as string[]).slice(0, expected.length)
  return { expected, reached, positive }
}

/** When the page scrolls sideways: the outermost elements that stick out of the window. */
export async function overflow(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const width = document.documentElement.clientWidth
    if (document.documentElement.scrollWidth <= width) return []
    const out = []
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect()
      const parent = el.parentElement && el.parentElement.getBoundingClientRect()
      if (r.right > width + 1 && (!parent || parent.right <= width + 1)) {
        const text = (el.innerText || '').slice(0, 30)
        out.push(el.tagName.toLowerCase() + '.' + el.className + ' "' + text + '" (' + Math.round(r.right) + ' px)')
      }
      if (out.length >= 5) break
    }
    return out
  })()`)) as string[]
}
/** A TCP relay to `port` whose connections can be cut (a dropped network), then let through again. */
export async function relay(t: Test, port: number) {
  const open = new Set<Socket>()
  let down = false
  const server = createServer((client) => {
    if (down) {
      client.destroy()
      return
    }
    const upstream = createConnection(port, '127.0.0.1')
    for (const s of [client, upstream]) {
      open.add(s)
      s.on('close', () => open.delete(s))
      s.on('error', () => undefined)
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  t.teardown(() => new Promise<void>((ok) => server.close(() => ok())))
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      down = true
      for (const s of open) s.destroy()
    },
    restore() {
      down = false
    },
  }
}
