// tap runs this once before any test file: it starts the shared standalone Redis and 3-master
// Redis Cluster (detached, so they outlive this script) and writes where they listen to
// .tap/redis.json. test/helpers/after.ts stops them.
import { mkdirSync, writeFileSync } from 'node:fs'
import { startCluster, startRedis } from './redis.js'
import { SHARED_FILE } from './shared.js'

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
