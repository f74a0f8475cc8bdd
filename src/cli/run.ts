// The agentrooms command line (docs/cli.md): argument parsing, the commands, exit codes. An HTTP
// client of a running service only, with the address in AGENTROOMS_URL and a team key in
// AGENTROOMS_KEY. src/cli/main.ts is the process entry.
import { parseArgs } from 'node:util'
import { createRoom, parseAgents, renderText } from './create-room.js'
import { CliError, DEFAULT_URL, ENV_KEY, ENV_URL, Service } from './service.js'

export const USAGE = `usage: agentrooms create-room <name> --agents <id,id,…> [options]

Creates a room and prints, for every agent, MCP client configuration for Claude Code, Cursor,
VS Code, Codex and other clients.

  <name>                 the room's name; its id is the name when it is a valid id, else a slug of it
  --agents a,b,c         the agents' ids (agent_id in every tool call)
  --template <t>         blank (default), web-app or incident
  --id <roomId>          the room id to use instead of one made from the name
  --invite               accepted, and what always happens: each agent gets a room invite key
                         of its own (it reaches this room only; never the team key)
  --json                 print one JSON document (for scripts) instead of text

environment:
  ${ENV_URL}         the service, default ${DEFAULT_URL}
  ${ENV_KEY}         a team key (ar_team_…), printed at the service's first start
`

type Out = (s: string) => void

/** Runs the CLI; resolves with the process exit code (0 ok, 1 the service refused or is unreachable, 2 usage). */
export async function runCli(
  argv: string[],
  env: Record<string, string | undefined>,
  out: Out,
  err: Out,
): Promise<number> {
  try {
    const { positionals, values } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        agents: { type: 'string' },
        template: { type: 'string' },
        id: { type: 'string' },
        invite: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    })
    const [command, name, ...rest] = positionals
    if (values.help || command === 'help' || command === undefined) {
      out(USAGE)
      return command === undefined && !values.help ? 2 : 0
    }
    if (command !== 'create-room') throw new CliError(`unknown command ${JSON.stringify(command)}\n\n${USAGE}`, 2)
    if (name === undefined || name.trim() === '')
      throw new CliError(`create-room: the room name is missing\n\n${USAGE}`, 2)
    if (rest.length > 0)
      throw new CliError(`create-room: unexpected ${JSON.stringify(rest.join(' '))}; quote a name with spaces`, 2)
    const agents = parseAgents(values.agents)
    const service = Service.fromEnv(env)
    const result = await createRoom(service, {
      name: name.trim(),
      agents,
      template: values.template,
      roomId: values.id,
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
