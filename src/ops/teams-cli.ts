// Operator command for teams, talking to Redis directly (settings from the environment, like a
// node): `npm run team -- create "Payments" [--id payments]`, `npm run team -- list`,
// `npm run team -- mint-key <teamId> [--label ci] [--scope agent]`. A new team's first key is printed once.
// It finds Redis as a node does (REDIS_CLUSTER_NODES, REDIS_URL, else the Redis at LOCAL_REDIS)
// but never starts one: with `npm start`'s own Redis, run it while the service runs.
import { parseArgs } from 'node:util'
import { Accounts, OWNER_LINK_TTL_MS } from '../auth/accounts.js'
import { Mailer } from '../auth/mailer.js'
import { DEFAULT_TEAM_ID, Teams } from '../auth/teams.js'
import { approvalMail } from '../auth/mail-text.js'
import { createLogger } from '../shared/logger.js'
import { loadSettings, type Settings } from '../config.js'
import { AppError } from '../shared/errors.js'
import { Store } from '../store/store.js'
import { signInLinkOf } from './development.js'
import { existingRedis } from './local-redis.js'

const USAGE = `usage:
  team create <name> [--id <teamId>]     create a team and print its first key (once)
  team list                              list teams
  team mint-key <teamId> [--label <l>] [--scope admin|agent]
                                         mint an extra key (admin scope unless --scope agent), print it once
  team waitlist list                     list the waitlist (address, state, since, note)
  team waitlist approve <email>          approve an address and mail it a sign-in link
  team waitlist decline <email>          decline an address (nothing is mailed)
  team owner-link                        print a sign-in link for the default team's owner (the first
                                         ADMIN_EMAILS address), working once within an hour`

export async function runTeamsCli(
  argv: string[],
  out: (s: string) => void = (s) => process.stdout.write(s),
  env: Record<string, string | undefined> = process.env,
  note: (s: string) => void = (s) => process.stderr.write(s),
): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { id: { type: 'string' }, label: { type: 'string' }, scope: { type: 'string' } },
  })
  const [command, arg, third] = positionals
  const waitlistOk = command === 'waitlist' && (arg === 'list' || ((arg === 'approve' || arg === 'decline') && third))
  if (
    !command ||
    !['create', 'list', 'mint-key', 'waitlist', 'owner-link'].includes(command) ||
    (command !== 'list' && command !== 'owner-link' && !arg) ||
    (command === 'waitlist' && !waitlistOk)
  ) {
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
      note(
        `team: using the Redis at ${url.hostname}:${url.port || 6379} (REDIS_URL and REDIS_CLUSTER_NODES are ` +
          `unset; LOCAL_REDIS names it)\n`,
      )
    }
  } catch (err) {
    out(`error: ${err instanceof Error ? err.message : String(err)}\n`)
    return 1
  }
  const store = new Store(settings)
  const teams = new Teams(store, settings.revokedKeyRetentionMs)
  try {
    if (command === 'create') {
      const r = await teams.create({ name: arg, teamId: values.id })
      if (!r.created) {
        out(`team ${r.team.teamId} already exists; no key was minted\n`)
        return 1
      }
      out(`created team ${r.team.teamId} (${r.team.name})\nkey (shown once): ${r.key}\n`)
    } else if (command === 'waitlist') {
      await waitlist(new Accounts(store, settings), settings, arg!, third, out)
    } else if (command === 'owner-link') {
      await teams.requireTeam(DEFAULT_TEAM_ID)
      const { email, token } = await new Accounts(store, settings).inviteFirstOwner(DEFAULT_TEAM_ID)
      out(
        `sign-in link for ${email}, owner of team ${DEFAULT_TEAM_ID} ` +
          `(works once, within ${OWNER_LINK_TTL_MS / 60_000} minutes):\n${signInLinkOf(publicBase(settings), token)}\n`,
      )
    } else if (command === 'list') {
      for (const t of await teams.list()) out(`${t.teamId}\t${t.name}\t${t.createdAt}\n`)
    } else {
      await teams.requireTeam(arg!)
      const input = { scope: values.scope ?? 'admin', ...(values.label ? { label: values.label } : {}) }
      const { key, info } = await teams.mintTeamKey(arg!, input)
      out(`minted ${info.keyId} (${info.scope} scope) for team ${arg}\nkey (shown once): ${key}\n`)
    }
    return 0
  } catch (err) {
    out(`error: ${err instanceof AppError || err instanceof Error ? err.message : String(err)}\n`)
    return 1
  } finally {
    await store.close()
  }
}

/** `team waitlist …`: an approval mails the sign-in link (printed instead when SMTP_URL is unset, in development). */
async function waitlist(
  accounts: Accounts,
  settings: Settings,
  action: string,
  address: string | undefined,
  out: (s: string) => void,
): Promise<void> {
  if (action === 'list') {
    for (const e of await accounts.waitlist()) out(`${e.email}\t${e.state}\t${e.at}\t${e.note.replace(/\s+/g, ' ')}\n`)
    return
  }
  const { entry, token } = await accounts.decideWaitlist(address!, action === 'approve' ? 'approve' : 'decline')
  if (!token) {
    out(`declined ${entry.email}\n`)
    return
  }
  const link = signInLinkOf(publicBase(settings), token)
  const mailer = new Mailer(settings, createLogger('silent'))
  try {
    if (mailer.toLog)
      out(
        `approved ${entry.email}; SMTP_URL is not set, so no mail was sent. Give them this sign-in link (it ` +
          `works once):\n${link}\n`,
      )
    else {
      await mailer.send({
        to: entry.email,
        subject: 'You are in: your agentrooms sign-in link',
        ...approvalMail(link, settings.signInLinkTtlMs, new URL(link).origin),
      })
      out(`approved ${entry.email}; a sign-in link was mailed to it\n`)
    }
  } finally {
    mailer.close()
  }
}

/** Where people reach the service: PUBLIC_URL, else this machine on the configured port. */
function publicBase(settings: Settings): string {
  return settings.publicUrl ?? `http://localhost:${settings.port}`
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runTeamsCli(process.argv.slice(2)).then((code) => process.exit(code))
}
