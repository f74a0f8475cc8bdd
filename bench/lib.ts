// Shared pieces of the benchmarks: a Redis of their own, service nodes as child processes (so the
// load generator never shares their event loop), and percentile helpers.
import { spawn, type ChildProcess } from 'node:child_process'
import { freePort, startRedis, type RedisProcess } from '../test/helpers/redis.js'

export { freePort, startRedis, type RedisProcess }

export interface ChildNode {
  port: number
  proc: ChildProcess
  /** Output printed so far (the default team key is printed once at first start). */
  output(): string
  stop(): Promise<void>
}

/** Starts `npx tsx <script>` with `env`, waits until `GET /health` answers. */
export async function startChild(script: string, env: Record<string, string>, port?: number, nodeArgs: string[] = []): Promise<ChildNode> {
  const p = port ?? (await freePort())
  let out = ''
  const proc = spawn(process.execPath, script.endsWith('.js') ? [...nodeArgs, script] : [...nodeArgs, '--import', 'tsx', script], {
    env: { ...process.env, LOG_LEVEL: 'warn', PORT: String(p), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  const until = Date.now() + 30_000
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${p}/health`)
      if (r.ok) break
    } catch {
      // not up yet
    }
    if (proc.exitCode !== null) throw new Error(`${script} exited: ${out}`)
    if (Date.now() > until) throw new Error(`${script} did not start: ${out}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    port: p,
    proc,
    output: () => out,
    async stop() {
      if (proc.exitCode !== null) return
      const done = new Promise<void>((r) => proc.once('exit', () => r()))
      proc.kill('SIGTERM')
      await done
    },
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

export const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a')
