// The dashboard in a real browser (Debian's chromium through playwright-core), against two nodes
// sharing one Redis and the real SMTP server of the accounts tests: sign-in by mailed link, the
// key shown once, a room created with a Claude Code configuration that an MCP SDK agent uses on
// the other node; the open room page follows the agent's work without reload, says when it is
// reconnecting and shows every event once after it; the person answers from the page and the
// agent's wait_for_events returns the answer. Security: no team key anywhere but its one-time
// page, an injected inline script is blocked by the CSP, room content with markup is text.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { createConnection, createServer, type Socket } from 'node:net'
import axe from 'axe-core'
import { chromium } from 'playwright-core'
import t from 'tap'
import { testPrefix } from '../helpers/accounts.js'
import { linkIn, startSmtp } from '../helpers/mail.js'
import { callTool } from '../helpers/mcp.js'
import { startNode } from '../helpers/node.js'
import { uid } from '../helpers/shared.js'

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium'

/** A TCP relay to `port` whose connections can be cut (a dropped network), then let through again. */
async function relay(port: number) {
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
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      down = true
      for (const s of open) s.destroy()
    },
    restore() {
      down = false
    },
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  }
}

t.test('two nodes, one Redis, a real browser', async (t) => {
  const inbox = await startSmtp(t)
  const prefix = testPrefix()
  const owner = `${uid('o')}@example.com`
  const a = await startNode(t, 'standalone', { keyPrefix: prefix, smtpUrl: inbox.url, adminEmails: [owner] })
  const other = await startNode(t, 'standalone', { keyPrefix: prefix, smtpUrl: inbox.url, adminEmails: [owner] })
  const net = await relay(Number(new URL(a.base).port))
  t.teardown(() => net.close())
  const site = `http://localhost:${net.port}`
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
  t.teardown(() => browser.close())
  const ctx = await browser.newContext()
  const page = await ctx.newPage()
  const bodies: { url: string; body: string }[] = []
  page.on('response', async (res) => {
    const type = res.headers()['content-type'] ?? ''
    if (type.includes('event-stream')) return
    bodies.push({ url: res.url(), body: await res.text().catch(() => '') })
  })

  await page.goto(`${site}/signin`)
  await page.getByLabel('E-mail address').fill(owner)
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click()
  const link = new URL(linkIn(await inbox.next(owner)))
  await page.goto(`${site}${link.pathname}${link.search}`)
  await page.getByRole('button', { name: 'Continue' }).click()
  const teamKey = (await page.getByLabel('Team key').textContent())!.trim()
  t.match(teamKey, /^ar_team_/, 'the key is shown once')
  const keyPage = bodies.length

  await page.goto(`${site}/`)
  await page.getByLabel(/^Name/).fill('Web shop')
  await page.getByLabel('Template').selectOption('web-app')
  await page.getByLabel(/^Agent ids/).fill('backend')
  await page.getByRole('button', { name: 'Create room' }).click()
  const claude = await page.getByLabel('Claude Code (run in the agent\'s project)').inputValue()
  const url = /(http:\/\/\S+\/mcp)/.exec(claude)![1]!
  const auth = /"Authorization: (Bearer \S+)"/.exec(claude)![1]!
  t.match(auth, /^Bearer ar_room_/, 'the configuration carries a room invite key')

  // The agent: the MCP SDK with exactly that configuration, on the other node.
  const agent = new Client({ name: 'agent', version: '1.0.0' })
  await agent.connect(new StreamableHTTPClientTransport(new URL(url.replace(/localhost:\d+/, other.base.replace('http://', ''))), { requestInit: { headers: { Authorization: auth } } }))
  t.teardown(() => agent.close())
  const call = async (name: string, args: Record<string, unknown>) => (await callTool(agent, name, { room_id: 'web-shop', agent_id: 'backend', ...args })).body

  await page.goto(`${site}/room?id=web-shop`)
  await page.locator('#live-status[data-state=live]').waitFor()
  t.pass('the page says it is live')

  await call('update_task', { task_id: 't1', status: 'in_progress', assignee: 'backend' })
  const evil = 'Which DB? <script>window.__xss=1</script><img src=x onerror="window.__xss=2">'
  const q = (await call('post_event', { type: 'question', text: evil })) as { event: { id: string } }
  await page.locator(`[data-event="${q.event.id}"]`).waitFor()
  t.equal(await page.locator(`[data-event="${q.event.id}"] .event-text`).first().textContent(), evil, 'the question appears, as text, without reload')
  await page.locator('[aria-label^="In progress: 1"]').waitFor()
  t.pass('the claimed task moved to In progress without reload')
  t.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined, 'room content ran no script')

  // The connection drops: the page says so; events posted meanwhile arrive once it is back.
  net.cut()
  await page.locator('#live-status[data-state=reconnecting]').waitFor()
  t.pass('the page says it is reconnecting')
  const missed = (await call('post_event', { type: 'status', text: 'posted while you were away' })) as { event: { id: string } }
  net.restore()
  await page.locator(`[data-event="${missed.event.id}"]`).waitFor({ timeout: 15_000 })
  await page.locator('#live-status[data-state=live]').waitFor({ timeout: 15_000 })
  t.equal(await page.locator(`[data-event="${missed.event.id}"]`).count(), 1, 'the missed event shows, once')

  // The person answers from the page; the agent's wait_for_events returns it.
  await call('get_unread_events', {})
  const waiting = call('wait_for_events', { timeout_s: 20 })
  await page.locator(`[data-event="${q.event.id}"] > details > summary`).click()
  await page.locator(`[data-event="${q.event.id}"] > details textarea[name=text]`).fill('Postgres')
  await page.locator(`[data-event="${q.event.id}"] > details button:has-text("Send reply")`).click()
  const got = (await waiting) as { events: { text: string; agent_id: string; reply_to: string }[] }
  t.match(got.events, [{ text: 'Postgres', agent_id: /^human:/, reply_to: q.event.id }], 'the agent gets the answer')

  // The CSP blocks an injected inline script.
  const injected = await page.evaluate(async () => {
    const s = document.createElement('script')
    s.textContent = 'window.__inj = 1'
    document.body.append(s)
    await new Promise((r) => setTimeout(r, 100))
    return (window as unknown as { __inj?: number }).__inj
  })
  t.equal(injected, undefined, 'an injected inline script does not run')

  // No team key anywhere but its one-time page.
  const leaks = bodies.slice(keyPage).filter((b) => b.body.includes(teamKey)).map((b) => b.url)
  t.same(leaks, [], 'no later page, script or response holds the team key')
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie)
  t.notMatch(stored, /ar_team_/, 'nor browser storage or readable cookies')
  t.equal((await ctx.cookies()).find((c) => c.name === 'ar_session')?.httpOnly, true, 'the session cookie is HttpOnly')

  // Accessibility: axe-core in every page finds nothing serious. (A context that bypasses the
  // CSP, only so axe's own script can be injected; the pages are the same.)
  const audit = await browser.newContext({ bypassCSP: true, storageState: await ctx.storageState() })
  const p = await audit.newPage()
  for (const path of ['/', '/room?id=web-shop', '/room?id=web-shop&ctx=brief%2Fproduct', '/team', '/team/keys', '/team/webhooks', '/operator', '/account/delete']) {
    await p.goto(site + path)
    await p.addScriptTag({ content: axe.source })
    const found = (await p.evaluate(async () => {
      const r = await (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe.run()
      return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`)
    })) as string[]
    t.same(found, [], `axe: no serious violation on ${path}`)
  }
  await p.goto(`${site}/signin`)
})
