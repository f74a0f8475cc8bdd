// The rooms page on a real node with a real SMTP server: the signed-in home lists the team's
// rooms with activity, online agents and task counts; creating a room gives each agent the CLI's
// own snippets with a room invite key that works on MCP; bad input changes nothing; no team key
// reaches the page.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import t from 'tap'
import { agentBrief, snippetsFor } from '../../src/shared/snippets.js'
import { hookConfigs, MAX_BLOCKS_DEFAULT } from '../../src/shared/hook-configs.js'
import { HOOK_WAIT_S } from '../../src/dashboard/rooms.js'
import { AGENTS_PER_CREATE, ROOMS_SHOWN } from '../../src/dashboard/pages.js'
import { INVITES_PER_ROOM } from '../../src/auth/teams.js'
import { signedInOperator } from '../helpers/accounts.js'
import { Browser, keyIn } from '../helpers/mail.js'
import { callTool, legacyClient } from '../helpers/mcp.js'
import { rawClient } from '../helpers/shared.js'

/** The text of the textarea labelled `label` on a page, unescaped. */
function textareaAfter(body: string, id: string): string | undefined {
  const m = new RegExp(`<textarea id="${id}"[^>]*>([\\s\\S]*?)</textarea>`).exec(body)
  return m?.[1]
    ?.replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&')
}

t.test('standalone', async (t) => {
  const { n, b, first } = await signedInOperator(t)
  const teamKey = keyIn(first)!
  t.ok(teamKey, 'signed in, with a team of their own')
  const teamId = (await (await n.call('/admin/me', { key: teamKey })).json()).teamId as string

  t.test('empty: the home page is the rooms page, saying there are none and offering the form', async (t) => {
    const home = await b.get('/')
    t.equal(home.status, 200)
    t.match(home.body, 'No rooms yet')
    t.match(home.body, /<form class="stack" method="post" action="\/rooms">/)
    t.match(home.body, /<select name="template" aria-describedby="templates">/)
    t.match(home.body, 'web-app', 'the templates are offered')
    t.match(home.body, '<a href="/team">Team</a>', 'the team page is one link away')
  })

  t.test("bad input is refused at its field, by the API's schemas, keeping the form; nothing is made", async (t) => {
    /** The message shown under the field `id` of the create form. */
    const at = (body: string, id: string) =>
      new RegExp(`<p class="error field" id="${id}-error" role="alert">([^<]*)</p>`).exec(body)?.[1]
    const none = await b.send('/rooms', { name: 'x', agents: ' , ', template: 'blank', invite: '1' })
    t.equal(none.status, 400)
    t.equal(at(none.body, 'create-agents'), 'Give at least one, e.g. &quot;planner, backend&quot;')
    t.match(none.body, /name="agents" required value=" , " aria-invalid="true" aria-describedby="create-agents-error"/)
    t.match(none.body, /name="invite" value="1" checked/, 'the invite box stays ticked')
    const dup = await b.send('/rooms', { name: 'x', agents: 'a, a', template: 'blank' })
    t.equal(dup.status, 400)
    t.equal(at(dup.body, 'create-agents'), '&quot;a&quot; is listed twice; every agent needs its own id')
    t.notMatch(dup.body, /name="invite" value="1" checked/, 'an unticked invite box stays unticked')
    const many = Array.from({ length: AGENTS_PER_CREATE + 1 }, (_, i) => `a${i}`).join(',')
    const over = await b.send('/rooms', { name: 'x', agents: many, template: 'blank' })
    t.equal(at(over.body, 'create-agents'), `At most ${AGENTS_PER_CREATE} at once (${AGENTS_PER_CREATE + 1} given)`)
    const ctl = await b.send('/rooms', { name: 'x', agents: 'ok, b\u0007', template: 'blank' })
    t.equal(at(ctl.body, 'create-agents'), '&quot;b\\u0007&quot; must not contain control characters')
    // The name and the template: the same schemas as POST /admin/rooms, so the same limit and words.
    const long = await b.send('/rooms', { name: 'y'.repeat(101), agents: 'a', template: 'blank' })
    t.equal(long.status, 400)
    t.equal(at(long.body, 'create-name'), 'Must be at most 100 characters')
    const api = await n.call('/admin/rooms', { method: 'POST', key: teamKey, json: { name: 'y'.repeat(101) } })
    t.equal((await api.json()).error.message, 'name: must be at most 100 characters', 'as the API says it')
    const blank = await b.send('/rooms', { name: '   ', agents: 'a', template: 'blank' })
    t.equal(at(blank.body, 'create-name'), 'Must not be blank')
    const tpl = await b.send('/rooms', { name: 'z', agents: 'a', template: 'nope' })
    t.equal(tpl.status, 400)
    t.equal(at(tpl.body, 'create-template'), 'Must be one of blank, web-app, incident')
    const apiTpl = await n.call('/admin/rooms', { method: 'POST', key: teamKey, json: { template: 'nope' } })
    t.equal((await apiTpl.json()).error.message, 'template: must be one of blank, web-app, incident')
    t.match(tpl.body, 'value="z"', 'the form keeps what was typed')
    t.match(tpl.body, 'name="agents" required value="a"/>', 'the agents too')
    t.same((await n.node.core.rooms.list(teamId)).rooms, [], 'no room was made')
  })

  let roomId = ''
  t.test("create a room with invite keys: each agent gets the CLI's snippets and a key that works", async (t) => {
    const made = await b.send('/rooms', {
      name: 'Shop <launch>',
      agents: 'planner, backend',
      template: 'web-app',
      invite: '1',
    })
    t.equal(made.status, 200)
    roomId = /Room <code>([^<]+)<\/code> was created/.exec(made.body)![1]!
    t.equal(roomId, 'shop-launch', 'the room id is made from the name')
    t.match(made.body, 'Shop &lt;launch>', 'the name shows as text')
    const claude = textareaAfter(made.body, 'claude_code-1')!
    const key = /Bearer (ar_room_[A-Za-z0-9_.-]+)/.exec(claude)?.[1]
    t.ok(key, 'the backend agent has a key in its Claude Code command')
    t.not(key, teamKey, 'a room invite key, never the team key')
    t.notMatch(made.body, teamKey, 'no team key in the page')
    const expected = snippetsFor({ agentId: 'backend', roomId, key: key!, url: `${n.node.baseUrl}/mcp` })
    t.equal(claude, expected.claude_code, 'the same Claude Code command the CLI prints')
    t.equal(textareaAfter(made.body, 'cursor-1'), expected.cursor)
    t.equal(textareaAfter(made.body, 'vscode-1'), expected.vscode)
    t.equal(textareaAfter(made.body, 'codex-1'), expected.codex)
    t.equal(
      JSON.parse(expected.cursor).mcpServers.agentrooms.url,
      `${n.node.baseUrl}/mcp?agent=backend&room=shop-launch`,
      'the URL binds the connection to the agent and the room',
    )
    t.equal(
      textareaAfter(made.body, 'brief-1'),
      agentBrief({ agentId: 'backend', roomId, key: key!, url: `${n.node.baseUrl}/mcp` }),
      'the sentence the CLI prints for the agent',
    )
    t.match(textareaAfter(made.body, 'brief-1')!, 'need neither agent_id nor room_id', 'the connection names both')
    const hooks = hookConfigs({
      command: ['npx', 'agentrooms'],
      base: n.node.baseUrl,
      room: roomId,
      agent: 'backend',
      waitS: HOOK_WAIT_S,
      mentions: false,
      maxBlocks: MAX_BLOCKS_DEFAULT,
    })
    hooks.forEach((h, j) =>
      t.equal(textareaAfter(made.body, `hook-1-${j}`), h.text, `the Stop hook as the CLI prints it: ${h.title}`),
    )
    const http = JSON.parse(hooks[1]!.text).hooks.Stop[0].hooks[0] as { url: string }
    const stop = await fetch(http.url.replace('wait_s=300', 'wait_s=0'), {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ hook_event_name: 'Stop', stop_hook_active: false }),
    })
    t.equal(stop.status, 200, "the HTTP hook's URL answers the agent's key")
    const planner = /Bearer (ar_room_[A-Za-z0-9_.-]+)/.exec(textareaAfter(made.body, 'claude_code-0')!)?.[1]
    t.not(planner, key, 'every agent has its own key')

    const client = await legacyClient(t, n, key!)
    const claimed = await callTool(client, 'update_task', {
      room_id: roomId,
      agent_id: 'backend',
      task_id: 't1',
      status: 'in_progress',
      assignee: 'backend',
    })
    t.notOk(claimed.isError, 'the agent works in the room with that key')
    t.notOk((await callTool(client, 'heartbeat', { room_id: roomId, agent_id: 'backend' })).isError, 'and is present')
    const audit = await (await n.call('/admin/audit', { key: teamKey })).json()
    const actions = (audit.entries as { action: string; target?: string }[]).map((e) => `${e.action} ${e.target ?? ''}`)
    t.ok(actions.includes('created room shop-launch'), 'the audit trail records the room')
    t.equal(actions.filter((a) => a.startsWith('minted room invite')).length, 2, 'and each invite key')
  })

  t.test('the rooms page shows the room with its online agent and task counts', async (t) => {
    const home = await b.get('/')
    t.match(home.body, `<a href="/room?id=${roomId}">Shop &lt;launch></a>`)
    const row = /<tr><td data-label="Room"><a href="\/room\?id=shop-launch">[\s\S]*?<\/tr>/.exec(home.body)![0]
    t.match(row, '<td data-label="Online agents">backend</td>', 'the agent that called is online')
    t.match(row, /<td data-label="To do">\d+<\/td><td data-label="In progress">1<\/td><\/tr>$/, 'one task in progress')
    t.notMatch(home.body, teamKey, 'no team key in the page')
    t.notMatch(home.body, /ar_(team|room)_\w{8}/, 'no key of any kind')
  })

  t.test('a second room of the same name is refused; without invites, the snippets carry a placeholder', async (t) => {
    const again = await b.send('/rooms', { name: 'Shop <launch>', agents: 'x', template: 'blank' })
    t.equal(again.status, 409)
    t.match(
      again.body,
      '<p class="error field" id="create-name-error" role="alert">' +
        'A room named &quot;Shop &lt;launch>&quot; already exists',
      'said at the name',
    )
    const plain = await b.send('/rooms', { name: 'plain', agents: 'solo', template: 'blank' })
    t.equal(plain.status, 200)
    t.match(textareaAfter(plain.body, 'claude_code-0')!, 'Bearer YOUR_TEAM_KEY')
    t.match(plain.body, 'Replace <code>YOUR_TEAM_KEY</code>')
    t.match(textareaAfter(plain.body, 'brief-0')!, 'need neither agent_id nor room_id', 'the URL names both')
    // The printed configuration with a team key in place of the placeholder: the connection is
    // bound to the agent and the room by its URL, so it gets the short listing and acts as solo.
    const cursor = JSON.parse(textareaAfter(plain.body, 'cursor-0')!).mcpServers.agentrooms as {
      url: string
      headers: { Authorization: string }
    }
    t.equal(cursor.url, `${n.node.baseUrl}/mcp?agent=solo&room=plain`)
    const client = new Client({ name: 'dashboard-snippet-test', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(cursor.url), {
        requestInit: { headers: { Authorization: cursor.headers.Authorization.replace('YOUR_TEAM_KEY', teamKey) } },
      }),
    )
    t.teardown(() => client.close())
    const listed = (await client.listTools()).tools
    t.same(
      listed.filter((x) => 'agent_id' in (x.inputSchema.properties ?? {})).map((x) => x.name),
      [],
      'the team key lists no agent_id through the printed URL',
    )
    t.notOk(
      listed.some((x) => x.name === 'list_rooms'),
      'nor the team tools',
    )
    const posted = await callTool(client, 'post_event', { type: 'note', text: 'from the dashboard config' })
    t.notOk(posted.isError, 'a call without agent_id or room_id', { body: posted.body })
    t.equal(posted.body.room_id, 'plain')
    const reader = await legacyClient(t, n, teamKey)
    const feed = await callTool(reader, 'read_events', { room_id: 'plain', agent_id: 'reader', limit: 100 })
    const mine = (feed.body.events as { text?: string; agent_id: string }[]).find(
      (e) => e.text === 'from the dashboard config',
    )
    t.equal(mine?.agent_id, 'solo', 'recorded as the agent the configuration was printed for')
  })

  t.test('more agents for a room that exists: their configuration, a key each', async (t) => {
    const more = await b.send('/room/agents', { room: roomId, agents: 'tester', invite: '1' })
    t.equal(more.status, 200)
    t.match(more.body, '<h1>Agents for room Shop &lt;launch></h1>')
    const key = /Bearer (ar_room_[A-Za-z0-9_.-]+)/.exec(textareaAfter(more.body, 'claude_code-0')!)?.[1]
    const client = await legacyClient(t, n, key!)
    t.notOk(
      (await callTool(client, 'heartbeat', { room_id: roomId, agent_id: 'tester' })).isError,
      'the new agent works in the room',
    )
    const bad = await b.send('/room/agents', { room: roomId, agents: 'a, a', invite: '1' })
    t.equal(bad.status, 400)
    t.match(bad.body, 'is listed twice')
    t.match(bad.body, '<h1>Shop &lt;launch></h1>', 'on the room page')
    t.equal(
      (await b.send('/room/agents', { room: 'not-ours', agents: 'x', invite: '1' })).status,
      404,
      'a room the team does not have',
    )
  })

  t.test('invite keys are minted all or none: a refusal leaves no key the person never saw', async (t) => {
    const live = async () => (await n.node.teams.listInvites(teamId, roomId)).filter((i) => !i.revokedAt).length
    // Fill the room's invites up to five short of the limit.
    while ((await live()) < INVITES_PER_ROOM - 5) await n.node.teams.mintInvite(teamId, roomId, {})
    const before = await live()
    const audited = async () =>
      ((await (await n.call('/admin/audit', { key: teamKey })).json()).entries as { action: string }[]).filter(
        (e) => e.action === 'minted room invite',
      ).length
    const auditedBefore = await audited()
    const more = await b.send('/room/agents', { room: roomId, agents: 'a1, a2, a3, a4, a5, a6, a7', invite: '1' })
    t.equal(more.status, 409, 'seven keys where five fit: refused')
    t.match(more.body, `the limit is ${INVITES_PER_ROOM}`, 'naming the limit')
    t.notMatch(more.body, /ar_room_\w{8}/, 'showing no key')
    t.equal(await live(), before, 'minting none')
    t.equal(await audited(), auditedBefore, 'and auditing none')
    const fits = await b.send('/room/agents', { room: roomId, agents: 'a1, a2, a3, a4, a5', invite: '1' })
    t.equal(fits.status, 200, 'five fit')
    t.equal(await live(), INVITES_PER_ROOM)
  })

  t.test('the rooms page pages past its first rooms', async (t) => {
    for (let i = 0; i < ROOMS_SHOWN; i++)
      await n.node.core.rooms.create(teamId, { room_id: `bulk-${String(i).padStart(3, '0')}` }, 'test')
    const first = await b.get('/')
    t.equal(first.body.match(/<tr><td data-label="Room">/g)?.length, ROOMS_SHOWN, 'one page of rooms')
    const next = /<a href="(\/\?after=[^"]+)">Next rooms<\/a>/.exec(first.body)?.[1]
    t.ok(next, 'a link to the next ones')
    const second = await b.get(next!)
    t.ok((second.body.match(/<tr><td data-label="Room">/g)?.length ?? 0) > 0, 'which lists the rest')
    t.match(second.body, '<a href="/">First rooms</a>')
    t.equal((await b.get('/?after=..')).status, 400, 'a bad cursor is refused, naming it')
  })

  t.test('pages of rooms keep one order: nothing repeats or goes missing between two page loads', async (t) => {
    const raw = rawClient('standalone')
    t.teardown(() => raw.disconnect())
    const index = n.node.store.keys.teamRooms(teamId)
    // Rooms created in the same millisecond share their index score (here, every bulk room).
    const bulk = (await raw.zrange(index, 0, -1)).filter((id) => id.startsWith('bulk-'))
    const at = Number(await raw.zscore(index, bulk[0]!))
    await raw.zadd(index, 'XX', ...bulk.flatMap((id) => [at, id]))
    const all = await raw.zrange(index, 0, -1)
    const ids = (body: string) =>
      [...body.matchAll(/<tr><td data-label="Room"><a href="\/room\?id=([^"]+)">/g)].map((m) => m[1]!)
    const nextOf = (body: string) =>
      /<a href="(\/\?after=[^"]+)">Next rooms<\/a>/.exec(body)?.[1]?.replaceAll('&amp;', '&')

    const first = (await b.get('/')).body
    const page1 = ids(first)
    // Between the two loads, a room of each page becomes the most recently active.
    const as = (roomId: string) => ({ room: { teamId, roomId }, agent: 'busy' })
    await n.node.core.events.post(as(page1.at(-1)!), { type: 'message', text: 'busy on page 1' })
    await n.node.core.events.post(as(all.at(-1)!), { type: 'message', text: 'busy on page 2' })
    const second = await b.get(nextOf(first)!)
    t.equal(second.status, 200)
    const page2 = ids(second.body)
    t.same(
      page1.filter((id) => page2.includes(id)),
      [],
      'no room on both pages',
    )
    t.same([...page1, ...page2].sort(), [...all].sort(), 'and every room on one of them')
    t.equal(page1.length, ROOMS_SHOWN)

    // The last room of page 1 expires, and a reload of page 1 drops it from the index: the link
    // to page 2 that was shown before still leads to page 2, not back to page 1.
    const cursor = new URLSearchParams(nextOf(first)!.slice(2)).get('after')!
    await raw.del(...n.node.store.keys.room({ teamId, roomId: cursor }).list.slice(0, 16))
    t.notMatch((await b.get('/')).body, `>${cursor}<`)
    t.equal(await raw.zscore(index, cursor), null, 'the expired room left the index')
    const again = await b.get(nextOf(first)!)
    t.equal(again.status, 200)
    t.same(ids(again.body).sort(), page2.sort(), 'the same second page')
    await t.rejects(
      n.node.core.rooms.list(teamId, { after: cursor }),
      { code: 'invalid_request', details: { field: 'after' } },
      'the API, which has only the room id, says so instead of starting over',
    )
  })

  t.test('signed out: no rooms page, and no creation', async (t) => {
    const stranger = new Browser(n.base)
    t.equal((await stranger.get('/')).location, '/signin')
    t.equal((await stranger.send('/rooms', { name: 'evil', agents: 'a' })).status, 401)
    const cross = await b.post(
      '/rooms',
      { name: 'evil', agents: 'a' },
      { site: 'cross-site', origin: 'https://evil.example' },
    )
    t.equal(cross.status, 403, 'a cross-site form post is refused')
    t.notOk(
      (await n.node.core.rooms.list(teamId)).rooms.some((r) => r.room_id === 'evil'),
      'nothing created',
    )
  })
})
