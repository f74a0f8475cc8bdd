// tap runs this once before any test file: it starts the shared standalone Redis and 3-master
// Redis Cluster (detached, so they outlive this script) and writes where they listen to
// .tap/redis-<runner pid>.json (see shared.ts). test/helpers/after.ts stops them; servers of a
// run that died before its after.ts are reaped here.
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { startCluster, startRedis } from './redis.js'
import { SHARED_FILE, type SharedRedis } from './shared.js'

/** Stops the servers of earlier runs that died before after.ts ran (their runner is gone). */
function reapOrphans(): void {
  let files: string[] = []
  try {
    files = readdirSync('.tap').filter((f) => /^redis-\d+\.json$/.test(f))
  } catch {
    return
  }
  for (const f of files) {
    const runner = Number(/\d+/.exec(f)![0])
    try {
      process.kill(runner, 0)
      continue // that run is still going
    } catch {
      // its runner is gone: stop what it left behind
    }
    try {
      const shared = JSON.parse(readFileSync(`.tap/${f}`, 'utf8')) as SharedRedis
      for (const p of [shared.standalone, ...shared.cluster.nodes]) {
        try {
          process.kill(p.pid, 'SIGKILL')
        } catch {
          // already gone
        }
        rmSync(p.dir, { recursive: true, force: true })
      }
    } catch {
      // unreadable: just drop it
    }
    rmSync(`.tap/${f}`, { force: true })
  }
}

reapOrphans()

const standalone = await startRedis([], undefined, true)
const cluster = await startCluster(3, 0, true)
mkdirSync('.tap', { recursive: true })
writeFileSync(
  SHARED_FILE,
  JSON.stringify({
    standalone: { port: standalone.port, pid: standalone.proc.pid, dir: standalone.dir },
    cluster: { seeds: cluster.seeds, nodes: cluster.nodes.map((n) => ({ port: n.port, pid: n.proc.pid, dir: n.dir })) },
  }),
)
console.log(`# shared redis: standalone :${standalone.port}, cluster ${cluster.seeds}`)
