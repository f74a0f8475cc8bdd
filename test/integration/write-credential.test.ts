// Every write names the credential that made it (`via`): events, tasks (added, claimed, changed)
// and context versions record the team key, room invite key, connected agent (OAuth grant) or
// signed-in person, the read APIs return it, and the room page shows it beside the agent id. The
// record is made from the verified credential alone: no argument, label or agent id can make one
// credential's write read as another's.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'
import { keyIn } from '../helpers/mail.js'
import { callTool, legacyClient } from '../helpers/mcp.js'
import { MemoryAuthProvider } from '../helpers/mcp-oauth.js'
import { uid } from '../helpers/shared.js'

const REDIRECT = 'http://127.0.0.1:40223/callback'

t.test('writes record their credential', async (t) => {
  const { n, b, first } = await signedInOperator(t)
  const adminKey = keyIn(first)!
  const me = (await n.node.accounts.session(b.jar.get('ar_session')!))!
  const teamId = me.team
  const roomId = uid('room')
  await n.node.core.rooms.create(teamId, { room_id: roomId }, 'test')
  const mint = async (path: string, json: unknown) => {
    const res = await n.call(path, { method: 'POST', key: adminKey, json })
    t.equal(res.status, 201, path)
    return (await res.json()) as { key: string; keyId?: string; tokenId?: string }
  }
  const ci = await mint('/admin/keys', { label: 'ci-bot' })
  // A second key with the very label of the invite below: the id tells them apart.
  const lookalike = await mint('/admin/keys', { label: 'alice' })
  const alice = await mint(`/admin/rooms/${roomId}/invite`, { label: 'alice', agentId: 'alice' })
  // Minted with the team's first key, which no person minted: they name no person.
  const viaKey = { kind: 'key', id: ci.keyId, label: 'ci-bot' }
  const viaInvite = { kind: 'invite', id: alice.tokenId, label: 'alice' }

  const ciClient = await legacyClient(t, n, ci.key)
  const aliceClient = await legacyClient(t, n, alice.key)
  const ok = (r: { isError?: boolean; body: Record<string, unknown> }) => {
    t.notOk(r.isError, JSON.stringify(r.body))
    return r.body
  }
  /** The event a post answered with, as the feed records it: with its agent id and credential. */
  const recorded = async (reply: Record<string, unknown>) => {
    const id = (reply.event as { id: string }).id
    const feed = ok(await callTool(ciClient, 'read_events', { room_id: roomId, agent_id: 'ci', limit: 100 }))
    const found = (feed.events as { id: string; agent_id: string; via: unknown }[]).find((e) => e.id === id)
    t.ok(found, `event ${id} is in the feed`)
    return found!
  }

  t.test('a team key: events, tasks and context versions', async (t) => {
    const posted = ok(
      await callTool(ciClient, 'post_event', { room_id: roomId, agent_id: 'ci', type: 'status', text: 'green' }),
    )
    t.same((await recorded(posted)).via, viaKey, 'the feed names it')
    const added = ok(await callTool(ciClient, 'add_task', { room_id: roomId, agent_id: 'ci', title: 'build' }))
    const taskId = (added.task as { id: string }).id
    ok(
      await callTool(ciClient, 'update_task', {
        room_id: roomId,
        agent_id: 'ci',
        task_id: taskId,
        status: 'in_progress',
      }),
    )
    const got = ok(await callTool(ciClient, 'get_task', { room_id: roomId, agent_id: 'ci', task_id: taskId }))
    t.match(got.task, { created_via: viaKey, claimed_via: viaKey, updated_via: viaKey, assignee: 'ci' })
    ok(
      await callTool(ciClient, 'write_context', {
        room_id: roomId,
        agent_id: 'ci',
        type: 'spec',
        key: 'api',
        body: 'v1',
      }),
    )
    const read = ok(await callTool(ciClient, 'read_events', { room_id: roomId, agent_id: 'ci' }))
    t.same((read.events as { via: unknown }[]).at(-1)!.via, viaKey, 'read_events returns it')
  })

  t.test('a room invite key bound to an agent', async (t) => {
    ok(await callTool(aliceClient, 'post_event', { room_id: roomId, type: 'message', text: 'hi' }))
    ok(await callTool(aliceClient, 'update_context', { room_id: roomId, type: 'spec', key: 'api', append: '\nv2' }))
    const hist = ok(await callTool(aliceClient, 'get_context_history', { room_id: roomId, type: 'spec', key: 'api' }))
    t.same(
      (hist.versions as { version: number; via: unknown }[]).map((v) => [v.version, v.via]),
      [
        [2, viaInvite],
        [1, viaKey],
      ],
      'each version names the credential that wrote it',
    )
    t.match(hist.entry, { created_via: viaKey, updated_via: viaInvite })
    const old = ok(
      await callTool(aliceClient, 'read_context', { room_id: roomId, type: 'spec', key: 'api', version: 1 }),
    )
    t.match(old.entry, { version: 1, updated_by: 'ci', updated_via: viaKey }, 'an older version, with its own')
    ok(await callTool(aliceClient, 'update_task', { room_id: roomId, task_id: 't1', title: 'build it', force: true }))
    const changed = ok(await callTool(aliceClient, 'get_task', { room_id: roomId, task_id: 't1' }))
    t.match(changed.task, { created_via: viaKey, claimed_via: viaKey, updated_via: viaInvite })
    const feed = ok(await callTool(aliceClient, 'read_events', { room_id: roomId }))
    const overridden = (feed.events as { type: string; via?: unknown }[]).find((e) => e.type === 'task_overridden')
    t.same(overridden?.via, viaInvite, "the service's task_overridden event names the credential that forced it")
  })

  t.test('the signed-in person on the room page', async (t) => {
    const sent = await b.send('/room/events', { room: roomId, text: 'looks good' })
    t.equal(sent.posted.status, 303)
    const { events } = await n.node.core.events.read({ room: { teamId, roomId } }, { limit: 50 })
    const mine = events.find((e) => e.text === 'looks good')!
    t.same(mine.via, { kind: 'person', id: me.id, label: me.name || me.email })
    const added = await b.send('/room/tasks', { room: roomId, title: 'review' })
    t.equal(added.posted.status, 303)
    const task = (await n.node.core.plan.getTask({ room: { teamId, roomId } }, { task_id: 't2' })).task
    t.same(task.created_via, { kind: 'person', id: me.id, label: me.name || me.email })

    const page = await b.get(`/room?id=${roomId}`)
    const said = (s: string) => page.body.includes(s) || page.body.includes(s.replaceAll("'", '&#39;'))
    t.ok(said("via key 'ci-bot'"), 'the page names the team key')
    t.ok(said("via room invite key 'alice'"), 'and the invite key')
    t.ok(said(`via ${me.name || me.email}'s sign-in`), "and the person's sign-in")
    const task1 = await b.get(`/room?id=${roomId}&task=t1`)
    t.ok(
      task1.body.includes("claimed via key 'ci-bot'") || task1.body.includes('claimed via key &#39;ci-bot&#39;'),
      'the open task says which credential claimed it',
    )
  })

  t.test('a connected agent (OAuth grant)', async (t) => {
    const base = n.base.replace('127.0.0.1', 'localhost')
    b.base = base
    t.teardown(() => void (b.base = n.base))
    const provider = new MemoryAuthProvider(REDIRECT, undefined, 'Claude Code')
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider })
    await t.rejects(new Client({ name: 'via-test', version: '1.0.0' }).connect(transport), /Unauthorized/)
    const toConsent = await b.get(provider.authorizationUrl!.toString())
    const answered = await b.post(toConsent.location!, {
      team: teamId,
      room: roomId,
      agent: 'builder',
      access: 'write',
      decision: 'allow',
    })
    const to = new URL((await b.get(answered.location!)).location!)
    await transport.finishAuth(to.searchParams.get('code')!)
    const client = new Client({ name: 'via-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }))
    t.teardown(() => client.close())
    const posted = ok(await callTool(client, 'post_event', { room_id: roomId, type: 'status', text: 'built' }))
    const [grant] = await n.node.grants.list(teamId)
    const event = await recorded(posted)
    t.same(event.via, {
      kind: 'grant',
      id: grant!.id,
      label: 'Claude Code',
      person: me.id,
    })
    t.equal(event.agent_id, 'builder', 'as its bound agent')
    const page = await b.get(`/room?id=${roomId}`)
    t.ok(
      page.body.includes("via agent grant 'Claude Code'") ||
        page.body.includes('via agent grant &#39;Claude Code&#39;'),
      'the room page names the connected agent',
    )
  })

  t.test('no credential can write as another', async (t) => {
    const forged = await callTool(ciClient, 'post_event', {
      room_id: roomId,
      agent_id: 'ci',
      type: 'message',
      text: 'x',
      via: viaInvite,
    })
    t.equal(forged.body.error?.code, 'invalid_request', 'via is no argument a caller may pass')
    const look = await legacyClient(t, n, lookalike.key)
    const posted = ok(
      await callTool(look, 'post_event', { room_id: roomId, agent_id: 'alice', type: 'message', text: 'me' }),
    )
    t.same(
      (await recorded(posted)).via,
      { kind: 'key', id: lookalike.keyId, label: 'alice' },
      'a key labelled like the invite, acting as its agent id, is recorded as itself',
    )
    const asAlice = await callTool(ciClient, 'post_event', {
      room_id: roomId,
      agent_id: 'alice',
      type: 'message',
      text: 'me',
    })
    t.same((await recorded(asAlice.body)).via, viaKey, 'naming an agent id never borrows its credential')
  })
})
