// Live parts in a real browser (Debian's chromium through playwright-core), at 1280 and 375 px:
// an agent's MCP calls change only the parts of the open room page they change — every other
// part is the very DOM node it was (each marked with a JS property before the call) — a new
// event goes into the feed without a fetch; a question and a task claimed come as patches of the
// parts they change, applied in place without a fetch, after which each part is exactly what
// fetching it gives; times say how long ago (a lock's time left counting down), the exact time on
// hover, in the parts patched in too; and a form the person is typing in keeps its text across a
// live change of its part: the part is left stale until they leave it.
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

  /**
   * The parts `names` as fetching them gives (GET /room/part, parsed by the browser) compared with
   * the page's: the `data-part` of each that is the same, markup and version; "<name> differs" else.
   */
  const sameAsFetched = (names: string[]) =>
    page.evaluate(async (names) => {
      const q = new URLSearchParams(location.search)
      for (const n of names) q.append('part', n)
      const doc = new DOMParser().parseFromString(await (await fetch(`/room/part?${q.toString()}`)).text(), 'text/html')
      // No helper function in here: the page has no __name for the names tsx keeps.
      // The words of times relative to now are the script's, not the server's (patch.ts timeless).
      return Array.from(doc.querySelectorAll<HTMLElement>('[data-part]'))
        .filter((el) => el.parentElement === doc.body)
        .map((el) =>
          el.outerHTML.replace(/ data-ready="1"/g, '').replace(/(<time[^>]* data-(?:ago|left)[^>]*>)[^<]*/g, '$1') ===
          (document.querySelector(`[data-part="${el.dataset.part!}"]`)?.outerHTML ?? '')
            .replace(/ data-ready="1"/g, '')
            .replace(/(<time[^>]* data-(?:ago|left)[^>]*>)[^<]*/g, '$1')
            ? el.dataset.part!
            : `${el.dataset.part!} differs`,
        )
    }, names)

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

    // A question: what needs you comes patched (the question, its answer form, the count and the
    // tab's title), without a fetch.
    fetched.length = 0
    const title = await page.title()
    const asked = `Which database, at ${width}?`
    await call('post_event', { type: 'question', text: asked })
    await page.locator('#needs', { hasText: asked }).waitFor()
    await page.waitForFunction((before) => document.title !== before, title)
    t.match(
      await page.title(),
      /^\(\d+\) Live · agentrooms$/,
      `${width}: the count in the title (${await page.title()})`,
    )
    t.same(fetched, [], `${width}: what needs you patched, nothing fetched`)
    t.same(await sameAsFetched(['needs']), ['needs-Live'], `${width}: and it is what fetching it gives`)
    fetched.length = 0

    // A task claimed: the board, the graph, the strips come patched, in place; the feed, the
    // agents, locks, vars, reviews, context are untouched; nothing is fetched.
    await mark()
    fetched.length = 0
    const versions = await page.evaluate(() =>
      Object.fromEntries(
        Array.from(document.querySelectorAll<HTMLElement>('[data-v]')).map((e) => [e.dataset.part, e.dataset.v]),
      ),
    )
    const task = width === 1280 ? 't1' : 't2'
    await call('update_task', { task_id: task, status: 'in_progress', assignee: 'backend' })
    await page.locator(`#col-in_progress`, { hasText: task === 't1' ? 'Build the API' : 'Write the docs' }).waitFor()
    await page.waitForFunction(
      (v) => document.querySelector<HTMLElement>('[data-part=plan]')!.dataset.v !== v,
      versions['plan'],
    )
    const afterClaim = await kept()
    t.same(afterClaim.swapped, [], `${width}: no part is a new node`)
    const moved = await page.evaluate(
      (v) =>
        Object.keys(v).filter((k) => document.querySelector<HTMLElement>(`[data-part="${k}"]`)!.dataset.v !== v[k]),
      versions,
    )
    t.ok(moved.includes('plan'), `${width}: the board patched in place (${moved.join(', ')})`)
    for (const p of ['agents', 'reviews', 'locks', 'vars', 'context'])
      t.notOk(moved.includes(p), `${width}: ${p} unchanged`)
    t.same(fetched, [], `${width}: nothing fetched for a task change`)
    t.same(
      await sameAsFetched(['plan', 'graph', 'activity', 'analytics', 'panel', 'needs']),
      ['plan', 'graph', 'activity', 'analytics', 'panel', 'needs-Live'],
      `${width}: each patched part is what fetching it gives`,
    )
    fetched.length = 0
    t.same(docs.take(), [], `${width}: no page loaded`)

    // Times say how long ago, the exact time (UTC) on hover, in parts patched in as well (a patch
    // leaves their words out: the script writes them); a lock's time left counts down to its end.
    const lock = `deploy-${width}`
    await call('heartbeat', {})
    await call('write_context', { type: 'decision', key: `times-${width}`, body: 'Relative.' })
    await call('acquire_lock', { name: lock, ttl_s: 600 })
    const left = page.locator(`[data-part=locks] tr:has-text("${lock}") time[data-left]`)
    await left.waitFor()
    t.match(await left.textContent(), /^(9 min \d+|10 min 0) s$/, `${width}: the lock's time left`)
    t.match(await left.getAttribute('title'), /^until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/, `${width}: its end`)
    const was = await left.textContent()
    await page.waitForFunction(
      (w) => document.querySelector(`[data-part=locks] time[data-left]`)?.textContent !== w,
      was,
    )
    t.pass(`${width}: counting down`)
    // Counted on the server's clock: a browser whose clock is 5 minutes behind shows the same.
    // A context of its own (the clock is a context's), signed in as the page is.
    const elsewhere = await page
      .context()
      .browser()!
      .newContext({ storageState: await page.context().storageState() })
    const behind = await elsewhere.newPage()
    await behind.setViewportSize({ width, height: 900 })
    await behind.clock.setSystemTime(Date.now() - 5 * 60_000)
    await behind.goto(`${site}/room?id=Live`)
    const leftThere = behind.locator(`[data-part=locks] tr:has-text("${lock}") time[data-left]`)
    await behind.waitForFunction(() => document.querySelector('[data-part=locks] time[data-left]')?.textContent)
    t.match(await leftThere.textContent(), /^(9 min \d+|10 min 0) s$/, `${width}: the same time left, clock behind`)
    await elsewhere.close()
    const times = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLTimeElement>('time[data-ago]')).map((e) => ({
        part: e.closest<HTMLElement>('[data-part]')?.dataset.part ?? '',
        text: e.textContent ?? '',
        title: e.title,
      })),
    )
    const where = new Set(times.map((x) => x.part))
    for (const p of ['head', 'needs-Live', 'agents', 'activity', 'context', 'events'])
      t.ok(where.has(p), `${width}: a time in ${p} says how long ago`)
    t.same(
      times.filter(
        (x) => !/^(just now|\d+ min ago)$/.test(x.text) || !/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/.test(x.title),
      ),
      [],
      `${width}: every time as how long ago, the exact time on hover (${times.length})`,
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
    t.same(fetched, ['events'], `${width}: the feed fetched (what needs you comes patched)`)
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
