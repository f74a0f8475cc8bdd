// The room page of a big room comes a page at a time: each board column shows its first cards
// with an exact count and links to the next ones; context, vars, locks and reviews likewise; the
// feed pages back through earlier events. A task opens with its notes and every field, and its
// notes can be edited from there. Page parameters that are not numbers are refused, naming them.
import t from 'tap'
import { ROOM_PAGE_SIZE } from '../../src/dashboard/pages.js'
import { signedInOperator } from '../helpers/accounts.js'

t.test('standalone', async (t) => {
  const { n, b } = await signedInOperator(t)
  t.equal((await b.send('/rooms', { name: 'big', agents: 'dev', template: 'blank' })).status, 200)
  const user = (await n.node.accounts.session(b.jar.get('ar_session')))!
  const room = { teamId: user.team, roomId: 'big' }
  const as = (agent: string) => ({ room, agent })
  const core = n.node.core
  const TASKS = 2 * ROOM_PAGE_SIZE + 5
  for (let i = 1; i <= TASKS; i++)
    await core.plan.addTask(as('dev'), {
      title: `Task number ${i}`,
      depends_on: i > 1 ? ['t1'] : [],
      ...(i === 3 ? { notes: 'Use <b>Postgres</b>\nsecond line' } : {}),
    })
  for (let i = 0; i < ROOM_PAGE_SIZE + 3; i++)
    await core.context.write(as('dev'), {
      type: i % 2 ? 'spec' : 'brief',
      key: `k${String(i).padStart(2, '0')}`,
      body: `body ${i}`,
    })
  for (let i = 0; i < ROOM_PAGE_SIZE + 2; i++)
    await core.vars.set(as('dev'), { name: `v${String(i).padStart(2, '0')}`, value: `value ${i}` })
  for (let i = 0; i < ROOM_PAGE_SIZE + 1; i++)
    await core.locks.acquire(as('dev'), { name: `lock-${String(i).padStart(2, '0')}`, ttl_s: 600 })
  for (let i = 1; i <= ROOM_PAGE_SIZE + 4; i++)
    await core.reviews.request(as('dev'), { target: { kind: 'task', task_id: `t${i}` } })
  await core.reviews.approve(as('lead'), { review_id: 'r24' })
  const posted: string[] = []
  for (let i = 0; i < 55; i++)
    posted.push((await core.events.post(as('dev'), { type: 'message', text: `event ${i}` })).event.id)

  t.test('each column shows a page of cards, with the exact count and a link to the next', async (t) => {
    const page = (await b.get('/room?id=big')).body
    t.match(page, `aria-label="To do: ${TASKS}"`, 'the count is exact')
    const todo = page.slice(page.indexOf('id="col-todo"'), page.indexOf('id="col-in_progress"'))
    t.equal(todo.match(/<article class="card"/g)?.length, ROOM_PAGE_SIZE, 'one page of cards')
    t.match(todo, `1–${ROOM_PAGE_SIZE} of ${TASKS}`)
    t.match(
      todo,
      `<a href="/room?id=big&amp;todo_from=${ROOM_PAGE_SIZE}#col-todo" aria-label="Next ${ROOM_PAGE_SIZE} in ` +
        `To do">Next ${ROOM_PAGE_SIZE}</a>`,
    )
    t.match(todo, 'blocks t2, t3, t4', 't1 lists what it blocks')
    t.match(todo, `and ${TASKS - 1 - 10} more`, 'up to ten of them, and how many more')
    const last = (await b.get(`/room?id=big&todo_from=${2 * ROOM_PAGE_SIZE}`)).body
    const lastTodo = last.slice(last.indexOf('id="col-todo"'), last.indexOf('id="col-in_progress"'))
    t.equal(lastTodo.match(/<article class="card"/g)?.length, 5, 'the last page has the rest')
    t.match(lastTodo, `Previous ${ROOM_PAGE_SIZE}`)
    t.notMatch(lastTodo, 'Next ')
    t.match(lastTodo, /blocked by t1/, 'with what blocks them')
    t.equal((await b.get('/room?id=big&todo_from=9999')).status, 200, 'past the end shows the last page')
    const bad = await b.get('/room?id=big&todo_from=abc')
    t.equal(bad.status, 400)
    t.match(bad.body, 'todo_from: must be a whole number')
  })

  t.test('context, vars, locks and reviews come a page at a time too', async (t) => {
    const page = (await b.get('/room?id=big')).body
    t.match(page, `Context <span class="muted">(${ROOM_PAGE_SIZE + 3} entries)</span>`)
    t.match(page, `1–${ROOM_PAGE_SIZE} of ${ROOM_PAGE_SIZE + 3}`)
    t.ok(
      page.indexOf('brief/k00') < page.indexOf('brief/k02') && page.indexOf('brief/k22') < page.indexOf('spec/k01'),
      'entries by type, then key',
    )
    const ctx2 = (await b.get(`/room?id=big&context_from=${ROOM_PAGE_SIZE}`)).body
    t.match(ctx2, 'spec/k21')
    t.notMatch(ctx2, '>brief/k00<')
    t.match(page, `Shared vars <span class="muted">(${ROOM_PAGE_SIZE + 2})</span>`)
    t.notMatch(page, '>v21<', 'the last var is on the next page')
    t.match((await b.get(`/room?id=big&vars_from=${ROOM_PAGE_SIZE}`)).body, '<td data-label="Name">v21</td>')
    t.match(page, `Locks <span class="muted">(${ROOM_PAGE_SIZE + 1} held)</span>`)
    t.match((await b.get(`/room?id=big&locks_from=${ROOM_PAGE_SIZE}`)).body, '<td data-label="Lock">lock-20</td>')
    t.match(page, `Reviews <span class="muted">(${ROOM_PAGE_SIZE + 4})</span>`)
    t.ok(page.indexOf('<strong>r24</strong>') < page.indexOf('<strong>r23</strong>'), 'newest review first')
    const pending = (await b.get('/room?id=big&reviews=pending')).body
    t.match(pending, `Reviews <span class="muted">(${ROOM_PAGE_SIZE + 3} pending)</span>`)
    t.notMatch(pending, '<strong>r24</strong>', 'the approved one is left out')
    t.equal((await b.get('/room?id=big&reviews=all')).status, 400, 'reviews takes only "pending"')
  })

  t.test('the feed pages back through earlier events', async (t) => {
    const page = (await b.get('/room?id=big')).body
    t.match(page, '>event 54<')
    t.notMatch(page, '>event 4<', 'only the latest 50')
    const older = /<a href="(\/room\?id=big&amp;before=[0-9-]+#events)">Earlier events<\/a>/.exec(page)
    t.ok(older, 'a link to the earlier ones')
    const earlier = (await b.get(older![1]!.replaceAll('&amp;', '&'))).body
    t.match(earlier, '>event 4<')
    t.match(earlier, '>event 0<')
    t.notMatch(earlier, '>event 5<', 'and only those')
    t.match(earlier, 'Show the latest events')
    t.equal((await b.get('/room?id=big&before=nope')).status, 400, 'before must be an event id')
  })

  t.test('a task opens with its notes and every field, and its notes can be edited', async (t) => {
    const page = (await b.get('/room?id=big&task=t3')).body
    t.match(page, /<section class="panel side-panel" id="open-task"/)
    t.match(
      page,
      '<pre class="body" tabindex="0" aria-label="Notes of t3">Use &lt;b>Postgres&lt;/b>\nsecond line</pre>',
      'the notes, as text',
    )
    t.match(page, '<dt>Depends on</dt><dd><a href="/room?id=big&amp;task=t1#open-task">t1</a></dd>')
    t.match(page, '<dt>Blocked by</dt><dd><a href="/room?id=big&amp;task=t1#open-task">t1</a></dd>')
    const edited = await b.post('/room/tasks', { room: 'big', task_id: 't3', notes: 'Postgres 16' })
    t.equal(edited.location, '/room?id=big&task=t3#open-task', 'back to the task')
    t.equal((await core.plan.getTask(as('dev'), { task_id: 't3' })).task.notes, 'Postgres 16')
    const missing = (await b.get('/room?id=big&task=t999')).body
    t.match(missing, 'Task t999 does not exist in this room')
  })
})
