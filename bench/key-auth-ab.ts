// The key-authentication hot path of /mcp in this work tree against another commit's, paired in
// one process: for a team key already cached, what the edge runs before a call reaches its route,
// on one node of each tree, each on a Redis of its own. Two figures: "authentication" (the mount's
// credentials in order, the first that reads the header verifies it; the mount's permits for
// POST /mcp), and "with the charge" (then the rate-limit charge, as every call pays it). Both
// trees are compiled the same way (tsconfig.bench.json) and loaded side by side. CPU time of this
// process (process.cpuUsage), not wall time; rounds alternate which tree goes first (ABBA) and
// the ratio is taken per round. The goal: this tree within 1.05x of the base. A batch is long
// enough for the CPU counter under preemption (~100 ms); a charge that goes to Redis is ~50x an
// authentication, so its batches are shorter.
//   npx tsx bench/key-auth-ab.ts --base <commit> [--rounds 30] [--batch 50000] [--charged 2000]
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type * as ConfigModule from '../src/config.js'
import type * as CredentialsModule from '../src/http/credentials.js'
import type * as OAuthRoutesModule from '../src/http/oauth/routes.js'
import type * as NodeModule from '../src/node.js'
import type * as LoggerModule from '../src/shared/logger.js'
import { checkout, compiled, fmt, inProcessSettings, percentile, startRedis } from './lib.js'

const { values } = parseArgs({
  options: {
    base: { type: 'string', default: 'HEAD' },
    rounds: { type: 'string', default: '30' },
    batch: { type: 'string', default: '50000' },
    charged: { type: 'string', default: '2000' },
  },
})
const ROUNDS = Number(values.rounds)
/** Authentications per batch, without and with the charge. */
const BATCH = { auth: Number(values.batch), charged: Number(values.charged) }

interface Credential {
  read(req: unknown): string | undefined
  verify(presented: string, req: unknown): Promise<unknown>
}
interface Tree {
  label: string
  /** One authentication, as the edge runs it for POST /mcp; then the rate-limit charge when `charge`. */
  once(charge: boolean): Promise<void>
  stop(): Promise<void>
}

/** A node of the compiled tree at `dist` (its dist-bench/src), and its /mcp key path for a cached key. */
async function load(label: string, dist: string): Promise<Tree> {
  const { ServiceNode } = (await import(join(dist, 'node.js'))) as typeof NodeModule
  const { defaultSettings } = (await import(join(dist, 'config.js'))) as typeof ConfigModule
  const { createLogger } = (await import(join(dist, 'shared', 'logger.js'))) as typeof LoggerModule
  const creds = (await import(join(dist, 'http', 'credentials.js'))) as typeof CredentialsModule
  const oauth = (await import(join(dist, 'http', 'oauth', 'routes.js')).catch(() => undefined)) as
    typeof OAuthRoutesModule | undefined
  const redis = await startRedis()
  const node = new ServiceNode(defaultSettings(inProcessSettings(redis.port)), {
    log: createLogger('silent'),
    defaultMetrics: false,
  })
  await node.start()
  const key = (await node.teams.create({ name: 'bench', teamId: 'tm-bench' })).key!
  // The /mcp mount's credentials in its order (src/http/mcp.ts): the token credential first where there is one.
  const chain = [
    ...(oauth ? [oauth.tokenCredential(node.oauth)] : []),
    creds.keyCredential(node.keyring),
  ] as Credential[]
  const limit = creds.teamRateLimit({ rateLimiter: node.rateLimiter, metrics: node.metrics }) as (
    who: unknown,
    ex: unknown,
  ) => Promise<void> | void
  const permits = creds.permits as (who: unknown, route: unknown) => void
  const route = { method: 'POST', path: '/mcp', auth: 'any' }
  const req = { headers: { authorization: `Bearer ${key}` } }
  const once = async (charge: boolean) => {
    let who: unknown
    for (const c of chain) {
      const presented = c.read(req)
      if (presented !== undefined) {
        who = await c.verify(presented, req)
        break
      }
    }
    permits(who, route)
    if (!charge) return
    const charged = limit(who, { req, extraHeaders: {} })
    if (charged) await charged
  }
  await once(true)
  return { label, once, stop: async () => (await node.stop(2000), await redis.stop()) }
}

const cpuSince = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since)
  return d.user + d.system
}
/** CPU ns per authentication over a batch. */
async function batch(tree: Tree, charge: boolean): Promise<number> {
  const n = charge ? BATCH.charged : BATCH.auth
  const started = process.cpuUsage()
  for (let i = 0; i < n; i++) await tree.once(charge)
  return (cpuSince(started) * 1000) / n
}

/** Per round: [work, base] CPU ns, alternating which goes first. */
async function paired(a: Tree, b: Tree, charge: boolean): Promise<{ a: number[]; b: number[] }> {
  const seen = { a: [] as number[], b: [] as number[] }
  await batch(a, charge) // warm-up: JIT, caches, connections
  await batch(b, charge)
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2 === 0) {
      seen.a.push(await batch(a, charge))
      seen.b.push(await batch(b, charge))
    } else {
      seen.b.push(await batch(b, charge))
      seen.a.push(await batch(a, charge))
    }
  }
  return seen
}

const base = await checkout(values.base!)
const trees: Tree[] = []
try {
  const work = await compiled('src/main.ts')
  trees.push(await load('work', join(work, '..')))
  trees.push(await load(base.sha, join(base.main, '..')))
  const [a, b] = trees as [Tree, Tree]
  const sorted = (xs: number[]) => [...xs].sort((x, y) => x - y)
  console.log(
    `key-auth-ab: ${ROUNDS} rounds (ABBA) of ${BATCH.auth} (${BATCH.charged} with the charge); ` +
      `work tree against ${base.sha}`,
  )
  for (const charge of [false, true]) {
    const seen = await paired(a, b, charge)
    const ratios = sorted(seen.a.map((x, i) => x / seen.b[i]!))
    console.log(
      `${charge ? 'with the charge' : 'authentication'}: work tree ${fmt(percentile(sorted(seen.a), 50))} ns, ` +
        `${base.sha} ${fmt(percentile(sorted(seen.b), 50))} ns of CPU (medians); work/${base.sha} per round: ` +
        `median ${fmt(percentile(ratios, 50), 3)} (p10 ${fmt(percentile(ratios, 10), 3)}, ` +
        `p90 ${fmt(percentile(ratios, 90), 3)})`,
    )
  }
} finally {
  for (const t of trees) await t.stop()
  base.remove()
}
