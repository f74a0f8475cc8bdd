// What authenticating a call costs with a team key and with an OAuth access token, paired in one
// run on one node (in this process, on a Redis of its own):
// - "hot path": the /mcp mount's credential chain as the edge runs it (the token credential reads
//   first, then the key credential), for a credential already cached, so this is what nearly every
//   call pays; each cache lapses every second and is filled again, as in service;
// - "per call": a whole POST /mcp tools/list, one at a time, over loopback HTTP.
// Both are CPU time of this process (process.cpuUsage), not wall time: the machine's other work
// hardly moves them. Rounds alternate key-first and token-first (ABBA) and the ratio is taken per
// round, so what does move (GC, frequency) falls on both alike. The goal: token within 10 % of key.
//   npx tsx bench/auth-cost.ts [--rounds 30] [--batch 20000] [--calls 200]
import { parseArgs } from 'node:util'
import { defaultSettings } from '../src/config.js'
import { keyCredential } from '../src/http/credentials.js'
import { tokenCredential } from '../src/http/oauth/routes.js'
import type { RequestInfo } from '../src/http/exchange.js'
import { ServiceNode } from '../src/node.js'
import { createLogger } from '../src/shared/logger.js'
import { authorize, HandClient } from '../test/helpers/mcp-oauth.js'
import { fmt, inProcessSettings, percentile, startRedis } from './lib.js'

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '30' },
    batch: { type: 'string', default: '20000' },
    calls: { type: 'string', default: '200' },
  },
})
const ROUNDS = Number(values.rounds)
const BATCH = Number(values.batch)
const CALLS = Number(values.calls)
const REDIRECT = 'http://127.0.0.1:40444/callback'

const redis = await startRedis()
const node = new ServiceNode(defaultSettings(inProcessSettings(redis.port)), {
  log: createLogger('silent'),
  defaultMetrics: false,
})
const port = await node.start()
const base = `http://localhost:${port}`
const made = await node.teams.create({ name: 'bench', teamId: 'tm-bench' })
const teamId = made.team.teamId
const key = made.key!
await node.core.rooms.create(teamId, { room_id: 'bench' }, 'bench')

/** An access token of a grant to the team's every room, read and write (the flow a client runs). */
async function accessToken(): Promise<string> {
  const client = await HandClient.register(base, 'bench', REDIRECT)
  const url = client.authorizeUrl({ state: 'bench' })
  const consent = { userId: 'u_bench', teamId, roomId: undefined, agentId: 'bench', access: 'write' as const }
  const code = (await authorize(node.oauth.server!, base, url, consent)).searchParams.get('code')!
  return ((await (await client.redeem(code)).json()) as { access_token: string }).access_token
}
const token = await accessToken()

// The /mcp mount's chain (src/http/mcp.ts): the token credential first, then the key credential.
const chain = [tokenCredential(node.oauth), keyCredential(node.keyring)]
const request = (credential: string) =>
  ({ headers: { authorization: `Bearer ${credential}` } }) as unknown as RequestInfo
async function authenticate(req: RequestInfo): Promise<unknown> {
  for (const c of chain) {
    const presented = c.read(req)
    if (presented !== undefined) return c.verify(presented, req)
  }
  throw new Error('no credential')
}

/** CPU µs (user + system) of this process since `since`: other processes' load does not count. */
const cpuSince = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since)
  return d.user + d.system
}

/** CPU ns per authentication over a batch. */
async function hot(req: RequestInfo): Promise<number> {
  const started = process.cpuUsage()
  for (let i = 0; i < BATCH; i++) await authenticate(req)
  return (cpuSince(started) * 1000) / BATCH
}

const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
/** CPU µs of this process (client and node) per whole tools/list call, one at a time. */
async function perCall(credential: string): Promise<number> {
  const started = process.cpuUsage()
  for (let i = 0; i < CALLS; i++) {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${credential}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body,
    })
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`tools/list answered ${res.status}`)
  }
  return cpuSince(started) / CALLS
}

/** Per round: [key, token] of `measure`, alternating which goes first. */
async function paired<T>(a: T, b: T, measure: (x: T) => Promise<number>): Promise<{ a: number[]; b: number[] }> {
  const out = { a: [] as number[], b: [] as number[] }
  await measure(a) // warm-up: JIT, caches, connections
  await measure(b)
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2 === 0) {
      out.a.push(await measure(a))
      out.b.push(await measure(b))
    } else {
      out.b.push(await measure(b))
      out.a.push(await measure(a))
    }
  }
  return out
}

const median = (xs: number[]) =>
  percentile(
    [...xs].sort((x, y) => x - y),
    50,
  )
function report(what: string, unit: string, r: { a: number[]; b: number[] }): void {
  const ratios = r.a.map((k, i) => r.b[i]! / k)
  console.log(
    `${what}: key ${fmt(median(r.a))} ${unit}, token ${fmt(median(r.b))} ${unit}; ` +
      `token/key per round: median ${fmt(median(ratios), 3)} ` +
      `(p10 ${fmt(percentile([...ratios].sort(), 10), 3)}, p90 ${fmt(percentile([...ratios].sort(), 90), 3)})`,
  )
}

try {
  console.log(`auth-cost: ${ROUNDS} rounds (ABBA); hot path ${BATCH} per batch; per call ${CALLS} calls`)
  report('hot path', 'ns', await paired(request(key), request(token), hot))
  report('per call (tools/list)', 'µs', await paired(key, token, perCall))
} finally {
  await node.stop(2000)
  await redis.stop()
}
