// Deleting a room from its page in a real browser (Debian's chromium through playwright-core), at
// 1280 and 375 px: the button asks first, on a page that counts what goes and offers to cancel;
// cancelling keeps the room; confirming deletes it, the rooms page says what went, and its address
// is a 404. axe-core finds nothing serious on the confirmation page, nothing is wider than the window.
// A member, who may not, finds no such button on the room page but the note saying which role may.
// The feed pages back 50 events at a time ("Earlier events"), and filtered shows only its type.
import t from 'tap'
import { axeViolations, createRoomInPage, documents, operatorInBrowser, overflow } from '../helpers/browser.js'
import { linkIn } from '../helpers/mail.js'
import { uid } from '../helpers/shared.js'

t.test('deleting a room from its page, in chromium', async (t) => {
  const { n, site, page, user, browser, inbox } = await operatorInBrowser(t)
  const docs = documents(page)
  const loaded = (name: string, ...want: string[]) => t.same(docs.take(), want, `${name}: ${want.join(', ')}`)

  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 })
    const roomId = `gone-${width}`
    await createRoomInPage(page, site, roomId, 'planner')
    const as = { room: { teamId: user.team, roomId }, agent: 'planner' }
    await n.node.core.events.post(as, { type: 'message', text: 'Still here.' })
    await page.goto(`${site}/room?id=${roomId}`)
    docs.take()

    // The room page's button asks first: a page saying what goes, counted, with a way back.
    await page.getByRole('button', { name: 'Delete this room…' }).click()
    await page.getByRole('heading', { name: `Delete room ${roomId}?` }).waitFor()
    loaded(`${width}: asked`, 'POST /room/delete 200')
    const says = (await page.locator('main').textContent()) ?? ''
    t.match(says, /Room gone-\d+ and everything in it go for good: \d+ task\(s\), 1 event\(s\), \d+ context entr/)
    t.match(says, 'This cannot be undone; archiving keeps the room read-only instead.', `${width}: and the way out`)
    t.same(await axeViolations(page), [], `${width}: axe finds no serious violation on the confirmation`)
    t.same(await overflow(page), [], `${width}: nothing wider than the window`)
    t.ok(await n.node.core.rooms.exists(as.room), `${width}: nothing deleted yet`)

    // Cancel goes back to the room, which stays.
    await page.getByRole('link', { name: 'Cancel: keep it and go back' }).click()
    await page.getByRole('heading', { level: 1, name: roomId }).waitFor()
    loaded(`${width}: cancelled`, 'GET /room 200')
    t.ok(await n.node.core.rooms.exists(as.room), `${width}: the room stays`)

    // Confirmed: the rooms page says what went; the room's address is a 404.
    await page.getByRole('button', { name: 'Delete this room…' }).click()
    await page.getByRole('button', { name: `Delete room ${roomId}` }).click()
    await page.locator('.notice', { hasText: `Room ${roomId} is deleted` }).waitFor()
    loaded(`${width}: deleted`, 'POST /room/delete 200', 'POST /room/delete 303', 'GET / 200')
    t.match(
      await page.locator('.notice', { hasText: `Room ${roomId} is deleted` }).textContent(),
      /\d+ task\(s\), 1 event\(s\)/,
      `${width}: saying what went`,
    )
    t.equal(await page.locator(`a[href="/room?id=${roomId}"]`).count(), 0, `${width}: no longer listed`)
    t.notOk(await n.node.core.rooms.exists(as.room), `${width}: the room is gone`)
    const gone = await page.goto(`${site}/room?id=${roomId}`)
    t.equal(gone?.status(), 404, `${width}: its page is not found`)
    docs.take()
  }

  // A member sees why the room's controls are not there.
  await page.setViewportSize({ width: 1280, height: 900 })
  await createRoomInPage(page, site, 'kept', 'planner')
  const email = `${uid('m')}@example.com`
  await page.goto(`${site}/team`)
  await page.getByLabel('E-mail address to invite').fill(email)
  await page.getByRole('button', { name: 'Send invite' }).click()
  await page.waitForLoadState()
  const member = await (await browser.newContext()).newPage()
  await member.goto(linkIn(await inbox.next(email)).replace('127.0.0.1', 'localhost'))
  await member.getByRole('button', { name: 'Continue' }).click()
  await member.waitForLoadState()
  for (const width of [1280, 375]) {
    await member.setViewportSize({ width, height: 900 })
    const res = await member.goto(`${site.replace('127.0.0.1', 'localhost')}/room?id=kept`)
    t.equal(res?.status(), 200, `${width}: the member opens the room`)
    const manage = member.locator('section.manage')
    t.equal(await manage.getByRole('button').count(), 0, `${width}: no archive or delete button`)
    t.match(
      await manage.textContent(),
      'Archiving, restoring or deleting a room needs the role owner or admin; you are member.',
      `${width}: and the note says why`,
    )
    t.match(
      await member.locator('p.role-note').textContent(),
      /^You are a member: you can /,
      `${width}: what they can do`,
    )
    t.same(await overflow(member), [], `${width}: nothing wider than the window`)
  }

  // The feed pages back 50 events at a time, and a filter pages the same way.
  const kept = { room: { teamId: user.team, roomId: 'kept' }, agent: 'planner' }
  for (let i = 0; i < 55; i++)
    await n.node.core.events.post(kept, { type: i % 5 === 0 ? 'question' : 'message', text: `Note ${i}` })
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 })
    await page.goto(`${site}/room?id=kept`)
    const feed = page.locator('#feed > li[data-event]')
    t.equal(await feed.count(), 50, `${width}: the latest 50`)
    t.equal(await feed.first().locator('.event-text').textContent(), 'Note 54', `${width}: newest first`)
    await page.getByRole('link', { name: 'Earlier events' }).click()
    await page.waitForURL(/before=/)
    t.match(await page.locator('#feed').getAttribute('aria-label'), 'Earlier events, newest first', `${width}: paged`)
    t.equal(await feed.first().locator('.event-text').textContent(), 'Note 4', `${width}: the next older one first`)
    t.equal(await page.getByRole('link', { name: 'Earlier events' }).count(), 0, `${width}: nothing earlier`)
    await page.goto(`${site}/room?id=kept&type=question`)
    t.same(
      [...new Set(await feed.locator(':scope > div .tag').allTextContents())],
      ['question'],
      `${width}: filtered to questions`,
    )
    t.equal(await feed.count(), 11, `${width}: all 11 questions`)
    t.same(await overflow(page), [], `${width}: nothing wider than the window`)
  }
})
