// mcp-remote (the stdio proxy that MCP clients without remote support run for a remote server)
// connects to a real node by its URL alone and signs in with its own OAuth flow: discovery from the
// 401, Dynamic Client Registration with its loopback callback, PKCE, `resource`. Its browser step
// goes to stand-in openers, first on PATH under every name it tries and as BROWSER (which the
// `open` package's bundled xdg-open runs), that hand the URL to the test; chromium then signs in by mailed link and
// consents, and is sent to mcp-remote's own callback server with the code. An MCP client then
// speaks to mcp-remote over stdio: it lists the tools and posts an event, which names the grant.
// mcp-remote runs with a HOME and config directory of the test's own, so no state comes or goes.
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import t from 'tap'
import { testPrefix } from '../helpers/accounts.js'
import { launch, signInByMail } from '../helpers/browser.js'
import { startSmtp } from '../helpers/mail.js'
import { callTool } from '../helpers/mcp.js'
import { startNode } from '../helpers/node.js'
import { uid } from '../helpers/shared.js'
import { waitFor } from '../helpers/wait.js'

t.setTimeout(170_000)

/** mcp-remote's proxy script, from its package's `bin`. */
function proxyScript(): string {
  const require = createRequire(import.meta.url)
  const manifest = require.resolve('mcp-remote/package.json')
  const pkg = require(manifest) as { bin: Record<string, string> }
  return join(dirname(manifest), pkg.bin['mcp-remote']!)
}

/** A loopback port nothing listens on (for mcp-remote's callback server). */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((ok) => server.close(() => ok()))
  return port
}

/**
 * Browser openers that each append "<name> <url>" (the name they were run by, the last argument)
 * to `file` and succeed, as a browser that was started does: a directory for PATH with every name
 * mcp-remote and the `open` package try (`xdg-open`, `open`, `gio`, `www-browser`, …), and one
 * named `browser` outside it for BROWSER, so the line says which way the URL came.
 */
async function fakeOpeners(dir: string, file: string): Promise<{ bin: string; browser: string }> {
  const bin = join(dir, 'bin')
  const opener = join(dir, 'opener')
  await writeFile(opener, `#!/bin/sh\nfor a; do u="$a"; done\nprintf '%s %s\\n' "$(basename "$0")" "$u" >> '${file}'\n`)
  await chmod(opener, 0o755)
  await mkdir(bin)
  for (const name of ['xdg-open', 'open', 'gio', 'www-browser', 'x-www-browser', 'sensible-browser'])
    await symlink(opener, join(bin, name))
  await symlink(opener, join(dir, 'browser'))
  return { bin, browser: join(dir, 'browser') }
}

t.test('mcp-remote signs in through chromium and proxies MCP over stdio', async (t) => {
  const inbox = await startSmtp(t)
  const op = `${uid('op')}@example.com`
  const n = await startNode(t, 'standalone', { keyPrefix: testPrefix(), smtpUrl: inbox.url, adminEmails: [op] })
  const site = n.base.replace('127.0.0.1', 'localhost')
  const issuer = n.node.baseUrl

  const browser = await launch(t)
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  const page = await ctx.newPage()
  await signInByMail(page, site, inbox, op)
  const session = (await ctx.cookies()).find((c) => c.name === 'ar_session')!.value
  const me = (await n.node.accounts.session(session))!
  const roomId = uid('room')
  await n.node.core.rooms.create(me.team, { room_id: roomId }, 'test')

  const dir = await mkdtemp(join(tmpdir(), 'mcp-remote-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const opened = join(dir, 'opened')
  const { bin, browser: opener } = await fakeOpeners(dir, opened)
  const home = join(dir, 'home')
  const configDir = join(home, '.mcp-auth')
  const port = await freePort()
  const callback = `http://localhost:${port}/oauth/callback`

  const stderr: string[] = []
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [proxyScript(), `${site}/mcp`, String(port), '--auth-timeout', '120'],
    env: { HOME: home, MCP_REMOTE_CONFIG_DIR: configDir, PATH: `${bin}:${process.env.PATH}`, BROWSER: opener },
    stderr: 'pipe',
  })
  transport.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()))
  const client = new Client({ name: 'remote-test', version: '1.0.0' })
  t.teardown(() => client.close())
  // connect() sends initialize at once; mcp-remote answers it once its own sign-in is done.
  const connected = client.connect(transport, { timeout: 150_000 })
  connected.catch(() => undefined)

  const openedText = () => readFile(opened, 'utf8').catch(() => '')
  await waitFor(async () => (await openedText()) !== '', 60_000, 'mcp-remote to open the browser').catch((err) => {
    throw new Error(`${(err as Error).message}; mcp-remote said:\n${stderr.join('')}`)
  })
  const line = (await openedText()).trim()
  t.equal(line.split('\n').length, 1, 'the browser is opened once')
  const [by, href] = line.split(' ')
  t.comment(`mcp-remote's browser step ran the stand-in as ${by}`)
  const url = new URL(href!)
  t.equal(url.origin + url.pathname, `${issuer}/oauth/authorize`, 'the authorization endpoint it discovered')
  t.equal(url.searchParams.get('redirect_uri'), callback, 'its callback on the port it was given')
  t.equal(url.searchParams.get('code_challenge_method'), 'S256', 'PKCE S256')
  t.equal(url.searchParams.get('resource'), `${issuer}/mcp`, 'it names this resource (RFC 8707)')

  await page.goto(url.toString())
  t.match(page.url(), /\/oauth\/consent\//, 'the consent page')
  t.match(await page.textContent('main'), `localhost:${port}`, 'it names the host the browser goes back to')
  await page.selectOption('select[name=room]', roomId)
  await page.fill('input[name=agent]', 'remote-agent')
  await page.check('input[name=access][value=write]')
  await page.click('button[value=allow]')
  await page.waitForURL((u) => u.origin === `http://localhost:${port}`)
  t.match(await page.textContent('body'), /Authorization successful/, "mcp-remote's callback took the code")

  await connected.catch((err: Error) => {
    throw new Error(`${err.message}\nmcp-remote said:\n${stderr.join('')}`)
  })
  const tools = await client.listTools()
  t.ok(
    tools.tools.some((x) => x.name === 'post_event'),
    'tools/list through mcp-remote',
  )
  t.notOk(
    tools.tools.some((x) => x.name === 'list_rooms'),
    'a grant for one room lists no team tools',
  )
  const posted = await callTool(client, 'post_event', { room_id: roomId, type: 'note', text: 'via mcp-remote' })
  t.equal(posted.isError, false, JSON.stringify(posted.body))

  const grants = await n.node.grants.list(me.team)
  t.equal(grants.length, 1, 'one connected agent')
  const grant = grants[0]!
  t.match(
    grant,
    { room_id: roomId, agent_id: 'remote-agent', access: 'write', redirect_host: `localhost:${port}`, user_id: me.id },
    'the grant is what the person chose',
  )
  const read = await callTool(client, 'read_events', { room_id: roomId })
  t.equal(read.isError, false, JSON.stringify(read.body))
  const mine = (read.body.events as { text?: string; agent_id: string; via: unknown }[]).find(
    (e) => e.text === 'via mcp-remote',
  )
  t.match(mine, { agent_id: 'remote-agent', via: { kind: 'grant', id: grant.id } }, 'the write names the grant')
  const trail = await n.node.audit.read(me.team)
  t.ok(
    trail.some((e) => e.action === 'connected agent' && (e.target ?? '').includes(grant.id)),
    'the connection is audited',
  )

  const saved = await readdir(configDir, { recursive: true })
  t.ok(
    saved.some((f) => f.endsWith('_tokens.json')),
    `mcp-remote kept its tokens in the test's config directory (${saved.join(', ')})`,
  )
})
