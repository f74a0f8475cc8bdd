// Starts a real service node for the MCP conformance run (test/conformance/run.sh): the node as
// `npm start` runs it, settings from the environment (REDIS_URL, HOST, PORT — port 0 picks a
// free one), except that /mcp requests without an Authorization header act as a team key of
// team `conformance` (NodeOptions.mcpAnonymousTeam, test only: the conformance CLI cannot send a
// key). The team is created first, so team tools work. Prints `URL http://HOST:PORT/mcp` once
// listening; drains and exits on SIGTERM / SIGINT.
import { loadSettings } from '../../src/config.js'
import { ServiceNode } from '../../src/node.js'

const ANONYMOUS_TEAM = 'conformance'

async function main(): Promise<void> {
  const settings = loadSettings()
  const node = new ServiceNode(settings, { mcpAnonymousTeam: ANONYMOUS_TEAM, defaultMetrics: false })
  const port = await node.start()
  await node.teams.create({ teamId: ANONYMOUS_TEAM, name: 'conformance' })
  process.stdout.write(`URL http://${settings.host}:${port}/mcp\n`)
  const stop = async () => {
    await node.stop(2000)
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop())
  process.on('SIGINT', () => void stop())
}

main().catch((err: unknown) => {
  process.stderr.write(`real node: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exit(1)
})
