// GET /room/part on a real node: each part of the room page alone, as the whole page at the same
// address renders that section (paging and filters of the address included), room content
// escaped; signed out, a bad room, another team's room and an unknown part refused.
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'
import { keyIn } from '../helpers/mail.js'
import { callTool, legacyClient } from '../helpers/mcp.js'
import { PARTS } from '../../src/dashboard/room.js'

/** The element carrying `data-part="<name>"` in `html`, whole (sections and paragraphs nest only their own kind). */
function section(html: string, name: string): string | undefined {
  const at = html.indexOf(`data-part="${name}"`)
  if (at < 0) return undefined
  const start = html.lastIndexOf('<', at)
  const tag = /^<(\w+)/.exec(html.slice(start))![1]!
  let depth = 0
  const re = new RegExp(`<${tag}[\\s>]|</${tag}>`, 'g')
  re.lastIndex = start
  for (let m = re.exec(html); m; m = re.exec(html)) {
    depth += m[0].startsWith('</') ? -1 : 1
    if (depth === 0) return html.slice(start, m.index + m[0].length)
  }
  return undefined
}

/** A part's data-part value on the page. */
const attr = (name: string, room: string) => (name === 'needs' ? `needs-${room}` : name)

t.test('room parts', async (t) => {
  const { n, b, first } = await signedInOperator(t)
  const teamKey = keyIn(first)!
  t.equal((await b.send('/rooms', { name: 'parts', agents: 'dev, lead', template: 'web-app' })).status, 200)
  const agent = await legacyClient(t, n, teamKey)
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await callTool(agent, name, { room_id: 'parts', ...args })
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.body)}`)
    return r.body
  }
  await call('heartbeat', { agent_id: 'dev' })
  await call('update_task', { agent_id: 'dev', task_id: 't1', status: 'in_progress', assignee: 'dev' })
  await call('add_task', { agent_id: 'dev', title: '<img src=x onerror=alert(1)> ship it', depends_on: ['t1'] })
  const q = await call('post_event', { agent_id: 'dev', type: 'question', text: 'Which <b>database</b>?' })
  await call('reply_to_event', { agent_id: 'lead', event_id: (q.event as { id: string }).id, text: 'Postgres' })
  await call('post_event', { agent_id: 'lead', type: 'message', text: 'plain news' })
  await call('write_context', { agent_id: 'dev', type: 'spec', key: 'api', body: '<script>alert(2)</script>\n' })
  await call('acquire_lock', { agent_id: 'dev', name: 'deploy', ttl_s: 3600 })
  await call('set_shared_var', { agent_id: 'dev', name: 'build', value: '<i>green</i>' })
  await call('request_review', { agent_id: 'dev', target: { kind: 'task', task_id: 't1' }, note: 'please look' })

  t.test('each part matches its section of the page at the same address', async (t) => {
    for (const query of ['id=parts', 'id=parts&type=question', 'id=parts&todo_from=1&task=t1&ctx=spec/api']) {
      const page = await b.get(`/room?${query}`)
      t.equal(page.status, 200)
      for (const name of PARTS) {
        const got = await b.get(`/room/part?${query}&part=${name}`)
        t.equal(got.status, 200, `${query}: ${name}`)
        const want = section(page.body, attr(name, 'parts'))
        t.ok(want, `the page has part ${name}`)
        // What moves with the clock between the two reads is left out: the words of times relative
        // to now (a lock's time left, "4 min ago"; no part's version holds them), and where an
        // activity strip's "last seen" line sits (and so that part's version, the hash of what it
        // shows, may differ); the rest is identical.
        const steady = (s: string | undefined) => {
          const words = s?.replace(/(data-(?:ago|left)>)[^<]*/g, '$1')
          return name === 'activity'
            ? words?.replace(/(class="s-seen" x1=")[\d.]+(" x2=")[\d.]+/g, '$1$2').replace(/ data-v="[^"]+"/, '')
            : words
        }
        t.equal(steady(section(got.body, attr(name, 'parts'))), steady(want), `${query}: ${name} is the page's`)
        t.notMatch(got.body, /<html|<main/, `${name}: a fragment, not a page`)
      }
    }
  })

  t.test('several parts in one answer, in the order asked; room content as text', async (t) => {
    const got = await b.get('/room/part?id=parts&part=vars&part=plan&part=events&part=context&ctx=spec/api')
    t.equal(got.status, 200)
    t.equal(got.headers.get('cache-control'), 'no-store')
    const at = (name: string) => got.body.indexOf(`data-part="${name}"`)
    t.ok(at('vars') >= 0 && at('vars') < at('plan') && at('plan') < at('events') && at('events') < at('context'))
    t.notMatch(got.body, /<script>alert|<img src=x|<b>database|<i>green/, 'no agent text is markup')
    t.match(got.body, '&lt;img src=x onerror=alert(1)> ship it')
    t.match(got.body, 'Which &lt;b>database&lt;/b>?')
    t.equal(at('agents'), -1, 'only the parts asked for')
  })

  t.test('refused: no part, an unknown part, signed out, a bad room, another team', async (t) => {
    const none = await b.get('/room/part?id=parts')
    t.equal(none.status, 400)
    t.match(none.body, 'part: give at least one of head, needs, panel, plan')
    const unknown = await b.get('/room/part?id=parts&part=plan&part=%3Cscript%3E')
    t.equal(unknown.status, 404)
    t.match(unknown.body, 'part: &quot;&lt;script>&quot; is not a part of the room page')
    const many = await b.get(`/room/part?id=parts${'&part=plan'.repeat(PARTS.length + 1)}`)
    t.equal(many.status, 400)
    t.match(many.body, `part: at most ${PARTS.length} parts`)
    const out = await fetch(`${n.base}/room/part?id=parts&part=plan`, { redirect: 'manual' })
    t.equal(out.status, 303, 'signed out: sent to sign in')
    t.notMatch(await out.text(), /ship it/)
    t.equal((await b.get('/room/part?id=..&part=plan')).status, 400)
    t.equal((await b.get('/room/part?id=not-mine&part=plan')).status, 404)
    t.equal((await b.get('/room/part?id=parts&part=plan&todo_from=x')).status, 400, 'the page parameters checked')
  })
})
