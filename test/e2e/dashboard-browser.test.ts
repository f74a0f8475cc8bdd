// The dashboard's whole story in a real browser (Debian's chromium through playwright-core),
// against two nodes sharing one Redis and the real SMTP server of the accounts tests: a person
// joins the waitlist; the operator approves them on the operator page; they sign in by the mailed
// link and see their team key once; create a room from the web-app template and copy its Claude
// Code configuration; an agent (the MCP SDK client, configured from exactly what was copied)
// claims a task and asks a question on the other node; the open room page shows both without
// reload (the latency is printed), says when it is reconnecting and shows every event once after
// it; the person answers from the page and the agent's wait_for_events returns the answer; a
// context update shows in history and diff; they register a webhook, mint a key and revoke the
// first one, delete their account, and every key answers 401 on both nodes.
// Security on the way: no team key in any page, script, storage or response but its one-time
// display; a cross-site form post is refused; the CSP blocks an injected inline script; room
// content with markup shows as text.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { createServer } from 'node:http'
import t, { type Test } from 'tap'
import { documents, launch, relay } from '../helpers/browser.js'
import { testPrefix } from '../helpers/accounts.js'
import { linkIn, startSmtp } from '../helpers/mail.js'
import { callTool } from '../helpers/mcp.js'
import { startNode } from '../helpers/node.js'
import { uid } from '../helpers/shared.js'
import { fastWebhookSettings, makeTestCa, startReceiver } from '../helpers/webhooks.js'

/** A page on another site whose form posts to `action` as soon as it loads. */
async function evilSite(t: Test, action: string, fields: Record<string, string>): Promise<string> {
  const inputs = Object.entries(fields)
    .map(([k, v]) => `<input name="${k}" value="${v}">`)
    .join('')
  const server = createServer((_req, res) => {
    res.setHeader('Content-Type', 'text/html')
    res.end(`<form method="post" action="${action}">${inputs}</form><script>document.forms[0].submit()</script>`)
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  t.teardown(() => new Promise<void>((ok) => server.close(() => ok())))
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/`
}

t.test('the whole story: two nodes, one Redis, a real browser', async (t) => {
  const ca = await makeTestCa(t)
  const receiver = await startReceiver(t, ca)
  const inbox = await startSmtp(t)
  const settings = { ...fastWebhookSettings(ca), keyPrefix: testPrefix(), smtpUrl: inbox.url }
  const op = `${uid('op')}@example.com`
  const person = `${uid('p')}@example.com`
  const a = await startNode(t, 'standalone', { ...settings, adminEmails: [op] })
  const other = await startNode(t, 'standalone', { ...settings, adminEmails: [op] })
  const net = await relay(t, Number(new URL(a.base).port))
  const site = `http://localhost:${net.port}`
  const browser = await launch(t)

  // The person asks to join.
  const ctx = await browser.newContext()
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site })
  const page = await ctx.newPage()
  const docs = documents(page)
  /** The pages `p` loaded since the last look, with their statuses, are exactly `want`: a 4xx or 5xx page fails. */
  const loaded = (name: string, want: string[], d = docs) => t.same(d.take(), want, `${name}: ${want.join(', ')}`)
  const bodies: { url: string; body: string }[] = []
  page.on('response', async (res) => {
    if ((res.headers()['content-type'] ?? '').includes('event-stream')) return
    bodies.push({ url: res.url(), body: await res.text().catch(() => '') })
  })
  await page.goto(`${site}/waitlist`)
  await page.getByLabel('E-mail address').fill(person)
  await page.getByLabel(/^What will your agents work on/).fill('A web shop')
  await page.getByRole('button', { name: 'Join the waitlist' }).click()
  await page.getByRole('heading', { name: 'Thank you' }).waitFor()
  loaded('the waitlist takes the request', ['GET /waitlist 200', 'POST /waitlist 200'])

  // The operator (ADMIN_EMAILS) signs in and approves them.
  const opCtx = await browser.newContext()
  const opPage = await opCtx.newPage()
  const opDocs = documents(opPage)
  await opPage.goto(`${site}/signin`)
  await opPage.getByLabel('E-mail address').fill(op)
  await opPage.getByRole('button', { name: 'Send me a sign-in link' }).click()
  const opLink = new URL(linkIn(await inbox.next(op)))
  await opPage.goto(`${site}${opLink.pathname}${opLink.search}`)
  await opPage.getByRole('button', { name: 'Continue' }).click()
  await opPage.getByLabel('Team key').waitFor()
  await opPage.goto(`${site}/operator`)
  await opPage.getByRole('button', { name: `Approve ${person}` }).click()
  await opPage.getByText(`${person} is approved`).waitFor()
  loaded(
    'the operator approves them on the operator page',
    [
      'GET /signin 200',
      'POST /signin 200',
      'GET /signin/link 200',
      'POST /signin/link 200',
      'GET /operator 200',
      'POST /operator/waitlist 303',
      'GET /operator 200',
    ],
    opDocs,
  )
  await opCtx.close()

  // The person signs in by the mailed link and sees the team key once.
  const link = new URL(linkIn(await inbox.next(person)))
  await page.goto(`${site}${link.pathname}${link.search}`)
  await page.getByRole('button', { name: 'Continue' }).click()
  const teamKey = (await page.getByLabel('Team key').inputValue()).trim()
  t.match(teamKey, /^ar_team_/, 'the key is shown once')
  loaded('signed in', ['GET /signin/link 200', 'POST /signin/link 200'])
  const keyPage = bodies.length

  // A room from the web-app template; the Claude Code configuration, copied with its button.
  await page.getByRole('link', { name: 'Continue to your rooms' }).click()
  await page.getByLabel(/^Name/).fill('Web shop')
  await page.getByLabel('Template').selectOption('web-app')
  await page.getByLabel(/^Agent ids/).fill('backend')
  await page.getByRole('button', { name: 'Create room' }).click()
  await page.getByRole('heading', { name: 'Room Web shop is ready' }).waitFor()
  loaded('the room is created', ['GET / 200', 'POST /rooms 303', 'GET /rooms/created 200'])
  const snippet = page.locator('.copyable', {
    has: page.getByLabel("Claude Code (run in the agent's project)", { exact: true }),
  })
  await snippet.getByRole('button', { name: 'Copy' }).click()
  await snippet.getByRole('button', { name: 'Copied' }).waitFor()
  const copied = (await page.evaluate(() => navigator.clipboard.readText())) as string
  const url = /(http:\/\/\S+\/mcp)/.exec(copied)?.[1]
  const auth = /"Authorization: (Bearer \S+)"/.exec(copied)?.[1]
  t.match(copied, /^claude mcp add --transport http agentrooms /, 'the copied Claude Code command')
  t.match(auth, /^Bearer ar_room_/, 'with a room invite key of its own')
  t.equal(new URL(url!).port, new URL(a.base).port, 'pointing at this service')
  await snippet.getByRole('button', { name: 'Copy', exact: true }).waitFor()
  t.pass('"Copied" turns back into "Copy"')
  // The clients' configurations are tabs: one shows at a time, arrow keys move between them.
  const clients = page.getByRole('tablist', { name: 'MCP client configuration for backend' })
  await clients.getByRole('tab', { name: 'Cursor' }).click()
  t.ok(await page.getByLabel('Cursor (.cursor/mcp.json)', { exact: true }).isVisible(), 'the Cursor tab shows its file')
  t.notOk(await snippet.isVisible(), 'and hides the Claude Code command')
  await page.keyboard.press('ArrowRight')
  t.equal(
    await clients.getByRole('tab', { selected: true }).textContent(),
    'VS Code',
    'ArrowRight selects the next tab',
  )
  t.ok(
    await page.getByRole('tablist', { name: 'Stop hook for backend' }).isVisible(),
    'the Stop hooks have tabs of their own',
  )

  // The room page is open when the agent starts, on the other node, configured from the copy.
  await page.goto(`${site}/room?id=web-shop`)
  await page.locator('#live-status[data-state=live]').waitFor()
  loaded('the room page', ['GET /room 200'])
  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true))
  const agent = new Client({ name: 'agent', version: '1.0.0' })
  const onOther = new URL(url!)
  onOther.host = new URL(other.base).host
  await agent.connect(
    new StreamableHTTPClientTransport(onOther, { requestInit: { headers: { Authorization: auth! } } }),
  )
  t.teardown(() => agent.close())
  const call = async (name: string, args: Record<string, unknown>) =>
    (await callTool(agent, name, { room_id: 'web-shop', agent_id: 'backend', ...args })).body

  await call('update_task', { task_id: 't1', status: 'in_progress', assignee: 'backend' })
  const evil = 'Which DB? <script>window.__xss=1</script><img src=x onerror="window.__xss=2">'
  const q = (await call('post_event', { type: 'question', text: evil })) as { event: { id: string } }
  const posted = Date.now()
  await page.locator(`[data-event="${q.event.id}"]`).waitFor()
  await page.locator('#col-in_progress #task-t1').waitFor()
  const latency = Date.now() - posted
  t.comment(`the question and the claimed task showed ${latency} ms after the agent's post (goal: within 1 s)`)
  t.equal(
    await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument),
    true,
    'without reload',
  )
  t.equal(
    await page.locator(`[data-event="${q.event.id}"] .event-text`).first().textContent(),
    evil,
    'the question, as text',
  )
  t.match(
    await page.locator('#col-in_progress #task-t1').textContent(),
    /assignee backend/,
    'the task in progress, with its assignee',
  )
  t.equal(
    await page.evaluate(() => (window as unknown as { __xss?: number }).__xss),
    undefined,
    'room content ran no script',
  )

  // The connection drops: the page says so; events posted meanwhile arrive once it is back.
  net.cut()
  await page.locator('#live-status[data-state=reconnecting]').waitFor()
  t.pass('the page says it is reconnecting')
  const missed = (await call('post_event', { type: 'status', text: 'posted while you were away' })) as {
    event: { id: string }
  }
  net.restore()
  await page.locator(`[data-event="${missed.event.id}"]`).waitFor({ timeout: 15_000 })
  await page.locator('#live-status[data-state=live]').waitFor({ timeout: 15_000 })
  t.equal(await page.locator(`[data-event="${missed.event.id}"]`).count(), 1, 'the missed event shows, once')

  // The person answers from the page; the agent's wait_for_events returns it.
  await call('get_unread_events', {})
  const waiting = call('wait_for_events', { timeout_s: 20 })
  const reply = `[data-event="${q.event.id}"] > details`
  await page.locator(`${reply} > summary`).click()
  await page.locator(`${reply} textarea[name=text]`).fill('Postgres')
  const navigated = page.waitForEvent('framenavigated', { predicate: (f) => f === page.mainFrame() })
  await page.locator(reply).getByRole('button', { name: 'Send reply' }).click()
  await navigated
  const got = (await waiting) as { events: { text: string; agent_id: string; reply_to: string }[] }
  t.match(got.events, [{ text: 'Postgres', agent_id: /^human:/, reply_to: q.event.id }], 'the agent gets the answer')
  loaded('the reply is posted, then the room page again', ['POST /room/events 303', 'GET /room 200'])

  // The agent updates the product brief: its history and a diff on the page.
  await call('update_context', { type: 'brief', key: 'product', append: '\n## Database\nPostgres 16.\n' })
  // Opening it shows the current version's changes; choosing v1 shows that version's.
  await page.getByRole('link', { name: 'brief/product' }).click()
  await page.locator('#open-context').getByText('Changes v1 → v2').waitFor()
  const added = (await page.locator('#open-context pre.diff .add').allTextContents()).join('')
  t.match(added, /^(\+\n)*\+## Database\n\+Postgres 16\.\n$/, 'the diff shows the lines the agent added')
  await page.getByRole('link', { name: 'Show the changes of v1' }).click()
  await page.locator('#open-context').getByText('v1, the first version').waitFor()
  loaded('the entry with its diff, then the first version', ['GET /room 200', 'GET /room 200'])

  // The CSP blocks an injected inline script.
  const injected = await page.evaluate(async () => {
    const s = document.createElement('script')
    s.textContent = 'window.__inj = 1'
    document.body.append(s)
    await new Promise((r) => setTimeout(r, 100))
    return (window as unknown as { __inj?: number }).__inj
  })
  t.equal(injected, undefined, 'an injected inline script does not run')

  // A form on another site that posts into the room is refused.
  const refused = page.waitForResponse((r) => r.url().startsWith(`${site}/room/events`))
  await page.goto(await evilSite(t, `${site}/room/events`, { room: 'web-shop', text: 'pwned' }))
  t.equal((await refused).status(), 403, 'a cross-site form post is refused')
  loaded('the other site, then its post', ['GET / 200', 'POST /room/events 403'])
  const events = (await call('read_events', {})).events as { text: string }[]
  t.notOk(
    events.some((e) => e.text === 'pwned'),
    'and posts nothing',
  )

  // A webhook, registered from the webhooks page; its secret shown once.
  await page.goto(`${site}/team/webhooks`)
  await page.getByLabel(/^URL/).fill(`https://localhost:${receiver.port}/hook`)
  await page.getByRole('button', { name: 'Register webhook' }).click()
  t.match(
    await page.getByLabel('Signing secret').inputValue(),
    /^whsec_/,
    'the webhook is registered, its secret shown once',
  )
  loaded('the webhook is registered', ['GET /team/webhooks 200', 'POST /team/webhooks 303', 'GET /team/webhooks 200'])

  // A new key, then the first one revoked: refused on both nodes.
  await page.goto(`${site}/team/keys`)
  await page.getByLabel('Scope').selectOption('admin')
  await page.getByRole('button', { name: 'Mint a team key' }).click()
  const minted = (await page.getByLabel('The new team key').inputValue()).trim()
  const firstKeyId = (await page
    .locator('tr', { hasText: teamKey.slice(-4) })
    .locator('td')
    .first()
    .textContent())!
    .trim()
    .split(' ')[0]!
  await page.getByText(`Revoke ${firstKeyId}…`).click()
  await page.getByRole('button', { name: `Revoke ${firstKeyId}` }).click()
  await page.getByText(`Key ${firstKeyId} is revoked`).waitFor()
  loaded('a key is minted, the first revoked', [
    'GET /team/keys 200',
    'POST /team/keys 303',
    'GET /team/keys 200',
    'POST /team/keys/revoke 303',
    'GET /team/keys 200',
  ])
  for (const n of [a, other])
    t.equal(
      (await n.call('/admin/me', { key: teamKey })).status,
      401,
      `the revoked key answers 401 on ${n === a ? 'this' : 'the other'} node`,
    )
  t.equal((await other.call('/admin/me', { key: minted })).status, 200, 'the new key works')

  // No team key anywhere but its one-time display.
  const leaks = bodies
    .slice(keyPage)
    .filter((b) => b.body.includes(teamKey))
    .map((b) => b.url)
  t.same(leaks, [], 'no later page, script or response holds the team key')
  const stored = await page.evaluate(
    () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie,
  )
  t.notMatch(stored, /ar_team_/, 'nor browser storage or readable cookies')
  t.equal((await ctx.cookies()).find((c) => c.name === 'ar_session')?.httpOnly, true, 'the session cookie is HttpOnly')

  // The person deletes their account (and, as its last member, the team): every key answers 401.
  await page.goto(`${site}/team`)
  await page.getByRole('link', { name: 'Delete my account' }).click()
  const teamName = (await page.locator('label strong').textContent())!
  await page.getByLabel(/^Type the team name/).fill(teamName)
  await page.getByRole('button', { name: 'Delete my account' }).click()
  await page.getByRole('heading', { name: 'Account deleted' }).waitFor()
  loaded('the account is deleted', [
    'GET /team 200',
    'GET /account/delete 200',
    'POST /account/delete 303',
    'GET /account/deleted 200',
  ])
  const invite = auth!.replace('Bearer ', '')
  for (const n of [a, other]) {
    for (const [what, key] of [
      ['the new team key', minted],
      ['the room invite key', invite],
    ] as const) {
      t.equal(
        (await n.call('/admin/me', { key })).status,
        401,
        `${what} answers 401 on ${n === a ? 'this' : 'the other'} node`,
      )
    }
  }
  await page.goto(`${site}/`)
  t.match(page.url(), /\/signin$/, 'and the browser is signed out')
  loaded('signed out, the rooms page sends them to sign in', ['GET / 303', 'GET /signin 200'])
})
