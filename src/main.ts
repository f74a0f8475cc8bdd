// Starts one service node: `npm start` (scripts/start.mjs: installs, builds, then runs this file),
// `node dist/src/main.js` (containers) or `npm run dev`. Settings come from the environment
// (docs/configuration.md); with no Redis configured, src/ops/local-redis.ts finds or starts one.
// On SIGTERM the node drains and exits within SHUTDOWN_GRACE_S.
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadSettings } from './config.js'
import { OWNER_LINK_TTL_MS } from './auth/accounts.js'
import { DEFAULT_TEAM_ID } from './auth/teams.js'
import { ServiceNode } from './node.js'
import { isDevelopment, signInLinkOf } from './ops/development.js'
import { localRedis, type LocalRedis } from './ops/local-redis.js'

let redis: LocalRedis | undefined
let node: ServiceNode | undefined
let stopping = false

/** A word as a POSIX shell reads it back: quoted only when it has to be. */
const shellWord = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`)

/**
 * The room CLI as a command that works from any folder. The package is private (never published),
 * so `npx agentrooms` resolves only inside this clone: print the launcher's absolute path instead.
 */
function cliCommand(): string {
  const here = dirname(fileURLToPath(import.meta.url))
  const compiled = here.endsWith(join('dist', 'src'))
  const root = resolve(here, compiled ? '../..' : '..')
  if (compiled) {
    const bin = join(root, 'bin', 'agentrooms.mjs')
    // The container image has dist/ but not bin/.
    return `node ${shellWord(existsSync(bin) ? bin : join(here, 'cli', 'main.js'))}`
  }
  // npm run dev (tsx, nothing compiled): the sources through this clone's tsx.
  return `npx --prefix ${shellWord(root)} tsx ${shellWord(join(root, 'src', 'cli', 'main.ts'))}`
}

/**
 * Drains the node (when it got that far) and stops the Redis this process started. Installed
 * before anything starts, so that a signal during startup still stops an embedded redis-server:
 * without a handler, SIGTERM would end the process at once and leave that Redis running.
 */
async function stop(signal: string, graceMs: number): Promise<void> {
  if (stopping) return
  stopping = true
  const hard = setTimeout(() => process.exit(1), graceMs).unref()
  node?.log.info({ signal }, 'draining')
  const { clean } = node ? await node.stop() : { clean: true }
  // A redis-server still starting (localRedis has not returned) is stopped by its exit hook.
  await redis?.stop()
  clearTimeout(hard)
  node?.log.info({ clean }, 'stopped')
  process.exit(0)
}

async function main(): Promise<void> {
  const configured = loadSettings()
  process.on('SIGTERM', () => void stop('SIGTERM', configured.shutdownGraceMs))
  process.on('SIGINT', () => void stop('SIGINT', configured.shutdownGraceMs))
  redis = await localRedis(configured, (line) => process.stdout.write(`${line}\n`))
  if (stopping) return
  const settings = redis.url ? { ...configured, redisUrl: redis.url } : configured
  node = new ServiceNode(settings)
  const port = await node.start()
  if (stopping) return
  const boot = await node.teams.bootstrap()
  if (boot.created && boot.key && !isDevelopment(node.settings)) {
    // Whoever reads a production node's log must not become its operator.
    node.log.info(
      { team: DEFAULT_TEAM_ID },
      'created the default team; outside development nothing secret is printed: ' +
        ('`npm run team -- mint-key default` prints a key of it, `npm run team -- owner-link` a sign-in link ' +
          'for its owner'),
    )
  } else if (boot.created && boot.key) {
    // Printed exactly once, by the one node that created the default team.
    const base = `http://localhost:${port}`
    const signIn = await firstOwnerLink(node)
    process.stdout.write(
      [
        '',
        'agentrooms: created the default team. Its key is shown this once; keep it secret:',
        '',
        `  ${boot.key}`,
        '',
        'Add the service to an MCP client (agent ids are chosen per agent; pass agent_id and room_id in tool ' +
          `calls, or bind the connection to one agent and room with ${base}/mcp?agent=<id>&room=<id>):`,
        '',
        `  claude mcp add --transport http agentrooms ${base}/mcp --header "Authorization: Bearer ${boot.key}"`,
        '',
        JSON.stringify(
          {
            mcpServers: {
              agentrooms: { type: 'http', url: `${base}/mcp`, headers: { Authorization: `Bearer ${boot.key}` } },
            },
          },
          null,
          2,
        ),
        '',
        'Create a room with configuration for each of your agents (docs/cli.md), from any folder:',
        '',
        `  AGENTROOMS_URL=${base} AGENTROOMS_KEY=${boot.key} ${cliCommand()} create-room my-project --agents ` +
          `planner,backend,frontend`,
        '',
        ...(signIn
          ? [
              `Sign in to the dashboard as the default team's owner (${signIn.owner}); this link works once, ` +
                `within ${OWNER_LINK_TTL_MS / 60_000} minutes (\`npm run team -- owner-link\` prints a new one):`,
              '',
              `  ${signIn.link}`,
              '',
            ]
          : []),
      ].join('\n') + '\n',
    )
  } else {
    node.log.info('the default team exists already: no key to print')
  }
}

/**
 * A one-time sign-in link for the default team's owner (the first ADMIN_EMAILS address, or a
 * local owner): an invite to the default team as its owner, so a newcomer reaches a signed-in
 * page without SMTP or OAuth. Undefined (with a line saying why) when it cannot be made.
 */
async function firstOwnerLink(n: ServiceNode): Promise<{ owner: string; link: string } | undefined> {
  const owner = n.settings.adminEmails[0] ?? 'owner@localhost'
  try {
    const { token } = await n.accounts.inviteFirstOwner(DEFAULT_TEAM_ID)
    return { owner, link: signInLinkOf(n.baseUrl, token) }
  } catch (err) {
    n.log.warn({ err: err instanceof Error ? err.message : String(err), owner }, 'no first-start sign-in link')
    return undefined
  }
}

main().catch(async (err: unknown) => {
  // A startup cut short by a signal fails on the closed connections: that is the stop, not an error.
  if (stopping) return
  process.stderr.write(`agentrooms: ${err instanceof Error ? err.message : String(err)}\n`)
  await redis?.stop().catch(() => undefined)
  process.exit(1)
})
