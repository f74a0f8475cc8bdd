// "What needs you" in a real browser (Debian's chromium through playwright-core), at 1280 and at
// 375 px: the inbox and the room page's block pass axe-core and fit the window; an answer sent
// from the inbox takes the question away; a question an agent asks while the room is open shows
// in the block and in the tab's title without a reload; notifications come only after the
// person pressed the button, and then when more needs them. Screenshots in $SHOTS (default
// /tmp/dash-inbox-shots) at both widths.
import { mkdirSync } from 'node:fs'
import type { Page } from 'playwright-core'
import t from 'tap'
import { axeViolations, createRoomInPage, documents, overflow, operatorInBrowser } from '../helpers/browser.js'

const SHOTS = process.env.SHOTS ?? '/tmp/dash-inbox-shots'

t.test('what needs you, in chromium', async (t) => {
  mkdirSync(SHOTS, { recursive: true })
  const { n, site, ctx, page, user } = await operatorInBrowser(t, { presenceTtlMs: 1000 })
  const docs = documents(page)
  const loaded = (name: string, ...want: string[]) => t.same(docs.take(), want, `${name}: ${want.join(', ')}`)

  await createRoomInPage(page, site, 'Shop', 'planner, backend')
  docs.take()

  const as = (agent: string) => ({ room: { teamId: user.team, roomId: 'Shop' }, agent })
  const core = n.node.core
  await core.events.post(as('backend'), { type: 'question', text: 'Postgres or SQLite?' })
  await core.events.post(as('planner'), { type: 'blocker', text: 'The staging database is down.' })
  await core.plan.addTask(as('backend'), { title: 'Schema' })
  await core.plan.updateTask(as('backend'), { task_id: 't1', status: 'in_progress' })
  await core.locks.acquire(as('backend'), { name: 'db-migrations', ttl_s: 600 })
  // A review moves its task to in review; the second task stays in progress with backend.
  await core.reviews.request(as('backend'), { target: { kind: 'task', task_id: 't1' }, note: 'Schema ready.' })
  await core.plan.addTask(as('backend'), { title: 'Migrations' })
  await core.plan.updateTask(as('backend'), { task_id: 't2', status: 'in_progress' })
  await core.presence.heartbeat(as('planner'))

  /** axe (light and dark), nothing wider than the window at 1280 and 375 px, a screenshot at each. */
  const check = async (name: string, p: Page = page) => {
    t.same(await axeViolations(p), [], `${name}: axe finds no serious violation`)
    await p.emulateMedia({ colorScheme: 'dark' })
    t.same(await axeViolations(p, ['color-contrast']), [], `${name}: nor in the dark colour scheme (contrast)`)
    await p.emulateMedia({ colorScheme: 'light' })
    t.same(await overflow(p), [], `${name}: nothing wider than 1280 px`)
    await p.screenshot({ path: `${SHOTS}/${name}-1280.png`, fullPage: true })
    await p.setViewportSize({ width: 375, height: 800 })
    t.same(await overflow(p), [], `${name}: nothing wider than 375 px`)
    await p.screenshot({ path: `${SHOTS}/${name}-375.png`, fullPage: true })
    await p
      .locator('section.needs')
      .first()
      .screenshot({ path: `${SHOTS}/${name}-block-375.png` })
    await p.setViewportSize({ width: 1280, height: 900 })
  }

  await page.goto(`${site}/inbox`)
  loaded('inbox', 'GET /inbox 200')
  t.equal(await page.title(), '(5) Inbox · agentrooms', 'the count in the tab title')
  await check('inbox')
  t.ok(await page.getByText('Postgres or SQLite?').isVisible(), 'the question')
  t.ok(await page.getByText('The staging database is down.').isVisible(), 'the blocker')
  t.ok(await page.getByRole('button', { name: 'Approve r1' }).isVisible(), 'the review')
  t.ok(await page.getByRole('button', { name: 'Reassign t2' }).isVisible(), 'the stale task')
  t.ok(await page.getByText('Release db-migrations…').isVisible(), 'the stale lock, released in two steps')

  await page.getByLabel('Your answer to backend').fill('Postgres.')
  await page.getByRole('button', { name: 'Send answer' }).click()
  await page.waitForURL(/\/inbox#needs-Shop$/)
  loaded('answered', 'POST /room/events 303', 'GET /inbox 200')
  t.equal(await page.getByText('Postgres or SQLite?').count(), 0, 'the answered question leaves the inbox')
  t.equal(await page.title(), '(4) Inbox · agentrooms')

  await page.goto(`${site}/room?id=Shop`)
  loaded('room', 'GET /room 200')
  await page.getByText('Live', { exact: true }).waitFor()
  t.equal(await page.title(), '(4) Shop · agentrooms')
  await check('room')
  const block = page.locator('#needs')
  t.ok(await block.getByText('The staging database is down.').isVisible(), 'the block at the top of the room')

  // Live: a new question shows in the block and the title without a reload.
  await core.events.post(as('planner'), { type: 'question', text: 'Ship on Friday?' })
  await block.getByText('Ship on Friday?').waitFor()
  await page.waitForFunction(() => document.title === '(5) Shop · agentrooms')
  t.pass('the block and the title follow the room live')

  // Notifications: none before the button; after it, one when more needs the person.
  t.equal(await page.evaluate(() => Notification.permission), 'default', 'nothing asked before the button')
  await ctx.grantPermissions(['notifications'], { origin: site })
  await page.evaluate(() => {
    const shown: string[] = []
    ;(window as unknown as { shown: string[] }).shown = shown
    const Real = window.Notification
    // A spy around the real constructor: the browser still shows each notification.
    window.Notification = new Proxy(Real, {
      construct(target, args: [string, NotificationOptions?]) {
        shown.push(args[0])
        return new target(...args)
      },
    })
  })
  const notify = page.getByRole('button', { name: 'Notify me when agents need me' })
  await notify.click()
  await page.getByRole('button', { name: 'Stop notifying me' }).waitFor()
  await core.events.post(as('backend'), { type: 'blocker', text: 'Out of disk.' })
  await page.waitForFunction(() => (window as unknown as { shown: string[] }).shown.length > 0)
  t.same(await page.evaluate(() => (window as unknown as { shown: string[] }).shown), ['6 things need you'])
  await page.getByRole('button', { name: 'Stop notifying me' }).click()
  await notify.waitFor()
})
