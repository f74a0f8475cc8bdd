// The consent page in a real browser (chromium): the MCP SDK client's authorization URL opened by
// a signed-in person, the page judged at 375 and 1280 px (nothing wider than the window, no
// serious axe violation), the choices made with the mouse, Allow, and the browser carried to the
// client's loopback redirect with the code (the page's form-action allows that redirect).
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'
import { axeViolations, launch } from '../helpers/browser.js'
import { callTool } from '../helpers/mcp.js'
import { MemoryAuthProvider } from '../helpers/mcp-oauth.js'
import { uid } from '../helpers/shared.js'

const REDIRECT = 'http://127.0.0.1:40333/callback'

t.test('consent in chromium', async (t) => {
  const { n, b } = await signedInOperator(t)
  const base = n.base.replace('127.0.0.1', 'localhost')
  const me = (await n.node.accounts.session(b.jar.get('ar_session')!))!
  const roomId = uid('room')
  await n.node.core.rooms.create(me.team, { room_id: roomId }, 'test')
  const provider = new MemoryAuthProvider(REDIRECT, undefined, 'Claude Code')
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider })
  await t.rejects(new Client({ name: 'browser-test', version: '1.0.0' }).connect(transport), /Unauthorized/)

  const browser = await launch(t)
  for (const width of [375, 1280]) {
    const context = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: width === 1280 })
    await context.addCookies([{ name: 'ar_session', value: b.jar.get('ar_session')!, url: base }])
    const page = await context.newPage()
    let callback: URL | undefined
    await page.route('http://127.0.0.1:40333/**', async (route) => {
      callback = new URL(route.request().url())
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'signed in' })
    })
    await page.goto(provider.authorizationUrl!.toString())
    t.match(page.url(), /\/oauth\/consent\//, `${width} px: the consent page`)
    await page.screenshot({ path: `/tmp/oauthw/consent-${width}.png`, fullPage: true })
    const wide = await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')
    t.equal(wide, false, `${width} px: nothing wider than the window`)
    if (width === 1280) {
      t.same(await axeViolations(page), [], 'no serious axe violation')
      await context.close()
      continue
    }
    await page.selectOption('select[name=room]', roomId)
    await page.fill('input[name=agent]', 'phone-agent')
    await page.check('input[name=access][value=write]')
    await page.click('button[value=allow]')
    await page.waitForURL(/127\.0\.0\.1:40333/)
    t.ok(callback, 'the browser reached the client redirect')
    t.equal(callback!.searchParams.get('iss'), n.node.baseUrl)
    await transport.finishAuth(callback!.searchParams.get('code')!)
    const client = new Client({ name: 'browser-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }))
    t.teardown(() => client.close())
    const r = await callTool(client, 'post_event', {
      room_id: roomId,
      agent_id: 'phone-agent',
      type: 'note',
      text: 'hi',
    })
    t.equal(r.isError, false, JSON.stringify(r.body))
    await context.close()
  }
})
