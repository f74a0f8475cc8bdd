// The default team at first start, and the operator's team command.
// - Three nodes starting together on an empty Redis each call bootstrap(): exactly one creates the
//   default team and gets its key; the key works on every node.
// - Two service processes (src/main.ts) starting together on an empty Redis: exactly one prints
//   the key; both drain and exit 0 on SIGTERM within 10 s.
// - runTeamsCli: create prints a key that works against GET /admin/me; list shows the team;
//   creating it again says it exists and mints nothing.
import t from 'tap'
import { spawn } from 'node:child_process'
import { defaultSettings } from '../../src/config.js'
import { createLogger } from '../../src/shared/logger.js'
import { ServiceNode } from '../../src/node.js'
import { runTeamsCli } from '../../src/ops/teams-cli.js'
import { startNode } from '../helpers/node.js'
import { freePort, startRedis } from '../helpers/redis.js'
import { BACKENDS, settingsFor, uid } from '../helpers/shared.js'
import { eventually } from '../helpers/wait.js'

const DEFAULT_KEY = /ar_team_default\.[A-Za-z0-9_-]{32}/
const keysIn = (text: string) => [...new Set(text.match(new RegExp(DEFAULT_KEY, 'g')) ?? [])]

t.test('three nodes bootstrap one default team on an empty Redis', async (t) => {
  const redis = await startRedis()
  t.teardown(() => redis.stop())
  const settings = defaultSettings({ redisUrl: `redis://127.0.0.1:${redis.port}`, port: 0, host: '127.0.0.1' })
  const nodes = [0, 1, 2].map(
    () => new ServiceNode(settings, { log: createLogger('silent'), defaultMetrics: false, hubProbeMs: 200 }),
  )
  t.teardown(() => Promise.all(nodes.map((n) => n.stop(1000))))
  await Promise.all(nodes.map((n) => n.start()))
  const boots = await Promise.all(nodes.map((n) => n.teams.bootstrap()))
  const created = boots.filter((b) => b.created)
  t.equal(created.length, 1, 'exactly one node created the default team')
  t.ok(
    boots.every((b) => b.team.teamId === 'default'),
    'every node sees the default team',
  )
  t.ok(
    boots.filter((b) => !b.created).every((b) => b.key === undefined),
    'the others got no key',
  )
  const key = created[0]!.key!
  t.match(key, /^ar_team_default\.[A-Za-z0-9_-]{32}$/)
  for (const [i, n] of nodes.entries()) {
    const res = await fetch(`http://127.0.0.1:${n.port}/admin/me`, { headers: { Authorization: `Bearer ${key}` } })
    t.match(await res.json(), { teamId: 'default', teamName: 'Default team' }, `the key works on node ${i + 1}`)
  }
  const again = await nodes[0]!.teams.bootstrap()
  t.equal(again.created, false, 'a later start creates nothing')
})

interface Proc {
  port: number
  out: () => string
  exit: Promise<{ code: number | null; signal: string | null }>
  kill(signal: NodeJS.Signals): void
}

/**
 * Runs the service's sources in one Node process, as `npm run dev` does, with tsx as a loader. Not
 * through a wrapper (the tsx binary, npx, npm): a wrapper relays SIGTERM and reports its own exit
 * status, and tsx's kills the service if it has not acknowledged the signal within 60 ms, which a
 * busy machine can miss.
 */
async function service(redisPort: number, env: Record<string, string> = {}): Promise<Proc> {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      REDIS_CLUSTER_NODES: '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (out += d.toString()))
  const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  )
  return { port, out: () => out, exit, kill: (s) => child.kill(s) }
}

function healthy(port: number, ms = 60_000): Promise<boolean> {
  return eventually(
    () =>
      fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.ok,
        () => false,
      ),
    ms,
  ) // false: not listening yet (a node run from the sources bundles its assets first)
}

t.test('two service processes on an empty Redis: the key is printed once', async (t) => {
  const redis = await startRedis()
  t.teardown(() => redis.stop())
  const procs = await Promise.all([service(redis.port), service(redis.port)])
  t.teardown(() => procs.forEach((p) => p.kill('SIGKILL')))
  t.same(await Promise.all(procs.map((p) => healthy(p.port))), [true, true], 'both serve /health')
  // Each process either prints the key or logs that the team exists: wait until both have said
  // which, so a second key, if one were printed, is in the output checked below.
  const decided = (p: Proc) => DEFAULT_KEY.test(p.out()) || p.out().includes('the default team exists already')
  t.ok(await eventually(() => procs.every(decided), 10_000), 'both processes finished their bootstrap')
  const printed = procs.map((p) => keysIn(p.out()))
  t.equal(printed.filter((keys) => keys.length > 0).length, 1, 'exactly one process printed a key')
  const key = printed.flat()[0]!
  t.equal(printed.flat().length, 1, 'and only one key')
  t.match(
    procs.find((p) => DEFAULT_KEY.test(p.out()))!.out(),
    /claude mcp add --transport http agentrooms http:\/\/localhost:\d+\/mcp/,
    'with the MCP client setup',
  )
  for (const [i, p] of procs.entries()) {
    const res = await fetch(`http://127.0.0.1:${p.port}/admin/me`, { headers: { Authorization: `Bearer ${key}` } })
    t.equal(res.status, 200, `the printed key works on process ${i + 1}`)
  }
  const stopping = Date.now()
  procs.forEach((p) => p.kill('SIGTERM'))
  const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 10_000))
  const exits = await Promise.all(procs.map((p) => Promise.race([p.exit, timeout])))
  t.same(
    exits,
    [
      { code: 0, signal: null },
      { code: 0, signal: null },
    ],
    `both exited 0 on SIGTERM (in ${Date.now() - stopping} ms)`,
  )
})

t.test('a production node (PUBLIC_URL set) prints no key and no link at first start', async (t) => {
  const redis = await startRedis()
  t.teardown(() => redis.stop())
  // A PUBLIC_URL on localhost: mails go to the log, so no SMTP server is needed for the check.
  const p = await service(redis.port, { PUBLIC_URL: 'http://localhost:8080' })
  t.teardown(() => p.kill('SIGKILL'))
  t.ok(await healthy(p.port), 'it serves')
  t.ok(await eventually(() => p.out().includes('created the default team'), 10_000), 'it says it made the team')
  t.match(p.out(), /npm run team -- mint-key default/, 'and how the operator gets a key')
  t.match(p.out(), /npm run team -- owner-link/, 'and a sign-in link')
  t.same(keysIn(p.out()), [], 'no key in its output')
  t.notMatch(p.out(), /token=/, 'no sign-in link either')
  p.kill('SIGTERM')
  await p.exit
})

for (const backend of BACKENDS) {
  t.test(`${backend}: the operator's team command`, async (t) => {
    // runTeamsCli reads its settings from the environment, as the command does.
    const saved = { REDIS_URL: process.env.REDIS_URL, REDIS_CLUSTER_NODES: process.env.REDIS_CLUSTER_NODES }
    const s = settingsFor(backend)
    if (s.redisClusterNodes) process.env.REDIS_CLUSTER_NODES = s.redisClusterNodes
    else process.env.REDIS_URL = s.redisUrl
    t.teardown(() => {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k]
        else process.env[k] = v
      }
    })
    const cli = async (...argv: string[]) => {
      let out = ''
      const code = await runTeamsCli(argv, (s) => (out += s))
      return { code, out }
    }
    const n = await startNode(t, backend)
    const id = uid('payments-')

    const created = await cli('create', 'Payments', '--id', id)
    t.equal(created.code, 0, 'create exits 0')
    const key = /key \(shown once\): (\S+)/.exec(created.out)?.[1]
    t.match(key, new RegExp(`^ar_team_${id}\\.`), "create prints the team's first key")
    const me = await n.call('/admin/me', { key })
    t.equal(me.status, 200)
    t.match(await me.json(), { teamId: id, teamName: 'Payments' }, 'the printed key works against GET /admin/me')

    const list = await cli('list')
    t.equal(list.code, 0)
    t.match(list.out, new RegExp(`^${id}\\tPayments\\t\\d{4}-`, 'm'), 'list shows the team')

    const again = await cli('create', 'Payments', '--id', id)
    t.equal(again.code, 1, 'creating it again fails')
    t.match(again.out, /already exists; no key was minted/)
    t.notMatch(again.out, /ar_team_/, 'and prints no key')
    t.equal((await n.call('/admin/me', { key })).status, 200, 'the first key still works')

    const minted = await cli('mint-key', id, '--label', 'ci')
    t.equal(minted.code, 0)
    const extra = /key \(shown once\): (\S+)/.exec(minted.out)?.[1]
    t.equal((await n.call('/admin/me', { key: extra })).status, 200, 'mint-key prints a key that works')
    const keys = (await (await n.call('/admin/keys', { key })).json()) as { keys: { label?: string }[] }
    t.same(keys.keys.map((k) => k.label).sort(), ['ci', 'first key'])

    t.equal((await cli('mint-key', uid('ghost-'))).code, 1, 'mint-key for a team that does not exist fails')
    t.equal((await cli('frobnicate')).code, 2, 'an unknown command prints the usage')
  })
}
