// Consent on the dashboard, with a person signed in by mailed link and the MCP SDK 1.x client
// signing in: the page names the client and its return host; the person picks the room, agent id
// and access; the grant works as chosen (read-only refuses writes), is listed on the Keys page
// with its last use, and revoking it there ends its tokens and a parked wait at once. Refused:
// a consent POST from another origin, another team, a room of another team, a "human:" id, a
// consent link opened in another browser. Declining sends the client access_denied. Each answer
// is in the audit trail.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'
import { Browser, linkIn } from '../helpers/mail.js'
import { callTool } from '../helpers/mcp.js'
import { MemoryAuthProvider } from '../helpers/mcp-oauth.js'
import { uid } from '../helpers/shared.js'
import { eventually } from '../helpers/wait.js'

const REDIRECT = 'http://127.0.0.1:40222/callback'

t.test('consent on the dashboard', async (t) => {
  const { n, b, inbox } = await signedInOperator(t)
  const base = n.base.replace('127.0.0.1', 'localhost')
  const issuer = n.node.baseUrl
  b.base = base
  const me = (await n.node.accounts.session(b.jar.get('ar_session')!))!
  const teamId = me.team
  const roomId = uid('room')
  await n.node.core.rooms.create(teamId, { room_id: roomId }, 'test')
  await n.node.core.presence.heartbeat({ room: { teamId, roomId }, agent: 'reviewer' }, {})
  const otherTeam = await n.node.teams.create({ name: 'other', teamId: uid('tm') })
  const theirRoom = uid('theirs')
  await n.node.core.rooms.create(otherTeam.team.teamId, { room_id: theirRoom }, 'test')

  /** An SDK client up to its browser step: registered, with the authorization URL to open. */
  const start = async (provider: MemoryAuthProvider) => {
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider })
    await t.rejects(new Client({ name: 'consent-test', version: '1.0.0' }).connect(transport), /Unauthorized/)
    const toConsent = await b.get(provider.authorizationUrl!.toString())
    t.equal(toConsent.status, 303)
    return { transport, consentPath: toConsent.location! }
  }
  const audit = async () => (await n.node.audit.read(teamId, 50)).map((e) => `${e.action}: ${e.target ?? ''}`)

  const provider = new MemoryAuthProvider(REDIRECT, undefined, 'Claude Code')
  const { transport, consentPath } = await start(provider)
  t.match(consentPath, /^\/oauth\/consent\//)

  t.test('the page names the client and its return host', async (t) => {
    const page = await b.get(consentPath)
    t.equal(page.status, 200)
    t.match(page.body, /<strong>Claude Code<\/strong> asks to act in the rooms of/)
    t.match(page.body, /goes back to <strong>127\.0\.0\.1:40222<\/strong>/)
    t.match(page.body, new RegExp(`<option value="${roomId}">`), 'the team rooms are offered')
    t.match(page.body, /<option value="reviewer">/, 'agents of the rooms are offered')
    t.match(page.headers.get('content-security-policy') ?? '', /form-action 'self' http:\/\/127\.0\.0\.1:40222;/)
    const elsewhere = await new Browser(base).get(consentPath)
    t.equal(elsewhere.status, 200, 'signed out: asked to sign in')
    t.match(elsewhere.body, /Sign in to connect an agent/)
  })

  t.test('refused answers change nothing and are audited', async (t) => {
    const form = { team: teamId, room: roomId, agent: 'builder', access: 'read', decision: 'allow' }
    const cross = await b.post(consentPath, form, { site: 'cross-site', origin: 'https://evil.example' })
    t.equal(cross.status, 403, 'a consent POST from another origin')
    const team = await b.post(consentPath, { ...form, team: otherTeam.team.teamId })
    t.equal(team.status, 403, 'another team')
    t.match(team.body, /only to your own team/)
    const room = await b.post(consentPath, { ...form, room: theirRoom })
    t.equal(room.status, 404, 'a room of another team')
    t.match(room.body, new RegExp(`no room ${theirRoom} in your team`))
    const human = await b.post(consentPath, { ...form, agent: 'human:owner' })
    t.equal(human.status, 400)
    t.match(human.body, /kept for people/)
    const other = new Browser(base, b.origin)
    other.cookie = `ar_session=${b.jar.get('ar_session')}`
    const stolen = await other.post(consentPath, form)
    t.equal(stolen.status, 404, 'a consent link opened in a browser that did not start it')
    t.equal((await n.node.grants.list(teamId)).length, 0, 'no grant made')
    const refusals = async () => (await audit()).filter((e) => e.startsWith('refused agent connection'))
    t.ok(await eventually(async () => (await refusals()).length === 4), 'four refusals in the trail')
    t.match(
      (await refusals()).find((e) => e.includes('another origin')),
      /a POST from another origin \(the request came from another site \(Sec-Fetch-Site: cross-site\)\)/,
      'the cross-origin POST among them, in the trail of the person whose session it carried',
    )
  })

  t.test('allow: read-only, one room, one agent id', async (t) => {
    const answered = await b.post(consentPath, {
      team: teamId,
      room: roomId,
      agent: 'builder',
      access: 'read',
      decision: 'allow',
    })
    t.equal(answered.status, 303)
    const back = await b.get(answered.location!)
    const to = new URL(back.location!)
    t.equal(to.origin + to.pathname, REDIRECT)
    t.equal(to.searchParams.get('iss'), issuer)
    await transport.finishAuth(to.searchParams.get('code')!)
    const client = new Client({ name: 'consent-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }))
    t.teardown(() => client.close())
    const read = await callTool(client, 'read_events', { room_id: roomId, agent_id: 'builder' })
    t.equal(read.isError, false, JSON.stringify(read.body))
    const write = await callTool(client, 'post_event', {
      room_id: roomId,
      agent_id: 'builder',
      type: 'note',
      text: 'x',
    })
    t.equal(write.body.error?.code, 'forbidden', 'read-only refuses a tool that changes the room')
    t.match(write.body.error?.message, /read-only/)
    t.match(await audit(), [/^connected agent: .*Claude Code.*room .*agent builder, read-only/])

    const keys = await b.get('/team/keys')
    t.match(keys.body, /Connected agents/)
    t.match(keys.body, /<td[^>]*>builder<\/td>/)
    const [grant] = await n.node.grants.list(teamId)
    t.ok(grant!.last_used_at, 'its last use is recorded and listed')
  })

  t.test("a member may not revoke another person's connected agent", async (t) => {
    const email = `${uid('member')}@example.com`
    t.equal((await b.send('/team/invites', { email })).status, 200)
    const m = new Browser(n.base)
    await m.follow(linkIn(await inbox.next(email)))
    const builder = (await n.node.grants.list(teamId)).find((g) => g.agent_id === 'builder')!
    t.notMatch((await m.get('/team/keys')).body, /Revoke builder/, 'no revoke button for it')
    const refused = await m.send('/team/grants/revoke', { grant: builder.id, confirmed: 'yes' })
    t.equal(refused.status, 403)
    t.match(refused.body, /needs the role owner or admin; you are member/)
    t.equal((await n.node.grants.get(builder.id))!.revoked_at, undefined, 'still live')
  })

  t.test('revoking on the Keys page ends a parked wait and the tokens at once', async (t) => {
    const p2 = new MemoryAuthProvider(REDIRECT, undefined, 'VS Code')
    const second = await start(p2)
    const answered = await b.post(second.consentPath, {
      team: teamId,
      room: '*',
      agent: 'worker',
      access: 'write',
      decision: 'allow',
    })
    const to = new URL((await b.get(answered.location!)).location!)
    await second.transport.finishAuth(to.searchParams.get('code')!)
    const client = new Client({ name: 'consent-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: p2 }))
    t.teardown(() => client.close())
    const posted = await callTool(client, 'post_event', {
      room_id: roomId,
      agent_id: 'worker',
      type: 'note',
      text: 'x',
    })
    t.equal(posted.isError, false, 'read and write, every room of the team')
    const waiting = callTool(client, 'wait_for_events', { room_id: roomId, agent_id: 'worker', timeout_s: 25 })
    await new Promise((r) => setTimeout(r, 500))
    const grant = (await n.node.grants.list(teamId)).find((g) => g.agent_id === 'worker')!
    const started = Date.now()
    const revoked = await b.send('/team/grants/revoke', { grant: grant.id, confirmed: 'yes' })
    t.equal(revoked.status, 200)
    t.match(revoked.body, /worker \(VS Code\) is disconnected/)
    const ended = await waiting.then(
      (r) => r.body.error?.code ?? 'answered',
      (err: Error) => err.message,
    )
    t.equal(ended, 'unauthorized', 'the parked wait ends with unauthorized')
    t.ok(Date.now() - started < 5000, 'at once')
    const after = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${p2.saved!.access_token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    t.equal(after.status, 401, 'the access token is refused')
    t.match(await audit(), [/^revoked connected agent: .*agent worker/])
    t.match((await b.get('/team/keys')).body, /revoked/)
  })

  t.test('decline: the client gets access_denied', async (t) => {
    const p2 = new MemoryAuthProvider(REDIRECT, undefined, 'Cursor')
    const second = await start(p2)
    const answered = await b.post(second.consentPath, { decision: 'deny' })
    t.equal(answered.status, 303)
    const back = await b.get(answered.location!)
    t.equal(new URL(back.location!).searchParams.get('error'), 'access_denied')
    t.match(await audit(), [/^declined agent connection: Cursor/])
  })
})
