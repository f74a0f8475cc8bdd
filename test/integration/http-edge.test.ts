// The HTTP edge on a real node (src/http/edge.ts): one chain in the documented order; a mount
// of its own with a credential kind of its own asked before the keys; a step added by name;
// the /.well-known/ mount point reserved; two mounts never serving one route; and the chain's
// answers (origin, missing credential, refused principal, rate limit) each from its step.
import t from 'tap'
import type { Principal } from '../../src/auth/principal.js'
import { keyCredential, keyPolicy } from '../../src/http/credentials.js'
import type { Credential } from '../../src/http/router.js'
import { AppError } from '../../src/shared/errors.js'
import { newTeam, startNode } from '../helpers/node.js'

t.test('the edge', async (t) => {
  const n = await startNode(t, 'standalone')
  const team = await newTeam(n)
  const edge = n.node.edge

  t.same(
    edge.chain,
    ['gate', 'log', 'limits', 'origin', 'authenticate', 'rateLimit', 'route'],
    'the chain runs its steps in the documented order',
  )

  // A credential kind of its own, asked before the keys: `Authorization: Bearer probe-<team>`.
  const probe: Credential<Principal> = {
    kind: 'probe',
    read: (req) => (req.headers.authorization?.startsWith('Bearer probe-') ? req.headers.authorization : undefined),
    verify: (header) => {
      const teamId = header.slice('Bearer probe-'.length)
      if (teamId === 'nobody') return undefined
      if (teamId === 'refused') throw new AppError('unauthorized', 'probe token refused')
      return { kind: 'team', teamId, keyId: 'probe', scope: 'admin', access: 'write' }
    },
  }
  const seen: string[] = []
  edge.use(
    'probe-step',
    (flow) => {
      if (flow.route?.path.startsWith('/probe')) seen.push(`${flow.ex.req.method} ${flow.id}`)
    },
    { after: 'log' },
  )
  t.same(edge.chain.slice(0, 3), ['gate', 'log', 'probe-step'], 'use() places a step by name')
  t.throws(() => edge.use('x', () => undefined, { before: 'nope' }), /no step 'nope'/, 'an unknown anchor throws')

  const policy = keyPolicy({ keyring: n.node.keyring, rateLimiter: n.node.rateLimiter, metrics: n.node.metrics })
  edge.mount({
    ...policy,
    name: 'probe',
    credentials: [probe, keyCredential(n.node.keyring)],
    origin: (req) =>
      req.headers.origin === 'https://evil.example' ? new AppError('forbidden', 'bad origin') : undefined,
    routes: [
      {
        method: 'POST',
        path: '/probe/:name',
        auth: 'team',
        summary: 'echo',
        handle: async (ctx) => ({ name: ctx.params.name, principal: ctx.principal, body: ctx.body }),
      },
    ],
  })

  t.test('a mount with its own credential kind beside the keys', async (t) => {
    const echo = (auth: string | undefined, init: RequestInit = {}) =>
      fetch(`${n.base}/probe/a%20b`, {
        method: 'POST',
        ...init,
        headers: { ...(auth ? { Authorization: auth } : {}), 'X-Request-Id': 'req-42', ...init.headers },
        body: '{"x":1}',
      })
    let res = await echo(`Bearer probe-${team.teamId}`)
    t.equal(res.status, 200, 'the probe kind names a principal')
    t.same(await res.json(), {
      name: 'a b',
      principal: { kind: 'team', teamId: team.teamId, keyId: 'probe', scope: 'admin', access: 'write' },
      body: { x: 1 },
    })
    t.ok(res.headers.get('ratelimit-limit'), 'and it is charged to the team rate limit')
    t.same(seen.at(-1), 'POST req-42', "the added step ran, with the proxy's request id")

    res = await echo(`Bearer ${team.key}`)
    t.equal(res.status, 200, 'a key still works on the same mount')
    t.match(await res.json(), { principal: { kind: 'team', teamId: team.teamId } })

    res = await echo('Bearer probe-nobody')
    t.equal(res.status, 401, 'a credential that names no one is answered like a missing one')
    t.match(await res.json(), { error: { code: 'unauthorized', message: /missing Authorization header/ } })
    t.equal(res.headers.get('www-authenticate'), 'Bearer realm="agentrooms"')

    res = await echo('Bearer probe-refused')
    t.match(await res.json(), { error: { code: 'unauthorized', message: 'probe token refused' } }, 'its own refusal')

    res = await echo(undefined)
    t.equal(res.status, 401, 'no credential: the mount answers missing')

    res = await echo(`Bearer probe-${team.teamId}`, { headers: { Origin: 'https://evil.example' } })
    t.equal(res.status, 403, 'the Origin step refuses before authentication')
    t.match(await res.json(), { error: { code: 'forbidden', message: 'bad origin' } })
  })

  t.test('one route table', async (t) => {
    t.throws(
      () =>
        edge.mount({
          name: 'probe2',
          routes: [{ method: 'POST', path: '/probe/:name', auth: 'none', summary: '', handle: async () => ({}) }],
        }),
      /served by mount 'probe' already/,
      'two mounts never serve one route',
    )
    t.throws(
      () =>
        edge.mount({
          name: 'api2',
          routes: [{ method: 'GET', path: '/.well-known/x', auth: 'none', summary: '', handle: async () => ({}) }],
        }),
      /belong to the 'well-known' mount/,
      '/.well-known/ is reserved for its mount',
    )
    t.throws(
      () =>
        edge.mount({
          name: 'well-known',
          routes: [{ method: 'GET', path: '/elsewhere', auth: 'none', summary: '', handle: async () => ({}) }],
        }),
      /belong to the 'well-known' mount, and only they/,
      'and that mount serves nothing else',
    )
    edge.mount({
      name: 'well-known',
      routes: [
        { method: 'GET', path: '/.well-known/probe', auth: 'none', summary: '', handle: async () => ({ ok: true }) },
      ],
    })
    const res = await fetch(`${n.base}/.well-known/probe`)
    t.same([res.status, await res.json()], [200, { ok: true }], 'a well-known route is served')
    t.notOk(
      n.node.router.list().some((r) => r.path.startsWith('/probe')),
      'routes of an undocumented mount are not in the documented API',
    )
  })

  t.test('pages and the API share the table: a wrong method is 405 with both mounts’ methods', async (t) => {
    // POST /room/agents is a page; GET /room/:roomId is the API's.
    const res = await n.call('/room/agents', { method: 'DELETE', key: team.key })
    t.equal(res.status, 405)
    t.same(res.headers.get('allow')?.split(', ').sort(), ['GET', 'POST'])
    t.match(await res.json(), { error: { code: 'method_not_allowed' } }, 'answered in JSON')
    const page = await fetch(`${n.base}/signin`)
    t.equal(page.status, 200, 'a page')
    t.match(page.headers.get('content-type'), /text\/html/)
  })
})
