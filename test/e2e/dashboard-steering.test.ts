// Steering a room from the page in a real browser (Debian's chromium through playwright-core), at
// 1280 and at 375 px: the person decides a review that names an agent as its reviewer (an
// override, said in the review), and reloading the page afterwards repeats nothing
// (Post/Redirect/Get); a context entry typed in a textarea (the browser sends CRLF) is stored with
// LF; the feed filtered by type shows only that type, with replies collapsed under their event
// and times as how long ago with the exact time on hover; the favicon loads; the team is renamed
// from its page and every page shows the new name; the room is archived from its page, which
// says so, and the rooms page lists it under "Archived". axe-core finds nothing serious.
import type { Page } from 'playwright-core'
import t from 'tap'
import { axeViolations, documents, overflow, roomInBrowser } from '../helpers/browser.js'

t.test('steering a room from its page, in chromium', async (t) => {
  const { n, site, page, as } = await roomInBrowser(t, 'Shop', 'planner, backend')
  const docs = documents(page)
  const loaded = (name: string, ...want: string[]) => t.same(docs.take(), want, `${name}: ${want.join(', ')}`)
  const core = n.node.core
  const axe = async (name: string, p: Page = page) => {
    t.same(await axeViolations(p), [], `${name}: axe finds no serious violation`)
    t.same(await overflow(p), [], `${name}: nothing wider than the window`)
  }
  for (const a of ['planner', 'backend']) await core.presence.heartbeat(as(a))
  const q = await core.events.post(as('backend'), { type: 'question', text: 'Postgres or SQLite?' })
  await core.events.reply(as('planner'), { event_id: q.event.id, text: 'Postgres.' })
  await core.events.post(as('backend'), { type: 'status', text: 'Schema drafted.' })
  docs.take()

  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 })
    const { task } = await core.plan.addTask(as('backend'), { title: `Schema at ${width}` })
    await core.plan.updateTask(as('backend'), { task_id: task.id, status: 'in_progress' })
    const { review } = await core.reviews.request(as('backend'), {
      target: { kind: 'task', task_id: task.id },
      reviewer: 'planner',
      note: 'Ready for a look.',
    })

    // A review naming planner (online, so not waiting for a person): the person decides it in the
    // reviews, which say that this overrides planner.
    await page.goto(`${site}/room?id=Shop`)
    loaded(`${width}: the room page`, 'GET /room 200')
    const need = page.locator('[data-part=reviews] li', { hasText: `Note on ${review.id}` })
    t.match(await need.textContent(), /planner is asked to review this.*overrides them/, `${width}: the review says`)
    await axe(`${width}: the room page`)
    await need.getByLabel(`Note on ${review.id} (optional)`).fill('Looks right.')
    await need.getByRole('button', { name: `Approve ${review.id}` }).click()
    await page.waitForURL(/\/room\?id=Shop/)
    loaded(`${width}: approved`, 'POST /room/reviews 303', 'GET /room 200')
    const decided = (await core.reviews.list(as('planner'), {})).reviews.find((r) => r.id === review.id)!
    t.match(decided, { status: 'approved', decision_note: 'Looks right.' }, `${width}: approved, with the note`)
    t.match(decided.decided_by, /^human:/, `${width}: decided by the person`)
    t.match(
      await page.locator('[data-part=reviews] li', { hasText: review.id }).first().textContent(),
      /approved by human:\S+ in place of planner/,
      `${width}: the review says whom the person overrode`,
    )
    await page.reload()
    loaded(`${width}: a reload reads the page again, and posts nothing`, 'GET /room 200')
    t.equal(
      (await core.reviews.list(as('planner'), {})).reviews.filter((r) => r.status === 'approved').length,
      width === 1280 ? 1 : 2,
      `${width}: one decision per press`,
    )

    // The answered question's reply is collapsed in a thread under it.
    const thread = page.locator(`#event-${q.event.id} details.thread`)
    t.equal(await thread.count(), 1, `${width}: the reply is in a thread`)
    t.notOk(await thread.evaluate((d) => (d as HTMLDetailsElement).open), `${width}: collapsed`)

    // A context entry typed in the browser: CRLF on the wire, LF stored.
    await page.locator('#context-write > summary').click()
    await page.getByLabel('Type (lowercase, e.g. spec, decision)').fill('spec')
    await page.getByLabel('Key', { exact: true }).fill(`notes-${width}`)
    await page.locator('#context-write textarea[name=body]').fill('line one\nline two\n')
    await page.getByRole('button', { name: 'Save context entry' }).click()
    await page.waitForURL(/\/room\?id=Shop/)
    loaded(`${width}: the entry saved`, 'POST /room/context 303', 'GET /room 200')
    const entry = await core.context.read(as('planner'), { type: 'spec', key: `notes-${width}` })
    t.equal(entry.body, 'line one\nline two\n', `${width}: stored with LF`)

    // The feed filtered to questions: only questions, times as how long ago.
    await page.locator('form.filters select[name=type]').selectOption('question')
    await page.locator('form.filters').getByRole('button', { name: 'Show' }).click()
    await page.waitForURL(/type=question/)
    loaded(`${width}: the feed filtered`, 'GET /room 200')
    const items = page.locator('#feed > li[data-event]')
    t.ok((await items.count()) >= 1, `${width}: a question shows`)
    t.same(
      [...new Set(await items.locator(':scope > div .tag').allTextContents())],
      ['question'],
      `${width}: only questions`,
    )
    const time = items.first().locator('time[data-ago]').first()
    t.equal(await time.textContent(), 'just now', `${width}: how long ago`)
    t.match(
      await time.getAttribute('title'),
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/,
      `${width}: the exact time on hover`,
    )
    await axe(`${width}: the feed filtered`)
  }

  // The favicon every page links loads.
  const icon = await page.locator('link[rel=icon]').getAttribute('href')
  const got = await page.request.get(`${site}${icon}`)
  t.equal(got.status(), 200, 'the favicon loads')
  t.match(got.headers()['content-type'], /^image\/svg\+xml/, 'as SVG')

  // The team renamed from its page: every page says the new name.
  await page.goto(`${site}/team`)
  await page.getByText('Rename the team', { exact: true }).first().click()
  await page.getByLabel(/^New name of the team/).fill('Acme shop')
  await page.getByRole('button', { name: 'Rename the team' }).click()
  await page.getByRole('heading', { name: 'Team Acme shop' }).waitFor()
  loaded('the team renamed', 'GET /team 200', 'POST /team/rename 303', 'GET /team 200')
  await axe('the team page, renamed')

  // The room archived from its page: the page says so; the rooms page lists it as archived.
  await page.goto(`${site}/room?id=Shop`)
  await page.getByRole('button', { name: 'Archive this room' }).click()
  await page.locator('p.notice.archived').waitFor()
  loaded('archived', 'GET /room 200', 'POST /room/archive 303', 'GET /room 200')
  t.match(await page.locator('p.notice.archived').textContent(), /this room is read-only/, 'the page says so')
  await axe('the room page, archived')
  await page.goto(`${site}/`)
  loaded('the rooms page', 'GET / 200')
  t.ok(await page.getByRole('heading', { name: /^Archived/ }).isVisible(), 'an "Archived" list')
  await axe('the rooms page, one archived')
})
