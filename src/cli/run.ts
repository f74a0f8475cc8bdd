// The agentrooms command line (docs/cli.md): argument parsing, the commands, exit codes. An HTTP
// client of a running service only, with the address in AGENTROOMS_URL and a key in
// AGENTROOMS_KEY. src/cli/main.ts is the process entry.
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { createRoom, parseAgents, renderText } from './create-room.js'
import {
  ENV_AGENT,
  ENV_OVERRIDE,
  ENV_ROOM,
  GUARD_TIMEOUT_MS,
  guard,
  guardTarget,
  installGuard,
  selfCommand,
} from './guard.js'
import { HOOK_CLIENTS, MAX_BLOCKS_DEFAULT, hookConfigs, type HookClient } from '../shared/hook-configs.js'
import { HOOK_WAIT_MAX_S, runStopHook } from './hook.js'
import { CliError, DEFAULT_URL, ENV_KEY, ENV_URL, Service } from './service.js'

export const USAGE = `usage: agentrooms <command> [options]

  agentrooms create-room <name> --agents <id,id,…> [options]
    Creates a room and prints, for every agent, MCP client configuration for Claude Code, Cursor,
    VS Code, Codex and other clients.

    <name>               the room's name; its id is the name when it is a valid id, else a slug of it
    --agents a,b,c       the agents' ids (agent_id in every tool call)
    --template <t>       blank (default), web-app or incident
    --id <roomId>        the room id to use instead of one made from the name
    --invite             accepted, and what always happens: each agent gets a room invite key
                         of its own (it reaches this room only; never the team key)
    --json               print one JSON document (for scripts) instead of text

  agentrooms guard --room <roomId> --agent <agentId>
    The git pre-commit check: refuses a commit that stages files another agent reserved
    exclusively (reserve_files). ${ENV_OVERRIDE}=1 commits over them; an unreachable service
    lets the commit through with a warning.

  agentrooms guard install [--room <roomId>] [--agent <agentId>] [--force]
    Writes that check as the pre-commit hook of the repository in the current directory. Without
    --room or --agent the hook reads ${ENV_ROOM} or ${ENV_AGENT} when it runs.

  agentrooms hook claude-stop|codex-stop|cursor-stop --room <roomId> --agent <agentId> [options]
    A coding agent's Stop hook: reads the hook's JSON on stdin and keeps the agent going (prints the
    client's "continue" answer with what to read) when something is new for it, or prints nothing.
    It consumes nothing.

    --wait <s>           wait up to s seconds for something new (0-${HOOK_WAIT_MAX_S}, default 0: look once)
    --mentions           only events that name @agent or reply to its events (tasks and reviews always)
    --max-blocks <n>     let the agent stop after n consecutive blocks in a session (default ${MAX_BLOCKS_DEFAULT})

  agentrooms hook config --room <roomId> --agent <agentId> [--wait s] [--mentions] [--max-blocks n]
    Prints the hook configuration of Claude Code (command and HTTP), Codex and Cursor.

environment:
  ${ENV_URL}         the service, default ${DEFAULT_URL}
  ${ENV_KEY}         a team key (ar_team_…), printed at the service's first start; guard also
                         takes the agent's room invite key (ar_room_…)
`

type Out = (s: string) => void

const COMMON = { help: { type: 'boolean', short: 'h', default: false } } as const
const OPTIONS = {
  'create-room': {
    ...COMMON,
    agents: { type: 'string' },
    template: { type: 'string' },
    id: { type: 'string' },
    invite: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
  guard: { ...COMMON, room: { type: 'string' }, agent: { type: 'string' }, force: { type: 'boolean', default: false } },
  hook: {
    ...COMMON,
    room: { type: 'string' },
    agent: { type: 'string' },
    wait: { type: 'string' },
    mentions: { type: 'boolean', default: false },
    'max-blocks': { type: 'string' },
  },
} as const satisfies Record<string, ParseArgsConfig['options']>

type Command = keyof typeof OPTIONS

/** Runs the CLI; resolves with the process exit code (0 ok, 1 the service refused or is unreachable, 2 usage). */
export async function runCli(
  argv: string[],
  env: Record<string, string | undefined>,
  out: Out,
  err: Out,
  cwd: string = process.cwd(),
  stdin: () => Promise<string> = async () => '',
): Promise<number> {
  try {
    // First with every command's options, to find the command wherever the options stand; then
    // with that command's own, so an option of another command is refused.
    const all = { ...OPTIONS['create-room'], ...OPTIONS.guard, ...OPTIONS.hook }
    const command = parseArgs({ args: argv, allowPositionals: true, options: all }).positionals[0]
    if (command === undefined || command === 'help') {
      out(USAGE)
      return command === undefined && !argv.some((a) => a === '-h' || a === '--help') ? 2 : 0
    }
    if (!Object.hasOwn(OPTIONS, command))
      throw new CliError(`unknown command ${JSON.stringify(command)}\n\n${USAGE}`, 2)
    const { positionals, values } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: OPTIONS[command as Command],
    }) as { positionals: string[]; values: Record<string, string | boolean | undefined> }
    if (values.help) {
      out(USAGE)
      return 0
    }
    const str = (k: string) => values[k] as string | undefined
    const [, name, ...rest] = positionals
    if (command === 'guard') {
      if (name === 'install') {
        if (rest.length > 0) throw new CliError(`guard install: unexpected ${JSON.stringify(rest.join(' '))}`, 2)
        const file = await installGuard(cwd, { room: str('room'), agent: str('agent') }, values.force === true)
        out(`Installed the agentrooms commit guard: ${file}\n`)
        return 0
      }
      if (name !== undefined) throw new CliError(`guard: unexpected ${JSON.stringify(name)}\n\n${USAGE}`, 2)
      const target = guardTarget({ room: str('room'), agent: str('agent') }, env, 'guard')
      return await guard(Service.fromEnv(env, 'room', GUARD_TIMEOUT_MS), target, env, cwd, err)
    }
    if (command === 'hook') {
      if (rest.length > 0) throw new CliError(`hook: unexpected ${JSON.stringify(rest.join(' '))}`, 2)
      const target = guardTarget({ room: str('room'), agent: str('agent') }, env, 'hook')
      const waitS = whole(str('wait'), '--wait', 0, HOOK_WAIT_MAX_S, 0)
      const maxBlocks = whole(str('max-blocks'), '--max-blocks', 1, 1000, MAX_BLOCKS_DEFAULT)
      const mentions = values.mentions === true
      if (name === 'config') {
        const base = Service.fromEnv({ ...env, [ENV_KEY]: env[ENV_KEY] || 'unset' }, 'room').base
        const configs = hookConfigs({ command: selfCommand(), base, ...target, waitS, mentions, maxBlocks })
        out(configs.map((c) => `${c.title}, ${c.file}:\n${c.text}\n`).join('\n'))
        return 0
      }
      const client = HOOK_CLIENTS.find((c) => name === `${c}-stop`)
      if (client === undefined)
        throw new CliError(
          `hook: ${name === undefined ? 'which hook?' : `unknown hook ${JSON.stringify(name)}`} (one of ` +
            `${HOOK_CLIENTS.map((c) => `${c}-stop`).join(', ')}, config)\n\n${USAGE}`,
          2,
        )
      const service = Service.fromEnv(env, 'room', (waitS + 15) * 1000)
      const opts = { client: client as HookClient, ...target, waitS, mentions, maxBlocks }
      const answer = await runStopHook(service, opts, await stdin(), env)
      if (answer !== '') out(`${answer}\n`)
      return 0
    }
    if (name === undefined || name.trim() === '')
      throw new CliError(`create-room: the room name is missing\n\n${USAGE}`, 2)
    if (rest.length > 0)
      throw new CliError(`create-room: unexpected ${JSON.stringify(rest.join(' '))}; quote a name with spaces`, 2)
    const agents = parseAgents(str('agents'))
    const service = Service.fromEnv(env)
    const result = await createRoom(service, {
      name: name.trim(),
      agents,
      template: str('template'),
      roomId: str('id'),
    })
    out(values.json ? `${JSON.stringify(result, null, 2)}\n` : renderText(result))
    return 0
  } catch (e) {
    if (e instanceof CliError) {
      err(`agentrooms: ${e.message}\n`)
      return e.exitCode
    }
    // parseArgs' own errors (unknown option, missing value) are usage errors.
    if (e instanceof TypeError && 'code' in e && String(e.code).startsWith('ERR_PARSE_ARGS')) {
      err(`agentrooms: ${e.message}\n\n${USAGE}`)
      return 2
    }
    throw e
  }
}

/** A whole number option within [min, max], or `dflt` when absent. */
function whole(v: string | undefined, flag: string, min: number, max: number, dflt: number): number {
  if (v === undefined) return dflt
  const n = Number(v)
  if (!/^\d+$/.test(v.trim()) || n < min || n > max)
    throw new CliError(`${flag}: must be a whole number from ${min} to ${max} (got ${JSON.stringify(v)})`, 2)
  return n
}
