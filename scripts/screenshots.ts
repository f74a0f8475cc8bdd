// `npm run screenshots`: every dashboard page in Debian's chromium (playwright-core), at desktop
// width and at 375 px, saved under docs/dashboard/ for docs/dashboard.md. Starts its own Redis on
// a free port and one node; an agent's work is made through the room model, as the tools make it.
import { mkdirSync } from 'node:fs'
import { chromium, type Page } from 'playwright-core'
import { defaultSettings } from '../src/config.js'
import { createLogger } from '../src/logger.js'
import { ServiceNode } from '../src/node.js'
import { startRedis } from '../test/helpers/redis.js'

const OUT = 'docs/dashboard'
const OWNER = 'owner@example.com'

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true })
  const redis = await startRedis()
  const node = new ServiceNode(defaultSettings({ redisUrl: `redis://127.0.0.1:${redis.port}`, port: 0, host: '127.0.0.1', adminEmails: [OWNER] }), { log: createLogger('silent'), defaultMetrics: false })
  const port = await node.start()
  const base = `http://localhost:${port}`
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] })
  try {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const page = await ctx.newPage()
    const shot = async (name: string, p: Page = page) => {
      await p.screenshot({ path: `${OUT}/${name}.png`, fullPage: true })
      console.log(`${OUT}/${name}.png`)
    }
    await page.goto(`${base}/signin`)
    await shot('signin')
    const token = await node.accounts.requestSignIn(OWNER)
    await page.goto(`${base}/signin/link?token=${token}`)
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.waitForLoadState()
    await page.goto(`${base}/`)
    await shot('rooms-empty')
    await page.getByLabel(/^Name/).fill('Shop launch')
    await page.getByLabel('Template').selectOption('web-app')
    await page.getByLabel(/^Agent ids/).fill('planner, backend, frontend')
    await page.getByRole('button', { name: 'Create room' }).click()
    await page.waitForLoadState()
    await shot('room-created')

    const team = (await node.accounts.session(((await ctx.cookies())[0] ?? { value: '' }).value))!.team
    const room = { teamId: team, roomId: 'shop-launch' }
    const as = (agent: string) => ({ room, agent })
    const core = node.core
    await core.presence.heartbeat(as('backend'), {})
    await core.presence.heartbeat(as('frontend'), {})
    await core.plan.updateTask(as('backend'), { task_id: 't1', status: 'in_progress', assignee: 'backend' })
    const q = await core.events.post(as('backend'), { type: 'question', text: 'Postgres or SQLite for the first release?' })
    await core.events.reply(as('planner'), { event_id: q.event.id, text: 'Postgres: we need concurrent writers.', type: 'answer' })
    await core.events.post(as('frontend'), { type: 'status', text: 'Login form done; <b>tags</b> stay text.' })
    await core.context.update(as('planner'), { type: 'brief', key: 'product', append: '\n## Decision\nPostgres 16.\n' }).catch(() => undefined)
    await core.locks.acquire(as('backend'), { name: 'db-migrations', ttl_s: 300 })
    await core.vars.set(as('backend'), { name: 'build', value: 'green' })
    await core.reviews.request(as('backend'), { target: { kind: 'task', task_id: 't1' }, note: 'Schema ready for a look.' })

    await page.goto(`${base}/`)
    await shot('rooms')
    await page.goto(`${base}/room?id=shop-launch`)
    await page.waitForSelector('#live-status[data-state=live]', { timeout: 5000 }).catch(() => undefined)
    await shot('room')
    const ctxEntry = (await core.snapshot.room({ room })).context[0]
    if (ctxEntry) {
      await page.goto(`${base}/room?id=shop-launch&ctx=${encodeURIComponent(`${ctxEntry.type}/${ctxEntry.key}`)}&from=${Math.max(0, ctxEntry.version - 1)}&to=${ctxEntry.version}#context`)
      await shot('room-context-diff')
    }
    await page.goto(`${base}/room?id=shop-launch&q=Postgres`)
    await shot('room-search')
    await page.goto(`${base}/team`)
    await shot('team')
    await page.goto(`${base}/team/keys`)
    await shot('keys')
    await page.goto(`${base}/team/webhooks`)
    await shot('webhooks')
    await page.goto(`${base}/operator`)
    await shot('operator')

    const phone = await browser.newContext({ viewport: { width: 375, height: 812 }, storageState: await ctx.storageState() })
    const p2 = await phone.newPage()
    await p2.goto(`${base}/`)
    await shot('rooms-375', p2)
    await p2.goto(`${base}/room?id=shop-launch`)
    await shot('room-375', p2)
  } finally {
    await browser.close()
    await node.stop(2000)
    await redis.stop()
  }
}

await main()
