// Starts real redis-server processes on free loopback ports: a standalone server and a 3-master
// Redis Cluster made with `redis-cli --cluster create`. Tests that need to kill, restart or fail
// over Redis start their own; the rest share the pair started by test/helpers/before.ts.
import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.unref()
    srv.on('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      const port = typeof addr === 'object' && addr ? addr.port : 0
      srv.close(() => resolve(port))
    })
  })
}

export interface RedisProcess {
  port: number
  dir: string
  proc: ChildProcess
  stop(signal?: NodeJS.Signals): Promise<void>
}

/** Resolves once the redis-server on `port` answers PING; throws after `timeoutMs`. */
export async function waitForPing(port: number, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs
  for (;;) {
    try {
      const { stdout } = await run('redis-cli', ['-p', String(port), 'ping'])
      if (stdout.trim() === 'PONG') return
    } catch {
      // not up yet
    }
    if (Date.now() > until) throw new Error(`redis-server on port ${port} did not answer within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/**
 * The arguments of a throwaway redis-server on loopback `port` keeping its files in `dir`: no RDB
 * snapshots, and no AOF unless `appendfsync` asks for one (then with that fsync policy).
 */
export function redisArgs(port: number, dir: string, appendfsync?: 'always' | 'everysec'): string[] {
  const aof = appendfsync ? ['--appendonly', 'yes', '--appendfsync', appendfsync] : ['--appendonly', 'no']
  return ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', ...aof]
}

/**
 * A redis-server with `extra` config on a free port, killed (and its folder removed) when the test
 * ends. It is not waited for: it may refuse PING (a password), so the test probes it its own way.
 */
export async function spawnRedis(t: { teardown(fn: () => void): void }, extra: string[] = []): Promise<number> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), `ar-redis-${port}-`))
  const proc = spawn('redis-server', [...redisArgs(port, dir), ...extra], { stdio: 'ignore' })
  t.teardown(() => {
    proc.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })
  return port
}

/**
 * Starts one redis-server. `extra` are additional config arguments (e.g. ['--cluster-enabled',
 * 'yes']); `binary` another build than the one on the PATH (a Redis 8: test/helpers/redis8.ts).
 */
export async function startRedis(
  extra: string[] = [],
  port?: number,
  detached = false,
  binary = 'redis-server',
): Promise<RedisProcess> {
  const p = port ?? (await freePort())
  const dir = mkdtempSync(join(tmpdir(), `ar-redis-${p}-`))
  const proc = spawn(
    binary,
    [...redisArgs(p, dir), '--maxmemory-policy', 'noeviction', '--maxmemory', '1gb', ...extra],
    { stdio: 'ignore', detached },
  )
  if (detached) proc.unref()
  let exited = false
  proc.on('exit', () => {
    exited = true
  })
  await waitForPing(p)
  return {
    port: p,
    dir,
    proc,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (!exited) {
        const done = new Promise<void>((r) => proc.once('exit', () => r()))
        proc.kill(signal)
        await done
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

export interface RedisCluster {
  nodes: RedisProcess[]
  /** "127.0.0.1:p1,127.0.0.1:p2,..." as REDIS_CLUSTER_NODES takes it. */
  seeds: string
  stop(): Promise<void>
}

/** Starts `masters` cluster-enabled servers (plus `replicasPerMaster` replicas each) and joins them. */
export async function startCluster(
  masters = 3,
  replicasPerMaster = 0,
  detached = false,
  binary = 'redis-server',
): Promise<RedisCluster> {
  const count = masters * (1 + replicasPerMaster)
  const nodes = await Promise.all(
    Array.from({ length: count }, () =>
      startRedis(
        ['--cluster-enabled', 'yes', '--cluster-node-timeout', '2000', '--cluster-config-file', 'nodes.conf'],
        undefined,
        detached,
        binary,
      ),
    ),
  )
  const addrs = nodes.map((n) => `127.0.0.1:${n.port}`)
  await run('redis-cli', [
    '--cluster',
    'create',
    ...addrs,
    '--cluster-replicas',
    String(replicasPerMaster),
    '--cluster-yes',
  ])
  const until = Date.now() + 20_000
  for (;;) {
    const states = await Promise.all(
      nodes.map(async (n) => {
        const { stdout } = await run('redis-cli', ['-p', String(n.port), 'cluster', 'info'])
        return /cluster_state:ok/.test(stdout)
      }),
    )
    if (states.every(Boolean)) break
    if (Date.now() > until) throw new Error('cluster did not reach cluster_state:ok')
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    nodes,
    seeds: addrs.join(','),
    async stop() {
      await Promise.all(nodes.map((n) => n.stop()))
    },
  }
}
