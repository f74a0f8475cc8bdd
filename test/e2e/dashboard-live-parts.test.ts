// Live parts in a real browser (Debian's chromium through playwright-core), at 1280 and 375 px:
// an agent's MCP calls change only the parts of the open room page they change — every other
// part is the very DOM node it was (each marked with a JS property before the call) — a new
// event goes into the feed without a fetch, and a form the person is typing in keeps its text
// across a live change of its part: the part is left stale until they leave it.
import t from 'tap'
import { createRoomInPage, documents, overflow, operatorInBrowser } from '../helpers/browser.js'
import { callTool, legacyClient } from '../helpers/mcp.js'

type Marked = HTMLElement & { __mark?: string }

t.test('live parts, in chromium', async (t) => {
  const { n, site, page } = await operatorInBrowser(t, {}, false)
  const docs = documents(page)
  const fetched: string[] = []
  page.on('request', (r) => {
    const u = new URL(r.url())
    const parts = u.searchParams.getAll('part').join(',')
    // The periodic re-read (every 30 s) may come at any time: not what a call changed.
    if (u.pathname === '/room/part' && parts !== 'head,needs,agents,activity,locks,analytics') fetched.push(parts)
  })

  const key = (await page.getByLabel('Team key').inputValue()).trim()
  await createRoomInPage(page, site, 'Live', 'planner, backend')

  const agent = await legacyClient(t, n, key)
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await callTool(agent, name, { room_id: 'Live', agent_id: 'backend', ...args })
    t.notOk(r.isError, `${name} done`)
    return r.body
  }
  await call('add_task', { title: 'Build the API' })
  await call('add_task', { title: 'Write the docs' })
  await call('post_event', { type: 'message', text: 'Starting.' })
  docs.take()

  /** Marks every part of the page with a JS property: a part swapped in is a new node without it. */
  const mark = () =>
    page.evaluate(() => document.querySelectorAll<Marked>('[data-part]').forEach((el) => (el.__mark = el.dataset.part)))
  /** The parts that are still the nodes marked, and those that were replaced. */
  const kept = () =>
    page.evaluate(() => {
      const same: string[] = []
      const swapped: string[] = []
      document
        .querySelectorAll<Marked>('[data-part]')
        .forEach((el) => (el.__mark === el.dataset.part ? same : swapped).push(el.dataset.part!))
      return { same, swapped }
    })

  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 })
    await page.goto(`${site}/room?id=Live`)
    t.same(docs.take(), ['GET /room 200'], `${width}: the room page`)
    await page.locator('#live-status[data-state=live]').waitFor()
    const parts = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>('[data-part]')).map((e) => e.dataset.part!),
    )
    t.ok(parts.length >= 12, `${width}: the page's parts (${parts.join(', ')})`)

    // A message: its item goes first in the feed, from the frame; the head and the feed's count
    // are swapped from the frame too; nothing is fetched.
    await mark()
    fetched.length = 0
    const posted = Number(/(\d+) events posted/.exec((await page.locator('[data-part=head]').textContent())!)![1])
    const msg = (await call('post_event', { type: 'message', text: `On it <b>${width}</b>` })) as {
      event: { id: string }
    }
    const item = page.locator(`#feed > li[data-event="${msg.event.id}"]`)
    await item.waitFor()
    t.equal(await page.locator('#feed > li').first().getAttribute('data-event'), msg.event.id, `${width}: first`)
    t.match(await item.locator('.event-text').textContent(), `On it <b>${width}</b>`, `${width}: as text`)
    await page.waitForFunction(() =>
      /\(\d+ posted\)/.test(document.querySelector('[data-part=events-count]')!.textContent!),
    )
    await page.locator('[data-part=head]', { hasText: `${posted + 1} events posted` }).waitFor()
    const afterPost = await kept()
    t.same(afterPost.swapped.sort(), ['events-count', 'head'], `${width}: only the head and the count are new nodes`)
    t.same(fetched, [], `${width}: nothing fetched for a message`)
    t.same(docs.take(), [], `${width}: and no page loaded`)

    // A task claimed: the board, the graph, what needs you, the strips and the analytics are
    // fetched, in one request; the feed, the agents, locks, vars, reviews, context are untouched.
    await mark()
    fetched.length = 0
    const task = width === 1280 ? 't1' : 't2'
    await call('update_task', { task_id: task, status: 'in_progress', assignee: 'backend' })
    await page.locator(`#col-in_progress`, { hasText: task === 't1' ? 'Build the API' : 'Write the docs' }).waitFor()
    const afterClaim = await kept()
    t.same(
      afterClaim.swapped.filter((p) => !['needs-Live', 'panel', 'graph', 'activity', 'analytics'].includes(p)),
      ['plan'],
      `${width}: the board is new (${afterClaim.swapped.join(', ')})`,
    )
    for (const p of ['head', 'events', 'agents', 'reviews', 'locks', 'vars', 'context'])
      t.ok(afterClaim.same.includes(p), `${width}: ${p} is the same node`)
    t.same(
      fetched,
      ['needs,panel,plan,graph,activity,analytics'],
      `${width}: one fetch of the parts a task change moves`,
    )
    t.same(docs.take(), [], `${width}: no page loaded`)

    // Half a post typed, the focus in it: a new event still goes into the feed (nothing replaced)
    // and a reply, which needs the feed fetched, leaves the part stale with the text kept.
    await mark()
    await page.locator('#post > summary').click()
    const text = page.locator('#post textarea[name=text]')
    await text.fill('Half a thought about')
    await text.focus()
    const another = (await call('post_event', { type: 'status', text: 'Another one' })) as { event: { id: string } }
    await page.locator(`#feed > li[data-event="${another.event.id}"]`).waitFor()
    t.equal(await text.inputValue(), 'Half a thought about', `${width}: the typed text is kept`)
    t.ok(await text.evaluate((el) => el === document.activeElement), `${width}: and the focus`)
    fetched.length = 0
    await call('reply_to_event', { event_id: msg.event.id, text: 'A reply' })
    await page.locator('[data-part=events][data-stale]').waitFor()
    t.same(fetched, ['events,needs'], `${width}: the feed fetched`)
    t.ok((await kept()).same.includes('events'), `${width}: but not replaced while the person types in it`)
    t.equal(await text.inputValue(), 'Half a thought about', `${width}: the text is still there`)
    t.ok(await text.evaluate((el) => el === document.activeElement), `${width}: and the focus`)
    // Leaving the field with text in it keeps the part stale; clearing it lets the part come in.
    await page.locator('h1').click()
    await page.waitForTimeout(300)
    t.ok(await page.locator('[data-part=events][data-stale]').count(), `${width}: still stale with text typed`)
    t.equal(await text.inputValue(), 'Half a thought about', `${width}: the text kept after the focus left`)
    await text.fill('')
    await page.locator('h1').click()
    await page.locator('[data-part=events]:not([data-stale])').waitFor()
    t.ok(
      await page.locator(`#event-${msg.event.id}`).getByText('1 reply').isVisible(),
      `${width}: the reply shows once the person left the form`,
    )
    t.same(await overflow(page), [], `${width}: nothing wider than the window after the updates`)
    t.same(docs.take(), [], `${width}: no page loaded`)
  }
})
