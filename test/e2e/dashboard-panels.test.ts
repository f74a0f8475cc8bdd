// The room page's side panels in a real browser (Debian's chromium through playwright-core), at
// 1280 and at 375 px, by mouse and by keyboard: a card opens its task beside the board (in the
// page's flow on a phone), the edit form's save is within ten Tab presses of the panel, the
// assignee is picked from the room's agents, a dependency is added with the keyboard alone and
// saved in one change, a refused one (a cycle) comes back with the choice kept, the message at the
// field and the focus on it; a context entry opens with its versions and the selected version's
// diff. axe-core finds nothing serious, in the light and the dark scheme, and nothing is wider than
// the window. Screenshots in $SHOTS (default /tmp/dash-panels-shots).
import { mkdirSync } from 'node:fs'
import type { Locator } from 'playwright-core'
import t from 'tap'
import { axeViolations, documents, overflow, roomInBrowser } from '../helpers/browser.js'

const SHOTS = process.env.SHOTS ?? '/tmp/dash-panels-shots'

/** Whether the element's top part is within the window. */
const inView = (l: Locator) =>
  l.evaluate((e) => {
    const r = e.getBoundingClientRect()
    return r.top >= -1 && r.top < window.innerHeight - 100
  })

t.test('the side panels, in chromium', async (t) => {
  mkdirSync(SHOTS, { recursive: true })
  const { n, site, page, as } = await roomInBrowser(t, 'Shop', 'planner, backend')
  const docs = documents(page)
  const core = n.node.core
  for (const a of ['planner', 'backend']) await core.presence.heartbeat(as(a))
  await core.plan.addTask(as('planner'), { title: 'Design the <schema>', notes: 'Orders and lines.' })
  await core.plan.addTask(as('planner'), { title: 'Build the API' })
  await core.plan.addTask(as('planner'), { title: 'Write the checkout screens' })
  for (let i = 4; i <= 12; i++) await core.plan.addTask(as('planner'), { title: `Endpoint ${i}` })
  for (const body of ['# API\n', '# API\nGET /orders\n', '# API\nGET /orders\nPOST /orders\n'])
    await core.context.write(as('backend'), { type: 'spec', key: 'api', body })
  const deps = async (id: string) => (await core.plan.getTask(as('planner'), { task_id: id })).task.depends_on
  docs.take()

  for (const width of [1280, 375]) {
    const [task, dep] = width === 1280 ? ['t3', 't2'] : ['t5', 't4']
    await page.setViewportSize({ width, height: 900 })
    await page.goto(`${site}/room?id=Shop`)
    t.same(docs.take(), ['GET /room 200'], `${width}: the room page`)
    t.notOk(await page.locator('#open-task').count(), `${width}: no panel yet`)

    // A card's link opens its task in the panel.
    await page.locator(`#task-${task} a.title`).click()
    await page.waitForURL(new RegExp(`task=${task}#open-task`))
    t.same(docs.take(), ['GET /room 200'], `${width}: the card's link`)
    const panel = page.locator('#open-task')
    await panel.waitFor()
    t.ok(await inView(panel), `${width}: the link brings the panel into view`)
    const box = (await panel.boundingBox())!
    const board = (await page.locator('.board').boundingBox())!
    if (width === 1280) {
      t.ok(
        box.x >= board.x + board.width,
        `beside the board (panel at ${box.x}, board ends at ${board.x + board.width})`,
      )
      await page.mouse.wheel(0, 2500)
      await page.waitForFunction(() => window.scrollY > 1000)
      const after = (await panel.boundingBox())!
      t.ok(after.y >= 0 && after.y < 900, `the panel stays in view as the page scrolls (at ${after.y})`)
      await page.evaluate(() => window.scrollTo(0, 0))
    } else {
      t.ok(box.x >= 0 && box.x + box.width <= width, `${width}: the panel fits the window (${box.x}+${box.width})`)
      t.ok(box.y < board.y, `${width}: above the board, in the page's flow`)
    }
    t.same(await axeViolations(page), [], `${width}: axe finds no serious violation`)
    await page.emulateMedia({ colorScheme: 'dark' })
    t.same(await axeViolations(page, ['color-contrast']), [], `${width}: nor in the dark scheme (contrast)`)
    await page.emulateMedia({ colorScheme: 'light' })
    t.same(await overflow(page), [], `${width}: nothing wider than the window`)
    await page.screenshot({ path: `${SHOTS}/task-${width}.png` })

    // The assignee is one of the room's agents (or nobody), never free text.
    const assignee = panel.getByLabel('Assignee')
    t.equal(await assignee.evaluate((e) => e.tagName), 'SELECT')
    t.match(await assignee.locator('option').allTextContents(), ['unassigned', 'backend', /^human:/, 'planner'])

    // By keyboard from the top of the panel (where the link put the focus): Save within ten Tabs.
    await page.goto(`${site}/room?id=Shop&task=${task}#open-task`)
    docs.take()
    let presses = 0
    let reached = ''
    while (presses < 10 && reached !== `Save ${task}`) {
      await page.keyboard.press('Tab')
      presses++
      reached = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText?.trim() ?? '')
    }
    t.equal(reached, `Save ${task}`, `${width}: the edit form's save is ${presses} Tab presses into the panel`)

    // A dependency added with the keyboard alone: focus the picker, type the task's id, save with Enter.
    await panel.getByLabel('Add a dependency').focus()
    await page.keyboard.type(dep)
    t.equal(await panel.getByLabel('Add a dependency').inputValue(), dep, `${width}: typing the id picks the task`)
    await page.keyboard.press('Tab')
    await page.keyboard.press('Tab')
    t.equal(
      await page.evaluate(() => (document.activeElement as HTMLElement).innerText),
      `Save dependencies of ${task}`,
      `${width}: two Tabs on, the dependencies' save`,
    )
    const saved = page.waitForResponse((r) => r.request().method() === 'GET' && r.url().includes(`task=${task}`))
    await page.keyboard.press('Enter')
    await saved
    await page.waitForLoadState()
    t.same(docs.take(), ['POST /room/tasks/dependencies 303', 'GET /room 200'], `${width}: Post/Redirect/Get`)
    t.same(await deps(task), [dep], `${width}: saved`)
    t.ok(await panel.getByRole('checkbox', { name: new RegExp(`^${dep} `) }).isChecked(), `${width}: shown ticked`)

    // The dependency's own panel: making it wait for this task closes a cycle, refused at the field.
    // (Its id links from "Depends on" and from "Blocked by".)
    await panel.getByRole('link', { name: dep, exact: true }).first().click()
    await page.waitForURL(new RegExp(`task=${dep}#open-task`))
    docs.take()
    await panel.getByLabel('Add a dependency').selectOption(task)
    await panel.getByRole('button', { name: `Save dependencies of ${dep}` }).click()
    await page.waitForLoadState()
    t.same(docs.take(), ['POST /room/tasks/dependencies 400'], `${width}: refused`)
    const error = panel.locator('#edit-deps-error')
    t.equal(
      await error.textContent(),
      `Task ${task} already depends on ${dep} (${dep} -> ${task} -> ${dep}); this would make a cycle`,
      `${width}: the message, in words, at the field`,
    )
    t.equal(await panel.getByLabel('Add a dependency').inputValue(), task, `${width}: the choice kept`)
    t.equal(
      await page.evaluate(() => (document.activeElement as HTMLSelectElement).name),
      'depends_on',
      `${width}: the focus on the refused field`,
    )
    t.same(await axeViolations(page), [], `${width}: the refused form passes axe`)
    await page.screenshot({ path: `${SHOTS}/refused-${width}.png` })
    t.same(await deps(dep), [], `${width}: nothing changed`)

    // A context entry: its text, versions and the current version's diff; v2 by keyboard.
    await page.goto(`${site}/room?id=Shop`)
    await page.getByRole('link', { name: 'spec/api', exact: true }).click()
    await page.waitForURL(/ctx=spec%2Fapi/)
    const cpanel = page.locator('#open-context')
    await cpanel.getByText('Changes v2 → v3').waitFor()
    t.ok(await inView(cpanel), `${width}: the link brings the panel into view`)
    t.same(await cpanel.locator('pre.diff .add').allTextContents(), ['+POST /orders\n'], `${width}: the diff`)
    t.same(await axeViolations(page), [], `${width}: the context panel passes axe`)
    t.same(await overflow(page), [], `${width}: nothing wider than the window`)
    await page.screenshot({ path: `${SHOTS}/context-${width}.png` })
    docs.take()
    await cpanel.getByRole('link', { name: 'Show the changes of v2' }).focus()
    await page.keyboard.press('Enter')
    await page.waitForURL(/from=1&to=2/)
    t.same(docs.take(), ['GET /room 200'], `${width}: Enter on a version`)
    await cpanel.getByText('Changes v1 → v2').waitFor()
    t.same(await cpanel.locator('pre.diff .add').allTextContents(), ['+GET /orders\n'])
    t.equal(await cpanel.locator('[aria-current="true"]').textContent(), 'v2', `${width}: v2 is the one selected`)
    await cpanel.getByRole('link', { name: 'Close spec/api' }).click()
    await page.waitForURL((u) => !u.search.includes('ctx='))
    t.notOk(await page.locator('#open-context').count(), `${width}: closed`)
    docs.take()
  }
})
