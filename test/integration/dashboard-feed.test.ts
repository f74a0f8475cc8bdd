// The room page's feed at the limits: filtered on the server by type, by agent and to the open
// questions (a question no retained event replies to), as plain links and a GET form; each page
// of a filter continues to older matches; replies collapse under their event; times read as how
// long ago, the exact time on hover. The filter's read is bounded and counts as no activity.
import t from 'tap'
import { FEED_SCAN_LIMIT } from '../../src/core/room-page.js'
import { FEED_PAGE } from '../../src/dashboard/pages.js'
import { signedInOperator } from '../helpers/accounts.js'

/** The ids of the events a page lists (data-event), in page order. */
const listed = (page: string) => [...page.matchAll(/data-event="([^"]+)"/g)].map((m) => m[1]!)

t.test('standalone', async (t) => {
  const { n, b } = await signedInOperator(t)
  t.equal((await b.send('/rooms', { name: 'feed', agents: 'dev', template: 'blank' })).status, 200)
  const user = (await n.node.accounts.session(b.jar.get('ar_session')))!
  const room = { teamId: user.team, roomId: 'feed' }
  const as = (agent: string) => ({ room, agent })
  const core = n.node.core
  const q1 = (await core.events.post(as('backend'), { type: 'question', text: 'Postgres or SQLite?' })).event
  const q2 = (await core.events.post(as('frontend'), { type: 'question', text: 'Tabs or spaces?' })).event
  const a1 = (await core.events.reply(as('planner'), { event_id: q1.id, text: 'Postgres.', type: 'answer' })).event
  await core.events.reply(as('backend'), { event_id: a1.id, text: 'Thanks.' })
  await core.events.unread(as('backend'))
  await core.events.unread(as('frontend'))
  const statuses: string[] = []
  for (let i = 0; i < FEED_PAGE + 10; i++)
    statuses.push(
      (await core.events.post(as(i % 2 ? 'backend' : 'frontend'), { type: 'status', text: `s${i}` })).event.id,
    )

  t.test('open questions: those nothing replies to, however old', async (t) => {
    const page = await b.get('/room?id=feed&open=1')
    t.equal(page.status, 200)
    t.same(listed(page.body), [q2.id], 'only the unanswered question')
    t.match(page.body, 'Showing open questions.')
    t.match(page.body, /<input type="checkbox" name="open" value="1" checked/, 'the form says what it shows')
    const byBackend = await b.get('/room?id=feed&open=1&agent=backend')
    t.same(listed(byBackend.body), [], 'none of them by backend')
    t.match(byBackend.body, 'No open questions by backend.')
  })

  t.test('by type and by agent, a page at a time, older pages continuing', async (t) => {
    const page = (await b.get('/room?id=feed&type=status&agent=backend')).body
    const want = statuses.filter((_, i) => i % 2 === 1).reverse()
    t.same(listed(page), want, 'every status of backend, newest first (fewer than a page)')
    const all = (await b.get('/room?id=feed&type=status')).body
    t.same(listed(all), statuses.slice(-FEED_PAGE).reverse(), 'a page of statuses')
    const next = /<a href="([^"]+)">Earlier ones<\/a>/.exec(all)?.[1]?.replaceAll('&amp;', '&')
    t.ok(next, 'a link to the older ones')
    const older = (await b.get(next!)).body
    t.same(listed(older), statuses.slice(0, statuses.length - FEED_PAGE).reverse(), 'the rest')
    t.notMatch(older, 'Earlier ones', 'and no further page')
    t.match(older, 'Back to the latest of them')
    const questions = (await b.get('/room?id=feed&type=question')).body
    t.same(listed(questions), [q2.id, q1.id], 'questions, answered or not')
  })

  t.test('the filter form keeps what else the page shows, and refuses what is no filter', async (t) => {
    const page = (await b.get('/room?id=feed&task=t1&type=question')).body
    const form = page.slice(
      page.indexOf('aria-label="Filter the events"'),
      page.indexOf('</form>', page.indexOf('aria-label="Filter the events"')),
    )
    t.match(form, '<input type="hidden" name="task" value="t1"/>', 'the open task stays open')
    t.notMatch(form, 'name="type" value="question"', 'the filter is not kept twice')
    t.match(form, '<option value="question" selected>question</option>')
    t.match(form, '<option value="frontend">frontend</option>', 'the agents of the room are offered')
    for (const [q, field] of [
      ['type=Not%20a%20type', 'type'],
      [`agent=${'a'.repeat(129)}`, 'agent'],
      ['open=yes', 'open'],
    ] as const) {
      const bad = await b.get(`/room?id=feed&${q}`)
      t.equal(bad.status, 400, q)
      t.match(bad.body, `${field}: must be`)
    }
  })

  t.test('replies collapse under their event; times say how long ago, the exact time on hover', async (t) => {
    const page = (await b.get(`/room?id=feed&before=${statuses[0]}`)).body
    t.same(listed(page).slice(0, 2), [q2.id, q1.id], 'the questions first, newest first')
    const thread = page.slice(page.indexOf(`id="event-${q1.id}"`))
    t.match(thread, /<details class="thread small"><summary>2 replies, the last by backend <time/, 'collapsed')
    t.match(thread, `data-event="${a1.id}"`, 'the replies are in it')
    const exact = `${q1.created_at.replace('T', ' ').slice(0, 19)} UTC`
    t.match(page, `<time datetime="${q1.created_at}" title="${exact}" data-ago>just now</time>`)
    const reads = /Postgres or SQLite\?<\/p><div class="small muted" data-readers="[^"]*">([^<]*)<\/div>/.exec(
      page,
    )?.[1]
    t.match(reads, /^read by frontend/, 'its readers')
    t.notMatch(reads, 'backend', 'but not its author, who has read past it')
  })

  t.test('a filtered read is bounded, and is not activity', async (t) => {
    const before = (await core.rooms.info({ room })).room.last_active_at
    const r = await core.roomPage.feed({ room }, { type: 'nothing-posts-this', limit: FEED_PAGE })
    t.same(r.events, [])
    t.equal(r.exhausted, false, `fewer than ${FEED_SCAN_LIMIT} events: the whole feed looked through`)
    t.equal(r.next, undefined)
    t.equal((await core.rooms.info({ room })).room.last_active_at, before, 'the room is not touched')
  })
})
