// Steering from the room page as a person does: a review that names an agent as reviewer is
// decided by the person (an override, said in the review and the audit trail); a refused form
// comes back open with what was typed and the message at its field, in the form's words; text
// typed in a browser (CRLF line endings) is stored with LF; every change redirects (Post/
// Redirect/Get), so a reload repeats nothing.
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'
import { keyIn } from '../helpers/mail.js'

t.test('standalone', async (t) => {
  const { n, b, first } = await signedInOperator(t)
  const teamKey = keyIn(first)!
  const made = await b.send('/rooms', { name: 'steer', agents: 'planner, dev', template: 'blank' })
  t.equal(made.posted.status, 303, 'creating a room redirects')
  t.match(made.posted.location, /^\/rooms\/created\?id=steer&done=/)
  t.equal(made.status, 200)
  t.match(made.body, 'Agent planner', "the agents' configuration")
  const user = (await n.node.accounts.session(b.jar.get('ar_session')))!
  const as = (agent: string) => ({ room: { teamId: user.team, roomId: 'steer' }, agent })
  const core = n.node.core

  t.test('a review naming an agent as reviewer is decided by the person, as an override', async (t) => {
    await core.plan.addTask(as('dev'), { title: 'the API' })
    await core.plan.updateTask(as('dev'), { task_id: 't1', status: 'in_progress', assignee: 'dev' })
    await core.reviews.request(as('dev'), { target: { kind: 'task', task_id: 't1' }, reviewer: 'planner' })
    const page = await b.get('/room?id=steer')
    t.match(page.body, 'Approve r1', 'the person is offered the decision')
    t.match(page.body, 'planner is asked to review this. Deciding it yourself overrides them')

    const long = 'n'.repeat(2001)
    const refused = await b.post('/room/reviews', { room: 'steer', review_id: 'r1', decision: 'approve', note: long })
    t.equal(refused.status, 413, 'a note over the limit is refused')
    t.match(refused.body, `name="note" value="${long}"`, 'the typed note is kept')
    t.match(refused.body, /aria-invalid="true" aria-describedby="note-r1-error"/, 'the field is marked')
    t.match(
      refused.body,
      /<p class="error field" id="note-r1-error" role="alert">Note is 2001 bytes; the limit is 2000 bytes/,
    )
    t.notMatch(refused.body, 'note: must', 'in the form’s words, not the API’s')
    t.equal((await core.reviews.list(as('dev'))).reviews[0]!.status, 'pending', 'nothing changed')

    const approved = await b.send('/room/reviews', { room: 'steer', review_id: 'r1', decision: 'approve', note: 'ok' })
    t.equal(approved.posted.status, 303)
    t.equal(approved.status, 200)
    const { reviews } = await core.reviews.list(as('dev'))
    t.match(reviews[0], { status: 'approved', decided_by: /^human:/ }, 'approved by the person')
    t.equal((await core.plan.getTask(as('dev'), { task_id: 't1' })).task.status, 'done', 'the task is done')
    t.match(approved.body, /approved by human:[^<]* in place of planner: ok/, 'the page says it was an override')
    const audit = (await (await n.call('/admin/audit', { key: teamKey })).json()) as {
      entries: { action: string; target?: string }[]
    }
    t.match(
      audit.entries.find((e) => e.action === 'approved review'),
      { target: 'r1 (room steer; in place of reviewer planner)' },
      'the audit trail records the override',
    )
  })

  t.test('agents still may not decide a review naming another', async (t) => {
    await core.context.write(as('dev'), { type: 'spec', key: 'x', body: 'x' })
    await core.reviews.request(as('dev'), { target: { kind: 'context', type: 'spec', key: 'x' }, reviewer: 'planner' })
    await t.rejects(core.reviews.approve(as('lead'), { review_id: 'r2' }), { code: 'forbidden' })
  })

  t.test('a refused task edit comes back open with the input and the message at the field', async (t) => {
    await core.plan.addTask(as('dev'), { title: 'held' })
    await core.plan.updateTask(as('dev'), { task_id: 't2', status: 'in_progress', assignee: 'dev' })
    const held = await b.post('/room/tasks', {
      room: 'steer',
      task_id: 't2',
      title: 'held, renamed',
      status: 'in_progress',
      assignee: 'planner',
      priority: 'high',
      notes: 'typed notes',
    })
    t.equal(held.status, 409)
    t.match(held.body, 'id="open-task"', 'the task is open')
    t.match(held.body, '<h3 id="edit-task-h">Edit t2</h3>', 'its form too')
    t.match(held.body, 'value="held, renamed"', 'with the typed title')
    t.match(held.body, '>typed notes</textarea>', 'and notes')
    t.match(held.body, /id="edit-assignee-error" role="alert">[^<]*tick “Even if another agent holds it/)
    t.notMatch(held.body, /pass force|assignee: /, 'in plain words')

    const unknown = await b.post('/room/tasks', { room: 'steer', title: 'needs t99', depends_on: 't99' })
    t.equal(unknown.status, 404, 'an unknown dependency')
    t.match(unknown.body, 'value="needs t99"', 'keeps the title')
    t.match(unknown.body, 'value="t99"', 'and the dependencies')
  })

  t.test('text typed in a browser is stored with LF line endings', async (t) => {
    await b.send('/room/context', { room: 'steer', type: 'spec', key: 'api', body: 'GET /a\r\nGET /b\r\n' })
    t.equal((await core.context.read(as('dev'), { type: 'spec', key: 'api' })).body, 'GET /a\nGET /b\n')
    await b.send('/room/context', { room: 'steer', type: 'spec', key: 'api', body: 'GET /a\r\nGET /c\r\n' })
    const d = await core.context.diff(as('dev'), { type: 'spec', key: 'api', from_version: 1, to_version: 2 })
    t.match(d, { added: 1, removed: 1 }, 'a one-line change diffs as one line')
    await b.send('/room/events', { room: 'steer', type: 'message', text: 'one\r\ntwo' })
    const { events } = await core.events.read(as('dev'), {})
    t.equal(events.at(-1)!.text, 'one\ntwo', 'events too')
    await b.send('/room/tasks', { room: 'steer', title: 'notes', notes: 'a\r\nb' })
    const plan = await core.plan.readPlan(as('dev'), {})
    const task = plan.tasks.find((x: { title: string }) => x.title === 'notes')!
    t.equal((await core.plan.getTask(as('dev'), { task_id: task.id })).task.notes, 'a\nb', 'and task notes')
  })

  t.test('Post/Redirect/Get: a reload repeats nothing', async (t) => {
    const more = await b.send('/room/agents', { room: 'steer', agents: 'qa', invite: '1' })
    t.equal(more.posted.status, 303, 'connecting more agents redirects')
    const invite = /Bearer (ar_room_[A-Za-z0-9_.-]+)/.exec(more.body)?.[1]
    t.ok(invite, 'the new agent’s invite key is shown')
    const minted = (await n.node.teams.listInvites(user.team)).length
    const again = await b.get(more.posted.location!)
    t.match(again.body, invite!, 'a reload shows the same key')
    t.equal((await n.node.teams.listInvites(user.team)).length, minted, 'and mints no other')
    const gone = await b.get('/rooms/created?id=steer')
    t.equal(gone.status, 303, 'without its sealed outcome the page sends to the room')
    const invited = await b.send('/team/invites', { email: 'someone@example.com' })
    t.equal(invited.posted.status, 303, 'a member invite redirects')
    t.match(invited.body, 'Invite sent to someone@example.com.')
    const refusedAgents = await b.send('/room/agents', { room: 'steer', agents: 'qa2, qa2' })
    t.equal(refusedAgents.status, 400)
    t.match(refusedAgents.body, 'value="qa2, qa2"', 'a refused connect keeps the ids typed')
  })
})
