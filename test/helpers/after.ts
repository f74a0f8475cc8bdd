// tap runs this once after every test file: stops the Redis processes that before.ts started.
import { readFileSync, rmSync } from 'node:fs'
import { SHARED_FILE, type SharedRedis } from './shared.js'

let shared: SharedRedis | undefined
try {
  shared = JSON.parse(readFileSync(SHARED_FILE, 'utf8')) as SharedRedis
} catch {
  shared = undefined
}
if (shared) {
  for (const p of [shared.standalone, ...shared.cluster.nodes]) {
    try {
      process.kill(p.pid, 'SIGKILL')
    } catch {
      // already gone
    }
    rmSync(p.dir, { recursive: true, force: true })
  }
  rmSync(SHARED_FILE, { force: true })
}
