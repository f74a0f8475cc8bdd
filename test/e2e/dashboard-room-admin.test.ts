// Deleting a room from its page in a real browser (Debian's chromium through playwright-core), at
// 1280 and 375 px: the button asks first, on a page that counts what goes and offers to cancel;
// cancelling keeps the room; confirming deletes it, the rooms page says what went, and its address
// is a 404. axe-core finds nothing serious on the confirmation page, nothing is wider than the window.
import t from 'tap'
import { axeViolations, createRoomInPage, documents, operatorInBrowser, overflow } from '../helpers/browser.js'

t.test('deleting a room from its page, in chromium', async (t) => {
  const { n, site, page, user } = await operatorInBrowser(t)
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
})
