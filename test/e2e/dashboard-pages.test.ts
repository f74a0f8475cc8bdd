// Every dashboard page in a real browser (Debian's chromium through playwright-core), signed out
// and signed in, at desktop width and at 375 px: axe-core finds no serious violation (light and
// dark colour schemes); Tab reaches
// every control (links, buttons, fields, summaries, focusable text), in document order, none
// reordered by a positive tabindex, the skip link first; nothing is wider than the window.
import type { Page } from 'playwright-core'
import t from 'tap'
import { axeViolations, documents, launch, overflow, tabOrder } from '../helpers/browser.js'
import { linkIn, startSmtp } from '../helpers/mail.js'
import { startNode } from '../helpers/node.js'
import { uid } from '../helpers/shared.js'
import { fastWebhookSettings, makeTestCa, startReceiver } from '../helpers/webhooks.js'

t.test('every page, signed out and in', async (t) => {
  const ca = await makeTestCa(t)
  const receiver = await startReceiver(t, ca)
  const inbox = await startSmtp(t)
  const op = `${uid('op')}@example.com`
  const n = await startNode(t, 'standalone', { ...fastWebhookSettings(ca), smtpUrl: inbox.url, adminEmails: [op] })
  const site = n.base.replace('127.0.0.1', 'localhost')
  const browser = await launch(t)
  // bypassCSP only so that axe's script can be injected; the pages are the same.
  const ctx = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } })
  const page = await ctx.newPage()
  const docs = documents(page)
  /** The pages loaded since the last look, with their statuses, are exactly `want`. */
  const loaded = (name: string, ...want: string[]) => t.same(docs.take(), want, `${name}: ${want.join(', ')}`)

  /** The page as it is now: axe, wide and narrow, then the keyboard (which opens every <details>). */
  const check = async (name: string, p: Page = page) => {
    t.same(await axeViolations(p), [], `${name}: axe finds no serious violation`)
    await p.emulateMedia({ colorScheme: 'dark' })
    t.same(await axeViolations(p, ['color-contrast']), [], `${name}: nor in the dark colour scheme (contrast)`)
    await p.emulateMedia({ colorScheme: 'light' })
    t.same(await overflow(p), [], `${name}: nothing wider than 1280 px`)
    await p.setViewportSize({ width: 375, height: 800 })
    t.same(await overflow(p), [], `${name}: nothing wider than 375 px`)
    await p.setViewportSize({ width: 1280, height: 900 })
    const tab = await tabOrder(p)
    t.same(tab.positive, [], `${name}: no positive tabindex`)
    t.same(tab.reached, tab.expected, `${name}: Tab reaches all ${tab.expected.length} controls, in document order`)
    t.match(tab.reached[0] ?? '', /^0 a "Skip to the content"/, `${name}: the skip link first`)
  }
  const go = async (name: string, path: string, status = 200) => {
    await page.goto(site + path)
    loaded(name, `GET ${path.split('?')[0]} ${status}`)
    await check(name)
  }

  // Signed out.
  await go('sign-in', '/signin')
  await go('a sign-in link that is not valid', '/signin/link?token=nope', 400)
  await go('a page that does not exist, signed out', '/nope', 404)
  await go('waitlist', '/waitlist')
  const waiting = `${uid('w')}@example.com`
  await page.getByLabel('E-mail address').fill(waiting)
  await page.getByLabel(/^What will your agents work on/).fill('A shop')
  await page.getByRole('button', { name: 'Join the waitlist' }).click()
  await page.getByRole('heading', { name: 'Thank you' }).waitFor()
  loaded('waitlist, thanks', 'POST /waitlist 200')
  await check('waitlist, thanks')
  await page.goto(`${site}/signin`)
  await page.getByLabel('E-mail address').fill(op)
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click()
  await page.getByRole('heading', { name: 'Check your mail' }).waitFor()
  loaded('check your mail', 'GET /signin 200', 'POST /signin 200')
  await check('check your mail')
  const link = new URL(linkIn(await inbox.next(op)))
  await go('continue signing in', `${link.pathname}${link.search}`)
  await page.reload()
  await page.getByRole('button', { name: 'Continue' }).click()
  await page.getByLabel('Team key').waitFor()
  loaded('the team key, once', 'GET /signin/link 200', 'POST /signin/link 200')
  await check('the team key, once')

  // Signed in.
  await go('rooms, none yet', '/')
  await page.getByLabel(/^Name/).fill('Shop')
  await page.getByLabel('Template').selectOption('web-app')
  await page.getByLabel(/^Agent ids/).fill('planner, backend')
  await page.getByRole('button', { name: 'Create room' }).click()
  await page.getByRole('heading', { name: 'Room Shop is ready' }).waitFor()
  loaded('room created', 'POST /rooms 303', 'GET /rooms/created 200')
  await check('room created')

  const user = (await n.node.accounts.session((await ctx.cookies()).find((c) => c.name === 'ar_session')!.value))!
  const as = (agent: string) => ({ room: { teamId: user.team, roomId: 'Shop' }, agent })
  const core = n.node.core
  await core.presence.heartbeat(as('backend'), {})
  await core.plan.updateTask(as('backend'), { task_id: 't1', status: 'in_progress', assignee: 'backend' })
  const q = await core.events.post(as('backend'), { type: 'question', text: 'Postgres or SQLite?' })
  await core.events.reply(as('planner'), { event_id: q.event.id, text: 'Postgres.' })
  await core.context.update(as('planner'), { type: 'brief', key: 'product', append: '\nPostgres 16.\n' })
  await core.locks.acquire(as('backend'), { name: 'db-migrations', ttl_s: 600 })
  await core.vars.set(as('backend'), { name: 'build', value: 'green' })
  await core.reviews.request(as('backend'), { target: { kind: 'task', task_id: 't1' }, note: 'Schema ready.' })

  await go('rooms', '/')
  await go('inbox', '/inbox')
  await go('room', '/room?id=Shop')
  await go('room, a task open', '/room?id=Shop&task=t1')
  await go('room, context history and diff', '/room?id=Shop&ctx=brief%2Fproduct&from=1&to=2')
  await go('room, search', '/room?id=Shop&q=Postgres')
  await go('a room that does not exist', '/room?id=nope', 404)
  await go('a page that does not exist', '/rooms/nope', 404)
  await go('a form address opened as a page', '/team/keys/revoke', 405)
  await go('team', '/team')
  await go('keys', '/team/keys')
  await page.getByLabel(/^Label of a new key/).fill('ci')
  await page.getByRole('button', { name: 'Mint a team key' }).click()
  await page.getByLabel('The new team key').waitFor()
  loaded('keys, one just minted', 'POST /team/keys 303', 'GET /team/keys 200')
  await check('keys, one just minted')
  await go('webhooks, none', '/team/webhooks')
  await page.getByLabel(/^URL/).fill(`https://localhost:${receiver.port}/hook`)
  await page.getByRole('button', { name: 'Register webhook' }).click()
  await page.getByLabel('Signing secret').waitFor()
  loaded('webhooks, one just registered', 'POST /team/webhooks 303', 'GET /team/webhooks 200')
  await check('webhooks, one just registered')
  await go('operator', '/operator')
  await go('delete the account', '/account/delete')
})
