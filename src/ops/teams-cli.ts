// Operator command for teams, talking to Redis directly (settings from the environment, like a
// node): `npm run team -- create "Payments" [--id payments]`, `npm run team -- list`,
// `npm run team -- mint-key <teamId> [--label ci]`. A new team's first key is printed once.
// It finds Redis as a node does (REDIS_CLUSTER_NODES, REDIS_URL, else the Redis at LOCAL_REDIS)
// but never starts one: with `npm start`'s own Redis, run it while the service runs.
import { parseArgs } from 'node:util'
import { Teams } from '../auth/teams.js'
import { loadSettings } from '../config.js'
import { AppError } from '../core/errors.js'
import { Store } from '../store/store.js'
import { existingRedis } from './local-redis.js'

const USAGE = `usage:
  team create <name> [--id <teamId>]     create a team and print its first key (once)
  team list                              list teams
  team mint-key <teamId> [--label <l>]   mint an extra key for a team and print it (once)`

export async function runTeamsCli(
  argv: string[],
  out: (s: string) => void = (s) => process.stdout.write(s),
  env: Record<string, string | undefined> = process.env,
  note: (s: string) => void = (s) => process.stderr.write(s),
): Promise<number> {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: { id: { type: 'string' }, label: { type: 'string' } } })
  const [command, arg] = positionals
  if (!command || !['create', 'list', 'mint-key'].includes(command) || (command !== 'list' && !arg)) {
    out(`${USAGE}\n`)
    return 2
  }
  let settings
  try {
    const configured = loadSettings(env)
    settings = await existingRedis(configured)
    // Said on stderr (stdout stays the command's answer): with nothing configured, it is not
    // obvious which Redis the teams go to.
    if (!configured.redisUrl && !configured.redisClusterNodes) {
      const url = new URL(settings.redisUrl!)
      note(`team: using the Redis at ${url.hostname}:${url.port || 6379} (REDIS_URL and REDIS_CLUSTER_NODES are unset; LOCAL_REDIS names it)\n`)
    }
  } catch (err) {
    out(`error: ${err instanceof Error ? err.message : String(err)}\n`)
    return 1
  }
  const store = new Store(settings)
  const teams = new Teams(store, settings.revokedKeyRetentionS)
  try {
    if (command === 'create') {
      const r = await teams.create({ name: arg, teamId: values.id })
      if (!r.created) {
        out(`team ${r.team.teamId} already exists; no key was minted\n`)
        return 1
      }
      out(`created team ${r.team.teamId} (${r.team.name})\nkey (shown once): ${r.key}\n`)
    } else if (command === 'list') {
      for (const t of await teams.list()) out(`${t.teamId}\t${t.name}\t${t.createdAt}\n`)
    } else {
      await teams.requireTeam(arg!)
      const { key, info } = await teams.mintTeamKey(arg!, values.label ? { label: values.label } : {})
      out(`minted ${info.keyId} for team ${arg}\nkey (shown once): ${key}\n`)
    }
    return 0
  } catch (err) {
    out(`error: ${err instanceof AppError || err instanceof Error ? err.message : String(err)}\n`)
    return 1
  } finally {
    await store.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runTeamsCli(process.argv.slice(2)).then((code) => process.exit(code))
}
