// subscriptions/listen (2026-07-28) across two nodes, on both backends: the 2.x client listens
// on node B and every change made on node A reaches it as notifications/resources/updated (or
// list_changed) tagged with its subscription id, and nothing it did not subscribe to; the raw
// stream starts with the acknowledgement and carries keep-alive comments; the node's streams
// share one hub listener per room and no connection of their own; a revoked key ends the stream
// with an error, a draining node with the listen result; refused filters change nothing.
import t from 'tap'
import type { Client as ModernClient } from '@modelcontextprotocol/client'
import { resourceUri, URI_PREFIX } from '../../src/mcp/resources.js'
import { MAX_SUBSCRIPTIONS, SUBSCRIPTION_ID } from '../../src/mcp/listen.js'
import { modernBody, modernClient, modernHeaders, post, sseMessages, streamedPost } from '../helpers/mcp.js'
import { newTeam, startNode } from '../helpers/node.js'
import { eventually, sleep } from '../helpers/wait.js'
import { BACKENDS } from '../helpers/shared.js'

type Note = { method: string; params: { uri?: string; _meta?: Record<string, unknown> } }

/** Records every resources notification the client gets. */
function record(client: ModernClient): Note[] {
  const got: Note[] = []
  client.setNotificationHandler('notifications/resources/updated', (n) => void got.push(n as Note))
  client.setNotificationHandler('notifications/resources/list_changed', (n) => void got.push(n as Note))
  return got
}

const listenHeaders = { ...modernHeaders('subscriptions/listen'), Accept: 'application/json, text/event-stream' }

for (const backend of BACKENDS) {
  t.test(`subscriptions/listen across nodes (${backend})`, async (t) => {
    const a = await startNode(t, backend)
    const b = await startNode(t, backend, { sseKeepaliveMs: 100 })
    const team = await newTeam(a)
    const other = await newTeam(a)
    const core = a.node.core
    const room = (await core.rooms.create(team.teamId, { template: 'blank' }, 'test')).room.room_id
    const foreign = (await core.rooms.create(other.teamId, { template: 'blank' }, 'test')).room.room_id
    const as = (agent: string) => ({ room: { teamId: team.teamId, roomId: room }, agent })
    await core.context.write(as('w'), { type: 'spec', key: 'api', body: 'v1' })
    await core.context.write(as('w'), { type: 'spec', key: 'other', body: 'v1' })
    const uri = {
      plan: resourceUri({ kind: 'plan', roomId: room }),
      presence: resourceUri({ kind: 'presence', roomId: room }),
      api: resourceUri({ kind: 'context', roomId: room, type: 'spec', key: 'api' }),
      unread: resourceUri({ kind: 'unread', roomId: room, agent: 'alice' }),
    }
    const subscriptions = [uri.plan, uri.api, uri.unread, uri.presence]

    await t.test('a change on node A reaches the listener on node B', async (t) => {
      const client = await modernClient(t, b, team.key)
      const got = record(client)
      const hubBefore = b.node.hub.stats()
      const sub = await client.listen({ resourceSubscriptions: subscriptions, resourcesListChanged: true })
      t.same(sub.honoredFilter, { resourcesListChanged: true, resourceSubscriptions: subscriptions }, 'honoured')
      const hubOne = b.node.hub.stats()
      t.equal(hubOne.listeners, hubBefore.listeners + 1, 'one hub listener for the room')
      const second = await client.listen({ resourceSubscriptions: [uri.plan] })
      t.same(second.honoredFilter, { resourceSubscriptions: [uri.plan] }, 'only what was asked for')
      t.equal(b.node.mcp.listens.stats().rooms, 1, 'two streams of one room share one room listener')
      t.equal(b.node.hub.stats().listeners, hubOne.listeners, 'and one hub listener')
      t.equal(b.node.hub.stats().connections, hubOne.connections, 'a stream opens no Redis connection of its own')

      /** Waits for the notifications `fn`'s change (made on node A) sends to node B. */
      const after = async (what: string, fn: () => Promise<unknown>, expect: [string, string?][]) => {
        got.length = 0
        await fn()
        const ok = await eventually(() => got.length >= expect.length, 5000)
        await sleep(100) // nothing more comes
        t.ok(ok, `${what}: notified`)
        t.same(
          got.map((n) =>
            [n.method.replace('notifications/resources/', ''), n.params.uri].filter((x) => x !== undefined),
          ),
          expect,
          `${what}: ${expect.map((e) => e[1] ?? e[0]).join(', ')}`,
        )
      }
      await after(
        'context entry updated',
        () => core.context.write(as('w'), { type: 'spec', key: 'api', body: 'v2' }),
        [['updated', uri.api]],
      )
      await after('a new context entry', () => core.context.write(as('w'), { type: 'note', key: 'fresh', body: 'x' }), [
        ['list_changed'],
      ])
      await after(
        'another entry changed',
        () => core.context.write(as('w'), { type: 'spec', key: 'other', body: 'v2' }),
        [],
      )
      // The plan on both streams: the first listen and the second.
      await after('task added', () => core.plan.addTask(as('bob'), { title: 'Ship it' }), [
        ['updated', uri.plan],
        ['updated', uri.plan],
      ])
      await after('an event by bob', () => core.events.post(as('bob'), { type: 'message', text: 'hi' }), [
        ['updated', uri.unread],
      ])
      await after(
        'an event by alice is no news to her',
        () => core.events.post(as('alice'), { type: 'message', text: 'yo' }),
        [],
      )
      await after('alice reads', () => core.events.unread(as('alice')), [['updated', uri.unread]])
      await after('carol comes online', () => core.presence.heartbeat(as('carol')), [['updated', uri.presence]])
      await after('a var (no resource)', () => core.vars.set(as('carol'), { name: 'x', value: '1' }), [])

      const ids = new Set(got.map((n) => n.params._meta?.[SUBSCRIPTION_ID]))
      t.ok(!ids.has(undefined), 'every notification carries its subscription id')

      await sub.close()
      await second.close()
      t.ok(await eventually(() => b.node.mcp.listens.stats().streams === 0), 'closed streams are gone')
      t.ok(await eventually(() => b.node.hub.stats().listeners === hubBefore.listeners), 'and so is their hub listener')
    })

    await t.test('the raw stream: acknowledgement first, tagged, keep-alive; revocation ends it', async (t) => {
      const invite = (await (
        await a.call(`/admin/rooms/${room}/invite`, { method: 'POST', key: team.key, json: { label: 'listen' } })
      ).json()) as { key: string; tokenId: string }
      const s = streamedPost(
        b,
        modernBody(
          'subscriptions/listen',
          { notifications: { resourceSubscriptions: [uri.api], resourcesListChanged: true } },
          'L7',
        ),
        {
          ...listenHeaders,
          Authorization: `Bearer ${invite.key}`,
        },
      )
      const res = await s.response
      t.equal(res.status, 200)
      t.match(res.headers['content-type'], /^text\/event-stream/)
      t.equal(res.headers['x-accel-buffering'], 'no')
      const text = () => s.chunks.map((c) => c.text).join('')
      t.ok(await eventually(() => sseMessages(text()).length >= 1), 'acknowledged')
      const [ack] = sseMessages(text())
      t.same(ack, {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: {
          notifications: { resourcesListChanged: true, resourceSubscriptions: [uri.api] },
          _meta: { [SUBSCRIPTION_ID]: 'L7' },
        },
      })
      t.ok(await eventually(() => text().includes(': keep-alive\n\n')), 'keep-alive comments')
      await core.context.write(as('w'), { type: 'spec', key: 'api', body: 'v3' })
      t.ok(await eventually(() => sseMessages(text()).length >= 2), 'a change arrives')
      t.same(sseMessages(text())[1], {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: uri.api, _meta: { [SUBSCRIPTION_ID]: 'L7' } },
      })
      const revoked = await a.call(`/admin/rooms/${room}/invites/${invite.tokenId}`, {
        method: 'DELETE',
        key: team.key,
      })
      t.equal(revoked.status, 200)
      const body = await Promise.race([s.done, sleep(5000).then(() => 'timeout')])
      t.not(body, 'timeout', 'the stream ends on revocation (revoked through node A)')
      const last = sseMessages(body).at(-1)
      t.match(last, { jsonrpc: '2.0', id: 'L7', error: { code: -32000, data: { error: { code: 'unauthorized' } } } })
    })

    await t.test('refused filters', async (t) => {
      const refuse = async (what: string, notifications: unknown, message: RegExp | string) => {
        const r = await post(b, modernBody('subscriptions/listen', { notifications }, 'R'), listenHeaders, {
          key: team.key,
          timeoutMs: 5000,
        })
        const error = r.json?.error as { code: number; message: string } | undefined
        t.equal(error?.code, -32602, `${what}: -32602`)
        t.match(error?.message, message, `${what}: says why`)
      }
      const foreignPlan = `${URI_PREFIX}${foreign}/plan`
      await refuse(
        "another team's room",
        { resourceSubscriptions: [uri.plan, foreignPlan] },
        `Resource not found: ${foreignPlan}`,
      )
      await refuse(
        'not a resource',
        { resourceSubscriptions: ['file:///etc/hosts'] },
        'Resource not found: file:///etc/hosts',
      )
      const many = Array.from({ length: MAX_SUBSCRIPTIONS + 1 }, (_, i) =>
        resourceUri({ kind: 'unread', roomId: room, agent: `a${i}` }),
      )
      await refuse('too many', { resourceSubscriptions: many }, `the limit is ${MAX_SUBSCRIPTIONS}`)
      await refuse('no filter', undefined, /params\.notifications is required/)
      await refuse(
        'a filter field of the wrong type',
        { resourcesListChanged: 'yes' },
        /resourcesListChanged must be a boolean/,
      )
      t.equal(b.node.mcp.listens.stats().streams, 0, 'no stream was opened')
      const json = await post(
        b,
        modernBody('subscriptions/listen', { notifications: {} }, 'J'),
        {
          ...listenHeaders,
          Accept: 'application/json',
        },
        { key: team.key },
      )
      t.match(json.json?.error, { code: -32600, message: /text\/event-stream/ }, 'a client that takes no SSE')
    })

    await t.test('a draining node ends the stream with the listen result', async (t) => {
      const c = await startNode(t, backend)
      const client = await modernClient(t, c, team.key)
      const sub = await client.listen({ resourceSubscriptions: [uri.plan] })
      await c.node.stop(1000)
      t.equal(await Promise.race([sub.closed, sleep(5000).then(() => 'timeout')]), 'graceful')
    })
  })
}
