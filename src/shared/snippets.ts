// MCP client configuration for one agent, in each client's own format: the text to paste or to
// write to the named file. Every key form carries the same URL, bound to the agent and its room
// (boundUrl), and the same Authorization header, so a test can take any of them apart and connect
// with exactly what it holds; every OAuth form carries the URL only (the client signs in). Pure
// functions.

/** The MCP server's name in every client configuration. */
export const SERVER_NAME = 'agentrooms'

export interface AgentAccess {
  agentId: string
  roomId: string
  /** The key this agent uses: a room invite key, or the team key. */
  key: string
  /** The MCP endpoint, e.g. http://localhost:8080/mcp (the snippets bind it: boundUrl). */
  url: string
}

/**
 * The MCP URL bound to the agent and its room (docs/mcp.md "Bind a connection"):
 * `…/mcp?agent=<id>&room=<id>`. Whatever key it is used with, the connection acts as that agent
 * in that room, and its tools/list leaves agent_id and room_id out (the short listing).
 */
export function boundUrl(a: Pick<AgentAccess, 'agentId' | 'roomId' | 'url'>): string {
  const u = new URL(a.url)
  u.searchParams.set('agent', a.agentId)
  u.searchParams.set('room', a.roomId)
  return u.toString()
}

export interface Snippets {
  /** A shell command for Claude Code. */
  claude_code: string
  /** `.cursor/mcp.json` (project) or `~/.cursor/mcp.json`. */
  cursor: string
  /** `.vscode/mcp.json`: VS Code's format has "servers", not "mcpServers". */
  vscode: string
  /** `~/.codex/config.toml` (or a trusted project's `.codex/config.toml`). */
  codex: string
  /** The common "mcpServers" JSON that most other clients take. */
  generic: string
}

export const authorization = (key: string): string => `Bearer ${key}`

/** One shell word: bare when safe, else double quotes when nothing in it expands there, else single quotes. */
export function shellWord(s: string): string {
  if (/^[A-Za-z0-9_./:@%+=,-]+$/.test(s)) return s
  if (!/[$`"\\!]/.test(s)) return `"${s}"`
  return `'${s.replaceAll("'", `'\\''`)}'`
}

/**
 * A TOML basic string. JSON's string escapes (\" \\ \b \f \n \r \t \uXXXX) are all valid TOML
 * escapes and JSON.stringify escapes every control character, so its output is a TOML string.
 */
const tomlString = (s: string): string => JSON.stringify(s)

/**
 * The sentence to give the agent (system prompt or first message): who it is and where. Its
 * configuration (snippetsFor) binds the connection to both, so the tools take neither agent_id
 * nor room_id (the service fills them in) and the sentence does not ask for them.
 */
export function agentBrief(a: AgentAccess): string {
  return (
    `You are agent ${JSON.stringify(a.agentId)} in the agentrooms room ${JSON.stringify(a.roomId)}. ` +
    'Your agentrooms connection names you and the room, so its tool calls need neither agent_id nor room_id; ' +
    'start each turn with get_my_summary and send heartbeat while you work.'
  )
}

/** The agent's client configurations: the bound URL (boundUrl) with its key. */
export function snippetsFor(access: AgentAccess): Snippets {
  const a = { ...access, url: boundUrl(access) }
  const headers = { Authorization: authorization(a.key) }
  const json = (v: unknown) => JSON.stringify(v, null, 2)
  return {
    claude_code: [
      'claude',
      'mcp',
      'add',
      '--transport',
      'http',
      SERVER_NAME,
      a.url,
      '--header',
      `Authorization: ${authorization(a.key)}`,
    ]
      .map(shellWord)
      .join(' '),
    cursor: json({ mcpServers: { [SERVER_NAME]: { url: a.url, headers } } }),
    vscode: json({ servers: { [SERVER_NAME]: { type: 'http', url: a.url, headers } } }),
    codex: [
      `# agentrooms: agent_id ${tomlString(a.agentId)}, room_id ${tomlString(a.roomId)}`,
      `[mcp_servers.${SERVER_NAME}]`,
      `url = ${tomlString(a.url)}`,
      `http_headers = { Authorization = ${tomlString(authorization(a.key))} }`,
    ].join('\n'),
    generic: json({ mcpServers: { [SERVER_NAME]: { type: 'http', url: a.url, headers } } }),
  }
}

/**
 * The same clients configured by URL alone: no secret in them. The client signs in when it first
 * connects (OAuth): a browser opens on the service, the person signs in and consents, choosing the
 * room, the agent id and the access there.
 */
export function oauthSnippetsFor(url: string): Snippets {
  const json = (v: unknown) => JSON.stringify(v, null, 2)
  return {
    claude_code: ['claude', 'mcp', 'add', '--transport', 'http', SERVER_NAME, url].map(shellWord).join(' '),
    cursor: json({ mcpServers: { [SERVER_NAME]: { url } } }),
    vscode: json({ servers: { [SERVER_NAME]: { type: 'http', url } } }),
    codex: [
      `# then sign in: codex mcp login ${SERVER_NAME}`,
      `[mcp_servers.${SERVER_NAME}]`,
      `url = ${tomlString(url)}`,
    ].join('\n'),
    generic: json({ mcpServers: { [SERVER_NAME]: { type: 'http', url } } }),
  }
}

/** Titles of the snippets in the text output, in order. */
export const SNIPPET_TITLES: Record<keyof Snippets, string> = {
  claude_code: "Claude Code (run in the agent's project)",
  cursor: 'Cursor (.cursor/mcp.json)',
  vscode: 'VS Code (.vscode/mcp.json)',
  codex: 'Codex (~/.codex/config.toml)',
  generic: 'Other clients (JSON with "mcpServers")',
}
