// The README's quick start, run as a newcomer runs it, and what `npm start` and the operator's
// team command do around it.
//
// Covered:
// - the README's quick start is `npm start` then `npm test`;
// - `npm start` in a fresh copy of the repository with no Redis configured: it compiles, starts
//   its own redis-server with an append-only file under ./data, prints the default team key and
//   MCP configuration that work, and a create-room command that works from another folder; its
//   sign-in link opens the dashboard, which shows that room with the agent that called in it;
//   SIGTERM stops the node and its Redis; a second start finds the data again; Ctrl-C stops it;
//   a SIGTERM during startup (right after the embedded Redis started) still stops that Redis;
// - without redis-server on the PATH, the error says what to install;
// - scripts/start.mjs's install step: `npm ci` when package-lock.json is newer than the installed
//   tree, none when it is not, and a clear error when TypeScript is missing (--omit=dev);
// - src/ops/local-redis.ts in process: a Redis answering at LOCAL_REDIS is used as is; one that
//   needs a password is named; an IPv6 LOCAL_REDIS in brackets is accepted and served;
// - `npm run team` finds Redis as the service does (LOCAL_REDIS), without starting one.
//
// Not covered, and why:
// - Redis on 6379: this machine's own Redis holds it, so the tests point LOCAL_REDIS at a free
//   port instead; the code path is the same, only the default address differs;
// - a real `npm ci`: node_modules is linked into the copy (installing takes minutes and the
//   network), and a stand-in `npm` on the PATH records the call instead;
// - a Redis older than 7 answering there: none can be installed here (test/integration/
//   redis-check.test.ts checks the refusal on INFO replies).
import t from 'tap'
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { defaultSettings, loadSettings } from '../../src/config.js'
import { localAddress, localRedis, probeRedis } from '../../src/ops/local-redis.js'
import { runTeamsCli } from '../../src/ops/teams-cli.js'
import { Browser } from '../helpers/mail.js'
import { callTool } from '../helpers/mcp.js'
import { eventually } from '../helpers/realtime.js'
import { freePort, spawnRedis } from '../helpers/redis.js'
import { sharedRedis, uid } from '../helpers/shared.js'

// This file builds the service and starts and stops it several times: on a loaded 2-core machine
// that takes longer than the suite's 180 s per file.
t.setTimeout(420_000)

const README = readFileSync('README.md', 'utf8')

/** The commands of the README's quick start block: [start, test]. */
function quickStart(): string[] {
  const block = /^## Quick start[\s\S]*?^```sh\n([\s\S]*?)^```/m.exec(README)?.[1] ?? ''
  return block
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter(Boolean)
}

/** A copy of the repository as a clone has it (tracked and new files, nothing ignored), with node_modules linked. */
function freshCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ar-start-'))
  const list = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean)
  for (const f of new Set(list)) {
    if (!existsSync(f)) continue
    mkdirSync(dirname(join(dir, f)), { recursive: true })
    copyFileSync(f, join(dir, f))
  }
  // The lock keeps its time: a copy newer than the linked node_modules would make the launcher
  // run `npm ci`, which would empty this checkout's node_modules through the link.
  const lock = statSync('package-lock.json')
  utimesSync(join(dir, 'package-lock.json'), lock.atime, lock.mtime)
  symlinkSync(resolve('node_modules'), join(dir, 'node_modules'))
  return dir
}

/** A Node installed on the machine that is not Node 22 (this machine's own is Node 20), if any. */
function otherNode(): { path: string; version: string } | undefined {
  for (const path of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(path)) continue
    const version = execFileSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()
    if (!version.startsWith('22.')) return { path, version }
  }
  return undefined
}

/** Whether node_modules was installed after the last change of package-lock.json (npm start would not reinstall). */
const installedAfterLock = () =>
  statSync('node_modules/.package-lock.json').mtimeMs >= statSync('package-lock.json').mtimeMs

interface Started {
  child: ChildProcess
  /** stdout and stderr as they came. */
  out: () => string
  stdout: () => string
  exited: Promise<void>
}

/** Runs `command` through sh in its own process group (like a terminal does), in `cwd`. */
function startShell(command: string, cwd: string, env: Record<string, string>): Started {
  const child = spawn('/bin/sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let stdout = ''
  child.stdout!.on('data', (d: Buffer) => ((out += d.toString('utf8')), (stdout += d.toString('utf8'))))
  child.stderr!.on('data', (d: Buffer) => (out += d.toString('utf8')))
  const exited = new Promise<void>((r) => child.once('close', () => r()))
  return { child, out: () => out, stdout: () => stdout, exited }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** The pids of `program` processes (by argv[0]) with `needle` in their command line, running in `cwd`. */
function pidsIn(cwd: string, program: 'node' | 'redis-server', needle = ''): number[] {
  const out: number[] = []
  for (const p of readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)) {
    try {
      const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0')
      const where = readlinkSync(`/proc/${p}/cwd`) // redis-server moves into its --dir, ./data
      if (
        basename(argv[0]!.split(' ')[0]!) === program &&
        argv.join(' ').includes(needle) &&
        (where === cwd || where.startsWith(`${cwd}/`))
      )
        out.push(p)
    } catch {
      // gone, or not ours to read
    }
  }
  return out
}

/** An SDK 1.x client connected with exactly a printed MCP configuration. */
async function mcpClient(config: { url: string; headers: Record<string, string> }): Promise<Client> {
  const client = new Client({ name: 'quick-start-test', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } }),
  )
  return client
}

t.test('the README quick start is two commands: start the service, run the tests', async (t) => {
  t.same(quickStart(), ['npm start', 'npm test'])
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }
  t.equal(pkg.scripts.start, 'node scripts/start.mjs', 'npm start runs the launcher')
  t.equal(pkg.scripts.test, 'tap', 'npm test runs every test (CI runs the same command)')
  t.equal(
    pkg.scripts.pretest,
    'node scripts/deps.mjs',
    'after installing the dependencies when they are missing, as npm start does',
  )
})

t.test(
  'npm start in a fresh copy with no Redis: embedded redis-server, key, working MCP, clean stop, data kept',
  async (t) => {
    const [startCommand] = quickStart()
    // Otherwise the launcher would `npm ci` through the link: run `npm install` in this checkout first.
    if (!t.ok(installedAfterLock(), 'node_modules is installed from the current package-lock.json')) return
    const dir = freshCopy()
    const port = await freePort()
    const redisPort = await freePort()
    t.equal(await probeRedis('127.0.0.1', redisPort), 'none', `nothing answers at 127.0.0.1:${redisPort}`)
    // Only what a shell has; no REDIS_URL, no REDIS_CLUSTER_NODES.
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOCAL_REDIS: `127.0.0.1:${redisPort}`,
    }
    const base = `http://127.0.0.1:${port}`

    const first = startShell(startCommand!, dir, env)
    t.teardown(() => {
      // Whatever a failed run left behind, then the copy.
      for (const pid of [...pidsIn(dir, 'redis-server'), ...pidsIn(dir, 'node', 'start.mjs')])
        process.kill(pid, 'SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    })
    t.ok(
      await eventually(() => /ar_team_\S+/.test(first.out()) || first.child.exitCode !== null, 150_000),
      'the service printed the default team key',
    )
    const out = first.out()
    t.match(out, /agentrooms: compiling \(tsc\)/, 'it compiled the fresh copy')
    t.match(
      out,
      new RegExp(
        `no Redis answered at 127\\.0\\.0\\.1:${redisPort}; started redis-server [0-9.]+ there \\(pid ` +
          `(\\d+), data and append-only file in ${dir}/data\\)`,
      ),
    )
    const redisPid = Number(/started redis-server [0-9.]+ there \(pid (\d+)/.exec(out)?.[1])
    t.match(readFileSync(`/proc/${redisPid}/cmdline`, 'utf8'), /^redis-server/, 'the embedded redis-server runs')
    t.equal(await probeRedis('127.0.0.1', redisPort), 'pong', 'and answers at LOCAL_REDIS')
    t.ok(existsSync(join(dir, 'data', 'appendonlydir')), 'its append-only file is under ./data')
    const [nodePid] = pidsIn(dir, 'node', 'scripts/start.mjs')
    t.ok(nodePid, 'the service runs as the launcher process itself')
    t.match(out, /"msg":"listening"/)
    t.match(
      /\{[^\n]*"msg":"listening"[^\n]*\}/.exec(out)?.[0],
      /"node":"22\./,
      'on Node 22, which its start-up line reports',
    )

    const health = await fetch(`${base}/health`)
    t.equal(health.status, 200, '/health')
    const key = /ar_team_[^\s"]+/.exec(out)![0]
    const printed = JSON.parse(/^\{\n {2}"mcpServers"[\s\S]*?^\}$/m.exec(out)![0]) as {
      mcpServers: { agentrooms: { url: string; headers: Record<string, string> } }
    }
    t.same(
      printed.mcpServers.agentrooms.headers,
      { Authorization: `Bearer ${key}` },
      'the printed MCP configuration carries the printed key',
    )

    // The printed next step: the CLI, run as printed, from another folder (the package is private,
    // so the command names the clone's launcher by its absolute path rather than `npx agentrooms`).
    const cliLine = /^\s*(AGENTROOMS_URL=\S+ AGENTROOMS_KEY=\S+ (.+) create-room .+)$/m.exec(out)
    t.equal(
      cliLine?.[2],
      `node ${dir}/bin/agentrooms.mjs`,
      "it prints a create-room command with the launcher's absolute path",
    )
    const elsewhere = mkdtempSync(join(tmpdir(), 'ar-elsewhere-'))
    t.teardown(() => rmSync(elsewhere, { recursive: true, force: true }))
    const cliRun = startShell(`${cliLine![1]} --json`, elsewhere, { PATH: env.PATH, HOME: env.HOME })
    await cliRun.exited
    t.equal(cliRun.child.exitCode, 0, 'the printed create-room command works outside the clone')
    if (cliRun.child.exitCode !== 0) t.comment(cliRun.out())
    const room = JSON.parse(cliRun.stdout().slice(cliRun.stdout().indexOf('{'))) as {
      room: { roomId: string }
      agents: { agent_id: string; snippets: { generic: string } }[]
    }
    t.equal(room.room.roomId, 'my-project')

    const client = await mcpClient(printed.mcpServers.agentrooms)
    const rooms = await callTool(client, 'list_rooms')
    t.notOk(rooms.isError, 'an MCP tool call with the printed configuration works')
    t.match(JSON.stringify(rooms.body), /my-project/, 'and sees the room the CLI made')
    const agent = room.agents[0]!
    const agentClient = await mcpClient(JSON.parse(agent.snippets.generic).mcpServers.agentrooms)
    t.notOk(
      (await callTool(agentClient, 'heartbeat', { room_id: 'my-project', agent_id: agent.agent_id })).isError,
      "heartbeat with an agent's printed configuration",
    )
    await Promise.all([client.close(), agentClient.close()])

    // The quick start ends with the printed sign-in link opening a signed-in page.
    const signInLink = /^\s*(http:\/\/localhost:\d+\/signin\/link\?token=\S+)$/m.exec(out)?.[1]
    t.ok(signInLink, "it prints a one-time sign-in link for the default team's owner")
    const browser = new Browser(base)
    t.equal((await browser.follow(signInLink!)).status, 303, 'the link signs the owner in')
    const signedIn = await browser.get('/')
    t.match(signedIn.body, /<h1>Rooms of [^<]+<\/h1>/, 'and opens the signed-in dashboard, on its rooms page')
    t.match(signedIn.body, '<span class="muted">owner@localhost</span>', "as the default team's owner")
    const listed = /<tr><td data-label="Room"><a href="\/room\?id=my-project">[\s\S]*?<\/tr>/.exec(signedIn.body)?.[0]
    t.match(
      listed,
      `<td data-label="Online agents">${agent.agent_id}</td>`,
      'listing the room the printed command made, with the agent at work in it online',
    )
    const roomPage = await browser.get('/room?id=my-project')
    t.match(
      roomPage.body,
      `<strong>${agent.agent_id}</strong> <span class="small">online, last seen`,
      'and its room page shows the agent',
    )
    t.equal((await new Browser(base).follow(signInLink!)).status, 400, 'the link works once')
    // The compiled node serves the stylesheet the build wrote to dist/assets, by its manifest.
    const manifest = JSON.parse(readFileSync(join(dir, 'dist', 'assets', 'manifest.json'), 'utf8')) as {
      assets: { path: string; file: string }[]
    }
    const css = manifest.assets.find((a) => a.path.endsWith('.css'))!
    t.match(signedIn.body, `<link rel="stylesheet" href="${css.path}"/>`, 'the page links the built stylesheet')
    const served = await fetch(base + css.path)
    t.equal(
      await served.text(),
      readFileSync(join(dir, 'dist', 'assets', css.file), 'utf8'),
      'and the node serves the file the build wrote',
    )

    // SIGTERM to the whole process group, as a terminal's or systemd's stop does.
    process.kill(-first.child.pid!, 'SIGTERM')
    t.ok(await eventually(() => !alive(nodePid!), 15_000), 'the service exits')
    t.ok(await eventually(() => !alive(redisPid), 15_000), 'the embedded redis-server is gone')
    t.equal(await probeRedis('127.0.0.1', redisPort), 'none', 'nothing answers at LOCAL_REDIS any more')
    t.match(first.out(), /"clean":true,"msg":"stopped"/, 'the node drained cleanly')

    // A second start in the same folder: no build, the same data, no second key.
    const second = startShell(startCommand!, dir, env)
    t.ok(
      await eventually(() => /"msg":"listening"/.test(second.out()) || second.child.exitCode !== null, 60_000),
      'it starts again',
    )
    t.notMatch(second.out(), /compiling/, 'without compiling again')
    t.notMatch(second.out(), /created the default team/, 'the team exists: no key is printed twice')
    const res = await fetch(`${base}/admin/rooms`, { headers: { Authorization: `Bearer ${key}` } })
    t.match(await res.json(), { rooms: [{ roomId: 'my-project' }] }, 'the room survived the restart (append-only file)')
    const secondRedis = Number(/started redis-server [0-9.]+ there \(pid (\d+)/.exec(second.out())?.[1])
    // Ctrl-C this time: SIGINT to the group.
    process.kill(-second.child.pid!, 'SIGINT')
    await second.exited
    t.ok(
      await eventually(() => pidsIn(dir, 'node', 'start.mjs').length === 0 && !alive(secondRedis), 15_000),
      'Ctrl-C stops the service and its Redis',
    )

    // SIGTERM while the node is still starting, after its Redis is up: the handlers are in place
    // before anything starts, so the embedded redis-server stops too (not left orphaned). A
    // Meilisearch that accepts connections and never answers holds the node in its startup.
    const silent = new Set<Socket>()
    const meili = createServer((sock) => void silent.add(sock))
    await new Promise<void>((r) => meili.listen(0, '127.0.0.1', r))
    t.teardown(() => {
      for (const sock of silent) sock.destroy()
      meili.close()
    })
    const meiliUrl = `http://127.0.0.1:${(meili.address() as AddressInfo).port}`
    const third = startShell(startCommand!, dir, { ...env, MEILI_URL: meiliUrl })
    t.ok(
      await eventually(
        () => (/started redis-server/.test(third.out()) && silent.size > 0) || third.child.exitCode !== null,
        60_000,
      ),
      'a third start gets as far as its Redis, then waits for Meilisearch',
    )
    t.notMatch(third.out(), /"msg":"listening"/, 'the node is still starting')
    const thirdRedis = Number(/started redis-server [0-9.]+ there \(pid (\d+)/.exec(third.out())?.[1])
    process.kill(-third.child.pid!, 'SIGTERM')
    await third.exited
    t.ok(
      await eventually(() => pidsIn(dir, 'node', 'start.mjs').length === 0 && !alive(thirdRedis), 15_000),
      'a SIGTERM during startup stops the service and its Redis',
    )
    t.equal(await probeRedis('127.0.0.1', redisPort), 'none', 'nothing answers at LOCAL_REDIS')

    // A machine whose Node is another major (this one's own, Node 20): the launcher runs itself
    // again on the pinned Node 22 of node_modules, which gets the signals.
    const other = otherNode()
    if (other) {
      const oldBin = mkdtempSync(join(tmpdir(), 'ar-old-node-'))
      t.teardown(() => rmSync(oldBin, { recursive: true, force: true }))
      symlinkSync(other.path, join(oldBin, 'node'))
      const path = [oldBin, ...(process.env.PATH ?? '').split(':').filter((p) => !p.includes('node_modules'))].join(':')
      const shared = sharedRedis()
      const old = startShell('node scripts/start.mjs', dir, {
        ...env,
        PATH: path,
        REDIS_URL: `redis://127.0.0.1:${shared.standalone.port}`,
      })
      t.ok(
        await eventually(() => /"msg":"listening"/.test(old.out()) || old.child.exitCode !== null, 60_000),
        `it starts from Node ${other.version}`,
      )
      t.match(
        old.out(),
        new RegExp(
          `this is Node ${other.version.replaceAll('.', '\\.')}; running on the pinned Node 22\\.\\d+\\.\\d+ ` +
            `\\(node_modules/\\.bin/node\\)`,
        ),
      )
      t.match(
        /\{[^\n]*"msg":"listening"[^\n]*\}/.exec(old.out())?.[0],
        /"node":"22\./,
        'and the service runs on Node 22',
      )
      t.equal((await fetch(`${base}/health`)).status, 200)
      const [wrapper] = pidsIn(dir, 'node', 'scripts/start.mjs').filter(
        (pid) => readlinkSync(`/proc/${pid}/exe`) === realpathSync(other.path),
      )
      t.ok(wrapper, 'the launcher on the old Node waits for it')
      process.kill(wrapper!, 'SIGTERM')
      t.ok(
        await eventually(() => pidsIn(dir, 'node', 'start.mjs').length === 0, 15_000),
        'a SIGTERM to the launcher reaches the service, and both exit',
      )
      t.match(old.out(), /"clean":true,"msg":"stopped"/, 'the service drained cleanly')
    } else {
      t.comment(
        'this machine has no Node other than 22 on /usr/bin or /usr/local/bin: the launcher on another Node ' +
          'is not run here',
      )
    }

    // No redis-server on the PATH: the error says what to install.
    const bin = mkdtempSync(join(tmpdir(), 'ar-path-'))
    t.teardown(() => rmSync(bin, { recursive: true, force: true }))
    symlinkSync(process.execPath, join(bin, 'node'))
    const bare = startShell('node scripts/start.mjs', dir, { ...env, PATH: bin })
    await bare.exited
    t.equal(bare.child.exitCode, 1, 'exit code 1')
    t.match(
      bare.out(),
      new RegExp(
        /redis-server is not installed: install Redis 7 or newer \(Debian 12, Ubuntu 24\.04 and later: /.source +
          /sudo apt-get install -y redis-server; older Debian or Ubuntu releases ship Redis 6: .*\), /.source +
          /or point the node at a Redis you have: REDIS_URL=/.source,
      ),
    )
  },
)

t.test('npm start reinstalls when package-lock.json changed, and says so when TypeScript is missing', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ar-install-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  for (const f of [
    'scripts/start.mjs',
    'scripts/deps.mjs',
    '.nvmrc',
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'src/main.ts',
  ]) {
    mkdirSync(dirname(join(dir, f)), { recursive: true })
    copyFileSync(f, join(dir, f))
  }
  // node_modules installed from an older lock, without TypeScript (as after --omit=dev).
  mkdirSync(join(dir, 'node_modules'))
  writeFileSync(join(dir, 'node_modules', '.package-lock.json'), '{}')
  const old = new Date(Date.now() - 3600_000)
  utimesSync(join(dir, 'node_modules', '.package-lock.json'), old, old)
  // A stand-in npm on the PATH records its arguments (a real `npm ci` needs minutes and the network).
  const bin = mkdtempSync(join(tmpdir(), 'ar-npm-'))
  t.teardown(() => rmSync(bin, { recursive: true, force: true }))
  symlinkSync(process.execPath, join(bin, 'node'))
  writeFileSync(join(bin, 'npm'), `#!/bin/sh\necho "$@" >> ${join(dir, 'npm-calls')}\n`)
  chmodSync(join(bin, 'npm'), 0o755)
  const env = { PATH: bin, HOME: process.env.HOME ?? '' }

  const first = startShell('node scripts/start.mjs', dir, env)
  await first.exited
  t.match(
    first.out(),
    /package-lock\.json changed since the last install; reinstalling dependencies \(npm ci\)/,
    'a lock newer than node_modules: it says it reinstalls',
  )
  t.equal(readFileSync(join(dir, 'npm-calls'), 'utf8'), 'ci --no-audit --no-fund\n', 'and runs npm ci')
  t.equal(first.child.exitCode, 1)
  t.match(
    first.out(),
    new RegExp(
      /TypeScript is not installed \(node_modules\/typescript is missing: /.source +
        /were the dependencies installed with --omit=dev or NODE_ENV=production\?\); run `npm ci`/.source,
    ),
    'no tsc: it says why and what to run',
  )

  rmSync(join(dir, 'npm-calls'))
  utimesSync(join(dir, 'node_modules', '.package-lock.json'), new Date(), new Date())
  const second = startShell('node scripts/start.mjs', dir, env)
  await second.exited
  t.notOk(existsSync(join(dir, 'npm-calls')), 'node_modules newer than the lock: no npm ci')
  t.notMatch(second.out(), /reinstalling/)
  t.match(second.out(), /TypeScript is not installed/)
})

t.test('local-redis: a Redis answering at LOCAL_REDIS is used as it is', async (t) => {
  const shared = sharedRedis()
  const lines: string[] = []
  const r = await localRedis(defaultSettings({ localRedis: `127.0.0.1:${shared.standalone.port}` }), (l) =>
    lines.push(l),
  )
  t.equal(r.url, `redis://127.0.0.1:${shared.standalone.port}`)
  t.equal(r.embedded, undefined, 'nothing started')
  t.match(lines, [`agentrooms: using the Redis at 127.0.0.1:${shared.standalone.port} (set REDIS_URL to use another)`])
  await r.stop()
  t.equal(await probeRedis('127.0.0.1', shared.standalone.port), 'pong', 'and stop() leaves it running')
  const configured = await localRedis(
    defaultSettings({ redisUrl: 'redis://127.0.0.1:1', localRedis: `127.0.0.1:${shared.standalone.port}` }),
    () => undefined,
  )
  t.equal(configured.url, undefined, 'a configured REDIS_URL is never second-guessed')
})

t.test('local-redis: an IPv6 LOCAL_REDIS in brackets is accepted and served', async (t) => {
  t.equal(loadSettings({ LOCAL_REDIS: '[::1]:6380' }).localRedis, '[::1]:6380', 'the setting accepts [::1]:port')
  t.throws(() => loadSettings({ LOCAL_REDIS: '::1:6380' }), /LOCAL_REDIS/, 'and refuses IPv6 without brackets')
  t.same(localAddress(defaultSettings({ localRedis: '[::1]:6380' })), {
    host: '::1',
    port: 6380,
    url: 'redis://[::1]:6380',
  })
  t.same(localAddress(defaultSettings({ localRedis: 'localhost:6380' })), {
    host: 'localhost',
    port: 6380,
    url: 'redis://localhost:6380',
  })
  // A real one: the node starts its own redis-server on [::1].
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), 'ar-v6-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const lines: string[] = []
  const r = await localRedis(defaultSettings({ localRedis: `[::1]:${port}`, dataDir }), (l) => lines.push(l))
  t.teardown(() => r.stop())
  t.equal(r.url, `redis://[::1]:${port}`)
  t.ok(r.embedded, 'it started redis-server')
  t.equal(await probeRedis('::1', port), 'pong', 'which answers on ::1')
  t.match(lines, [new RegExp(`no Redis answered at ::1:${port}; started redis-server`)])
  await r.stop()
  t.equal(await probeRedis('::1', port), 'none', 'and stops with it')
})

t.test('npm run team finds Redis as the service does: LOCAL_REDIS, and never starts one', async (t) => {
  const shared = sharedRedis()
  const cli = async (env: Record<string, string>, ...argv: string[]) => {
    let out = ''
    let note = ''
    const code = await runTeamsCli(
      argv,
      (s) => (out += s),
      env,
      (s) => (note += s),
    )
    return { code, out, note }
  }
  const id = uid('ops-')
  const made = await cli({ LOCAL_REDIS: `127.0.0.1:${shared.standalone.port}` }, 'create', 'Ops', '--id', id)
  t.equal(made.code, 0, made.out)
  t.equal(
    made.note,
    `team: using the Redis at 127.0.0.1:${shared.standalone.port} (REDIS_URL and REDIS_CLUSTER_NODES are ` +
      `unset; LOCAL_REDIS names it)\n`,
    'it says which Redis it talks to, on stderr',
  )
  t.notMatch(made.out, /using the Redis/, 'stdout stays the answer')
  // This machine's own Redis holds 6379: seeing the team through REDIS_URL proves LOCAL_REDIS was used.
  const listed = await cli({ REDIS_URL: `redis://127.0.0.1:${shared.standalone.port}` }, 'list')
  t.match(listed.out, new RegExp(`^${id}\\tOps\\t`, 'm'), 'the team is in the Redis at LOCAL_REDIS')
  t.equal(listed.note, '', 'with REDIS_URL set it need not say')
  const free = await freePort()
  const none = await cli({ LOCAL_REDIS: `127.0.0.1:${free}` }, 'list')
  t.equal(none.code, 1)
  t.equal(
    none.out,
    `error: no Redis answers at 127.0.0.1:${free} (LOCAL_REDIS): start the service (npm start), or set ` +
      `REDIS_URL (REDIS_CLUSTER_NODES for a Redis Cluster)\n`,
  )
  t.equal(await probeRedis('127.0.0.1', free), 'none', 'and it started none')
})

t.test('local-redis: a Redis that needs a password is named, with the setting to use', async (t) => {
  const port = await spawnRedis(t, ['--requirepass', 'sesame'])
  t.ok(
    await eventually(async () => (await probeRedis('127.0.0.1', port)) === 'auth', 10_000),
    'a real redis-server with requirepass',
  )
  await t.rejects(
    localRedis(defaultSettings({ localRedis: `127.0.0.1:${port}` }), () => undefined),
    {
      message: `the Redis at 127.0.0.1:${port} needs a password: set REDIS_URL=redis://:PASSWORD@127.0.0.1:${port}`,
    },
  )
})
