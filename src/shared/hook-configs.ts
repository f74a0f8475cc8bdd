// Each coding agent's Stop-hook configuration, as the text of the file it goes in: the same text
// `agentrooms hook config` prints and the dashboard shows, so both say the same thing. The
// command forms run `agentrooms hook <client>-stop` (src/cli/hook.ts); Claude Code's HTTP form
// posts to the service's Stop-hook route and needs no local command. Pure functions.

export const HOOK_CLIENTS = ['claude', 'codex', 'cursor'] as const
export type HookClient = (typeof HOOK_CLIENTS)[number]

/** The environment variable the CLI and the HTTP hook read the key from. */
export const ENV_KEY = 'AGENTROOMS_KEY'
/** Default of --max-blocks: consecutive blocks of one session before the hook lets the agent stop. */
export const MAX_BLOCKS_DEFAULT = 8

/** The service's Stop-hook route of an agent. */
export const hookPath = (room: string, agent: string) =>
  `/rooms/${encodeURIComponent(room)}/agents/${encodeURIComponent(agent)}/hooks/stop`

/** A word as one shell word: bare when safe, else in single quotes. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`
}

export interface HookConfigInput {
  /** The command that runs the CLI, as words (e.g. ["npx", "agentrooms"]). */
  command: string[]
  /** The service's base URL (no trailing slash). */
  base: string
  room: string
  agent: string
  waitS: number
  mentions: boolean
  maxBlocks: number
}

export interface HookConfig {
  /** The file it goes in, relative to the agent's project. */
  file: string
  title: string
  text: string
}

/** Each client's hook configuration, as the text of the file it goes in. */
export function hookConfigs(c: HookConfigInput): HookConfig[] {
  const cmd = (client: HookClient) => {
    const args = ['hook', `${client}-stop`, '--room', c.room, '--agent', c.agent, '--wait', String(c.waitS)]
    if (c.mentions) args.push('--mentions')
    if (c.maxBlocks !== MAX_BLOCKS_DEFAULT) args.push('--max-blocks', String(c.maxBlocks))
    return [...c.command, ...args].map(shellQuote).join(' ')
  }
  // The client's timeout must outlast the wait, with room for the request itself.
  const timeout = c.waitS + 30
  const q = new URLSearchParams({ wait_s: String(c.waitS) })
  if (c.mentions) q.set('mentions', 'true')
  const url = `${c.base}${hookPath(c.room, c.agent)}?${q}`
  const json = (v: unknown) => JSON.stringify(v, null, 2)
  return [
    {
      file: '.claude/settings.json',
      title: 'Claude Code, command hook',
      text: json({ hooks: { Stop: [{ hooks: [{ type: 'command', command: cmd('claude'), timeout }] }] } }),
    },
    {
      file: '.claude/settings.json',
      title: 'Claude Code, HTTP hook (no local command; the key comes from the environment)',
      text: json({
        hooks: {
          Stop: [
            {
              hooks: [
                {
                  type: 'http',
                  url,
                  headers: { Authorization: `Bearer $${ENV_KEY}` },
                  allowedEnvVars: [ENV_KEY],
                  timeout,
                },
              ],
            },
          ],
        },
      }),
    },
    {
      file: '.codex/hooks.json',
      title: 'Codex',
      text: json({ hooks: { Stop: [{ hooks: [{ type: 'command', command: cmd('codex'), timeout }] }] } }),
    },
    {
      file: '.cursor/hooks.json',
      title: 'Cursor',
      text: json({ version: 1, hooks: { stop: [{ command: cmd('cursor'), loop_limit: c.maxBlocks }] } }),
    },
  ]
}
