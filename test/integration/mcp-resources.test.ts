// The rooms as MCP resources through the real SDK clients, in both protocol eras and on both
// backends: the capability each era declares, the templates, a paged resources/list across two
// rooms (no resource twice, none missing, the same order every time), resources/read of the plan,
// presence, a context entry and an agent's unread events (which it does not consume), an invite
// key that sees only its room, and -32602 naming the URI for unknown, malformed and unreachable
// URIs.
import t, { type Test } from 'tap'
import type { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import type { Client as ModernClient } from '@modelcontextprotocol/client'
import { LIST_PAGE, resourceUri, URI_PREFIX } from '../../src/mcp/resources.js'
import { legacyClient, modernBody, modernClient, modernHeaders, post } from '../helpers/mcp.js'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { BACKENDS } from '../helpers/shared.js'

type AnyClient = LegacyClient | ModernClient
type Listed = { uri: string; name: string; mimeType?: string; size?: number }

/**
 * Every page of resources/list, walked by cursor. The 2.x client walks the pages itself when it
 * is given no cursor (one call here); the SDK 1.x client returns one page a call.
 */
async function allPages(client: AnyClient): Promise<{ pages: number; resources: Listed[] }> {
  const resources: Listed[] = []
  let cursor: string | undefined
  let pages = 0
  do {
    const page = (await client.listResources(cursor === undefined ? {} : { cursor })) as {
      resources: Listed[]
      nextCursor?: string
    }
    pages++
    resources.push(...page.resources)
    cursor = page.nextCursor
  } while (cursor !== undefined && pages < 20)
  return { pages, resources }
}

async function readText(client: AnyClient, uri: string) {
  const r = (await client.readResource({ uri })) as {
    contents: { uri: string; mimeType?: string; text?: string; _meta?: Record<string, unknown> }[]
  }
  return r.contents[0]!
}

/** The JSON-RPC error a call ends with (both SDKs throw an error carrying code and message). */
async function rpcErrorOf(p: Promise<unknown>): Promise<{ code?: number; message: string }> {
  try {
    await p
  } catch (err) {
    return err as { code?: number; message: string }
  }
  throw new Error('expected a JSON-RPC error')
}

for (const backend of BACKENDS) {
  t.test(`room resources (${backend})`, async (t) => {
    const n = await startNode(t, backend)
    const team = await newTeam(n)
    const other = await newTeam(n)
    const core = n.node.core
    const roomA = (await core.rooms.create(team.teamId, { template: 'web-app' }, 'test')).room.room_id
    const roomB = (await core.rooms.create(team.teamId, { template: 'blank' }, 'test')).room.room_id
    const foreign = (await core.rooms.create(other.teamId, { template: 'blank' }, 'test')).room.room_id
    const as = (roomId: string, agent: string) => ({ room: { teamId: team.teamId, roomId }, agent })
    // Enough entries in room A that the listing needs two pages.
    for (let i = 0; i < LIST_PAGE + 10; i++)
      await core.context.write(as(roomA, 'writer'), {
        type: 'note',
        key: `n${String(i).padStart(3, '0')}`,
        body: `#${i}`,
      })
    await core.context.write(as(roomA, 'writer'), { type: 'spec', key: 'api/v1 users', body: 'GET /users' })
    await core.context.write(as(roomB, 'writer'), { type: 'spec', key: 'b', body: 'room B' })
    await core.presence.heartbeat(as(roomA, 'alice'))
    await core.events.post(as(roomA, 'bob'), { type: 'message', text: 'one' })
    await core.events.post(as(roomA, 'bob'), { type: 'question', text: '@alice two?' })
    let entries = 0
    for (const roomId of [roomA, roomB])
      entries += (await core.context.list(as(roomId, 'writer'), { limit: 500 })).total
    const invite = (await (
      await n.call(`/admin/rooms/${roomB}/invite`, { method: 'POST', key: team.key, json: { label: 'res' } })
    ).json()) as { key: string }

    const clients: [string, (t: Test, key: string) => Promise<AnyClient>][] = [
      ['SDK 1.x, 2025-11-25', (t, key) => legacyClient(t, n, key)],
      ['2.x client, 2026-07-28', (t, key) => modernClient(t, n, key)],
    ]
    for (const [era, connect] of clients) {
      await t.test(era, async (t) => {
        const client = await connect(t, team.key)
        t.ok(client.getServerCapabilities()?.resources, 'the resources capability is declared')

        const templates = (await client.listResourceTemplates()) as { resourceTemplates: { uriTemplate: string }[] }
        t.same(
          templates.resourceTemplates.map((x) => x.uriTemplate),
          [
            `${URI_PREFIX}{room}/plan`,
            `${URI_PREFIX}{room}/context/{type}/{key}`,
            `${URI_PREFIX}{room}/agents/{agent}/unread`,
            `${URI_PREFIX}{room}/presence`,
          ],
        )

        const { pages, resources } = await allPages(client)
        if (era.startsWith('SDK 1.x')) t.ok(pages >= 2, `the listing is paged (${pages} pages)`)
        const uris = resources.map((r) => r.uri)
        t.equal(new Set(uris).size, uris.length, 'no resource is listed twice')
        const a = (path: string) => `${URI_PREFIX}${roomA}/${path}`
        const b = (path: string) => `${URI_PREFIX}${roomB}/${path}`
        for (const uri of [a('plan'), a('presence'), a('context/note/n000'), a('context/note/n109'), b('plan')])
          t.ok(uris.includes(uri), `listed: ${uri}`)
        const spec = a(`context/spec/${encodeURIComponent('api/v1 users')}`)
        t.ok(uris.includes(spec), 'a key with "/" and a space is one percent-encoded segment')
        t.equal(uris.filter((u) => u.includes('/context/')).length, entries, 'every context entry is listed')
        t.notOk(
          uris.some((u) => u.includes(foreign)),
          "another team's room is never listed",
        )
        t.same((await allPages(client)).resources, resources, 'the listing is the same every time')
        t.ok(uris.indexOf(a('plan')) < uris.indexOf(b('plan')), 'rooms oldest first')
        t.match(
          resources.find((r) => r.uri === spec),
          { mimeType: 'text/plain', size: Buffer.byteLength('GET /users') },
        )

        const plan = JSON.parse((await readText(client, a('plan'))).text!)
        t.equal(plan.room_id, roomA)
        t.ok(plan.tasks.length > 0 && plan.counts.todo > 0, 'the plan carries the template tasks and counts')
        const presence = JSON.parse((await readText(client, a('presence'))).text!)
        t.same(
          presence.online.map((p: { agent_id: string }) => p.agent_id),
          ['alice'],
        )
        const entry = await readText(client, spec)
        t.equal(entry.text, 'GET /users')
        t.equal(entry.uri, spec)
        t.match(entry._meta, { version: 1, updated_by: 'writer' })

        const unreadUri = resourceUri({ kind: 'unread', roomId: roomA, agent: 'alice' })
        for (let i = 0; i < 2; i++) {
          const unread = JSON.parse((await readText(client, unreadUri)).text!)
          t.same(
            unread.events.map((e: { text: string }) => e.text),
            ['one', '@alice two?'],
            `read ${i + 1}: alice's unread events, oldest first`,
          )
          t.equal(unread.unread, 2)
        }
        t.equal(await core.events.peekUnread(as(roomA, 'alice')), 2, 'reading the resource consumed nothing')
        const own = JSON.parse(
          (await readText(client, resourceUri({ kind: 'unread', roomId: roomA, agent: 'bob' }))).text!,
        )
        t.same(own.events, [], "an agent's own events are not unread for it")

        const bad = [
          a('context/spec/missing'),
          `${URI_PREFIX}${foreign}/plan`,
          `${URI_PREFIX}no-such-room/plan`,
          a('tasks'),
          a('context/Bad Type/k'),
          `${URI_PREFIX}${roomA}/plan/`,
          `${URI_PREFIX}%${roomA}/plan`,
          'file:///etc/passwd',
        ]
        for (const uri of bad) {
          const err = await rpcErrorOf(client.readResource({ uri }))
          t.equal(err.code, -32602, `${uri}: -32602`)
          t.match(err.message, `Resource not found: ${uri}`, `${uri}: the message names it`)
        }
        const badCursor = await rpcErrorOf(client.listResources({ cursor: 'nope' }))
        t.equal(badCursor.code, -32602, 'a cursor the server never gave is -32602')
        t.match(badCursor.message, /cursor/)
      })

      await t.test(`${era}: a room invite key sees only its room`, async (t) => {
        const client = await connect(t, invite.key)
        const { resources } = await allPages(client)
        t.same(
          resources.map((r) => r.uri),
          [`${URI_PREFIX}${roomB}/plan`, `${URI_PREFIX}${roomB}/presence`, `${URI_PREFIX}${roomB}/context/spec/b`],
        )
        t.equal((await readText(client, `${URI_PREFIX}${roomB}/context/spec/b`)).text, 'room B')
        const err = await rpcErrorOf(client.readResource({ uri: `${URI_PREFIX}${roomA}/plan` }))
        t.equal(err.code, -32602, 'another room of the same team is not found')
        t.match(err.message, `Resource not found: ${URI_PREFIX}${roomA}/plan`)
      })
    }

    await t.test('2026-07-28 wire: cache hints, Mcp-Name, server/discover', async (t) => {
      await checkModernWire(t, n, team.key, `${URI_PREFIX}${roomB}/plan`)
    })
  })
}

async function checkModernWire(t: Test, n: TestNode, key: string, uri: string): Promise<void> {
  const read = await post(n, modernBody('resources/read', { uri }), modernHeaders('resources/read', uri), { key })
  t.equal(read.status, 200)
  t.match(read.json?.result, { resultType: 'complete', ttlMs: 0, cacheScope: 'private' })
  const mismatch = await post(n, modernBody('resources/read', { uri }), modernHeaders('resources/read', 'x'), { key })
  t.equal(mismatch.status, 400, 'Mcp-Name must mirror params.uri')
  const missing = `${uri}x`
  const gone = await post(n, modernBody('resources/read', { uri: missing }), modernHeaders('resources/read', missing), {
    key,
  })
  t.equal(gone.status, 200, 'a handler error stays in-band')
  t.match(gone.json?.error, { code: -32602, message: `Resource not found: ${missing}`, data: { uri: missing } })
  const first = await post(n, modernBody('resources/list'), modernHeaders('resources/list'), { key })
  const page = first.json?.result as { resources: unknown[]; nextCursor?: string; ttlMs?: number }
  t.equal(page.resources.length, LIST_PAGE, 'a full first page')
  t.type(page.nextCursor, 'string', 'with a cursor to the next')
  t.equal(page.ttlMs, 0)
  const second = await post(
    n,
    modernBody('resources/list', { cursor: page.nextCursor }),
    modernHeaders('resources/list'),
    {
      key,
    },
  )
  t.ok((second.json?.result as { resources: unknown[] }).resources.length > 0, 'the cursor leads on')
  const discover = await post(n, modernBody('server/discover'), modernHeaders('server/discover'), { key })
  t.ok((discover.json?.result as { capabilities?: { resources?: unknown } }).capabilities?.resources)
}
