// The service node of src/main.ts, plus what a benchmark needs to sample its heap: SIGUSR2 forces a
// full garbage collection (without it, heap figures mostly measure pending garbage); SIGUSR1, when
// HEAP_SNAPSHOT_DIR is set, writes a heap snapshot there after a full collection (the file's name
// is printed as `heap snapshot: <path>`).
import { join } from 'node:path'
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8'
import { runInNewContext } from 'node:vm'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
process.on('SIGUSR2', () => gc())
const snapshots = process.env.HEAP_SNAPSHOT_DIR
let n = 0
if (snapshots)
  process.on('SIGUSR1', () => {
    gc()
    console.log(`heap snapshot: ${writeHeapSnapshot(join(snapshots, `node-${process.pid}-${n++}.heapsnapshot`))}`)
  })
await import('../src/main.js')
