// Admission paths besides the pages: the operator's `team waitlist` command (list, approve with a
// mailed link, or a printed one without SMTP, decline), and the first start's one-time link for the owner.
import t from 'tap'
import { runTeamsCli } from '../../src/ops/teams-cli.js'
import { testPrefix } from '../helpers/accounts.js'
import { Browser, keyIn, linkIn, startSmtp } from '../helpers/mail.js'
import { startNode } from '../helpers/node.js'
import { BACKENDS, settingsFor, uid } from '../helpers/shared.js'

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const inbox = await startSmtp(t)
    const prefix = testPrefix()
    const n = await startNode(t, backend, { keyPrefix: prefix, smtpUrl: inbox.url })
    // The command reads its settings from the environment, as it does when an operator runs it.
    const s = settingsFor(backend)
    const env = {
      REDIS_URL: s.redisUrl,
      REDIS_CLUSTER_NODES: s.redisClusterNodes,
      KEY_PREFIX: prefix,
      SMTP_URL: inbox.url,
      PUBLIC_URL: `http://localhost:${n.node.port}`,
    }
    const cli = async (...argv: string[]) => {
      let out = ''
      const code = await runTeamsCli(argv, (o) => (out += o), env)
      return { code, out }
    }
    const runOwnerLink = async (owner: string) => {
      let out = ''
      const code = await runTeamsCli(['owner-link'], (o) => (out += o), { ...env, ADMIN_EMAILS: owner })
      return { code, out }
    }

    t.test('team waitlist list | approve | decline', async (t) => {
      const b = new Browser(n.base)
      const yes = `${uid('y')}@example.com`
      const no = `${uid('n')}@example.com`
      await b.post('/waitlist', { email: yes, note: 'multi\nline note' })
      await b.post('/waitlist', { email: no, note: '' })
      const list = await cli('waitlist', 'list')
      t.equal(list.code, 0)
      t.match(list.out, new RegExp(`^${yes}\\tpending\\t\\d{4}-[^\\t]+\\tmulti line note$`, 'm'), 'one line per entry')
      const approved = await cli('waitlist', 'approve', yes.toUpperCase())
      t.equal(approved.code, 0)
      t.match(approved.out, 'a sign-in link was mailed')
      const page = await b.follow(linkIn(await inbox.next(yes)))
      t.ok(keyIn(page), 'the approved person signs in with the mailed link and gets a team key')
      const declined = await cli('waitlist', 'decline', no)
      t.equal(declined.code, 0)
      t.match((await cli('waitlist', 'list')).out, new RegExp(`^${no}\\tdeclined`, 'm'))
      const unknown = await cli('waitlist', 'approve', `${uid('x')}@example.com`)
      t.equal(unknown.code, 1)
      t.match(unknown.out, 'is not on the waitlist')
      t.equal((await cli('waitlist', 'approve')).code, 2, 'approve without an address prints the usage')
    })

    t.test('approve without PUBLIC_URL or SMTP_URL prints a link on the port the node serves', async (t) => {
      const b = new Browser(n.base)
      const who = `${uid('p')}@example.com`
      await b.post('/waitlist', { email: who, note: '' })
      const { PUBLIC_URL: _public, SMTP_URL: _smtp, ...local } = env
      let out = ''
      const code = await runTeamsCli(['waitlist', 'approve', who], (o) => (out += o), {
        ...local,
        PORT: String(n.node.port),
      })
      t.equal(code, 0, out)
      const link = /^(http:\/\/localhost:(\d+)\/signin\/link\?token=\S+)$/m.exec(out)
      t.equal(link?.[2], String(n.node.port), `the printed link names the node's port: ${out}`)
      t.ok(keyIn(await b.follow(link![1]!)), 'and signs the approved person in')
    })

    t.test('flooding from one IP is refused with a clear page, and the refused request changes nothing', async (t) => {
      const small = await startNode(t, backend, { keyPrefix: testPrefix(), smtpUrl: inbox.url, signInRatePerIp: 3 })
      const b = new Browser(small.base)
      for (let i = 0; i < 3; i++)
        t.equal(
          (await b.post('/signin', { email: `${uid('f')}@example.com` })).status,
          200,
          `request ${i + 1} of 3 passes`,
        )
      const late = `${uid('late')}@example.com`
      const refused = await b.post('/waitlist', { email: late, note: '' })
      t.equal(refused.status, 429, 'the fourth, another address, is refused: the limit is per IP')
      t.match(refused.body, 'Too many sign-in requests for your network address (the limit is 3 an hour)')
      t.ok(Number(refused.headers.get('retry-after')) > 0, 'with Retry-After')
      t.notOk(
        (await small.node.accounts.waitlist()).some((e) => e.email === late),
        'the refused waitlist request stored nothing',
      )
    })

    t.test("team owner-link prints a one-hour link for the default team's owner", async (t) => {
      await n.node.teams.bootstrap()
      const owner = `${uid('own')}@example.com`
      const ownerLink = () => runOwnerLink(owner)
      const r = await ownerLink()
      t.equal(r.code, 0)
      t.match(r.out, `sign-in link for ${owner}, owner of team default (works once, within 60 minutes)`)
      const link = /^(http:\/\/localhost:\d+\/signin\/link\?token=\S+)$/m.exec(r.out)?.[1]
      const b = new Browser(n.base)
      t.equal((await b.follow(link!)).status, 303, 'the link signs the owner in')
      t.match((await b.get('/team')).body, /owner of team <strong>[^<]+<\/strong>/, 'the team by its name')
      const again = await ownerLink()
      t.equal(again.code, 1, 'once the owner has an account, no second owner invite')
      t.match(again.out, 'is a member of this team already')
    })

    t.test("the first start's link signs the default team's owner in", async (t) => {
      const team = `d${uid()}`
      await n.node.teams.create({ teamId: team, name: 'Default team' })
      const { token, invite } = await n.node.accounts.inviteFirstOwner(team)
      t.equal(invite.email, 'owner@localhost', 'without ADMIN_EMAILS: a local owner')
      const b = new Browser(n.base)
      const signed = await b.follow(`${n.node.baseUrl}/signin/link?token=${token}`)
      t.equal(signed.status, 303, "no new key: the team's key was printed beside the link")
      const home = await b.get('/team')
      t.equal(home.status, 200)
      t.match(
        home.body,
        'Signed in as <strong>owner@localhost</strong>, owner of team <strong>Default team</strong>',
        'a signed-in page',
      )
    })
  })
}
