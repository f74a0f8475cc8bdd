// The room page's side panels on a real node, as a browser without script uses them: the task
// panel's assignee picked from the room's agents, its dependencies set from the room's tasks in one
// change (added, removed, typed), refusals (a cycle, an unknown id, the task itself) that come
// back with the panel open, the input as sent and the message at the field, changing nothing; the
// context panel with the selected version's diff; Post/Redirect/Get and the audit trail.
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'
import { keyIn } from '../helpers/mail.js'

/** A form body with repeated fields, as a browser sends ticked boxes. */
const form = (pairs: [string, string][]) => new URLSearchParams(pairs).toString()

/** The element with `id="<id>"` up to its `</form>` (the panel's forms hold no nested forms). */
const formOf = (html: string, heading: string) => {
  const at = html.indexOf(`id="${heading}"`)
  return at < 0 ? '' : html.slice(html.lastIndexOf('<form', at), html.indexOf('</form>', at))
}

t.test('side panels', async (t) => {
  const { n, b, first } = await signedInOperator(t, { contextHistory: 3 })
  const teamKey = keyIn(first)!
  t.equal((await b.send('/rooms', { name: 'panels', agents: 'dev, lead', template: 'blank' })).status, 200)
  const user = (await n.node.accounts.session(b.jar.get('ar_session')))!
  const as = (agent: string) => ({ room: { teamId: user.team, roomId: 'panels' }, agent })
  const core = n.node.core
  for (const a of ['dev', 'lead']) await core.presence.heartbeat(as(a), {})
  for (const title of ['schema', 'api', 'ui']) await core.plan.addTask(as('lead'), { title })
  await core.plan.addTask(as('lead'), { title: 'release <b>it</b>', depends_on: ['t1'] })
  const deps = async (id: string) => (await core.plan.getTask(as('dev'), { task_id: id })).task.depends_on
  const audit = async () =>
    (
      (await (await n.call('/admin/audit', { key: teamKey })).json()) as {
        entries: { action: string; target?: string }[]
      }
    ).entries

  t.test('no panel without ?task or ?ctx; the part is there, empty', async (t) => {
    const page = await b.get('/room?id=panels')
    t.match(page.body, /<div data-v="[\w-]+" data-part="panel" class="side-panels"><\/div>/)
  })

  t.test('the task panel: the assignee is one of the room agents, the dependencies a set', async (t) => {
    const page = (await b.get('/room?id=panels&task=t4')).body
    t.match(
      page,
      /<div data-v="[\w-]+" data-part="panel" class="side-panels open"><section class="panel side-panel" id="open-task/,
    )
    const edit = formOf(page, 'edit-task-h')
    t.notMatch(edit, /<input[^>]*name="assignee"/, 'no free-text assignee')
    const picker = /<select name="assignee"[^>]*>([\s\S]*?)<\/select>/.exec(edit)?.[1] ?? ''
    const options = [...picker.matchAll(/<option value(?:="[^"]*")?[^>]*>([^<]*)<\/option>/g)].map((m) => m[1])
    t.match(options, ['unassigned', 'dev', /^human:/, 'lead'], 'unassigned, then the room agents and the person')
    t.equal(options.length, 4)
    t.match(edit, '<option value selected>unassigned</option>', 'nobody assigned yet')

    const d = formOf(page, 'edit-deps-h')
    t.match(d, 'action="/room/tasks/dependencies"')
    t.match(d, '<input type="checkbox" name="depends_on" value="t1" checked/>t1 schema (to do)', 'a box per dependency')
    t.same(
      [...d.matchAll(/<option value="(t\d+)"/g)].map((m) => m[1]),
      ['t2', 't3'],
      'the picker offers the other tasks, not the task itself or its dependencies',
    )
    t.match(page, 'release &lt;b>it&lt;/b>', 'titles escaped')

    const assigned = await b.post('/room/tasks', { room: 'panels', task_id: 't4', assignee: 'dev' })
    t.equal(assigned.status, 303)
    t.equal((await core.plan.getTask(as('dev'), { task_id: 't4' })).task.assignee, 'dev')
    const back = (await b.get(assigned.location!)).body
    t.match(formOf(back, 'edit-task-h'), '<option value="dev" selected>dev</option>')
  })

  t.test('saving dependencies adds and removes in one change, then redirects', async (t) => {
    const added = await b.post(
      '/room/tasks/dependencies',
      form([
        ['room', 'panels'],
        ['task_id', 't4'],
        ['depends_on', 't1'],
        ['depends_on', 't2'],
        ['more', 't3, t2'],
      ]),
    )
    t.equal(added.status, 303, 'Post/Redirect/Get')
    t.equal(added.location, '/room?id=panels&task=t4#open-task')
    t.same(await deps('t4'), ['t1', 't2', 't3'])
    const removed = await b.post(
      '/room/tasks/dependencies',
      form([
        ['room', 'panels'],
        ['task_id', 't4'],
        ['depends_on', 't2'],
        ['depends_on', ''],
        ['more', ''],
      ]),
    )
    t.equal(removed.status, 303)
    t.same(await deps('t4'), ['t2'], 'unticked boxes are removed')
    const entries = await audit()
    t.ok(
      entries.some((e) => e.action === 'set task dependencies' && e.target === 't4 (room panels; added t2, t3)'),
      'the audit trail says what was added',
    )
    t.ok(
      entries.some((e) => e.action === 'set task dependencies' && e.target === 't4 (room panels; removed t1, t3)'),
      'and what was removed',
    )
    const page = (await b.get('/room?id=panels&task=t4')).body
    t.match(page, '<dt>Depends on</dt><dd><a href="/room?id=panels&amp;task=t2#open-task">t2</a></dd>')
  })

  t.test('a refused set comes back open, as sent, with the message at the field', async (t) => {
    // t4 depends on t2: t2 depending on t4 closes a cycle.
    const cycle = await b.post(
      '/room/tasks/dependencies',
      form([
        ['room', 'panels'],
        ['task_id', 't2'],
        ['depends_on', 't4'],
        ['more', 't1'],
      ]),
    )
    t.equal(cycle.status, 400)
    t.match(cycle.body, 'id="open-task"', 'the task is open')
    const d = formOf(cycle.body, 'edit-deps-h')
    t.match(d, '<option value="t4" selected>t4 release &lt;b>it&lt;/b></option>', 'the pick kept')
    t.match(d, 'name="more" value="t1"', 'the typed ids kept')
    t.match(d, /aria-invalid="true" aria-describedby="edit-deps-error"/)
    t.match(
      d,
      '<p class="error field" id="edit-deps-error" role="alert">Task t4 already depends on t2 (t2 -> t4 -> t2);' +
        ' this would make a cycle</p>',
      'in plain words, naming the task',
    )
    t.notMatch(cycle.body, 'depends_on:', 'no API field names')
    t.same(await deps('t2'), [], 'nothing changed: not even t1, which alone was fine')

    const unknown = await b.post(
      '/room/tasks/dependencies',
      form([
        ['room', 'panels'],
        ['task_id', 't2'],
        ['depends_on', ''],
        ['more', 't1, t99'],
      ]),
    )
    t.equal(unknown.status, 404)
    t.match(formOf(unknown.body, 'edit-deps-h'), 'name="more" value="t1, t99"')
    t.match(unknown.body, 'id="edit-deps-error" role="alert">Task t99 does not exist</p>')

    const self = await b.post(
      '/room/tasks/dependencies',
      form([
        ['room', 'panels'],
        ['task_id', 't2'],
        ['more', 't2'],
      ]),
    )
    t.equal(self.status, 400)
    t.match(self.body, 'id="edit-deps-error" role="alert">Task t2 cannot depend on itself</p>')
    t.same(await deps('t2'), [], 'still nothing')

    const gone = await b.post(
      '/room/tasks/dependencies',
      form([
        ['room', 'panels'],
        ['task_id', 't99'],
      ]),
    )
    t.equal(gone.status, 404)
    t.match(gone.body, 'Task t99 does not exist in this room', 'a task deleted meanwhile')
  })

  t.test('the context panel: text, versions, the selected version against the one before', async (t) => {
    for (const body of ['one\n', 'one\ntwo\n', 'one\ntwo\nthree\n', 'zero\none\ntwo\nthree\n'])
      await core.context.write(as('dev'), { type: 'spec', key: 'api', body })
    const page = (await b.get('/room?id=panels&ctx=spec%2Fapi')).body
    t.match(page, 'id="open-context"')
    t.match(page, '<pre class="body" tabindex="0" aria-label="Body of spec/api">zero\none\ntwo\nthree\n</pre>')
    t.match(page, '<strong aria-current="true">v4</strong>', 'the current version selected by default')
    t.match(page, 'Changes v3 → v4 <span class="muted">(+1 −0 lines)</span>')
    t.match(page, '<span class="add">+zero\n</span>')
    t.match(page, '<a href="/room?id=panels&amp;ctx=spec%2Fapi&amp;from=2&amp;to=3#open-context"')
    t.notMatch(page, 'from=1&amp;to=2', 'v2 has no diff: v1 is no longer kept')
    const v3 = (await b.get('/room?id=panels&ctx=spec%2Fapi&from=2&to=3')).body
    t.match(v3, '<strong aria-current="true">v3</strong>')
    t.match(v3, '<span class="add">+three\n</span>')
    const old = await b.get('/room?id=panels&ctx=spec%2Fapi&from=1&to=2')
    t.equal(old.status, 200, 'a version whose predecessor is gone still opens')
    t.match(old.body, 'No changes to show:')
    t.match(old.body, 'Body of spec/api')
  })
})
