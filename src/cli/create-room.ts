// `agentrooms create-room <name> --agents a,b,c [--template t] [--id roomId] [--json]`: creates
// the room, mints a room invite key per agent and renders MCP client configuration for every
// agent. Agents never get the team key of AGENTROOMS_KEY: creating rooms needs the admin scope,
// and an agent must not hold it.
import { CliError, ServiceError, type Service } from './service.js'
import { ROOM_ID, roomIdFromName } from '../shared/room-name.js'
import {
  SNIPPET_TITLES,
  agentBrief,
  authorization,
  boundUrl,
  oauthSnippetsFor,
  snippetsFor,
  type Snippets,
} from '../shared/snippets.js'

// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/

export interface CreateRoomInput {
  name: string
  agents: string[]
  template?: string | undefined
  roomId?: string | undefined
}

/** The room as the admin API returns it (camelCase, docs/http-api.md). */
export interface Room {
  roomId: string
  name: string
  template: string
  createdAt: string
}

export interface AgentConfig {
  agent_id: string
  room_id: string
  /** Always 'invite': each agent has a room invite key of its own. */
  key_kind: 'invite'
  /** The invite's id (for revoking it: DELETE /admin/rooms/:roomId/invites/:tokenId). */
  invite_token_id?: string
  key: string
  /** The MCP URL bound to the agent and the room (boundUrl), as every snippet has it. */
  url: string
  headers: { Authorization: string }
  brief: string
  snippets: Snippets
}

export interface CreateRoomResult {
  room: Room
  mcp_url: string
  agents: AgentConfig[]
  /** The configuration without a secret: the agent's client signs in (OAuth) and the person consents. */
  oauth_snippets: Snippets
}

/** A room id from a display name: the name itself when it is one, else a slug of it. */
export function roomIdFor(name: string): string {
  const id = roomIdFromName(name)
  if (id === undefined)
    throw new CliError(
      `name: cannot make a room id from ${JSON.stringify(name)}; pass one with --id (letters, digits, "_", "." or "-")`,
      2,
    )
  return id
}

/** Splits and checks `--agents`: at least one id, no blanks, no duplicates, each 1-128 characters. */
export function parseAgents(list: string | undefined): string[] {
  if (list === undefined || list.trim() === '')
    throw new CliError('--agents: required, e.g. --agents planner,backend,frontend', 2)
  const agents = list.split(',').map((a) => a.trim())
  for (const a of agents) {
    if (a === '') throw new CliError(`--agents: an empty agent id in ${JSON.stringify(list)}`, 2)
    if (a.length > 128)
      throw new CliError(`--agents: agent id ${JSON.stringify(a.slice(0, 20))}… is longer than 128 characters`, 2)
    if (CONTROL.test(a)) throw new CliError(`--agents: agent id ${JSON.stringify(a)} contains a control character`, 2)
  }
  const dup = agents.find((a, i) => agents.indexOf(a) !== i)
  if (dup !== undefined)
    throw new CliError(`--agents: ${JSON.stringify(dup)} is listed twice; every agent needs its own id`, 2)
  return agents
}

export async function createRoom(service: Service, input: CreateRoomInput): Promise<CreateRoomResult> {
  const roomId = input.roomId ?? roomIdFor(input.name)
  if (!ROOM_ID.test(roomId))
    throw new CliError(
      `--id: ${JSON.stringify(roomId)} is not a room id (1-64 letters, digits, "_", "." or "-", starting ` +
        `with a letter or digit)`,
      2,
    )
  const body: Record<string, string> = { roomId, name: input.name }
  if (input.template !== undefined) body.template = input.template
  let room: Room
  try {
    room = (await service.request<{ room: Room }>('POST', '/admin/rooms', body)).room
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'conflict') {
      throw new CliError(
        `room ${JSON.stringify(roomId)} already exists in this team: choose another name, or pass another id with --id`,
      )
    }
    throw err
  }

  const url = `${service.base}/mcp`
  const agents: AgentConfig[] = []
  for (const agentId of input.agents) {
    let key: string
    let tokenId: string
    const label = `agent ${agentId}`.slice(0, 100)
    try {
      const inv = await service.request<{ key: string; tokenId: string }>(
        'POST',
        `/admin/rooms/${encodeURIComponent(roomId)}/invite`,
        { label, agentId },
      )
      key = inv.key
      tokenId = inv.tokenId
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err)
      throw new CliError(
        `room ${roomId} was created, but minting the invite key of agent ${JSON.stringify(agentId)} failed: ${why}`,
      )
    }
    const access = { agentId, roomId, key, url }
    agents.push({
      agent_id: agentId,
      room_id: roomId,
      key_kind: 'invite',
      invite_token_id: tokenId,
      key,
      url: boundUrl(access),
      headers: { Authorization: authorization(key) },
      brief: agentBrief(access),
      snippets: snippetsFor(access),
    })
  }
  return { room, mcp_url: url, agents, oauth_snippets: oauthSnippetsFor(url) }
}

/** The human form of a result: the room, then one section per agent with every snippet. */
export function renderText(r: CreateRoomResult): string {
  const out: string[] = []
  const template = r.room.template === 'blank' ? '' : `, template ${r.room.template}`
  out.push(`Created room ${r.room.roomId} (${JSON.stringify(r.room.name)}${template}). MCP endpoint: ${r.mcp_url}`)
  out.push('')
  out.push(
    'Each agent has its own room invite key (it reaches this room only). Keys are shown this once; keep ' +
      'them secret.',
  )
  out.push(
    '',
    'Or connect an agent by URL alone, no secret: its client opens a browser on the service, you sign in and ' +
      `choose room ${r.room.roomId}, the agent id and the access:`,
    '',
  )
  for (const [name, title] of Object.entries(SNIPPET_TITLES) as [keyof Snippets, string][])
    out.push(`${title}, signing in:`, r.oauth_snippets[name], '')
  for (const a of r.agents) {
    if (out.at(-1) !== '') out.push('')
    out.push(`=== agent_id ${JSON.stringify(a.agent_id)} in room_id ${JSON.stringify(a.room_id)} ===`, '')
    out.push('Tell the agent:', a.brief, '')
    for (const [name, title] of Object.entries(SNIPPET_TITLES) as [keyof Snippets, string][]) {
      out.push(`${title}, agent_id ${JSON.stringify(a.agent_id)}:`, a.snippets[name], '')
    }
  }
  return `${out.join('\n').trimEnd()}\n`
}
