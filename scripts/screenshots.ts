// `npm run screenshots`: every dashboard page in Debian's chromium (playwright-core), at desktop
// width, and the pages people most use on a phone at 375 px, saved under docs/dashboard/ for
// docs/dashboard.md. Starts its own Redis on a free port and one node; agents' work is made
// through the room model, as the tools make it. SCREENSHOTS_DIR=dir writes elsewhere, and
// SCREENSHOTS_PHONE=all takes every page at 375 px too (to look them over).
import { mkdirSync } from 'node:fs'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { defaultSettings } from '../src/config.js'
import { createLogger } from '../src/shared/logger.js'
import { ServiceNode } from '../src/node.js'
import { startRedis } from '../test/helpers/redis.js'

const OUT = process.env.SCREENSHOTS_DIR ?? 'docs/dashboard'
const ALL_PHONE = process.env.SCREENSHOTS_PHONE === 'all'
const OWNER = 'owner@example.com'
/** Pages also shown at 375 px in the docs. */
const PHONE = new Set([
  'signin',
  'rooms',
  'rooms-refused',
  'room-created',
  'room',
  'room-task',
  'room-context-diff',
  'inbox',
  'team',
  'keys',
  'webhooks',
])

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true })
  const redis = await startRedis()
  // The webhook's host resolves to a public address without a DNS lookup; nothing is sent to it.
  const settings = defaultSettings({
    redisUrl: `redis://127.0.0.1:${redis.port}`,
    port: 0,
    host: '127.0.0.1',
    adminEmails: [OWNER],
  })
  const node = new ServiceNode(settings, {
    log: createLogger('silent'),
    defaultMetrics: false,
    webhookResolver: async () => [{ address: '93.184.215.14', family: 4 }],
  })
  const port = await node.start()
  const base = `http://localhost:${port}`
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox'],
  })
  let phone: BrowserContext | undefined
  try {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const page = await ctx.newPage()
    /**
     * The page as it is now (or only the part `part` selects); at 375 px too (the same address, in
     * the phone's context) when listed. `again` false: a page a form post gave, shown as it is.
     */
    const shot = async (name: string, again = true, part?: string) => {
      if (part) await page.locator(part).screenshot({ path: `${OUT}/${name}.png` })
      else await page.screenshot({ path: `${OUT}/${name}.png`, fullPage: true })
      console.log(`${OUT}/${name}.png`)
      if (!(PHONE.has(name) || ALL_PHONE)) return
      phone ??= await browser.newContext({ viewport: { width: 375, height: 812 } })
      await phone.clearCookies()
      await phone.addCookies(await ctx.cookies())
      const p = phone.pages()[0] ?? (await phone.newPage())
      // A page reached by a form post is shown as it is, not fetched again.
      if (again) await p.goto(page.url())
      else {
        await p.goto(`${base}/signin`)
        await p.setContent(await page.content(), { waitUntil: 'load' })
      }
      await settle(p)
      await p.screenshot({ path: `${OUT}/${name}-375.png`, fullPage: true })
      console.log(`${OUT}/${name}-375.png`)
    }
    const settle = (p: Page) =>
      p.waitForSelector('#live-status[data-state=live]', { timeout: 3000 }).catch(() => undefined)

    await page.goto(`${base}/signin`)
    await shot('signin')
    await page.goto(`${base}/waitlist`)
    await page.getByLabel('E-mail address').fill('ada@example.com')
    await page.getByLabel(/^What will your agents work on/).fill('A planner and two coders on our billing service.')
    await shot('waitlist')
    await page.getByRole('button', { name: 'Join the waitlist' }).click()
    await page.waitForLoadState()
    await page.goto(`${base}/signin`)
    await page.getByLabel('E-mail address').fill(OWNER)
    await page.getByRole('button', { name: 'Send me a sign-in link' }).click()
    await page.waitForLoadState()
    await shot('check-mail', false)
    const token = await node.accounts.requestSignIn(OWNER)
    await page.goto(`${base}/signin/link?token=${token}`)
    await shot('continue', false)
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.waitForLoadState()
    await shot('key-once', false)
    await page.goto(`${base}/`)
    await shot('rooms-empty')
    await page.getByLabel(/^Name/).fill('Shop launch')
    await page.getByLabel(/^Agent ids/).fill('planner, planner')
    await page.getByRole('button', { name: 'Create room' }).click()
    await page.waitForLoadState()
    await shot('rooms-refused', false)
    await page.getByLabel('Template').selectOption('web-app')
    await page.getByLabel(/^Agent ids/).fill('planner, backend, frontend')
    await page.getByRole('button', { name: 'Create room' }).click()
    await page.waitForLoadState()
    await shot('room-created', false)

    const team = (await node.accounts.session(
      ((await ctx.cookies()).find((c) => c.name === 'ar_session') ?? { value: '' }).value,
    ))!.team
    const room = { teamId: team, roomId: 'shop-launch' }
    const as = (agent: string) => ({ room, agent })
    const core = node.core
    for (const a of ['planner', 'backend', 'frontend']) await core.presence.heartbeat(as(a), {})
    await core.plan.updateTask(as('planner'), { task_id: 't1', status: 'done', assignee: 'planner' })
    await core.plan.updateTask(as('backend'), { task_id: 't2', status: 'in_progress', assignee: 'backend' })
    await core.plan.updateTask(as('backend'), {
      task_id: 't4',
      status: 'in_progress',
      assignee: 'frontend',
      force: true,
    })
    await core.plan.updateTask(as('backend'), {
      task_id: 't2',
      notes: 'OpenAPI 3.1, one file per resource.\nRun `npm run lint:api` before asking for review.',
    })
    const q = await core.events.post(as('backend'), {
      type: 'question',
      text: 'Postgres or SQLite for the first release?',
    })
    await core.events.reply(as('planner'), {
      event_id: q.event.id,
      text: 'Postgres: we need concurrent writers.',
      type: 'answer',
    })
    await core.events.post(as('frontend'), { type: 'status', text: 'Login form done; <b>tags</b> stay text.' })
    await core.events.post(as('backend'), { type: 'question', text: 'May I drop the legacy /v1 routes?' })
    await core.events.unread(as('planner'))
    await core.context.update(as('planner'), { type: 'brief', key: 'product', append: '\n## Decision\nPostgres 16.\n' })
    await core.context.write(as('backend'), { type: 'spec', key: 'api', body: '# API\nGET /orders\nPOST /orders\n' })
    await core.locks.acquire(as('backend'), { name: 'db-migrations', ttl_s: 300 })
    await core.vars.set(as('backend'), { name: 'build', value: 'green' })
    await core.vars.set(as('frontend'), { name: 'preview_url', value: 'https://preview.example.com/shop' })
    await core.reviews.request(as('planner'), {
      target: { kind: 'task', task_id: 't1' },
      note: 'Brief is in; a human look please.',
    })
    await core.reviews.request(as('backend'), {
      target: { kind: 'context', type: 'spec', key: 'api' },
      note: 'Schema ready for a look.',
    })
    await core.reviews.approve(as('frontend'), { review_id: 'r1', note: 'Clear enough.' })

    await page.goto(`${base}/`)
    await shot('rooms')
    await page.goto(`${base}/room?id=shop-launch`)
    await settle(page)
    await shot('room')
    await shot('room-graph', true, 'section[aria-labelledby=graph]')
    await shot('room-activity', true, 'section[aria-labelledby=activity]')
    await page.goto(`${base}/room?id=shop-launch&task=t2#open-task`)
    await settle(page)
    await shot('room-task')
    // t5 waits for t2: making t2 wait for t5 is refused, at the field, with the choice kept.
    await page.getByLabel('Add a dependency').selectOption('t5')
    await page.getByRole('button', { name: 'Save dependencies of t2' }).click()
    await page.waitForLoadState()
    await shot('room-task-refused', false)
    await page.goto(`${base}/room?id=shop-launch&ctx=brief%2Fproduct&from=1&to=2#open-context`)
    await shot('room-context-diff')
    await page.goto(`${base}/room?id=shop-launch&q=Postgres`)
    await shot('room-search', true, 'section[aria-labelledby=search-h]')
    await page.goto(`${base}/inbox`)
    await settle(page)
    await shot('inbox')
    await page.goto(`${base}/team`)
    await shot('team')
    await page.goto(`${base}/team/keys`)
    await page.getByLabel(/^Label of a new key/).fill('ci')
    await page.getByRole('button', { name: 'Mint a team key' }).click()
    await page.waitForLoadState()
    await shot('keys', false)
    // A webhook whose creator left the team: disabled on the way out, as removing the person does.
    await node.webhooks.registry.create(
      team,
      { url: 'https://hooks.example.com/dana' },
      { kind: 'person', id: 'usr_dana' },
    )
    await node.teams.revokeMemberKeys(team, 'usr_dana', '', 'its creator dana@example.com was removed from the team')
    await page.goto(`${base}/team/webhooks`)
    await page.getByLabel(/^URL/).fill('https://hooks.example.com/agentrooms')
    await page.getByLabel(/^Description/).fill('CI bot')
    await page.getByRole('button', { name: 'Register webhook' }).click()
    await page.waitForLoadState()
    await shot('webhooks', false)
    // A sign-in the authorization server refuses (a client id whose document it cannot fetch), for the
    // operator page's trail.
    await fetch(
      `${base}/oauth/authorize?response_type=code&client_id=https%3A%2F%2Fagent.example%2Fclient.json` +
        '&redirect_uri=http%3A%2F%2F127.0.0.1%3A33418%2Fcallback&scope=mcp',
      { redirect: 'manual' },
    )
    await page.goto(`${base}/operator`)
    await shot('operator')
    await page.goto(`${base}/account/delete`)
    await shot('delete')
    await page.goto(`${base}/room?id=nope`)
    await shot('error')
  } finally {
    await browser.close()
    await node.stop(2000)
    await redis.stop()
  }
}

await main()
