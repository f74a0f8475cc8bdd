// How the store sends scripts (src/store/evalsha.ts) on real Redis (the frames themselves:
// test/unit/evalsha.test.ts): standalone and cluster, a lost script cache (SCRIPT FLUSH, as after a
// restart or failover) costs an EVAL per call in flight and no failed call; text of any kind
// survives the frame intact; with REDIS_AUTO_PIPELINING on, scripts go through ioredis' own
// commands and are pipelined; committed listeners hear each write with its header's Effects.
import t from 'tap'
import { Cluster } from 'ioredis'
import { newRoom, rawRoom } from '../helpers/core.js'
import { BACKENDS } from '../helpers/shared.js'

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('after SCRIPT FLUSH every call still succeeds, and the script is cached again', async (t) => {
      const room = await newRoom(t, backend)
      const { raw } = rawRoom(t, backend, room)
      const { store } = room.core
      await room.core.events.post(room.as('alice'), { type: 'status', text: 'before' })
      const masters = raw instanceof Cluster ? raw.nodes('master') : [raw]
      const sha = store.scripts.get('postEvent')!.sha
      for (const m of masters) await m.script('FLUSH')
      t.same(
        await Promise.all(masters.map((m) => m.script('EXISTS', sha))),
        masters.map(() => [0]),
        'the cache is empty',
      )
      // Several at once: each gets NOSCRIPT and sends the source; none fails.
      const posted = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          room.core.events.post(room.as('alice'), { type: 'status', text: `after ${i}` }),
        ),
      )
      t.same(
        posted.map((p) => p.event.text),
        [0, 1, 2, 3, 4].map((i) => `after ${i}`),
        'every post returns its own event',
      )
      const exists = (await Promise.all(masters.map((m) => m.script('EXISTS', sha)))) as number[][]
      t.ok(
        exists.some(([e]) => e === 1),
        "EVAL put the script back in the cache of the room's master",
      )
      const page = await room.core.events.read(room.as('bob'), { limit: 10 })
      t.same(
        page.events.map((e) => e.text),
        ['before', ...[0, 1, 2, 3, 4].map((i) => `after ${i}`)],
        'each post stored exactly once',
      )
    })

    t.test('multi-byte text and data survive the frame', async (t) => {
      const room = await newRoom(t, backend)
      const text = 'naïve — 日本語 🌍 \r\n$3\r\n'
      const { event } = await room.core.events.post(room.as('zoë'), {
        type: 'status',
        text,
        data: { note: 'ü', n: [1, 2] },
      })
      t.equal(event.text, text)
      t.equal(event.agent_id, 'zoë')
      const [read] = (await room.core.events.read(room.as('bob'), { limit: 1 })).events
      t.same(
        { text: read!.text, agent: read!.agent_id, data: read!.data },
        { text, agent: 'zoë', data: { note: 'ü', n: [1, 2] } },
      )
    })

    t.test("REDIS_AUTO_PIPELINING: scripts join ioredis' auto-pipeline, and only then", async (t) => {
      for (const on of [true, false]) {
        const room = await newRoom(t, backend, { settings: { redisAutoPipelining: on } })
        const client = room.core.store.client
        const posts = [0, 1, 2, 3].map((i) =>
          room.core.events.post(room.as('alice'), { type: 'status', text: `p${i}` }),
        )
        // Queued for the pipeline of this tick, not yet written (zero when each command is sent at once).
        await new Promise<void>((resolve) => queueMicrotask(resolve))
        const queued = client.autoPipelineQueueSize
        const done = await Promise.all(posts)
        if (on) t.ok(queued > 0, `on: the calls wait in the auto-pipeline (${queued} queued)`)
        else t.equal(queued, 0, 'off: nothing waits')
        t.same(
          done.map((p) => p.event.text),
          ['p0', 'p1', 'p2', 'p3'],
          `${on ? 'on' : 'off'}: every call returns its own result`,
        )
      }
    })

    t.test('onCommitted: told what each script that changed something may have changed', async (t) => {
      const room = await newRoom(t, backend)
      const heard: string[] = []
      room.core.store.onCommitted((c) =>
        heard.push(`${c.script} ${[...c.effects.words].join(',')}${c.effects.content ? ' (content)' : ''}`),
      )
      const alice = room.as('alice')
      await room.core.presence.heartbeat(alice)
      await room.core.vars.set(alice, { name: 'flag', value: 'on' })
      const { task } = await room.core.plan.addTask(alice, { title: 'a task' })
      await room.core.plan.readPlan(alice, {})
      await room.core.events.post(alice, { type: 'status', text: 'hello' })
      await room.core.plan.updateTask(alice, { task_id: task.id, status: 'done' })
      await room.core.presence.leave(alice)
      const refused = await room.core.plan.updateTask(alice, { task_id: 't999', status: 'done' }).catch((e: Error) => e)
      t.match(refused, { code: 'not_found' }, 'the script itself refuses it')
      t.same(
        heard,
        [
          'recordHeartbeat presence',
          'setVar vars',
          'addTask tasks (content)',
          'postEvent events,reads (content)',
          'updateTask tasks,events,reads (content)',
          'leaveRoom events,reads,presence,reservations (content)',
        ],
        "a read (read_plan) and a write the script refused are not told; each write with its header's Effects",
      )
      t.equal(
        heard.filter((h) => h.includes('events')).length,
        3,
        'post_event, update_task (which may override a claim) and leave_room may append an event',
      )
    })
  })
}
