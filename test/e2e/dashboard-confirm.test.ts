// Destructive changes in chromium (playwright-core), by keyboard alone, at 1280 and at 375 px:
// revoking a key takes two steps — Enter on "Revoke key_…" opens the step that says what goes,
// Escape closes it again (the script), Tab reaches the one button that names the key, Enter
// revokes it and the page redirects (Post/Redirect/Get). Without the script the same steps work
// (the <details> is the browser's own). A post that skipped the step gets the confirmation page,
// which revokes nothing until its button is pressed. axe-core finds nothing serious on either.
import type { Page } from 'playwright-core'
import t from 'tap'
import { axeViolations, documents, overflow, operatorInBrowser } from '../helpers/browser.js'

/** The focused element as "tag text", to tell where Tab went. */
const focused = (p: Page) =>
  p.evaluate(() => {
    const el = document.activeElement
    return el ? `${el.tagName.toLowerCase()} ${(el.textContent ?? '').trim()}` : ''
  })

/** Presses Tab until the focused element is `want` ("tag text"); fails past `max` presses. */
async function tabTo(p: Page, want: string, max = 80): Promise<number> {
  for (let i = 1; i <= max; i++) {
    await p.keyboard.press('Tab')
    if ((await focused(p)) === want) return i
  }
  throw new Error(`Tab never reached ${want} in ${max} presses`)
}

t.test('confirmation steps by keyboard, with and without the script', async (t) => {
  const { n, site, browser, page, session, user } = await operatorInBrowser(t)
  const docs = documents(page)
  const loaded = (name: string, ...want: string[]) => t.same(docs.take(), want, `${name}: ${want.join(', ')}`)
  const mint = async (label: string) =>
    n.node.teams.mintTeamKey(user.team, { label, scope: 'admin' }, { user: user.id })
  const live = async (key: string) => (await n.call('/admin/me', { key })).status === 200

  const axe = async (name: string, p: Page) => {
    t.same(await axeViolations(p), [], `${name}: axe finds no serious violation`)
    await p.emulateMedia({ colorScheme: 'dark' })
    t.same(await axeViolations(p, ['color-contrast']), [], `${name}: nor in the dark colour scheme (contrast)`)
    await p.emulateMedia({ colorScheme: 'light' })
    t.same(await overflow(p), [], `${name}: nothing wider than the window`)
  }

  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 })
    const { key, info } = await mint(`w${width}`)
    await page.goto(`${site}/team/keys`)
    loaded(`${width}: keys`, 'GET /team/keys 200')
    const presses = await tabTo(page, `summary Revoke ${info.keyId}…`)
    t.ok(presses > 0, `${width}: Tab reaches "Revoke ${info.keyId}…" (${presses} presses)`)
    await page.keyboard.press('Enter')
    const step = page.locator('details.confirm[open]')
    await step.getByText('get 401 on every node within a second').waitFor()
    t.ok(await live(key), `${width}: opening the step revokes nothing`)
    await axe(`${width}: keys, the step open`, page)
    await page.keyboard.press('Escape')
    t.equal(await step.count(), 0, `${width}: Escape closes it`)
    t.equal(await focused(page), `summary Revoke ${info.keyId}…`, `${width}: and the focus is back on its summary`)
    await page.keyboard.press('Enter')
    await page.keyboard.press('Tab')
    t.equal(await focused(page), `button Revoke ${info.keyId}`, `${width}: Tab reaches the button naming the key`)
    await page.keyboard.press('Enter')
    await page.getByText(`Key ${info.keyId} is revoked`).waitFor()
    loaded(`${width}: revoked`, 'POST /team/keys/revoke 303', 'GET /team/keys 200')
    t.notOk(await live(key), `${width}: the key is refused`)
    t.match(page.url(), /\/team\/keys\?done=/, `${width}: the address is the page, not the form's POST`)
  }

  t.test('without the script: the same two steps', async (t) => {
    const plain = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 375, height: 800 } })
    t.teardown(() => plain.close())
    await plain.addCookies([session])
    const p = await plain.newPage()
    const { key, info } = await mint('plain')
    await p.goto(`${site}/team/keys`)
    await tabTo(p, `summary Revoke ${info.keyId}…`)
    await p.keyboard.press('Enter')
    await p.keyboard.press('Tab')
    t.equal(await focused(p), `button Revoke ${info.keyId}`)
    t.ok(await live(key), 'nothing revoked before the button')
    await p.keyboard.press('Enter')
    await p.getByText(`Key ${info.keyId} is revoked`).waitFor()
    t.notOk(await live(key), 'revoked by the button')
  })

  t.test('a post that skipped the step: the confirmation page, by keyboard', async (t) => {
    await page.setViewportSize({ width: 375, height: 800 })
    const { key, info } = await mint('skipped')
    await page.goto(`${site}/team/keys`)
    docs.take()
    // As a form of an older page would send it: without the confirmation field.
    await page.evaluate((id) => {
      const input = document.querySelector(`input[name="key"][value="${id}"]`)!
      input.closest('form')!.querySelector('input[name="confirmed"]')!.remove()
    }, info.keyId)
    await tabTo(page, `summary Revoke ${info.keyId}…`)
    await page.keyboard.press('Enter')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: `Revoke ${info.keyId}?` }).waitFor()
    loaded('the confirmation page', 'POST /team/keys/revoke 200')
    t.ok(await live(key), 'revokes nothing')
    await axe('the confirmation page, 375 px', page)
    await page.setViewportSize({ width: 1280, height: 900 })
    t.same(await overflow(page), [], 'nor at 1280 px')
    await tabTo(page, `button Revoke ${info.keyId}`)
    await page.keyboard.press('Enter')
    await page.getByText(`Key ${info.keyId} is revoked`).waitFor()
    loaded('confirmed there', 'POST /team/keys/revoke 303', 'GET /team/keys 200')
    t.notOk(await live(key), 'revoked')
  })
})
