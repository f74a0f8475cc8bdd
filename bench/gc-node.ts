// The service node of src/main.ts, plus a way for a benchmark to force a full garbage collection
// before it samples the heap: SIGUSR2. Without it, heap figures mostly measure pending garbage.
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
process.on('SIGUSR2', () => gc())
await import('../src/main.js')
