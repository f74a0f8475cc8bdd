// Redis time per room script, without HTTP or MCP: the domain core calls the store directly with
// a fixed number of calls in flight, and Redis's own command statistics give the microseconds each
// script spent executing (INFO commandstats, which leaves out networking). This isolates Lua
// changes from the noise of a full request path.
//
// --callgrind runs Redis under valgrind's callgrind and reports the instructions Redis executed
// per script instead: a count that does not move with the machine's load, so two versions of a
// script can be compared exactly (use fewer calls: Redis runs ~50x slower under valgrind).
// --keep leaves the dumps (one per figure, in order) for callgrind_annotate and prints where.
//   npx tsx bench/script-cost.ts [--calls 30000] [--retained 10000] [--inflight 32] [--callgrind [--keep]]
import { execFileSync } from 'node:child_process'
import { parseArgs } from 'node:util'
import { defaultSettings } from '../src/config.js'
import { Core } from '../src/core/index.js'
import { Store } from '../src/store/store.js'
import { RateLimiter } from '../src/auth/ratelimit.js'
import { startRedis, startRedisUnderCallgrind } from './lib.js'

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '30000' },
    retained: { type: 'string', default: '10000' },
    inflight: { type: 'string', default: '32' },
    callgrind: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
})
const calls = Number(values.calls)
const inflight = Number(values.inflight)

const callgrind = values.callgrind ? await startRedisUnderCallgrind(values.keep) : undefined
const redis = callgrind ?? (await startRedis())
const unit = values.callgrind ? 'instructions' : 'us'
const settings = defaultSettings({
  redisUrl: `redis://127.0.0.1:${redis.port}`,
  redisClusterNodes: undefined,
  eventsRetained: Number(values.retained),
})
const store = new Store(settings)
const core = new Core(store, settings)
const cli = (...a: string[]) => execFileSync('redis-cli', ['-p', String(redis.port), ...a], { encoding: 'utf8' })

await core.rooms.create('bench', { room_id: 'r' }, 'bench')
const room = { teamId: 'bench', roomId: 'r' }
const eventsKey = store.keys.room(room).events

/**
 * Runs `n` calls of `fn` with `inflight` at a time; returns Redis µs per call (all EVALSHAs) over
 * them, or with --callgrind the instructions Redis executed per call (networking included).
 */
async function measure(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const run = async () => {
    let next = 0
    await Promise.all(
      Array.from({ length: inflight }, async () => {
        while (next < n) await fn(next++)
      }),
    )
  }
  if (callgrind) return (await callgrind.instructions(run)) / n
  cli('CONFIG', 'RESETSTAT')
  await run()
  const m = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(cli('INFO', 'commandstats'))!
  return Number(m[2]) / n
}

const caller = { room, agent: 'a' }
// Two readers so the unread count has cursors to look at, as in a real room.
await core.events.post({ room, agent: 'b' }, { type: 'status', text: 'hello' })
const fill = Number(values.retained) + 1000
console.log(
  `# ${new Date().toISOString()} node ${process.version}, ${calls} calls per figure, ${inflight} in flight, ` +
    `events kept ${values.retained}${values.callgrind ? ', Redis under callgrind' : ''}`,
)
const below = await measure(Math.min(calls, Number(values.retained) - 100), (i) =>
  core.events.post(caller, { type: 'status', text: `event ${i}` }),
)
console.log(`post_event below the cap: ${below.toFixed(1)} ${unit} per script`)
const len = Number(cli('XLEN', eventsKey).trim())
if (len < fill) await measure(fill - len, (i) => core.events.post(caller, { type: 'status', text: `fill ${i}` }))
const atCap = await measure(calls, (i) => core.events.post(caller, { type: 'status', text: `event ${i}` }))
console.log(`post_event at the cap (${cli('XLEN', eventsKey).trim()} kept): ${atCap.toFixed(1)} ${unit} per script`)
// With the rate check of each call (leased: in steady state it asks Redis once per chunk).
const limiter = new RateLimiter(store, { ...settings, rateLimitPerMin: 1e9, rateLimitPerCredentialPerMin: 1e8 })
const rated = await measure(calls, async (i) => {
  await limiter.check('bench', 'key:bench')
  await core.events.post(caller, { type: 'status', text: `event ${i}` })
})
console.log(`post_event at the cap + its rate check: ${rated.toFixed(1)} ${unit} per call`)
const hb = await measure(calls, () => core.presence.heartbeat(caller))
console.log(`heartbeat: ${hb.toFixed(1)} ${unit} per script`)
// Catch agent c up first, so the figure is the common case of a poll that finds nothing new.
while (((await core.events.unread({ room, agent: 'c' }, { limit: 100 })) as { events: unknown[] }).events.length > 0);
const unread = await measure(calls, () => core.events.unread({ room, agent: 'c' }, {}))
console.log(`get_unread_events (nothing new): ${unread.toFixed(1)} ${unit} per script`)
await store.close()
await redis.stop()
