// Starts one service node: `npm start` (scripts/start.mjs: installs, builds, then runs this file),
// `node dist/src/main.js` (containers) or `npm run dev`. Settings come from the environment
// (docs/configuration.md); with no Redis configured, src/ops/local-redis.ts finds or starts one.
// On SIGTERM the node drains and exits within SHUTDOWN_GRACE_S.
import { loadSettings } from './config.js'
import { ServiceNode } from './node.js'
import { localRedis, type LocalRedis } from './ops/local-redis.js'

let redis: LocalRedis | undefined

async function main(): Promise<void> {
  const configured = loadSettings()
  redis = await localRedis(configured, (line) => process.stdout.write(`${line}\n`))
  const settings = redis.url ? { ...configured, redisUrl: redis.url } : configured
  const node = new ServiceNode(settings)
  const port = await node.start()
  const boot = await node.teams.bootstrap()
  if (boot.created && boot.key) {
    // Printed exactly once, by the one node that created the default team.
    const base = `http://localhost:${port}`
    process.stdout.write(
      [
        '',
        'agentrooms: created the default team. Its key is shown this once; keep it secret:',
        '',
        `  ${boot.key}`,
        '',
        'Add the service to an MCP client (agent ids are chosen per agent; pass agent_id in tool calls):',
        '',
        `  claude mcp add --transport http agentrooms ${base}/mcp --header "Authorization: Bearer ${boot.key}"`,
        '',
        JSON.stringify({ mcpServers: { agentrooms: { type: 'http', url: `${base}/mcp`, headers: { Authorization: `Bearer ${boot.key}` } } } }, null, 2),
        '',
        'Create a room with configuration for each of your agents (docs/cli.md):',
        '',
        `  AGENTROOMS_URL=${base} AGENTROOMS_KEY=${boot.key} npx agentrooms create-room my-project --agents planner,backend,frontend`,
        '',
      ].join('\n') + '\n',
    )
  }
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    node.log.info({ signal }, 'draining')
    const hard = setTimeout(() => process.exit(1), settings.shutdownGraceS * 1000).unref()
    const { clean } = await node.stop()
    await redis?.stop()
    clearTimeout(hard)
    node.log.info({ clean }, 'stopped')
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

main().catch(async (err: unknown) => {
  process.stderr.write(`agentrooms: ${err instanceof Error ? err.message : String(err)}\n`)
  await redis?.stop().catch(() => undefined)
  process.exit(1)
})
