// The Redis of a node started with no Redis configured (REDIS_URL and REDIS_CLUSTER_NODES unset),
// so that a newcomer's `npm start` needs no setup: the Redis answering at LOCAL_REDIS if there is
// one, otherwise a redis-server this process starts on that address, with its data (append-only
// file, RDB snapshot, log) in DATA_DIR, stopped when the node stops. When neither works, the error
// says exactly what to install or set. Never used when a Redis is configured (containers, k8s).
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { totalmem } from 'node:os'
import { resolve } from 'node:path'
import { promisify } from 'node:util'
import type { Settings } from '../config.js'
import { INSTALL_HINT, MIN_REDIS_MAJOR } from './redis-check.js'

const run = promisify(execFile)

export { INSTALL_HINT }

export interface LocalRedis {
  /** The URL the node should use; undefined when a Redis was configured (nothing to do). */
  url: string | undefined
  /** The redis-server this process started, if it started one. */
  embedded?: { pid: number; dir: string }
  /** Stops the redis-server this process started (after a final AOF fsync); a no-op otherwise. */
  stop(): Promise<void>
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])

/** How a Redis at host:port answers a PING: 'pong', 'auth' (a Redis needing a password), or 'none'. */
export function probeRedis(host: string, port: number, timeoutMs = 1000): Promise<'pong' | 'auth' | 'none'> {
  return new Promise((done) => {
    const sock = connect({ host, port })
    let got = ''
    const finish = (r: 'pong' | 'auth' | 'none') => {
      clearTimeout(timer)
      sock.destroy()
      done(r)
    }
    const timer = setTimeout(() => finish('none'), timeoutMs)
    sock.on('connect', () => sock.write('PING\r\n'))
    sock.on('data', (d: Buffer) => {
      got += d.toString('latin1')
      if (!got.includes('\r\n')) return
      finish(got.startsWith('+PONG') ? 'pong' : /^-(NOAUTH|WRONGPASS)/.test(got) ? 'auth' : 'none')
    })
    sock.on('error', () => finish('none'))
    sock.on('close', () => finish('none'))
  })
}

/** The installed redis-server's version ("7.0.15"), or undefined when there is none on the PATH. */
async function redisServerVersion(): Promise<string | undefined> {
  try {
    const { stdout } = await run('redis-server', ['--version'])
    return /v=(\d+\.\d+\.\d+)/.exec(stdout)?.[1] ?? 'unknown'
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return true
    if (Date.now() > until) return false
    await new Promise((r) => setTimeout(r, 50))
  }
}

/**
 * A redis-server left running by an earlier node of this folder that was killed before it could
 * stop it (its pid file is still there). Two servers must never share one append-only file, so
 * it is stopped (SIGTERM: it fsyncs and exits) before a new one starts.
 */
async function stopLeftover(dir: string): Promise<void> {
  const pidFile = resolve(dir, 'redis.pid')
  if (!existsSync(pidFile)) return
  const pid = Number(readFileSync(pidFile, 'utf8').trim())
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return
  let cmd = ''
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
  } catch {
    // not Linux, or already gone: trust the pid file only with a live process named redis-server
  }
  if (cmd !== '' && !cmd.includes('redis-server')) return
  process.kill(pid, 'SIGTERM')
  if (!(await waitUntil(() => !alive(pid), 10_000))) process.kill(pid, 'SIGKILL')
}

/** LOCAL_REDIS taken apart: "[::1]:6379" (IPv6 in brackets, as src/config.ts accepts it) → ::1, 6379. */
export function localAddress(settings: Settings): { host: string; port: number; url: string } {
  const cut = settings.localRedis.lastIndexOf(':')
  const host = settings.localRedis.slice(0, cut).replace(/^\[(.*)\]$/, '$1')
  const port = Number(settings.localRedis.slice(cut + 1))
  return { host, port, url: `redis://${host.includes(':') ? `[${host}]` : host}:${port}` }
}

/**
 * The settings a command that must not start a Redis (npm run team) uses: the configured Redis,
 * else the one at LOCAL_REDIS, as a node would find it. Throws, saying what to do, when no Redis
 * answers there.
 */
export async function existingRedis(settings: Settings): Promise<Settings> {
  if (settings.redisUrl || settings.redisClusterNodes) return settings
  const { host, port, url } = localAddress(settings)
  const answer = await probeRedis(host, port)
  if (answer === 'auth')
    throw new Error(
      `the Redis at ${host}:${port} needs a password: set REDIS_URL=redis://:PASSWORD@${url.slice('redis://'.length)}`,
    )
  if (answer === 'none')
    throw new Error(
      `no Redis answers at ${host}:${port} (LOCAL_REDIS): start the service (npm start), or set REDIS_URL ` +
        `(REDIS_CLUSTER_NODES for a Redis Cluster)`,
    )
  return { ...settings, redisUrl: url }
}

/**
 * Resolves the Redis of a node that has none configured (see the file comment). `say` receives
 * one human-readable line per step. Throws an Error whose message says what to do.
 */
export async function localRedis(settings: Settings, say: (line: string) => void): Promise<LocalRedis> {
  const none: LocalRedis = { url: undefined, stop: async () => undefined }
  if (settings.redisUrl || settings.redisClusterNodes) return none
  const { host, port, url } = localAddress(settings)

  const answer = await probeRedis(host, port)
  if (answer === 'pong') {
    // Its version is checked by the node as every Redis's is (src/ops/redis-check.ts).
    say(`agentrooms: using the Redis at ${host}:${port} (set REDIS_URL to use another)`)
    return { ...none, url }
  }
  if (answer === 'auth') {
    throw new Error(
      `the Redis at ${host}:${port} needs a password: set REDIS_URL=redis://:PASSWORD@${url.slice('redis://'.length)}`,
    )
  }
  if (!LOOPBACK.has(host)) {
    throw new Error(
      `no Redis answers at ${host}:${port} (LOCAL_REDIS), and a node starts its own only on a loopback ` +
        `address: set REDIS_URL, or start that Redis`,
    )
  }
  const version = await redisServerVersion()
  if (version === undefined) {
    throw new Error(`no Redis answers at ${host}:${port} and redis-server is not installed: ${INSTALL_HINT}`)
  }
  const major = Number(version.split('.')[0])
  if (Number.isFinite(major) && major < MIN_REDIS_MAJOR) {
    throw new Error(
      `no Redis answers at ${host}:${port} and the installed redis-server is ${version}; agentrooms needs ` +
        `${MIN_REDIS_MAJOR} or newer: ${INSTALL_HINT}`,
    )
  }

  const dir = resolve(settings.dataDir)
  mkdirSync(dir, { recursive: true })
  await stopLeftover(dir)
  // Its own process group (detached): a Ctrl-C in the terminal reaches only the node, which
  // drains first and then stops Redis, instead of losing Redis under requests still in flight.
  const child: ChildProcess = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      host === 'localhost' ? '127.0.0.1' : host,
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--save',
      '3600 1 300 100 60 10000',
      '--maxmemory-policy',
      'noeviction',
      // A ceiling (docs/operations.md: about 60 % of the memory, room for an AOF rewrite's fork),
      // so that a full Redis refuses writes rather than being killed by the kernel.
      '--maxmemory',
      String(Math.floor(totalmem() * 0.6)),
      '--pidfile',
      resolve(dir, 'redis.pid'),
      '--logfile',
      resolve(dir, 'redis.log'),
      '--daemonize',
      'no',
    ],
    { detached: true, stdio: 'ignore' },
  )
  let exited = false
  const exit = new Promise<void>((r) => child.once('exit', () => ((exited = true), r())))
  child.once('error', () => undefined)
  // Last resort: a node that exits without stop() (a crash) still sends the signal.
  const onExit = () => {
    if (!exited) child.kill('SIGTERM')
  }
  process.once('exit', onExit)

  const up = await waitUntil(async () => exited || (await probeRedis(host, port, 500)) === 'pong', 15_000)
  if (!up || exited) {
    if (!exited) child.kill('SIGKILL')
    process.removeListener('exit', onExit)
    throw new Error(
      `redis-server did not start on ${host}:${port}; see ${resolve(dir, 'redis.log')} (is the port taken? ` +
        `set LOCAL_REDIS to a free one, or REDIS_URL)`,
    )
  }
  say(
    `agentrooms: no Redis answered at ${host}:${port}; started redis-server ${version} there (pid ` +
      `${child.pid}, data and append-only file in ${dir}); it stops with the service`,
  )

  return {
    url,
    embedded: { pid: child.pid!, dir },
    async stop() {
      process.removeListener('exit', onExit)
      if (exited) return
      child.kill('SIGTERM')
      const stopped = await Promise.race([
        exit.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 10_000).unref()),
      ])
      if (!stopped) {
        child.kill('SIGKILL')
        await exit
      }
    },
  }
}
