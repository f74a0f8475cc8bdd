// The room page on a real node: an agent works through MCP (claims a task, asks a question that
// another agent answers, updates context, holds a lock, sets a var, asks for a review) and the
// signed-in person's room page shows all of it — board by status with blockers, threaded
// replies with who read them, context history and diff, presence, locks, vars, reviews,
// analytics chart, search — with room content shown as text, never markup.
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'
import { keyIn } from '../helpers/mail.js'
import { callTool, legacyClient } from '../helpers/mcp.js'

t.test('standalone', async (t) => {
  const { n, b, first } = await signedInOperator(t)
  const teamKey = keyIn(first)!
  const made = await b.send('/rooms', { name: 'work', agents: 'dev, lead', template: 'web-app' })
  t.equal(made.status, 200)
  const agent = await legacyClient(t, n, teamKey)
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await callTool(agent, name, { room_id: 'work', ...args })
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.body)}`)
    return r.body
  }

  t.test('an empty search, a bad room id and a room of another team are clear errors', async (t) => {
    const bad = await b.get('/room?id=..bad')
    t.equal(bad.status, 400)
    t.match(bad.body, 'id: must be 1-64 characters')
    const other = await b.get('/room?id=not-mine')
    t.equal(other.status, 404, 'a room this team does not have')
  })

  t.test('the page shows what the agents did, content as text', async (t) => {
    await call('heartbeat', { agent_id: 'dev' })
    await call('update_task', { agent_id: 'dev', task_id: 't1', status: 'in_progress', assignee: 'dev' })
    await call('add_task', {
      agent_id: 'dev',
      title: '<img src=x onerror=alert(1)> ship it',
      depends_on: ['t1'],
      priority: 'urgent',
    })
    const q = await call('post_event', { agent_id: 'dev', type: 'question', text: 'Which <b>database</b>?' })
    const qid = (q.event as { id: string }).id
    await call('reply_to_event', { agent_id: 'lead', event_id: qid, text: 'Postgres, please' })
    await call('get_unread_events', { agent_id: 'dev' })
    await call('get_unread_events', { agent_id: 'lead' })
    await call('write_context', {
      agent_id: 'dev',
      type: 'spec',
      key: 'api',
      body: 'GET /a\n<script>alert(2)</script>\n',
    })
    await call('update_context', { agent_id: 'dev', type: 'spec', key: 'api', append: 'POST /b\n' })
    await call('acquire_lock', { agent_id: 'dev', name: 'deploy', ttl_s: 120 })
    await call('set_shared_var', { agent_id: 'dev', name: 'build', value: 'green' })
    await call('request_review', { agent_id: 'dev', target: { kind: 'task', task_id: 't1' }, note: 'please look' })

    const page = await b.get('/room?id=work')
    t.equal(page.status, 200)
    const body = page.body
    t.notMatch(body, /<script>alert|<img src=x|<b>database/, 'no agent text is markup')
    t.match(body, '&lt;img src=x onerror=alert(1)> ship it', 'a task title with HTML shows as text')
    t.match(body, 'Which &lt;b>database&lt;/b>?', 'event text with HTML shows as text')
    const column = new RegExp(
      /aria-label="([^"]+)">(?:(?!class="column")[\s\S])*?/.source +
        /<article class="card" id="task-t1">(?:(?!<\/article>)[\s\S])*assignee dev/.source,
    ).exec(body)?.[1]
    t.equal(column, 'In review: 1', 'the claimed task, sent for review, is in the in-review column with its assignee')
    t.match(body, /blocked by t1/, 'the new task shows what blocks it')
    t.match(body, /blocks [^<]*t\d+/, 'and t1 what it blocks')
    t.match(body, '<span class="tag urgent">urgent</span>')
    const thread = new RegExp(
      `<li id="event-${qid}"[\\s\\S]*?<details class="thread small"><summary>1 reply, the last by lead ` +
        `[\\s\\S]*?aria-label="Replies to dev"><li[^>]*>[\\s\\S]*?Postgres, please`,
    ).exec(body)
    t.ok(thread, 'the answer is threaded under the question')
    t.match(
      body,
      /Which &lt;b>database&lt;\/b>\?<\/p><div class="small muted" data-readers="lead">read by lead</,
      'the question shows who read it (its author aside)',
    )
    t.match(body, '<a href="/room?id=work&amp;ctx=spec%2Fapi#open-context">spec/api</a>')
    t.match(body, /<strong>dev<\/strong> <span class="small">online, last seen /, 'presence')
    t.match(
      body,
      new RegExp(
        /<td data-label="Lock">deploy<\/td><td data-label="Holder">dev<\/td>/.source +
          /<td data-label="Time left"><time datetime="[\d-]+T[\d:.]+Z" title="until [\d-]+ [\d:]+ UTC" data-left>/
            .source +
          /[12] min [0-9]+ s<\/time><\/td>/.source,
      ),
      'the lock, its holder and time left (counting down in the page)',
    )
    t.match(body, '<code>green</code>', 'the var')
    t.match(
      body,
      '<strong>r1</strong> <a href="/room?id=work&amp;task=t1#open-task">task t1</a> ' +
        '<span class="tag pending">pending</span>',
      'the review, what it is of, and its state',
    )
    t.match(
      body,
      /<svg class="chart" role="img" aria-label="Events per day: [^"]*: [1-9]/,
      'the events-per-day chart counts today',
    )
    t.notMatch(body, teamKey, 'no team key in the page')
  })

  t.test('the context viewer shows the body, history and a diff', async (t) => {
    const page = await b.get('/room?id=work&ctx=spec%2Fapi&from=1&to=2')
    t.equal(page.status, 200)
    t.match(page.body, /<pre class="body" tabindex="0" aria-label="Body of spec\/api">/)
    t.match(page.body, '>GET /a\n&lt;script>alert(2)&lt;/script>\nPOST /b\n</pre>')
    t.match(
      page.body,
      /v2<\/strong> · <time [^>]* data-ago>just now<\/time> by dev via key 'first key' · \d+ bytes/,
      'the versions',
    )
    t.match(page.body, '<span class="add">+POST /b\n</span>', 'the diff marks the added line')
    t.match(page.body, '(+1 −0 lines)')
    const missing = await b.get('/room?id=work&ctx=spec%2Fnope')
    t.equal(missing.status, 404, 'an entry that does not exist')
  })

  t.test('search finds room content and says when the query is bad', async (t) => {
    const found = await b.get('/room?id=work&q=Postgres')
    const hit =
      /<a href="\/room\?id=work&amp;q=Postgres&amp;before=(\d+)-(\d+)#event-(\d+)-(\d+)">event \3-\4<\/a>/.exec(
        found.body,
      )
    t.ok(hit, 'an event found links to the feed, starting at it')
    t.equal(
      `${hit![1]}-${Number(hit![2]) - 1}`,
      `${hit![3]}-${hit![4]}`,
      'the feed shows the events up to and including it',
    )
    const bad = await b.get('/room?id=work&q=%21%21')
    t.equal(bad.status, 200, 'the page still shows')
    t.match(bad.body, 'Search: query: must contain a word')
  })

  t.test(
    'human in the loop: the person answers, decides, plans and writes from the page, as human:<name>, audited',
    async (t) => {
      const q = await call('post_event', { agent_id: 'dev', type: 'question', text: 'Deploy now?' })
      const qid = (q.event as { id: string }).id
      await call('get_unread_events', { agent_id: 'dev' })
      const waiting = call('wait_for_events', { agent_id: 'dev', timeout_s: 10 })
      const answered = await b.post('/room/events', { room: 'work', reply_to: qid, type: 'answer', text: 'Yes <go>' })
      t.equal(answered.status, 303, 'post, then redirect to the room page')
      t.match(answered.location ?? '', /^\/room\?id=work#event-/)
      const got = (await waiting).events as { agent_id: string; text: string; reply_to?: string; type: string }[]
      t.match(
        got,
        [{ agent_id: /^human:/, text: 'Yes <go>', reply_to: qid, type: 'answer' }],
        "the agent's wait_for_events returns the answer",
      )

      const empty = await b.post('/room/events', { room: 'work', text: '' })
      t.equal(empty.status, 400, 'an empty event is refused')
      t.match(
        empty.body,
        /<textarea name="text" required aria-invalid="true" aria-describedby="post-error"/,
        'at the field',
      )
      t.match(empty.body, /<p class="error field" id="post-error" role="alert">[A-Z]/, 'in plain words')
      t.match(empty.body, '<h1>work</h1>', 'on the room page')

      t.equal(
        (await b.post('/room/reviews', { room: 'work', review_id: 'r1', decision: 'maybe' })).status,
        400,
        'a decision must be approve or reject',
      )
      t.equal(
        (await b.post('/room/reviews', { room: 'work', review_id: 'r1', decision: 'approve', note: 'fine' })).status,
        303,
      )
      const reviews = (await call('list_reviews', { agent_id: 'dev' })).reviews as {
        id: string
        status: string
        decided_by: string
      }[]
      t.match(
        reviews.find((r) => r.id === 'r1'),
        { status: 'approved', decided_by: /^human:/ },
        'the review is approved by the person',
      )

      t.equal(
        (await b.post('/room/tasks', { room: 'work', title: 'Write the runbook', priority: 'high', depends_on: 't1' }))
          .status,
        303,
      )
      // read_plan lists compact items (id, title, status, ...); get_task has the whole record.
      const plan = (await call('read_plan', { agent_id: 'dev' })).tasks as { id: string; title: string }[]
      const added = plan.find((x) => x.title === 'Write the runbook')!
      t.match(
        (await call('get_task', { agent_id: 'dev', task_id: added.id })).task,
        { created_by: /^human:/, depends_on: ['t1'] },
        'the task is added as the person',
      )
      t.equal(
        (
          await b.post('/room/tasks', {
            room: 'work',
            task_id: added.id,
            assignee: 'dev',
            status: 'todo',
            priority: 'low',
          })
        ).status,
        303,
      )
      const edited = (await call('get_task', { agent_id: 'dev', task_id: added.id })).task as {
        assignee: string
        priority: string
      }
      t.match(edited, { assignee: 'dev', priority: 'low' }, 'and edited')
      const badTask = await b.post('/room/tasks', { room: 'work', title: '', priority: 'normal' })
      t.equal(badTask.status, 400, 'a task without a title is refused')
      t.match(badTask.body, /id="new-title-error" role="alert">[A-Z]/, 'the message at the title')

      t.equal(
        (await b.post('/room/context', { room: 'work', type: 'decision', key: 'deploy', body: 'Ship Friday' })).status,
        303,
      )
      const ctx = (await call('read_context', { agent_id: 'dev', type: 'decision', key: 'deploy' })) as {
        body: string
        entry: { updated_by: string }
      }
      t.match(
        ctx,
        { body: 'Ship Friday', entry: { updated_by: /^human:/ } },
        'the context entry is written as the person',
      )
      t.equal(
        (await b.post('/room/context', { room: 'work', type: 'Bad Type', key: 'k', body: 'x' })).status,
        400,
        'a bad type is refused',
      )
      t.equal(
        (
          await b.post(
            '/room/events',
            { room: 'work', text: 'x' },
            { site: 'cross-site', origin: 'https://evil.example' },
          )
        ).status,
        403,
        'a cross-site post is refused',
      )

      const audit = (await (await n.call('/admin/audit', { key: teamKey })).json()) as {
        entries: { action: string; target?: string }[]
      }
      const actions = audit.entries.map((e) => e.action)
      for (const a of ['replied to event', 'approved review', 'added task', 'edited task', 'wrote context'])
        t.ok(actions.includes(a), `audited: ${a}`)
      t.notOk(actions.includes('posted event'), 'refused changes are not audited')
    },
  )
})
