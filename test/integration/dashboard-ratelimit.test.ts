// A person's posted forms are actions under the budgets: each counts against the person's own
// budget (DASHBOARD_ACTIONS_PER_MIN) and against the team's rate limit, the one its keys share.
// A refused form answers 429 with Retry-After and a page naming the limit, and changes nothing;
// reading pages is not counted.
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'
import { keyIn } from '../helpers/mail.js'

t.test("the person's budget", async (t) => {
  const { n, b } = await signedInOperator(t, { dashboardActionsPerMin: 3 })
  const team = (await n.node.accounts.session(b.jar.get('ar_session')))!.team
  const before = (await n.node.teams.listKeys(team)).length
  for (let i = 0; i < 3; i++) {
    const minted = await b.post('/team/keys', { label: `k${i}` })
    t.equal(minted.status, 303, `form ${i + 1} of 3 goes through`)
  }
  const refused = await b.post('/team/keys', { label: 'one too many' })
  t.equal(refused.status, 429, 'the fourth in the minute is refused')
  t.match(refused.body, 'DASHBOARD_ACTIONS_PER_MIN', 'naming the limit')
  t.match(refused.body, 'Too many requests')
  t.ok(Number(refused.headers.get('retry-after')) >= 1, 'with Retry-After')
  t.equal((await n.node.teams.listKeys(team)).length, before + 3, 'and mints nothing')
  t.equal((await b.get('/team/keys')).status, 200, 'reading a page is not counted')
})

t.test("the team's budget, shared with its keys", async (t) => {
  const { n, b, first } = await signedInOperator(t)
  const key = keyIn(first)!
  const team = (await n.node.accounts.session(b.jar.get('ar_session')))!.team
  n.node.settings.rateLimitOverrides.set(team, 4)
  t.teardown(() => n.node.settings.rateLimitOverrides.delete(team))
  for (let i = 0; i < 2; i++) t.equal((await n.call('/admin/me', { key })).status, 200, `API call ${i + 1}`)
  for (let i = 0; i < 2; i++) t.equal((await b.post('/team/keys', { label: `t${i}` })).status, 303, `form ${i + 1}`)
  const before = (await n.node.teams.listKeys(team)).length
  const refused = await b.post('/team/keys', { label: 'over' })
  t.equal(refused.status, 429, "a form past the team's limit is refused")
  t.match(refused.body, "team's rate limit of 4 calls per minute")
  t.equal((await n.node.teams.listKeys(team)).length, before, 'and mints nothing')
  t.equal((await n.call('/admin/me', { key })).status, 429, "the forms used the keys' budget too")
})
