// No information loss in compact replies: three agents play their typical turns
// until the plan is done, twice in two rooms built alike. In one room they decide on the compact
// MCP replies alone (get_my_summary, get_unblocked_tasks, refused claims and locks); in the other
// on whole records (the dashboard snapshot, GET /room/:roomId, which keeps every field). Both
// rooms must end the same: every claim, dependency, lock and review alike.
import t from 'tap'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { callTool, legacyClient } from '../helpers/mcp.js'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { BACKENDS, uid } from '../helpers/shared.js'

type Body = Record<string, any>
type Mode = 'compact' | 'full'

/** What an agent decides with, whichever replies it came from. */
interface TaskView {
  id: string
  status: string
  assignee?: string
  blocked: boolean
}
interface View {
  mine: TaskView[]
  /** Claimable tasks, best first. */
  claimable: TaskView[]
  reviewsForMe: string[]
}

const AGENTS = ['alice', 'bob', 'carol'] as const
const reviewerOf = (agent: string) => AGENTS[(AGENTS.indexOf(agent as (typeof AGENTS)[number]) + 1) % AGENTS.length]!

/** The plan: dependencies in two chains, priorities, and tasks assigned up front (one blocked). */
const PLAN: Body[] = [
  { title: 'Schema for payments', priority: 'urgent' },
  { title: 'API on the schema', depends_on: ['t1'], assignee: 'bob' },
  { title: 'UI for refunds' },
  { title: 'Docs for API and UI', depends_on: ['t2', 't3'], priority: 'low' },
  { title: 'Load tests', priority: 'high' },
  { title: 'Deploy', depends_on: ['t4', 't5'] },
  { title: 'Hotfix the webhook retry', assignee: 'carol' },
]

class Player {
  constructor(
    private readonly client: Client,
    readonly agent: string,
    private readonly roomId: string,
  ) {}

  async call(name: string, args: Record<string, unknown> = {}) {
    return callTool(this.client, name, { room_id: this.roomId, agent_id: this.agent, ...args })
  }

  async ok(name: string, args: Record<string, unknown> = {}): Promise<Body> {
    const r = await this.call(name, args)
    if (r.isError) throw new Error(`${this.agent} ${name}: ${JSON.stringify(r.body)}`)
    return r.body
  }
}

/** The view from compact replies only: the turn's summary and unblocked list. */
async function compactView(p: Player): Promise<View> {
  const s = await p.ok('get_my_summary')
  const u = await p.ok('get_unblocked_tasks', { limit: 200 })
  const view = (x: Body): TaskView => ({
    id: x.id,
    status: x.status ?? 'todo', // a claimable item carries none: it is todo
    assignee: x.assignee,
    blocked: (x.blocked_by ?? []).length > 0,
  })
  return {
    mine: s.my_tasks.map(view),
    claimable: u.tasks.map(view),
    reviewsForMe: s.reviews_for_me.map((r: Body) => r.id),
  }
}

/** The view from whole records (the snapshot), worked out the way an agent would from every field. */
async function fullView(p: Player, n: TestNode, key: string, roomId: string): Promise<View> {
  await p.ok('get_my_summary') // the same turn: consumes the same events
  const snap = (await (await n.call(`/room/${roomId}`, { key })).json()) as Body
  const tasks = snap.tasks as Body[] // whole records, in plan order (priority, order, creation)
  const statusOf = new Map(tasks.map((x) => [x.id, x.status]))
  const blocked = (x: Body) =>
    (x.depends_on as string[]).some((d) => statusOf.get(d) !== 'done' && statusOf.get(d) !== 'cancelled')
  const view = (x: Body): TaskView => ({ id: x.id, status: x.status, assignee: x.assignee, blocked: blocked(x) })
  return {
    mine: tasks.filter((x) => x.assignee === p.agent && x.status !== 'done' && x.status !== 'cancelled').map(view),
    claimable: tasks
      .filter((x) => x.status === 'todo' && (x.assignee === undefined || x.assignee === p.agent) && !blocked(x))
      .map(view),
    reviewsForMe: (snap.reviews as Body[])
      .filter((r) => r.status === 'pending' && r.reviewer === p.agent)
      .map((r) => r.id as string)
      .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))),
  }
}

/**
 * One agent's actions on its view, the same whatever the view came from: approve reviews asked
 * of it; hand in work in progress for review under the repo lock (kept to the end of the round,
 * so a second agent finishing in the same round meets a held lock and waits); else claim the best
 * task, taking the next one when a claim is refused.
 */
async function act(p: Player, v: View, held: string[], stats: { refusedClaims: number }): Promise<void> {
  for (const id of v.reviewsForMe) await p.ok('approve', { review_id: id })
  const working = v.mine.find((x) => x.status === 'in_progress')
  if (working) {
    const lock = await p.call('acquire_lock', { name: 'repo', ttl_s: 60 })
    if (lock.isError) {
      if (lock.body.error?.details?.holder === undefined)
        throw new Error(`lock refusal without holder: ${JSON.stringify(lock.body)}`)
      await p.ok('post_event', {
        type: 'status',
        text: `${working.id} waits for the repo (${lock.body.error.details.holder})`,
      })
      return
    }
    held.push(p.agent)
    await p.ok('request_review', { target: { kind: 'task', task_id: working.id }, reviewer: reviewerOf(p.agent) })
    await p.ok('post_event', { type: 'status', text: `${working.id} ready for review` })
    return
  }
  if (v.mine.some((x) => x.status === 'in_review')) return // waiting for the reviewer
  const candidates = [
    ...v.mine.filter((x) => x.status === 'todo' && !x.blocked),
    ...v.claimable.filter((x) => x.assignee === undefined || x.assignee === p.agent),
  ]
  for (const c of candidates) {
    const r = await p.call('update_task', { task_id: c.id, status: 'in_progress' })
    if (!r.isError) {
      await p.ok('post_event', { type: 'status', text: `claimed ${c.id}` })
      return
    }
    if (r.body.error?.code !== 'conflict' || r.body.error.details?.holder === undefined)
      throw new Error(`claim ${c.id}: ${JSON.stringify(r.body)}`)
    stats.refusedClaims++
  }
}

/** Plays rounds until every task is done (at most 30): all look, then all act, then locks go. */
async function play(
  n: TestNode,
  key: string,
  clients: Client[],
  mode: Mode,
): Promise<{ roomId: string; rounds: number; refusedClaims: number }> {
  const stats = { refusedClaims: 0 }
  const roomId = uid('turns')
  const created = await n.call('/admin/rooms', { method: 'POST', key, json: { roomId } })
  if (created.status !== 201) throw new Error(`room: ${created.status}`)
  const players = AGENTS.map((a, i) => new Player(clients[i]!, a, roomId))
  const planner = new Player(clients[0]!, 'planner', roomId)
  for (const task of PLAN) await planner.ok('add_task', task)
  for (let round = 1; round <= 30; round++) {
    const views: View[] = []
    for (const p of players) {
      await p.ok('heartbeat')
      views.push(mode === 'compact' ? await compactView(p) : await fullView(p, n, key, roomId))
    }
    const held: string[] = []
    for (const [i, p] of players.entries()) await act(p, views[i]!, held, stats)
    for (const agent of held) await players.find((p) => p.agent === agent)!.ok('release_lock', { name: 'repo' })
    const plan = await planner.ok('read_plan', { limit: 200 })
    if (plan.counts.done === PLAN.length) return { roomId, rounds: round, ...stats }
  }
  throw new Error(`${mode}: the plan was not done in 30 rounds`)
}

/** A room's end state without times or event ids: tasks whole, reviews, locks, the feed's signals. */
async function endState(n: TestNode, key: string, client: Client, roomId: string) {
  const p = new Player(client, 'auditor', roomId)
  const tasks = []
  for (let i = 1; i <= PLAN.length; i++) {
    const { task, blocked_by } = await p.ok('get_task', { task_id: `t${i}` })
    tasks.push({
      id: task.id,
      status: task.status,
      assignee: task.assignee,
      depends_on: task.depends_on,
      priority: task.priority,
      blocked_by,
    })
  }
  const snap = (await (await n.call(`/room/${roomId}`, { key })).json()) as Body
  const reviews = (snap.reviews as Body[]).map((r) => ({
    id: r.id,
    target: r.target,
    status: r.status,
    requested_by: r.requested_by,
    reviewer: r.reviewer,
    decided_by: r.decided_by,
  }))
  const locks = (await p.ok('list_locks')).locks
  const events = ((await p.ok('read_events', { limit: 100 })).events as Body[]).map(
    (e) => `${e.agent_id} ${e.type}: ${e.text}`,
  )
  return { tasks, reviews, locks, events }
}

for (const backend of BACKENDS) {
  t.test(`three agents reach the same end state on compact replies as on whole records (${backend})`, async (t) => {
    const n = await startNode(t, backend, { rateLimitPerCredentialPerMin: 0 })
    const { key } = await newTeam(n)
    const clients = await Promise.all(AGENTS.map(() => legacyClient(t, n, key)))
    const compact = await play(n, key, clients, 'compact')
    const full = await play(n, key, clients, 'full')
    t.equal(compact.rounds, full.rounds, `the same number of rounds (${compact.rounds})`)
    t.equal(compact.refusedClaims, full.refusedClaims, 'the same claims refused')
    t.ok(
      compact.refusedClaims > 0,
      `agents raced for a task and the loser moved on (${compact.refusedClaims} refused claims)`,
    )
    const a = await endState(n, key, clients[0]!, compact.roomId)
    const b = await endState(n, key, clients[0]!, full.roomId)
    t.same(a, b, 'tasks, reviews, locks and the feed end alike')

    // And the end state is the one the rules call for, so both cannot be wrong alike.
    t.ok(
      a.tasks.every((x) => x.status === 'done'),
      'every task done',
    )
    t.same(a.tasks.find((x) => x.id === 't7')?.assignee, 'carol', 'the task assigned up front stayed with carol')
    t.same(a.tasks.find((x) => x.id === 't6')?.depends_on, ['t4', 't5'])
    t.equal(a.reviews.length, PLAN.length, 'one review per task')
    t.ok(
      a.reviews.every(
        (r) => r.status === 'approved' && r.decided_by === r.reviewer && r.reviewer === reviewerOf(r.requested_by),
      ),
      'each approved by the next agent',
    )
    t.same(a.locks, [], 'no lock left held')
    t.ok(
      a.events.some((e) => / waits for the repo \(/.test(e)),
      'a held lock made an agent wait (its holder named)',
    )
    const claims = a.events.filter((e) => e.includes(': claimed '))
    t.equal(claims.length, PLAN.length, 'each task claimed once')
    // Docs (t4) waits for API (t2) and UI (t3); Deploy (t6) for Docs and Load tests (t5).
    const at = (id: string, what: string) =>
      a.events.findIndex((e) => e.endsWith(`${what} ${id}`) || e.endsWith(`${id} ${what}`))
    t.ok(
      at('t4', 'claimed') > at('t2', 'ready for review') && at('t4', 'claimed') > at('t3', 'ready for review'),
      'docs claimed only after its dependencies were handed in',
    )
    t.ok(at('t6', 'claimed') > at('t4', 'ready for review'), 'deploy claimed only after docs')
  })
}
