// "What needs you": the team's inbox (/inbox) and the block at the top of the room page list an
// agent's question or blocker nobody replied to, a review waiting for a person, and work held by
// an agent gone offline (a task in progress, a live lock), and settle each in place: answer,
// decide, reassign, release. Each form redirects back where it was sent from (Post/Redirect/Get);
// a refused one comes back with what was typed. The count rides in the tab's title.
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'
import { keyIn } from '../helpers/mail.js'

/** Short, so that an agent is offline a moment after its last heartbeat. */
const TTL_MS = 1500

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

t.test('standalone', async (t) => {
  const { n, b, first } = await signedInOperator(t, { presenceTtlMs: TTL_MS })
  const teamKey = keyIn(first)!
  await b.send('/rooms', { name: 'needs', agents: 'planner, dev', template: 'blank' })
  await b.send('/rooms', { name: 'quiet', agents: 'x', template: 'blank' })
  const user = (await n.node.accounts.session(b.jar.get('ar_session')))!
  const ref = { teamId: user.team, roomId: 'needs' }
  const as = (agent: string) => ({ room: ref, agent })
  const core = n.node.core

  t.test('nothing needs the person in a new room', async (t) => {
    const page = await b.get('/inbox')
    t.equal(page.status, 200)
    t.match(page.body, '<title>Inbox · agentrooms</title>', 'no count in the title')
    t.match(page.body, '<a href="/inbox">Inbox</a>', 'the nav links the inbox')
    t.match(page.body, "Nothing waits for you in the team's 2 rooms.")
    const room = await b.get('/room?id=needs')
    t.match(room.body, /What needs you <span class="muted">\(nothing\)<\/span>/)
  })

  t.test('a question nobody answered, answered from the inbox', async (t) => {
    const { event: q } = await core.events.post(as('planner'), { type: 'question', text: 'Which database?' })
    await core.events.post(as('planner'), { type: 'blocker', text: 'CI is red' })
    const { event: answered } = await core.events.post(as('dev'), { type: 'question', text: 'Tabs or spaces?' })
    await core.events.reply(as('planner'), { event_id: answered.id, text: 'spaces', type: 'answer' })
    await b.send('/room/events', { room: 'needs', type: 'question', text: 'a question of the person' })

    const page = await b.get('/inbox')
    t.match(page.body, '<title>(2) Inbox · agentrooms</title>', 'the count in the title')
    t.match(page.body, 'Which database?')
    t.notMatch(page.body, 'Tabs or spaces?', 'an answered question is not listed')
    t.notMatch(page.body, 'a question of the person', "the person's own question waits for agents")
    t.match(page.body, /<a href="\/room\?id=needs">needs<\/a>/, 'under its room')
    t.match(page.body, '1 other room needs nothing from you.')
    const room = await b.get('/room?id=needs')
    t.match(room.body, '<title>(2) needs · agentrooms</title>', 'the room page counts its own')
    t.match(room.body, 'Your answer to planner')

    const empty = await b.post('/room/events', {
      room: 'needs',
      from: 'needs',
      back: 'inbox',
      reply_to: q.id,
      type: 'answer',
      text: '',
    })
    t.equal(empty.status, 400, 'an empty answer is refused')
    t.match(empty.body, '<h1>What needs you</h1>', 'on the inbox it was sent from')
    t.match(empty.body, `aria-describedby="needs-reply-${q.id}-error"`, 'the field is marked')

    const sent = await b.send('/room/events', {
      room: 'needs',
      from: 'needs',
      back: 'inbox',
      reply_to: q.id,
      type: 'answer',
      text: 'Postgres',
    })
    t.equal(sent.posted.status, 303, 'Post/Redirect/Get')
    t.equal(sent.posted.location, '/inbox#needs-needs', 'back to the room on the inbox')
    t.notMatch(sent.body, 'Which database?', 'the answered question leaves the inbox')
    t.match(sent.body, '<title>(1) Inbox · agentrooms</title>')
    const { events } = await core.events.read(as('dev'), {})
    t.match(events.at(-1), { type: 'answer', reply_to: q.id, text: 'Postgres', agent_id: /^human:/ })
  })

  t.test('a review waiting for a person, decided from the room page', async (t) => {
    await core.presence.heartbeat(as('planner'))
    await core.plan.addTask(as('dev'), { title: 'schema' })
    await core.plan.updateTask(as('dev'), { task_id: 't1', status: 'in_progress' })
    await core.reviews.request(as('dev'), { target: { kind: 'task', task_id: 't1' } })
    await core.reviews.request(as('dev'), { target: { kind: 'task', task_id: 't1' }, reviewer: 'planner' })
    const room = await b.get('/room?id=needs')
    t.match(room.body, 'Approve r1', 'a review naming no one waits for a person')
    const block = room.body.slice(room.body.indexOf('id="needs"'), room.body.indexOf('id="notify"'))
    t.notMatch(block, 'Approve r2', 'one naming an agent online waits for that agent')
    const decided = await b.send('/room/reviews', {
      room: 'needs',
      from: 'needs',
      review_id: 'r1',
      decision: 'approve',
      note: 'fine',
    })
    t.equal(decided.posted.location, '/room?id=needs#needs', 'back to the block')
    t.equal((await core.plan.getTask(as('dev'), { task_id: 't1' })).task.status, 'done')

    await sleep(TTL_MS + 200)
    const later = await b.get('/room?id=needs')
    t.match(later.body, 'Approve r2', 'once its reviewer is offline, it waits for a person')
    t.match(later.body, /planner is asked to review this and is offline, last seen/)
  })

  t.test('stale work: a task in progress and a lock of an agent offline', async (t) => {
    await core.plan.addTask(as('dev'), { title: 'migrations' })
    await core.plan.updateTask(as('dev'), { task_id: 't2', status: 'in_progress' })
    const { lock } = await core.locks.acquire(as('dev'), { name: 'db', ttl_s: 600 })
    await core.presence.heartbeat(as('dev'))
    let room = await b.get('/room?id=needs')
    t.notMatch(room.body, 'Reassign t2', 'an agent online holds its work')
    t.notMatch(room.body, 'Release db')

    await sleep(TTL_MS + 200)
    await core.presence.heartbeat(as('planner'))
    room = await b.get('/room?id=needs')
    t.match(room.body, 'Reassign t2', 'once offline, its task is stale')
    t.match(room.body, /In progress with dev, offline, last seen/)
    t.match(room.body, '<option value="planner">planner (online)</option>', 'offered to the agents online')
    t.match(room.body, 'Release db', 'and its lock')

    const given = await b.send('/room/tasks', {
      room: 'needs',
      from: 'needs',
      task_id: 't2',
      force: '1',
      assignee: 'planner',
    })
    t.equal(given.posted.status, 303)
    t.match((await core.plan.getTask(as('dev'), { task_id: 't2' })).task, {
      status: 'in_progress',
      assignee: 'planner',
    })

    const unconfirmed = await b.post('/room/locks/release', {
      room: 'needs',
      from: 'needs',
      name: 'db',
      token: String(lock.token),
    })
    t.equal(unconfirmed.status, 200, 'a release without the confirmation step asks for it')
    t.match(unconfirmed.body, '<h1>Release db?</h1>')
    t.match(unconfirmed.body, /<input type="hidden" name="token" value="\d+"\/>/, 'the form again')
    t.match(unconfirmed.body, '<input type="hidden" name="confirmed" value="yes"/>')
    t.match(unconfirmed.body, '<a href="/room?id=needs#needs">Cancel: keep it and go back</a>')
    t.match((await core.locks.list(as('dev'))).locks, [{ name: 'db' }], 'and releases nothing')
    const stale = await b.post('/room/locks/release', {
      room: 'needs',
      from: 'needs',
      name: 'db',
      token: String(lock.token + 1),
      confirmed: 'yes',
    })
    t.equal(stale.status, 409, 'a token not the one shown releases nothing')
    t.match((await core.locks.list(as('dev'))).locks, [{ name: 'db' }])
    const released = await b.send('/room/locks/release', {
      room: 'needs',
      from: 'needs',
      name: 'db',
      token: String(lock.token),
      confirmed: 'yes',
    })
    t.equal(released.posted.location, '/room?id=needs#needs')
    t.same((await core.locks.list(as('dev'))).locks, [], 'the lock is free')
    await core.locks.acquire(as('dev'), { name: 'db' })
    await t.rejects(
      core.locks.release(as('planner'), { name: 'db' }),
      { code: 'conflict' },
      'agents release only their own',
    )
    await core.locks.release(as('dev'), { name: 'db' })

    const back = await b.send('/room/tasks', { room: 'needs', from: 'needs', task_id: 't2', force: '1', assignee: '' })
    t.equal(back.posted.status, 303)
    t.match((await core.plan.getTask(as('dev'), { task_id: 't2' })).task, { status: 'todo' }, 'nobody: back to To do')

    const audit = (await (await n.call('/admin/audit', { key: teamKey })).json()) as {
      entries: { action: string; target?: string }[]
    }
    t.match(
      audit.entries.find((e) => e.action === 'released lock'),
      { target: 'db (room needs; in place of dev)' },
      'the audit trail says whose lock it was',
    )
  })
})
