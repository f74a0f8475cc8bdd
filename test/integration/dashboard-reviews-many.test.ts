// A room holding more reviews than Lua's unpack() can spread (about 8,000 results): the reviews
// limit is a setting up to 100,000, so a room may hold that many. The room page's pending-only
// view reads every review's record (readRecords.lua), and deleting a task or a context entry
// removes its pending reviews (includes/reviewsOf.lua): both must work past that size.
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'

/** Twice over LUAI_MAXCSTACK (8,000), half a target: more than one unpack() could pass to Redis. */
const MANY = 16_500

t.test('standalone', async (t) => {
  const { n, b } = await signedInOperator(t, { reviewsPerRoom: MANY + 100 })
  t.equal((await b.send('/rooms', { name: 'many', agents: 'dev', template: 'blank' })).status, 200)
  const user = (await n.node.accounts.session(b.jar.get('ar_session')))!
  const as = (agent: string) => ({ room: { teamId: user.team, roomId: 'many' }, agent })
  const core = n.node.core
  await core.plan.addTask(as('dev'), { title: 'reviewed a lot' })
  await core.plan.addTask(as('dev'), { title: 'kept' })
  await core.context.write(as('dev'), { type: 'spec', key: 'api', body: 'v1' })
  // Half on t1, half on the context entry (each over 8,000), a few on t2; one decided.
  const targets = [
    { kind: 'task', task_id: 't1' },
    { kind: 'context', type: 'spec', key: 'api' },
  ]
  for (let i = 0; i < MANY; i += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, MANY - i) }, (_, j) =>
        core.reviews.request(as('dev'), { target: targets[(i + j) % 2]! }),
      ),
    )
  }
  for (let i = 0; i < 3; i++) await core.reviews.request(as('dev'), { target: { kind: 'task', task_id: 't2' } })
  await core.reviews.approve(as('lead'), { review_id: `r${MANY + 1}` })

  t.test('the pending-only view of the room page lists them', async (t) => {
    const page = await b.get('/room?id=many&reviews=pending')
    t.equal(page.status, 200, page.status === 200 ? 'answers' : page.body.slice(0, 400))
    t.match(page.body, `Reviews <span class="muted">(${(MANY + 2).toLocaleString('en-US')} pending)</span>`)
    t.match(page.body, `<strong>r${MANY + 3}</strong>`, 'newest first')
  })

  t.test('deleting a task removes every pending review of it', async (t) => {
    const r = await core.plan.deleteTask(as('dev'), { task_id: 't1' })
    t.equal(r.reviews_removed.length, MANY / 2)
    t.equal(r.reviews_removed[0], 'r1', 'sorted by number')
    const left = await core.reviews.list(as('dev'), { target_kind: 'task', limit: 200 })
    t.same(left.reviews.map((x) => x.id).sort(), [`r${MANY + 1}`, `r${MANY + 2}`, `r${MANY + 3}`], 'those of t2 stay')
  })

  t.test('deleting a context entry removes every pending review of it', async (t) => {
    const r = await core.context.delete(as('dev'), { type: 'spec', key: 'api' })
    t.equal(r.reviews_removed.length, MANY / 2)
    const left = await core.reviews.list(as('dev'), { limit: 200 })
    t.equal(left.total, 3, 'only those of t2 are left')
  })
})
