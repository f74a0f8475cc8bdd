// The room page by keyboard first, in chromium (playwright-core) at 1280 and at 375 px: a primary
// action (Approve on the review that waits for the person) is reached within 10 Tab presses
// through the skip link "Skip to what needs you"; `?` opens the list of shortcuts and Escape
// closes it; `/` goes to the search box; typing `?` or `/` into a field types it and opens
// nothing; Escape closes an open step and an open side panel. axe-core finds nothing serious.
import type { Page } from 'playwright-core'
import t from 'tap'
import { axeViolations, documents, overflow, operatorInBrowser } from '../helpers/browser.js'

/** The focused element as "tag text" (a field by its name), to tell where Tab went. */
const focused = (p: Page) =>
  p.evaluate(() => {
    const el = document.activeElement
    if (!el) return ''
    const name = el.getAttribute('name')
    const what = name && el.tagName !== 'BUTTON' ? `[${name}]` : (el.textContent ?? '').trim()
    return `${el.tagName.toLowerCase()} ${what}`
  })

/** Presses Tab until the focused element is `want`; the number of presses, or fails past `max`. */
async function tabTo(p: Page, want: string, max: number): Promise<number> {
  for (let i = 1; i <= max; i++) {
    await p.keyboard.press('Tab')
    if ((await focused(p)) === want) return i
  }
  throw new Error(`Tab never reached ${want} in ${max} presses (at ${await focused(p)})`)
}

t.test('the room page by keyboard first', async (t) => {
  const { n, site, page, user } = await operatorInBrowser(t)
  const docs = documents(page)

  const core = n.node.core
  const roomId = 'keys-room'
  await core.rooms.create(user.team, { room_id: roomId, template: 'web-app' }, 'planner')
  const as = (agent: string) => ({ room: { teamId: user.team, roomId }, agent })
  await core.events.post(as('backend'), { type: 'question', text: 'Postgres or SQLite?' })
  await core.plan.updateTask(as('backend'), { task_id: 't1', status: 'in_progress' })
  await core.reviews.request(as('backend'), { target: { kind: 'task', task_id: 't1' }, note: 'Brief ready.' })
  docs.take()

  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 })
    await page.goto(`${site}/room?id=${roomId}`)
    t.same(docs.take(), [`GET /room 200`], `${width}: the room page`)
    await page.locator('#live-status[data-state="live"]').waitFor()

    const skip = await tabTo(page, 'a Skip to what needs you', 3)
    await page.keyboard.press('Enter')
    const more = await tabTo(page, 'button Approve r1', 10 - skip)
    t.ok(skip + more <= 10, `${width}: Approve r1 in ${skip + more} Tab presses (skip link, Enter, then ${more})`)

    await page.keyboard.press('?')
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' })
    await dialog.waitFor()
    t.ok(await dialog.getByText('Go to the search box').isVisible(), `${width}: ? lists the shortcuts`)
    t.same(await axeViolations(page), [], `${width}: the list open, axe finds no serious violation`)
    t.same(await overflow(page), [], `${width}: nothing wider than the window`)
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    t.pass(`${width}: Escape closes it`)

    await page.keyboard.press('/')
    t.equal(await focused(page), 'input [q]', `${width}: / goes to the search box`)
    await page.keyboard.type('a?b/c')
    t.equal(await page.locator('form.search input[name="q"]').inputValue(), 'a?b/c', `${width}: typed, not shortcuts`)
    t.notOk(await dialog.isVisible(), `${width}: ? in a field opens nothing`)

    const post = page.locator('details#post')
    await post.locator('summary').focus()
    await page.keyboard.press('Enter')
    await post.locator('textarea[name="text"]').focus()
    await page.keyboard.press('Escape')
    t.notOk(await post.evaluate((d) => (d as HTMLDetailsElement).open), `${width}: Escape closes the open step`)
    t.equal(await focused(page), 'summary Post to the room', `${width}: and focuses its summary`)

    await page.goto(`${site}/room?id=${roomId}&task=t2`)
    docs.take()
    await page.locator('.side-panels.open').waitFor()
    await page.keyboard.press('Escape')
    await page.waitForURL((u) => !u.search.includes('task='))
    t.equal(await page.locator('.side-panels.open').count(), 0, `${width}: Escape closes the side panel`)
    t.same(docs.take(), ['GET /room 200'], `${width}: by its Close link`)
    t.same(await axeViolations(page), [], `${width}: the room page, axe finds no serious violation`)
    if (process.env.SCREENSHOTS_DIR) {
      await page.keyboard.press('?')
      await dialog.waitFor()
      await page.screenshot({ path: `${process.env.SCREENSHOTS_DIR}/room-shortcuts-${width}.png` })
      await page.keyboard.press('Escape')
    }
  }
})
