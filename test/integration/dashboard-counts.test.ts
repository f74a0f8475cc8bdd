// A count the room page shows next to a list counts what that list holds: the feed's count is
// the events it can show (kept, not deleted), not every event ever posted, so paging back through
// "Earlier events" finds exactly as many as the heading says.
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'

t.test('standalone', async (t) => {
  const { n, b } = await signedInOperator(t, { eventsRetained: 10 })
  t.equal((await b.send('/rooms', { name: 'counted', agents: 'dev', template: 'blank' })).status, 200)
  const user = (await n.node.accounts.session(b.jar.get('ar_session')))!
  const as = { room: { teamId: user.team, roomId: 'counted' }, agent: 'dev' }
  const posted: string[] = []
  for (let i = 0; i < 15; i++)
    posted.push((await n.node.core.events.post(as, { type: 'message', text: `event ${i}` })).event.id)
  await n.node.core.events.delete(as, { event_id: posted.at(-1)! })

  t.test("the feed's count is the number of events it lists", async (t) => {
    const page = await b.get('/room?id=counted')
    t.equal(page.status, 200)
    const rows = page.body.match(/<li[^>]* data-event="/g)?.length ?? 0
    t.ok(rows > 0 && rows < 15, `the feed lists the ${rows} events kept`)
    t.match(page.body, `Events <span class="muted" data-part="events-count">(${rows} in the feed, of 15 posted)</span>`)
  })
})
