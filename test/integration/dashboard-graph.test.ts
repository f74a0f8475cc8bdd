// The room page's picture of the plan: the open tasks as an SVG graph with their dependencies,
// the critical path marked, each node a link to its task, titles escaped; the cap on the tasks it
// holds, saying how many are left out and which of those a shown task waits for; and a strip per
// agent of its recent posts, tasks taken and tasks done.
import t from 'tap'
import { GRAPH_TASKS, criticalPath } from '../../src/core/plan-graph.js'
import { signedInOperator } from '../helpers/accounts.js'

/** The graph's section of a room page. */
const graphOf = (page: string) => page.slice(page.indexOf('aria-labelledby="graph"'), page.indexOf('class="room-grid"'))
const activityOf = (page: string) =>
  page.slice(page.indexOf('aria-labelledby="activity"'), page.indexOf('aria-labelledby="reviews"'))
/** The ids of the graph's nodes, in the order drawn. */
const nodesOf = (graph: string) => [...graph.matchAll(/data-task="(t\d+)"/g)].map((m) => m[1])

t.test('standalone', async (t) => {
  const { n, b } = await signedInOperator(t)
  const user = (await n.node.accounts.session(b.jar.get('ar_session')))!
  const core = n.node.core
  const as = (roomId: string, agent: string) => ({ room: { teamId: user.team, roomId }, agent })
  t.equal((await b.send('/rooms', { name: 'g', agents: 'dev', template: 'blank' })).status, 200)
  const dev = as('g', 'dev')
  // t1 <- t2 <- t3 and t1 <- t4: the critical path is t1, t2, t3. t5 stands alone; t6 is done.
  await core.plan.addTask(dev, { title: 'Design <b>the</b> "schema" & <script>alert(1)</script> at length' })
  await core.plan.addTask(dev, { title: 'Build the API', depends_on: ['t1'] })
  await core.plan.addTask(dev, { title: 'Ship it', depends_on: ['t2'] })
  await core.plan.addTask(dev, { title: 'Write the docs', depends_on: ['t1'] })
  await core.plan.addTask(dev, { title: 'Alone' })
  await core.plan.addTask(dev, { title: 'Finished' })
  await core.plan.updateTask(dev, { task_id: 't6', status: 'done' })
  await core.plan.updateTask(dev, { task_id: 't2', status: 'in_progress', force: true })
  for (const text of ['one', 'two']) await core.events.post(dev, { type: 'message', text })
  await core.presence.heartbeat(dev)

  t.test('nodes, edges and the critical path of a known plan', async (t) => {
    const page = (await b.get('/room?id=g')).body
    const g = graphOf(page)
    t.match(g, 'Plan graph <span class="muted">(5 open)</span>')
    t.same(nodesOf(g), ['t2', 't1', 't3', 't4', 't5'], 'the open tasks, the one in progress first; not t6 (done)')
    t.equal(g.match(/class="g-edge[^"]*"/g)?.length, 3, 'three dependencies between open tasks')
    t.equal(g.match(/class="g-edge g-critical"/g)?.length, 2, 'two of them on the critical path')
    t.match(g, 'the longest chain of open tasks): t1 → t2 → t3', 'the path in words')
    for (const id of ['t1', 't2', 't3'])
      t.match(g, new RegExp(`data-task="${id}"><title>${id} [^<]*, on the critical path</title>`), id)
    t.equal(g.match(/, on the critical path<\/title>/g)?.length, 3, 'only t1, t2 and t3 are on it')
    t.match(g, /class="g-node g-in_progress g-critical" data-task="t2"><title>t2 Build the API, in progress, dev, on/)
    t.match(g, /<text[^>]*>★ t2 · in progress · dev<\/text>/, 'status and assignee in words, the star on the path')
    t.match(g, '<a href="/room?id=g&amp;task=t4#open-task" class="g-node g-todo"', 'a node links to its task')
    t.notMatch(g, 'Shows ', 'nothing left out')
  })

  t.test('titles are text', async (t) => {
    const g = graphOf((await b.get('/room?id=g')).body)
    t.notMatch(g, '<script>', 'no markup from a title')
    t.notMatch(g, '<b>the</b>')
    t.match(g, 'Design &lt;b>the&lt;/b> &quot;schema&quot; &amp; &lt;script>alert(1)&lt;/script> at length')
    t.match(g, /<text[^>]*>Design &lt;b>the&lt;\/b> &quot;sche…<\/text>/, 'the node shows the start, cut')
  })

  t.test('an activity strip per agent', async (t) => {
    await core.plan.updateTask(dev, { task_id: 't5', status: 'done' })
    const a = activityOf((await b.get('/room?id=g')).body)
    t.match(a, '<strong>dev</strong>')
    t.match(a, '2 posted · 1 taken · 2 done · ', 'two events, t2 taken, t5 and t6 done')
    t.match(a, /role="img" aria-label="dev: 2 events, 1 task taken, 2 done in the last 2 h; last seen just now"/)
    t.equal(a.match(/class="s-seen"/g)?.length, 1, 'when last seen')
    t.equal(a.match(/class="s-post"/g)?.length, 1, 'both posts in one 5-minute bar')
    t.equal(a.match(/class="s-done"/g)?.length, 2)
    t.equal(a.match(/class="s-held"/g)?.length, 1)
    const part = await b.get('/room/part?id=g&part=activity&part=graph')
    t.equal(part.status, 200)
    t.match(part.body, '2 posted · 1 taken · 2 done · ', 'the strips alone, as the live script asks for them')
    t.match(part.body, 'data-part="graph"')
  })

  t.test('the cap: at most GRAPH_TASKS open tasks, and what is left out', async (t) => {
    t.equal((await b.send('/rooms', { name: 'cap', agents: 'dev', template: 'blank' })).status, 200)
    const d = as('cap', 'dev')
    // Five low-priority tasks come last in the board's order; the first normal one waits for t1.
    for (let i = 1; i <= 5; i++) await core.plan.addTask(d, { title: `low ${i}`, priority: 'low' })
    for (let i = 0; i < GRAPH_TASKS; i++)
      await core.plan.addTask(d, { title: `normal ${i}`, depends_on: i === 0 ? ['t1'] : [`t${i + 5}`] })
    const g = graphOf((await b.get('/room?id=cap')).body)
    const nodes = nodesOf(g)
    t.equal(nodes.length, GRAPH_TASKS, 'the cap')
    t.notOk(
      nodes.some((id) => Number(id!.slice(1)) <= 5),
      'the low-priority ones are left out',
    )
    t.match(g, `Shows ${GRAPH_TASKS} of ${GRAPH_TASKS + 5} open tasks`)
    t.match(g, '5 left out, 1 of them awaited by a task shown: t1.')
    t.match(g, `(${GRAPH_TASKS} tasks, the longest chain`, 'the chain of the shown ones')
  })
})

t.test('criticalPath: the longest chain, ties to the earliest', async (t) => {
  const e = (from: string, to: string) => ({ from, to })
  t.same(criticalPath([], []), [])
  t.same(criticalPath(['a', 'b'], []), ['a'], 'no edge: one task, the first')
  t.same(criticalPath(['a', 'b', 'c', 'd'], [e('a', 'b'), e('b', 'c'), e('a', 'd')]), ['a', 'b', 'c'])
  t.same(criticalPath(['a', 'b', 'c', 'd'], [e('a', 'c'), e('b', 'd')]), ['a', 'c'], 'equal chains: the first')
  t.same(
    criticalPath(['a', 'b', 'c', 'd', 'x'], [e('a', 'b'), e('b', 'c'), e('x', 'c'), e('c', 'd')]),
    ['a', 'b', 'c', 'd'],
    'a join takes its longest way in',
  )
  t.same(criticalPath(['a', 'b'], [e('a', 'b'), e('z', 'b')]), ['a', 'b'], 'edges to tasks not shown are ignored')
})
