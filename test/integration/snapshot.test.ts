// The dashboard snapshot: one read with every piece of the room, which does not count as activity.
import t from 'tap'
import { newRoom } from '../helpers/core.js'
import { BACKENDS, rawClient } from '../helpers/shared.js'

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const room = await newRoom(t, backend, { template: 'web-app' })
    const { core } = room
    const started = await core.events.post(room.as('alice'), { type: 'status', text: 'started' })
    await core.events.post(room.as('bob'), { type: 'question', text: 'which schema?' })
    await core.events.unread(room.as('bob'))
    await core.presence.heartbeat(room.as('alice'))
    await core.locks.acquire(room.as('alice'), { name: 'schema.sql', ttl_s: 60 })
    await core.vars.set(room.as('alice'), { name: 'deploy', value: 'frozen' })
    await core.plan.updateTask(room.as('alice'), { task_id: 't1', status: 'in_progress' })
    await core.reviews.request(room.as('alice'), { target: { kind: 'task', task_id: 't1' } })

    const snap = await core.snapshot.room(room.as())
    t.equal(snap.room.room_id, room.roomId)
    t.equal(snap.tasks.length, 8)
    t.equal(snap.tasks[0]!.id, 't1', 'sorted like the plan (high priority first)')
    t.same(snap.counts.tasks_by_status, { in_review: 1, todo: 7 })
    t.same(
      snap.context.map((c) => `${c.type}/${c.key}`),
      ['brief/product', 'decision/working-agreements'],
    )
    t.same(
      snap.events.map((e) => e.text),
      ['started', 'which schema?'],
    )
    const question = snap.events[1]!.id
    const seqOf = (id: string) => Number(id.slice(id.indexOf('-') + 1))
    t.same(
      snap.reads,
      [
        { agent_id: 'alice', last_read_event_id: started.event.id, read_seq: seqOf(started.event.id) },
        { agent_id: 'bob', last_read_event_id: question, read_seq: seqOf(question) },
      ],
      "each agent's last read event and the seq it has read up to: alice posted first (caught up), bob read both",
    )
    t.same(
      snap.presence.online.map((p) => p.agent_id),
      ['alice'],
    )
    t.match(snap.locks, [{ name: 'schema.sql', owner: 'alice', token: 1 }])
    t.match(snap.vars, [{ name: 'deploy', value: 'frozen' }])
    t.match(snap.reviews, [{ id: 'r1', status: 'pending' }])

    const raw = rawClient(backend)
    t.teardown(() => raw.disconnect())
    const meta = room.core.store.keys.room({ teamId: room.teamId, roomId: room.roomId }).meta
    const touched = await raw.hget(meta, 'touched')
    await raw.hset(meta, 'touched', 0) // force the next activity to refresh
    await core.snapshot.room(room.as())
    t.equal(await raw.hget(meta, 'touched'), '0', 'a snapshot is not activity')
    await core.rooms.info(room.as())
    t.not(await raw.hget(meta, 'touched'), '0', 'a tool read is activity')
    t.ok(touched)
    await t.rejects(core.snapshot.room({ room: { teamId: room.teamId, roomId: 'missing' } }), { code: 'not_found' })
  })
}
