// The plan graph and the activity strips in a real browser (Debian's chromium through
// playwright-core), at 1280 and at 375 px: the SVG is drawn with a box per open task and an arrow
// per dependency, the page passes axe-core and is never wider than the window (a wide graph
// scrolls in its own box), and a node, clicked or reached by keyboard, opens its task.
// Screenshots in $SHOTS (default /tmp/dash-graph-shots).
import { mkdirSync } from 'node:fs'
import t from 'tap'
import { axeViolations, documents, overflow, roomInBrowser } from '../helpers/browser.js'

const SHOTS = process.env.SHOTS ?? '/tmp/dash-graph-shots'

t.test('the plan graph, in chromium', async (t) => {
  mkdirSync(SHOTS, { recursive: true })
  const { n, site, page, as } = await roomInBrowser(t, 'Shop', 'planner, backend')
  const docs = documents(page)
  const core = n.node.core
  // Two chains from t1 and a wide rank: eight tasks wait for t1, so the graph is wider than a phone.
  await core.plan.addTask(as('planner'), { title: 'Design the <schema> & "orders"' })
  for (let i = 2; i <= 9; i++) await core.plan.addTask(as('planner'), { title: `Endpoint ${i}`, depends_on: ['t1'] })
  await core.plan.addTask(as('planner'), { title: 'Release', depends_on: ['t2', 't3'] })
  await core.plan.updateTask(as('backend'), { task_id: 't1', status: 'in_progress' })
  await core.events.post(as('backend'), { type: 'status', text: 'On the schema.' })
  await core.presence.heartbeat(as('backend'))
  docs.take()

  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 })
    await page.goto(`${site}/room?id=Shop`)
    t.same(docs.take(), ['GET /room 200'], `${width}: the room page`)
    const graph = page.locator('svg.graph')
    const box = await graph.boundingBox()
    t.ok(box && box.width > 400 && box.height > 100, `${width}: the SVG is drawn (${box?.width}×${box?.height})`)
    t.equal(await page.locator('svg.graph a.g-node').count(), 10, `${width}: a node per open task`)
    t.equal(await page.locator('svg.graph path.g-edge').count(), 10, `${width}: an arrow per dependency`)
    t.equal(await page.locator('svg.graph a.g-critical').count(), 3, `${width}: t1, t2, t10 on the critical path`)
    t.match(await page.locator('svg.graph a[data-task="t1"] text').first().textContent(), '★ t1 · in progress')
    t.same(await axeViolations(page), [], `${width}: axe finds no serious violation`)
    await page.emulateMedia({ colorScheme: 'dark' })
    t.same(await axeViolations(page, ['color-contrast']), [], `${width}: nor in the dark scheme (contrast)`)
    await page.emulateMedia({ colorScheme: 'light' })
    t.same(await overflow(page), [], `${width}: nothing wider than the window`)
    const scroll = await page
      .locator('.graph-scroll')
      .evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth, page: document.documentElement.scrollWidth }))
    t.ok(scroll.page <= width, `${width}: the page is not widened by the graph (${scroll.page})`)
    if (width === 375) t.ok(scroll.scroll > scroll.client, 'on a phone the graph scrolls in its box')
    await page.locator('section[aria-labelledby="graph"]').screenshot({ path: `${SHOTS}/graph-${width}.png` })
    await page.locator('section[aria-labelledby="activity"]').screenshot({ path: `${SHOTS}/activity-${width}.png` })
    const strip = page.locator('svg.strip').first()
    t.match(
      await strip.getAttribute('aria-label'),
      /^backend: 1 event, 1 task taken, 0 done in the last 2 h; last seen/,
    )

    // A click on a node opens its task (the one furthest right: scrolled to on a phone).
    await page.locator('svg.graph a[data-task="t10"]').click()
    await page.waitForURL(/task=t10/)
    t.same(docs.take(), ['GET /room 200'], `${width}: the node's link`)
    t.ok(await page.locator('#open-task').getByText('Release').first().isVisible(), `${width}: t10 is open`)

    // By keyboard: focus the node's link and press Enter.
    await page.locator('svg.graph a[data-task="t3"]').focus()
    await page.keyboard.press('Enter')
    await page.waitForURL(/task=t3/)
    t.same(docs.take(), ['GET /room 200'], `${width}: Enter on a node`)
  }
})
