// Redis processes that a fault test (or bench/faults.ts) can kill and start again on the same
// port and data folder, with the append-only file on, and a log that keeps what a node says.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { createLogger, type Logger } from '../../src/shared/logger.js'
import { freePort, redisArgs, waitForPing } from './redis.js'

export interface KillableRedis {
  port: number
  dir: string
  /** Whether the process runs. */
  readonly up: boolean
  /** Sends a signal without waiting for an exit (SIGSTOP stalls the process, SIGCONT resumes it). */
  signal(signal: NodeJS.Signals): void
  /** kill -9 (default) or a clean stop (SIGTERM: Redis writes its AOF and exits). */
  kill(signal?: NodeJS.Signals): Promise<void>
  /** Starts it again on the same port and folder (the AOF brings the data back). */
  start(): Promise<void>
  /** Stops it and removes its folder. */
  remove(): Promise<void>
}

/** A standalone redis-server with AOF (appendfsync `fsync`, default always) in a folder of its own. */
export async function killableRedis(
  extra: string[] = [],
  fsync: 'always' | 'everysec' = 'always',
): Promise<KillableRedis> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), `ar-fault-${port}-`))
  const args = [...redisArgs(port, dir, fsync), '--maxmemory-policy', 'noeviction', ...extra]
  let proc: ChildProcess | undefined
  const spawnIt = async () => {
    const p = spawn('redis-server', args, { stdio: 'ignore' })
    proc = p
    p.on('exit', () => {
      if (proc === p) proc = undefined
    })
    await waitForPing(port)
  }
  await spawnIt()
  const r: KillableRedis = {
    port,
    dir,
    get up() {
      return proc !== undefined
    },
    signal(signal: NodeJS.Signals) {
      proc?.kill(signal)
    },
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      const p = proc
      if (!p) return
      const exited = new Promise<void>((resolve) => p.once('exit', () => resolve()))
      p.kill(signal)
      await exited
    },
    start: spawnIt,
    async remove() {
      await r.kill()
      rmSync(dir, { recursive: true, force: true })
    },
  }
  return r
}

/** A pino logger at `level` that keeps every line (parsed) in `lines`. */
export function recordingLogger(level = 'info'): {
  log: Logger
  lines: { level: number; msg: string }[]
  /** Every line as written, for checks of what must never be logged. */
  raw: string[]
} {
  const lines: { level: number; msg: string }[] = []
  const raw: string[] = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line) {
          raw.push(line)
          lines.push(JSON.parse(line) as { level: number; msg: string })
        }
      done()
    },
  })
  return { log: createLogger(level, sink), lines, raw }
}

/** Lines of `lines` whose message contains `text`. */
export function countLines(lines: { msg: string }[], text: string): number {
  return lines.filter((l) => l.msg.includes(text)).length
}
