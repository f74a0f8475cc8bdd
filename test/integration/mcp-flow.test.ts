// Every MCP tool through the SDK 1.x client (Streamable HTTP, initialize era) against a running
// node, as two agents sharing a room made from a template would use them: claim and conflict,
// context versions and diffs, events and read cursors, locks, vars, reviews, analytics, leaving.
// The last assertion checks that each tool of ALL_TOOLS was called and answered.
import t, { type Test } from 'tap'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ALL_TOOLS } from '../../src/mcp/tools/index.js'
import { callTool, legacyClient, type ToolReply } from '../helpers/mcp.js'
import { newTeam, startNode } from '../helpers/node.js'
import { BACKENDS } from '../helpers/shared.js'

/** A tool result, checked field by field. */
type Body = Record<string, any>

/** Calls tools as one agent and records which tools answered. */
class Agent {
  constructor(
    /** Where assertions go: the current subtest. */
    public t: Test,
    private readonly client: Client,
    readonly agentId: string,
    private readonly called: Map<string, string>,
    readonly roomId = '',
  ) {}

  in(roomId: string): Agent {
    return new Agent(this.t, this.client, this.agentId, this.called, roomId)
  }

  private async call(name: string, args: Record<string, unknown>, team: boolean): Promise<ToolReply> {
    const full = team ? args : { room_id: this.roomId, agent_id: this.agentId, ...args }
    return callTool(this.client, name, full)
  }

  /** A successful call; a room tool's result must name the room and carry the unread count. */
  async ok(name: string, args: Record<string, unknown> = {}, team = false): Promise<Body> {
    const r = await this.call(name, args, team)
    this.t.notOk(r.isError, `${name} succeeds`, { body: r.body })
    if (!team) {
      this.t.equal(r.body.room_id, this.roomId, `${name} result names the room`)
      this.t.type(r.body.unread, 'number', `${name} result carries unread`)
    }
    this.called.set(name, 'ok')
    return r.body
  }

  /** A refused call: isError with this code and the table's hint. */
  async fails(name: string, args: Record<string, unknown>, code: string): Promise<Body> {
    const r = await this.call(name, args, false)
    this.t.ok(r.isError, `${name} is refused`)
    this.t.equal(r.body.error?.code, code, `${name} → ${code}`, { body: r.body })
    this.t.type(r.body.error?.hint, 'string', `${name} error carries a hint`)
    this.t.equal(r.body.room_id, this.roomId, `${name} error names the room`)
    if (!this.called.has(name)) this.called.set(name, `error:${code}`)
    return r.body
  }
}

for (const backend of BACKENDS) {
  t.test(`every tool over the SDK 1.x client (${backend})`, async (t) => {
    const n = await startNode(t, backend)
    const team = await newTeam(n)
    const called = new Map<string, string>()
    const alice0 = new Agent(t, await legacyClient(t, n, team.key), 'alice', called)
    const bob0 = new Agent(t, await legacyClient(t, n, team.key), 'bob', called)

    // Team tools: templates, a room from one, the team's rooms.
    const templates = await alice0.ok('list_templates', {}, true)
    t.ok(
      (templates.templates as Body[]).some((x) => x.id === 'web-app' && x.tasks > 0),
      'web-app template listed with its tasks',
    )
    const created = await alice0.ok('create_room_from_template', { template: 'web-app', name: 'Flow room' }, true)
    const roomId = created.room.room_id as string
    t.match(created.room, { name: 'Flow room', template: 'web-app', room_id: 'flow-room' })
    t.notOk('deprecated' in created, 'no deprecation note without room_id')
    const rooms = await alice0.ok('list_rooms', {}, true)
    t.ok(
      (rooms.rooms as Body[]).some((r) => r.room_id === roomId),
      'list_rooms shows the new room',
    )
    const alice = alice0.in(roomId)
    const bob = bob0.in(roomId)
    /** A subtest whose assertions, the agents' included, land in it. */
    const step = (name: string, fn: (t: Test) => Promise<void>) =>
      t.test(name, async (st) => {
        alice.t = bob.t = st
        await fn(st)
      })

    await step('turn start: presence, summary, claimable work', async (t) => {
      t.equal((await alice.ok('heartbeat')).online_count, 1)
      t.equal((await bob.ok('heartbeat')).online_count, 2)
      const presence = await alice.ok('get_presence')
      t.same((presence.online as Body[]).map((p) => p.agent_id).sort(), ['alice', 'bob'])
      const info = await alice.ok('get_room_info')
      t.equal(info.room.room_id, roomId)
      t.ok(info.counts.tasks > 0, 'room info counts the template tasks')
      const summary = await alice.ok('get_my_summary')
      t.ok(summary.unblocked_tasks > 0, 'summary counts claimable tasks')
      const unblocked = await alice.ok('get_unblocked_tasks')
      t.equal(unblocked.tasks[0].id, 't1', 'best claimable task first')
      const next = await bob.ok('claim_next_task')
      t.match(next.task, { id: 't1', status: 'in_progress', assignee: 'bob' }, 'claim_next_task claims the first')
      t.equal(typeof next.open, 'number')
      await bob.ok('update_task', { task_id: 't1', status: 'todo', assignee: '' })
      t.match((await bob.ok('get_task', { task_id: 't1' })).task, { status: 'todo' }, 'handed back')
    })

    await step('plan: claim, conflict for a second agent, tasks and dependencies', async (t) => {
      const claim = await alice.ok('update_task', { task_id: 't1', status: 'in_progress' })
      t.match(claim.task, { id: 't1', status: 'in_progress', assignee: 'alice' })
      const conflict = await bob.fails('update_task', { task_id: 't1', status: 'in_progress' }, 'conflict')
      t.match(conflict.error.message, /alice/, 'the conflict names the holder')
      t.equal(conflict.error.details.holder, 'alice')
      t.equal((await bob.ok('get_task', { task_id: 't1' })).task.assignee, 'alice', 'the refused claim changed nothing')
      t.ok(
        (await alice.ok('get_my_tasks')).tasks.some((x: Body) => x.id === 't1'),
        'alice holds t1',
      )
      const added = await bob.ok('add_task', { title: 'Write the API client', depends_on: ['t1'], priority: 'low' })
      const tid = added.task.id as string
      t.same(added.task.depends_on, ['t1'])
      const dep = await bob.ok('add_dependency', { task_id: tid, depends_on: 't4' })
      t.equal(dep.added, true)
      t.same([...(dep.task.depends_on as string[])].sort(), ['t1', 't4'])
      const cycle = await bob.fails('add_dependency', { task_id: 't1', depends_on: tid }, 'invalid_request')
      t.same(cycle.error.details.cycle, ['t1', tid, 't1'], 'the cycle is named')
      const prio = await bob.ok('set_task_priority', { task_id: tid, priority: 'urgent' })
      t.equal(prio.task.priority, 'urgent')
      const plan = await alice.ok('read_plan')
      t.ok(
        (plan.tasks as Body[]).some((x) => x.id === tid),
        'read_plan lists the new task',
      )
      t.equal(plan.counts.in_progress, 1)
      const scratch = await bob.ok('add_task', { title: 'scratch' })
      t.equal((await bob.ok('delete_task', { task_id: scratch.task.id })).deleted, scratch.task.id)
      await bob.fails('get_task', { task_id: scratch.task.id }, 'not_found')
    })

    await step('context: write, update, diff, history', async (t) => {
      const w = await alice.ok('write_context', { type: 'spec', key: 'api', body: 'GET /items\n' })
      t.equal(w.entry.version, 1)
      const u = await bob.ok('update_context', { type: 'spec', key: 'api', append: 'POST /items\n' })
      t.equal(u.entry.version, 2)
      await bob.fails('write_context', { type: 'spec', key: 'api', body: 'x', expected_version: 1 }, 'conflict')
      t.equal((await alice.ok('read_context', { type: 'spec', key: 'api' })).body, 'GET /items\nPOST /items\n')
      const diff = await alice.ok('diff_context', { type: 'spec', key: 'api' })
      t.match(diff, { from_version: 1, to_version: 2, added: 1, removed: 0 })
      t.match(diff.patch, /\+POST \/items/)
      t.equal((await alice.ok('get_context_history', { type: 'spec', key: 'api' })).versions.length, 2)
      t.ok((await alice.ok('list_context', { type: 'spec' })).entries.some((e: Body) => e.key === 'api'))
      await alice.ok('write_context', { type: 'scratch', key: 'tmp', body: 'bye' })
      t.match((await alice.ok('delete_context', { type: 'scratch', key: 'tmp' })).deleted, {
        type: 'scratch',
        key: 'tmp',
      })
      await alice.fails('read_context', { type: 'scratch', key: 'tmp' }, 'not_found')
    })

    await step('events: post, unread, reply, cursors, reads, delete, wait', async (t) => {
      await bob.ok('get_unread_events', { limit: 100 }) // start from a clean cursor
      const q = await alice.ok('post_event', {
        type: 'question',
        text: 'Which database?',
        data: { options: ['pg', 'sqlite'] },
        idempotency_key: 'q-1',
      })
      const qid = q.event.id as string
      const again = await alice.ok('post_event', {
        type: 'question',
        text: 'Which database?',
        data: { options: ['pg', 'sqlite'] },
        idempotency_key: 'q-1',
      })
      t.equal(again.event.id, qid, 'a repeated idempotency_key returns the first event')
      t.ok((await bob.ok('heartbeat')).unread >= 1, 'bob sees an unread count on any result')
      const unread = await bob.ok('get_unread_events')
      t.ok(
        (unread.events as Body[]).some((e) => e.id === qid && e.data?.options?.[0] === 'pg'),
        'bob consumes the question',
      )
      t.equal(unread.remaining, 0)
      const reply = await bob.ok('reply_to_event', { event_id: qid, text: 'Postgres' })
      t.equal(reply.event.reply_to, qid)
      const reads = await alice.ok('get_event_reads', { event_id: qid })
      t.equal(reads.author, 'alice')
      t.ok((reads.read_by as string[]).includes('bob'), 'bob has read the question')
      t.equal((await alice.ok('mark_event_read', { event_id: reply.event.id })).moved, true)
      t.equal((await alice.ok('heartbeat')).unread, 0, 'alice skipped past the reply')
      const page = await alice.ok('read_events', { limit: 100 })
      t.ok(
        (page.events as Body[]).some((e) => e.id === reply.event.id),
        'read_events pages the feed',
      )
      await bob.fails('delete_event', { event_id: qid }, 'forbidden')
      t.equal((await alice.ok('delete_event', { event_id: qid })).deleted, qid)
      await alice.ok('post_event', { type: 'status', text: 'schema ready' })
      const waited = await bob.ok('wait_for_events', { timeout_s: 5 })
      t.ok(
        (waited.events as Body[]).some((e) => e.text === 'schema ready'),
        'wait_for_events returns unread events at once',
      )
      const empty = await bob.ok('wait_for_events', { timeout_s: 1 })
      t.same(empty.events, [], 'nothing new: empty after the timeout')
    })

    await step('locks', async (t) => {
      const lock = await alice.ok('acquire_lock', { name: 'file:db/schema.sql', ttl_s: 60 })
      t.match(lock.lock, { owner: 'alice' })
      const held = await bob.fails('acquire_lock', { name: 'file:db/schema.sql' }, 'conflict')
      t.match(held.error.message, /alice/)
      t.ok((await bob.ok('list_locks')).locks.some((l: Body) => l.name === 'file:db/schema.sql' && l.owner === 'alice'))
      const rel = await alice.ok('release_lock', { name: 'file:db/schema.sql', token: lock.lock.token })
      t.equal(rel.released, true)
      t.same((await bob.ok('list_locks')).locks, [])
    })

    await step('file reservations', async (t) => {
      const r = await alice.ok('reserve_files', { patterns: ['src/db/**'], reason: 'schema', ttl_s: 60 })
      t.match(r.reservations, [{ pattern: 'src/db/**', agent: 'alice', exclusive: true, reason: 'schema' }])
      const held = await bob.fails('reserve_files', { patterns: ['src/**/*.sql'] }, 'conflict')
      t.match(held.error.message, /reserved exclusively by alice/)
      t.match(held.error.details, { holder: 'alice', conflicts: [{ held_pattern: 'src/db/**' }] })
      await bob.fails('reserve_files', { patterns: ['src/{a,b}'] }, 'invalid_request')
      t.equal((await bob.ok('list_reservations')).reservations.length, 1)
      t.same((await alice.ok('release_files', {})).released, ['src/db/**'])
      t.same((await bob.ok('list_reservations', { agent: 'alice' })).reservations, [])
    })

    await step('shared vars: value and increment', async (t) => {
      t.equal((await alice.ok('set_shared_var', { name: 'build.status', value: 'green' })).var.value, 'green')
      await alice.ok('set_shared_var', { name: 'build.count', increment: 2 })
      const inc = await bob.ok('set_shared_var', { name: 'build.count', increment: 3 })
      t.equal(String(inc.var.value), '5', 'increments add up')
      await bob.fails('set_shared_var', { name: 'build.count', value: '1', increment: 1 }, 'invalid_request')
      t.equal((await bob.ok('get_shared_var', { name: 'build.status' })).var.value, 'green')
      t.same(
        ((await bob.ok('list_shared_vars', { prefix: 'build.' })).vars as Body[]).map((v) => v.name),
        ['build.count', 'build.status'],
      )
    })

    await step('reviews: request, approve, reject, list', async (t) => {
      const req = await alice.ok('request_review', {
        target: { kind: 'task', task_id: 't1' },
        reviewer: 'bob',
        note: 'brief done',
      })
      t.equal(req.task_status, 'in_review')
      const pending = await bob.ok('list_reviews', { reviewer: 'bob', status: 'pending' })
      t.same(
        (pending.reviews as Body[]).map((r) => r.id),
        [req.review.id],
      )
      await alice.fails('approve', { review_id: req.review.id }, 'forbidden')
      const approved = await bob.ok('approve', { review_id: req.review.id, note: 'lgtm' })
      t.equal(approved.review.status, 'approved')
      t.equal(
        (await alice.ok('get_task', { task_id: 't1' })).task.status,
        'done',
        'an approved task review finishes the task',
      )
      const ctxReview = await alice.ok('request_review', { target: { kind: 'context', type: 'spec', key: 'api' } })
      const rejected = await bob.ok('reject', { review_id: ctxReview.review.id, note: 'add DELETE' })
      t.equal(rejected.review.status, 'rejected')
    })

    await step('insights: analytics and search', async (t) => {
      const a = await alice.ok('get_room_analytics', { days: 3 })
      t.equal(a.events_per_day.length, 3)
      t.ok(a.tasks.by_status.done >= 1, 'analytics sees the finished task')
      t.type(a.completion_rate, 'number')
      if ((n.node as { search?: unknown }).search) {
        const s = await alice.ok('search', { query: 'items' })
        t.ok(s, 'search answers (node.search is configured)')
      } else {
        const s = await alice.fails('search', { query: 'items' }, 'unavailable')
        t.match(s.error.message, /search/, 'search without an engine is unavailable')
        called.set('search', 'unavailable')
      }
    })

    await step('leaving', async (t) => {
      const left = await bob.ok('leave_room')
      t.equal(left.left, true)
      const presence = await alice.ok('get_presence')
      t.same(
        (presence.online as Body[]).map((p) => p.agent_id),
        ['alice'],
        'bob is no longer online',
      )
    })

    const missing = ALL_TOOLS.map((d) => d.name).filter((name) => !called.has(name))
    t.same(missing, [], 'every tool was called and answered')
    const notOk = [...called].filter(([, outcome]) => outcome !== 'ok')
    t.ok(
      notOk.every(([name]) => name === 'search'),
      'every tool but search (when unconfigured) succeeded at least once',
      { notOk },
    )
  })
}
