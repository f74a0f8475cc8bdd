// Bad input to the authorization server, as a table: each case is refused with its RFC's error,
// grants nothing, and is recorded — in the authorization server's own trail when no team is named
// yet (a redirect URI, PKCE, a resource, a registration), in the team's trail otherwise (a reused
// code or refresh token, a token for another resource, a consent for another team's room or from
// another origin). The person is signed in on the dashboard and consents in their browser.
import { createHash, randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import t, { type Test } from 'tap'
import type { AuditEntry } from '../../src/auth/audit.js'
import { signedInOperator } from '../helpers/accounts.js'
import { startNode } from '../helpers/node.js'
import { uid } from '../helpers/shared.js'
import { eventually } from '../helpers/wait.js'

const REDIRECT = 'http://127.0.0.1:40333/callback'
const s256 = (v: string) => createHash('sha256').update(v).digest('base64url')

interface Answer {
  status: number
  /** The RFC error: a redirect's `error`, a JSON body's `error`, or a 401's WWW-Authenticate error. */
  error: string | undefined
  /** Whether it handed out anything: a code in a redirect to the client, or a token. */
  granted?: boolean
}

interface Row {
  name: string
  /** What the case needs first (a code, tokens): legitimate steps, before the refused one. */
  prepare?(): Promise<void>
  run(): Promise<Answer>
  status: number
  error: string | undefined
  /** Where it is recorded, and the entry's action and text. */
  trail: 'server' | 'team'
  entry: RegExp
  /** What else shows that it granted nothing. */
  nothing?(t: Test): Promise<void>
}

t.test('what the authorization server refuses: the error, nothing granted, the trail', async (t) => {
  const { n, b } = await signedInOperator(t)
  const base = n.base.replace('127.0.0.1', 'localhost')
  const issuer = n.node.baseUrl
  b.base = base
  const teamId = (await n.node.accounts.session(b.jar.get('ar_session')!))!.team
  const roomId = uid('room')
  await n.node.core.rooms.create(teamId, { room_id: roomId }, 'test')
  const other = await n.node.teams.create({ name: 'other', teamId: uid('tm') })
  const theirRoom = uid('theirs')
  await n.node.core.rooms.create(other.team.teamId, { room_id: theirRoom }, 'test')

  const reg = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_name: 'Table Agent', redirect_uris: [REDIRECT] }),
  })
  const clientId = ((await reg.json()) as { client_id: string }).client_id
  const verifier = randomBytes(32).toString('base64url')
  const authorizeUrl = (over: Record<string, string | undefined> = {}) => {
    const all: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: s256(verifier),
      code_challenge_method: 'S256',
      resource: `${issuer}/mcp`,
      scope: 'mcp offline_access',
      state: randomBytes(6).toString('hex'),
      ...over,
    }
    const p = new URLSearchParams()
    for (const [k, v] of Object.entries(all)) if (v !== undefined) p.set(k, v)
    return `/oauth/authorize?${p}`
  }
  /** The person's browser opens an authorization URL: a redirect to the consent page, or an answer. */
  const open = async (over: Record<string, string | undefined> = {}): Promise<Answer & { consent?: string }> => {
    const r = await b.get(authorizeUrl(over))
    const to = r.location ? new URL(r.location, base) : undefined
    if (to?.pathname.startsWith('/oauth/consent/')) return { status: r.status, error: undefined, consent: to.pathname }
    if (to)
      return {
        status: r.status,
        error: to.searchParams.get('error') ?? undefined,
        granted: to.searchParams.has('code'),
      }
    return { status: r.status, error: /invalid_[a-z_]+/.exec(r.body)?.[0] }
  }
  const form = { team: teamId, room: roomId, agent: 'table', access: 'write', decision: 'allow' }
  /** A full authorization as the person allows it: the code the client gets. */
  const codeOf = async () => {
    const { consent } = await open()
    const answered = await b.post(consent!, form)
    const back = await b.get(answered.location!)
    return new URL(back.location!).searchParams.get('code')!
  }
  const token = (body: Record<string, string>) =>
    fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId, ...body }),
    })
  /** Redeems `code` as the client does; `over` replaces a parameter, or leaves it out when undefined. */
  const redeem = (code: string, over: Record<string, string | undefined> = {}) => {
    const all = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, ...over }
    return token(Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined)))
  }
  const answerOf = async (r: Response): Promise<Answer> => {
    const body = (await r.json().catch(() => ({}))) as { error?: string; access_token?: string }
    return { status: r.status, error: body.error, granted: body.access_token !== undefined }
  }
  const mcp = (at: string, where = base) =>
    fetch(`${where}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${at}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
  const live = async () => (await n.node.grants.list(teamId)).filter((g) => !g.revoked_at).length
  let code = ''
  let tokensOfReusedCode = ''
  let rotated = ''
  let refreshed = ''
  let there = ''
  let accessToken = ''

  const rows: Row[] = [
    {
      name: 'a redirect URI the client did not register',
      run: () => open({ redirect_uri: 'http://127.0.0.1:40333/elsewhere' }),
      status: 400,
      error: 'invalid_redirect_uri',
      trail: 'server',
      entry: /refused authorization request invalid_redirect_uri: /,
    },
    {
      name: 'a registration with a plain-http redirect URI off loopback',
      run: async () =>
        answerOf(
          await fetch(`${base}/oauth/register`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ client_name: 'Bad', redirect_uris: ['http://agent.example/cb'] }),
          }),
        ),
      status: 400,
      error: 'invalid_redirect_uri',
      trail: 'server',
      entry: /refused client registration invalid_redirect_uri: redirect_uris\[0\] uses plain http/,
    },
    {
      name: 'no PKCE',
      run: () => open({ code_challenge: undefined, code_challenge_method: undefined }),
      status: 303,
      error: 'invalid_request',
      trail: 'server',
      entry: /refused authorization request invalid_request: .*requires PKCE/,
    },
    {
      name: 'plain PKCE',
      run: () => open({ code_challenge: verifier, code_challenge_method: 'plain' }),
      status: 303,
      error: 'invalid_request',
      trail: 'server',
      entry: /refused authorization request invalid_request: .*code_challenge_method/,
    },
    {
      name: 'a resource that is not this server',
      run: () => open({ resource: 'https://elsewhere.example/mcp' }),
      status: 303,
      error: 'invalid_target',
      trail: 'server',
      entry: /refused authorization request invalid_target: /,
    },
    {
      name: "a token request whose redirect URI is not the authorization request's",
      prepare: async () => {
        code = await codeOf()
      },
      run: async () => answerOf(await redeem(code, { redirect_uri: 'http://127.0.0.1:40333/elsewhere' })),
      status: 400,
      error: 'invalid_grant',
      trail: 'server',
      entry: /refused token request invalid_grant: .*redirect_uri mismatch/,
    },
    {
      name: 'a token request without the PKCE verifier',
      prepare: async () => {
        code = await codeOf()
      },
      run: async () => answerOf(await redeem(code, { code_verifier: undefined })),
      status: 400,
      error: 'invalid_grant',
      trail: 'server',
      entry: /refused token request invalid_grant: .*code_verifier must be provided/,
    },
    {
      name: 'a token request whose PKCE verifier does not match',
      prepare: async () => {
        code = await codeOf()
      },
      run: async () => answerOf(await redeem(code, { code_verifier: randomBytes(32).toString('base64url') })),
      status: 400,
      error: 'invalid_grant',
      trail: 'server',
      entry: /refused token request invalid_grant: .*code_verifier does not match/,
    },
    {
      name: 'a token request for another resource',
      prepare: async () => {
        code = await codeOf()
      },
      run: async () => answerOf(await redeem(code, { resource: 'https://elsewhere.example/mcp' })),
      status: 400,
      error: 'invalid_target',
      trail: 'server',
      entry: /refused token request invalid_target: /,
    },
    {
      name: 'a reused code',
      prepare: async () => {
        code = await codeOf()
        const first = (await (await redeem(code)).json()) as { access_token: string }
        tokensOfReusedCode = first.access_token
      },
      run: async () => answerOf(await redeem(code)),
      status: 400,
      error: 'invalid_grant',
      trail: 'team',
      entry: /revoked connected agent .*authorization code was redeemed (again|twice)/,
      nothing: async (t) => {
        t.equal((await mcp(tokensOfReusedCode)).status, 401, 'the tokens of its first redemption are revoked')
      },
    },
    {
      name: 'a rotated refresh token used again',
      prepare: async () => {
        rotated = ((await (await redeem(await codeOf())).json()) as { refresh_token: string }).refresh_token
        const next = await token({ grant_type: 'refresh_token', refresh_token: rotated })
        refreshed = ((await next.json()) as { refresh_token: string }).refresh_token
      },
      run: async () => answerOf(await token({ grant_type: 'refresh_token', refresh_token: rotated })),
      status: 400,
      error: 'invalid_grant',
      trail: 'team',
      entry: /revoked connected agent .*rotated refresh token was used again/,
      nothing: async (t) => {
        const after = await token({ grant_type: 'refresh_token', refresh_token: refreshed })
        t.match(await answerOf(after), { status: 400, error: 'invalid_grant' }, 'its newer refresh token is gone too')
      },
    },
    {
      name: 'a token for another resource',
      prepare: async () => {
        // A server at another URL on the same Redis: its resource is its own /mcp.
        there = (await startNode(t, 'standalone', { keyPrefix: n.node.settings.keyPrefix })).base
        accessToken = ((await (await redeem(await codeOf())).json()) as { access_token: string }).access_token
        t.not((await mcp(accessToken)).status, 401, 'the token works at its own server')
      },
      run: async () => {
        const r = await mcp(accessToken, there.replace('127.0.0.1', 'localhost'))
        const challenge = r.headers.get('www-authenticate') ?? ''
        return { status: r.status, error: /error="([a-z_]+)"/.exec(challenge)?.[1] }
      },
      status: 401,
      error: 'invalid_token',
      trail: 'team',
      entry:
        /refused access token \S+: a token issued for http:\/\/localhost:\d+\/mcp, not http:\/\/localhost:\d+\/mcp/,
    },
    {
      name: 'a room of another team',
      run: async () => {
        const { consent } = await open()
        const r = await b.post(consent!, { ...form, room: theirRoom })
        return { status: r.status, error: undefined }
      },
      status: 404,
      error: undefined,
      trail: 'team',
      entry: new RegExp(`refused agent connection .*${theirRoom}`),
    },
    {
      name: 'a consent POST from another origin',
      run: async () => {
        const { consent } = await open()
        const r = await b.post(consent!, form, { site: 'cross-site', origin: 'https://evil.example' })
        return { status: r.status, error: undefined }
      },
      status: 403,
      error: undefined,
      trail: 'team',
      entry: /refused agent connection .*another origin/,
    },
  ]

  const trail = (which: Row['trail']): Promise<AuditEntry[]> =>
    which === 'server' ? n.node.audit.readServer(200) : n.node.audit.read(teamId, 200)
  const text = (e: AuditEntry) => `${e.actor} ${e.action} ${e.target ?? ''}`
  for (const row of rows)
    await t.test(row.name, async (t) => {
      await row.prepare?.()
      const seen = new Set((await trail(row.trail)).map((e) => e.id))
      const before = await live()
      const answer = await row.run()
      t.equal(answer.status, row.status, `answered ${row.status}`)
      t.equal(answer.error, row.error, `with ${row.error ?? 'no RFC error (a dashboard page)'}`)
      t.notOk(answer.granted, 'no code or token handed out')
      t.ok((await live()) <= before, 'no connected agent added')
      await row.nothing?.(t)
      const recorded = await eventually(async () =>
        (await trail(row.trail)).some((e) => !seen.has(e.id) && row.entry.test(text(e))),
      )
      t.ok(recorded, `recorded in the ${row.trail === 'server' ? "authorization server's" : "team's"} trail`)
      if (!recorded) t.comment((await trail(row.trail)).slice(0, 5).map(text).join('\n'))
    })

  t.test("the operator reads the authorization server's trail on the operator page", async (t) => {
    const page = await b.get('/operator')
    t.equal(page.status, 200)
    t.match(page.body, /Refused agent sign-ins/)
    t.match(page.body, new RegExp(`agent client ${clientId}`))
    t.match(page.body, /refused authorization request invalid_target/)
  })
})

t.test('client registrations are limited per client address, as the trusted proxy names it', async (t) => {
  const n = await startNode(t, 'standalone', { keyPrefix: uid('reg'), trustedProxyHops: 1, oauthRegistrationsPerIp: 2 })
  const base = n.base.replace('127.0.0.1', 'localhost')
  const register = (forwarded: string, redirect = REDIRECT, path = '/oauth/register') =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': forwarded },
      body: JSON.stringify({ client_name: 'Limited', redirect_uris: [redirect] }),
    })
  const clients = async () => {
    const raw = new Redis(n.node.settings.redisUrl!)
    t.teardown(() => raw.disconnect())
    return (await raw.keys(`${n.node.settings.keyPrefix}:oauth:Client:*`)).length
  }
  for (let i = 0; i < 2; i++) t.equal((await register('198.51.100.7')).status, 201, `registration ${i + 1} of 2`)
  const refused = await register('203.0.113.9, 198.51.100.7')
  t.equal(refused.status, 429, 'the third from the same client is refused, whatever it writes in the header')
  t.ok(Number(refused.headers.get('retry-after')) >= 1, 'with Retry-After')
  const body = (await refused.json()) as { error: string; error_description: string }
  t.equal(body.error, 'temporarily_unavailable')
  t.match(body.error_description, 'Too many OAuth client registrations from your network address (the limit is 2')
  t.equal(await clients(), 2, 'and stores no client')
  for (const path of ['/oauth/register/', '//oauth/register']) {
    const spelled = await register('198.51.100.7', REDIRECT, path)
    t.equal(spelled.status, 429, `${path}, the same route, is refused too`)
  }
  t.equal(await clients(), 2, 'still no client stored')
  const slashBad = await register('198.51.100.10', 'http://evil.example/cb', '/oauth/register/')
  t.equal(slashBad.status, 400, 'a registration by another spelling gets the redirect check too')
  t.equal((await register('198.51.100.8')).status, 201, 'another client behind the same proxy registers')

  const bad = await register('198.51.100.9', 'http://evil.example/cb')
  t.equal(bad.status, 400, 'a refused registration')
  const recorded = await eventually(async () =>
    (await n.node.audit.readServer(50)).some((e) => e.actor === 'address:198.51.100.9'),
  )
  t.ok(recorded, "is recorded under the client's address, not the proxy's")
})
