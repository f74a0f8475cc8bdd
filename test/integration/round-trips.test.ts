// Every core operation is one round trip to Redis, and every script touches only keys of one hash
// tag. Watched with MONITOR on a standalone server of this test's own (nothing else talks to it),
// where it sees both what the node sends and what each script runs.
import t from 'tap'
import { Redis } from 'ioredis'
import { Core } from '../../src/core/index.js'
import { defaultSettings } from '../../src/config.js'
import { Store } from '../../src/store/store.js'
import type { TestRoom } from '../helpers/core.js'
import { startRedis } from '../helpers/redis.js'
import { uid } from '../helpers/shared.js'
import { waitFor } from '../helpers/wait.js'
import { hashTagOf } from '../../src/store/keys.js'

interface Seen {
  args: string[]
  source: string
}

/** Commands whose first argument is not a key. */
const KEYLESS = new Set(['time', 'evalsha', 'eval', 'ping', 'info', 'client', 'select', 'monitor'])

/**
 * Ops that send two: those whose run makes the record they act on first, and the dashboard's room
 * page (the names, then the records of its pages).
 */
const TWO_CALLS = new Set(['events.delete', 'reviews.approve', 'roomPage.read'])

type Op = [name: string, run: (room: TestRoom) => Promise<unknown>]

/** Every operation of the core on a room, in an order where each finds what it needs. */
function tour(): Op[] {
  const ids: Record<string, string> = {}
  return [
    ['plan.addTask', (r) => r.core.plan.addTask(r.as('a'), { title: 'x', notes: 'n' })],
    ['plan.getTask', (r) => r.core.plan.getTask(r.as('a'), { task_id: 't1' })],
    ['plan.updateTask', (r) => r.core.plan.updateTask(r.as('a'), { task_id: 't1', status: 'in_progress' })],
    ['plan.setTaskPriority', (r) => r.core.plan.setTaskPriority(r.as('a'), { task_id: 't1', priority: 'high' })],
    ['plan.addDependency', (r) => r.core.plan.addDependency(r.as('a'), { task_id: 't3', depends_on: 't2' })],
    [
      'plan.setDependencies',
      (r) => r.core.plan.setDependencies(r.as('a'), { task_id: 't3', depends_on: ['t2', 't1'] }),
    ],
    ['plan.readPlan', (r) => r.core.plan.readPlan(r.as('a'))],
    ['plan.unblockedTasks', (r) => r.core.plan.unblockedTasks(r.as('a'))],
    ['plan.claimNext', (r) => r.core.plan.claimNext(r.as('b'))],
    ['plan.myTasks', (r) => r.core.plan.myTasks(r.as('a'))],
    ['plan.deleteTask', (r) => r.core.plan.deleteTask(r.as('a'), { task_id: 't8' })],
    ['rooms.info', (r) => r.core.rooms.info(r.as('a'))],
    ['context.write', (r) => r.core.context.write(r.as('a'), { type: 'spec', key: 'api', body: `v${Math.random()}` })],
    ['context.update', (r) => r.core.context.update(r.as('a'), { type: 'spec', key: 'api', append: '\nmore' })],
    ['context.read', (r) => r.core.context.read(r.as('a'), { type: 'spec', key: 'api' })],
    ['context.list', (r) => r.core.context.list(r.as('a'))],
    ['context.history', (r) => r.core.context.history(r.as('a'), { type: 'spec', key: 'api' })],
    ['context.diff', (r) => r.core.context.diff(r.as('a'), { type: 'spec', key: 'api' })],
    [
      'events.post',
      async (r) => (ids.event = (await r.core.events.post(r.as('a'), { type: 'message', text: 'hi' })).event.id),
    ],
    ['events.reply', (r) => r.core.events.reply(r.as('b'), { event_id: ids.event, text: 'hello' })],
    ['events.read', (r) => r.core.events.read(r.as('a'))],
    ['events.unread', (r) => r.core.events.unread(r.as('b'))],
    ['events.peekUnread', (r) => r.core.events.peekUnread(r.as('b'))],
    ['events.peekUnreadEvents', (r) => r.core.events.peekUnreadEvents(r.as('b'), 10)],
    ['events.markRead', (r) => r.core.events.markRead(r.as('c'), { event_id: ids.event })],
    ['events.reads', (r) => r.core.events.reads(r.as('a'), { event_id: ids.event })],
    [
      'events.delete',
      async (r) =>
        r.core.events.delete(r.as('a'), {
          event_id: (await r.core.events.post(r.as('a'), { type: 'message', text: 'x' })).event.id,
        }),
    ],
    ['presence.heartbeat', (r) => r.core.presence.heartbeat(r.as('a'))],
    ['presence.list', (r) => r.core.presence.list(r.as('a'))],
    ['presence.leave', (r) => r.core.presence.leave(r.as('z'))],
    ['locks.acquire', (r) => r.core.locks.acquire(r.as('a'), { name: 'schema.sql' })],
    ['locks.list', (r) => r.core.locks.list(r.as('a'))],
    ['locks.release', (r) => r.core.locks.release(r.as('a'), { name: 'schema.sql' })],
    ['vars.set', (r) => r.core.vars.set(r.as('a'), { name: 'flag', value: 'on' })],
    ['vars.get', (r) => r.core.vars.get(r.as('a'), { name: 'flag' })],
    ['vars.list', (r) => r.core.vars.list(r.as('a'))],
    ['vars.increment', (r) => r.core.vars.increment(r.as('a'), { name: 'count' })],
    [
      'reviews.request',
      async (r) =>
        (ids.review = (await r.core.reviews.request(r.as('a'), { target: { kind: 'task', task_id: 't1' } })).review.id),
    ],
    [
      'reviews.approve',
      async (r) =>
        r.core.reviews.approve(r.as('b'), {
          review_id: (await r.core.reviews.request(r.as('a'), { target: { kind: 'task', task_id: 't2' } })).review.id,
        }),
    ],
    ['reviews.reject', (r) => r.core.reviews.reject(r.as('b'), { review_id: ids.review })],
    ['reviews.list', (r) => r.core.reviews.list(r.as('a'))],
    ['summary.mine', (r) => r.core.summary.mine(r.as('a'))],
    ['analytics.room', (r) => r.core.analytics.room(r.as('a'))],
    ['snapshot.room', (r) => r.core.snapshot.room(r.as())],
    ['roomPage.read', (r) => r.core.roomPage.read(r.as(), { size: 20, days: 7, ids: 10 })],
  ]
}

t.test('one round trip per operation, one hash tag per script', async (t) => {
  const redis = await startRedis()
  t.teardown(() => redis.stop())
  const store = new Store(defaultSettings({ redisUrl: `redis://127.0.0.1:${redis.port}` }))
  t.teardown(() => store.close())
  const core = new Core(store, store.settings)
  const teamId = uid('tm')
  const { room: created } = await core.rooms.create(teamId, { template: 'web-app' }, 'test')
  const ref = { teamId, roomId: created.room_id }
  const room: TestRoom = {
    core,
    teamId,
    roomId: ref.roomId,
    as: (agent, idempotencyKey) => ({ room: ref, agent, idempotencyKey }),
  }
  const base = new Redis(redis.port, '127.0.0.1')
  const monitor = await base.monitor()
  const fencer = new Redis(redis.port, '127.0.0.1')
  t.teardown(() => {
    monitor.disconnect()
    base.disconnect()
    fencer.disconnect()
  })
  let seen: Seen[] = []
  monitor.on('monitor', (_time: string, args: string[], source: string) => seen.push({ args, source }))
  /**
   * Waits until MONITOR has reported everything the last call ran: Redis reports commands in the
   * order it runs them, so once an ECHO sent after the call shows up, nothing of the call is still
   * on its way. The ECHO itself is left out of `seen`.
   */
  let fences = 0
  const settle = async () => {
    const fence = `fence-${++fences}`
    await fencer.echo(fence)
    const isFence = (s: Seen) => s.args[0]?.toLowerCase() === 'echo' && s.args[1] === fence
    await waitFor(() => seen.some(isFence), 5000, `MONITOR to report ${fence}`)
    seen = seen.filter((s) => !isFence(s))
  }

  for (const [name, run] of tour()) {
    // First run loads the script (EVALSHA, then EVAL on NOSCRIPT); the second is measured.
    await run(room).catch(() => undefined)
    await settle()
    seen = []
    await run(room).catch(() => undefined)
    await settle()
    const mine = seen.filter((s) => s.source !== 'lua')
    const expected = TWO_CALLS.has(name) ? 2 : 1
    t.equal(
      mine.length,
      expected,
      `${name}: ${mine.length} command(s) from the node: ${mine.map((s) => s.args[0]).join(', ')}`,
    )
    const evalsha = mine[mine.length - 1]!
    t.equal(evalsha.args[0]?.toLowerCase(), 'evalsha', `${name} runs a script`)
    const numKeys = Number(evalsha.args[2])
    const keys = evalsha.args.slice(3, 3 + numKeys)
    const tags = new Set(keys.map(hashTagOf))
    t.equal(tags.size, 1, `${name}: every declared key shares one tag`)
    const tag = [...tags][0]
    for (const s of seen.filter((x) => x.source === 'lua')) {
      const cmd = s.args[0]!.toLowerCase()
      if (KEYLESS.has(cmd)) continue
      t.equal(hashTagOf(s.args[1]!), tag, `${name}: ${cmd} ${s.args[1]} inside the script has the room's tag`)
    }
  }
})
