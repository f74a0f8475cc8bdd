// Node CPU per core call through the store (core's validation, Store.room, the script frame, the
// reply's decoding, the store's listeners), this work tree against another commit in alternating
// runs: each run a fresh process of one tree, calling 50 at a time into one Redis of its own. It
// isolates what a change to src/store costs the node; bench/ab.ts measures the whole service
// (HTTP, MCP, auth, rate limit and Redis too), whose pairs move ±10% on a loaded box. The code
// runs under tsx (both trees alike), so compare the ratio, not the figures.
//   npx tsx bench/store-ab.ts [--base HEAD] [--runs 6] [--calls 20000] [--tool post_event | heartbeat]
import { execFile, execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs, promisify } from 'node:util'
import { startRedis } from './lib.js'

const { values } = parseArgs({
  options: {
    base: { type: 'string', default: 'HEAD' },
    runs: { type: 'string', default: '6' },
    calls: { type: 'string', default: '20000' },
    tool: { type: 'string', default: 'post_event' },
    child: { type: 'string' },
    port: { type: 'string' },
  },
})

/** One run in this process: the tree at `root`, `calls` calls, prints µs of CPU per call. */
async function child(root: string, port: string, calls: number, tool: string): Promise<void> {
  const load = (path: string) => import(pathToFileURL(join(root, path)).href)
  const [{ Store }, { Core }, { loadSettings }] = await Promise.all([
    load('src/store/store.ts'),
    load('src/core/index.ts'),
    load('src/config.ts'),
  ])
  const settings = { ...loadSettings({ REDIS_URL: `redis://127.0.0.1:${port}` }), keyPrefix: `sab${process.pid}` }
  const store = new Store(settings)
  const core = new Core(store, settings)
  await core.rooms.create('tm-bench', { room_id: 'r' }, 'bench')
  const c = { room: { teamId: 'tm-bench', roomId: 'r' }, agent: 'a1' }
  const call =
    tool === 'heartbeat'
      ? () => core.presence.heartbeat(c)
      : () => core.events.post(c, { type: 'status', text: 'bench' })
  const run = async (n: number) => {
    let i = 0
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (i++ < n) await call()
      }),
    )
  }
  await run(3000) // warm-up: JIT, the script cache
  const before = process.cpuUsage()
  await run(calls)
  const used = process.cpuUsage(before)
  console.log(((used.user + used.system) / calls).toFixed(2))
  await store.close()
}

if (values.child) {
  await child(values.child, values.port!, Number(values.calls), values.tool!)
} else {
  const root = join(import.meta.dirname, '..')
  const git = (...a: string[]) => execFileSync('git', a, { cwd: root, encoding: 'utf8' }).trim()
  const sha = git('rev-parse', '--short', values.base!)
  const tree = mkdtempSync(join(tmpdir(), 'ar-store-ab-'))
  git('worktree', 'add', '--detach', tree, sha)
  const redis = await startRedis()
  try {
    symlinkSync(join(root, 'node_modules'), join(tree, 'node_modules'))
    const trees: [string, string][] = [
      ['work', root],
      [sha, tree],
    ]
    const seen = new Map<string, number[]>(trees.map(([label]) => [label, []]))
    for (let i = 0; i < Number(values.runs); i++) {
      for (const [label, dir] of i % 2 ? [...trees].reverse() : trees) {
        const args = [
          '--import',
          'tsx',
          join(root, 'bench', 'store-ab.ts'),
          '--child',
          dir,
          '--port',
          String(redis.port),
          '--calls',
          values.calls!,
          '--tool',
          values.tool!,
        ]
        const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: dir })
        const us = Number(stdout.trim().split('\n').pop())
        seen.get(label)!.push(us)
        console.log(`run ${i + 1} ${label}: ${us} us node CPU per call`)
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const pairs = seen.get('work')!.map((x, i) => x / seen.get(sha)![i]!)
    console.log(
      `${values.tool}: work tree ${median(seen.get('work')!)}, ${sha} ${median(seen.get(sha)!)} us node CPU ` +
        `per call (medians); work/${sha} per run: ${pairs.map((p) => p.toFixed(2)).join(' ')}, median ` +
        `${median(pairs).toFixed(2)}`,
    )
  } finally {
    await redis.stop()
    rmSync(tree, { recursive: true, force: true })
    git('worktree', 'prune')
  }
}
