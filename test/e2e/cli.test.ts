// The room CLI end to end, as a process, against a real node on each backend: the room is created
// as asked, every printed snippet parses in its client's own format (a shell runs the Claude Code
// command, JSON.parse reads the Cursor, VS Code and generic files, a TOML parser reads Codex's),
// and the MCP configuration each one holds works: an SDK 1.x client connects with exactly the
// printed URL and header and calls heartbeat as the agent. Then the errors a user meets.
import t, { type Test } from 'tap'
import { execFile, spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { parse as parseToml } from 'smol-toml'
import type { CreateRoomResult } from '../../src/cli/create-room.js'
import type { Snippets } from '../../src/shared/snippets.js'
import { callTool } from '../helpers/mcp.js'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { freePort } from '../helpers/redis.js'
import { BACKENDS, uid } from '../helpers/shared.js'

const sh = promisify(execFile)

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the CLI (src/cli/main.ts through tsx) with only the given environment. */
function cli(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** The text output's agent sections: agent id -> snippet title -> snippet text. */
function sections(text: string): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>()
  const parts = text.split(/^=== agent_id "(.+)" in room_id ".+" ===$/m)
  for (let i = 1; i < parts.length; i += 2) {
    const snippets = new Map<string, string>()
    for (const block of parts[i + 1]!.split(/\n\n/)) {
      const m = /^(.+), agent_id "(.+)":\n([\s\S]+)$/.exec(block.trim())
      if (m) snippets.set(m[1]!, m[3]!)
    }
    out.set(parts[i]!, snippets)
  }
  return out
}

interface Endpoint {
  url: string
  authorization: string
}

/** Runs the Claude Code command in a real shell with a stand-in `claude` that records its argv. */
async function claudeArgv(command: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'ar-claude-'))
  try {
    writeFileSync(join(dir, 'claude'), `#!/bin/sh\nprintf '%s\\n' "$@" > "${dir}/argv"\n`)
    chmodSync(join(dir, 'claude'), 0o755)
    await sh('sh', ['-c', command], { env: { PATH: `${dir}:${process.env.PATH}` } })
    return readFileSync(join(dir, 'argv'), 'utf8').trimEnd().split('\n')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The URL and Authorization header of each snippet, read in that client's format. */
async function endpoints(t: Test, s: Snippets): Promise<Record<keyof Snippets, Endpoint>> {
  const argv = await claudeArgv(s.claude_code)
  t.same(
    argv.slice(0, 5),
    ['mcp', 'add', '--transport', 'http', 'agentrooms'],
    'claude mcp add --transport http agentrooms …',
  )
  t.equal(argv[6], '--header')
  const header = /^Authorization: (.+)$/.exec(argv[7] ?? '')
  t.ok(header, 'one --header "Authorization: …"')
  const cursor = JSON.parse(s.cursor).mcpServers.agentrooms
  const vscode = JSON.parse(s.vscode).servers.agentrooms
  t.equal(vscode.type, 'http', 'VS Code: type http under "servers"')
  const codex = (
    parseToml(s.codex) as { mcp_servers: Record<string, { url: string; http_headers: Record<string, string> }> }
  ).mcp_servers.agentrooms!
  const generic = JSON.parse(s.generic).mcpServers.agentrooms
  t.equal(generic.type, 'http')
  return {
    claude_code: { url: argv[5]!, authorization: header?.[1] ?? '' },
    cursor: { url: cursor.url, authorization: cursor.headers.Authorization },
    vscode: { url: vscode.url, authorization: vscode.headers.Authorization },
    codex: { url: codex.url, authorization: codex.http_headers.Authorization! },
    generic: { url: generic.url, authorization: generic.headers.Authorization },
  }
}

/**
 * Connects an SDK 1.x client with exactly `e` and calls heartbeat as `agent` in `room`, or (room
 * and agent undefined) naming neither: as the connection is bound.
 */
async function heartbeatWith(
  e: Endpoint,
  room?: string,
  agent?: string,
): Promise<{ isError: boolean; body: Record<string, unknown> }> {
  const client = new Client({ name: 'cli-snippet-test', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(e.url), { requestInit: { headers: { Authorization: e.authorization } } }),
  )
  try {
    return await callTool(client, 'heartbeat', room === undefined ? {} : { room_id: room, agent_id: agent })
  } finally {
    await client.close()
  }
}

async function online(n: TestNode, key: string, room: string): Promise<string[]> {
  const snap = (await (await n.call(`/room/${room}`, { key })).json()) as {
    presence: { online: { agent_id: string }[] }
  }
  return snap.presence.online.map((a) => a.agent_id).sort()
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const n = await startNode(t, backend)

    t.test('create-room prints snippets for every client; each one connects as its agent', async (t) => {
      const team = await newTeam(n)
      const r = await cli(
        ['create-room', 'Payments API', '--agents', 'planner,backend,frontend', '--template', 'web-app'],
        { AGENTROOMS_URL: n.base, AGENTROOMS_KEY: team.key },
      )
      t.equal(r.code, 0, r.stderr)
      t.match(
        r.stdout,
        new RegExp(
          /^Created room payments-api \("Payments API", template web-app\)\. /.source +
            /MCP endpoint: http:\/\/127\.0\.0\.1:\d+\/mcp$/.source,
          'm',
        ),
        'the room id, from the name',
      )
      const rooms = (await (await n.call('/admin/rooms', { key: team.key })).json()) as {
        rooms: { roomId: string; name: string; template: string }[]
      }
      t.match(
        rooms.rooms,
        [{ roomId: 'payments-api', name: 'Payments API', template: 'web-app' }],
        'the room exists with its name and template',
      )

      t.match(
        r.stdout,
        new RegExp(
          /^Claude Code \(run in the agent's project\), signing in:\n/.source +
            /claude mcp add --transport http agentrooms http:\/\/127\.0\.0\.1:\d+\/mcp$/.source,
          'm',
        ),
        'the OAuth form, the URL alone, beside the key forms',
      )
      const agents = sections(r.stdout)
      t.same([...agents.keys()], ['planner', 'backend', 'frontend'], 'one section per agent, each naming its agent_id')
      for (const [agent, snippets] of agents) {
        t.same(
          [...snippets.keys()],
          [
            "Claude Code (run in the agent's project)",
            'Cursor (.cursor/mcp.json)',
            'VS Code (.vscode/mcp.json)',
            'Codex (~/.codex/config.toml)',
            'Other clients (JSON with "mcpServers")',
          ],
        )
        const [claude, cursor, vscode, codex, generic] = [...snippets.values()]
        t.match(
          codex,
          new RegExp(`^# agentrooms: agent_id "${agent}", room_id "payments-api"$`, 'm'),
          "Codex's file notes the agent_id",
        )
        const eps = await endpoints(t, {
          claude_code: claude!,
          cursor: cursor!,
          vscode: vscode!,
          codex: codex!,
          generic: generic!,
        })
        for (const [client, e] of Object.entries(eps)) {
          t.equal(
            e.url,
            `${n.base}/mcp?agent=${agent}&room=payments-api`,
            `${agent} / ${client}: the endpoint, bound to the agent and the room`,
          )
          t.match(e.authorization, /^Bearer ar_room_/, `${agent} / ${client}: a room invite key, never the team key`)
          const hb = await heartbeatWith(e)
          t.notOk(hb.isError, `${agent} / ${client}: heartbeat works with exactly the printed configuration`)
          t.equal(hb.body.room_id, 'payments-api')
        }
      }
      t.same(
        await online(n, team.key, 'payments-api'),
        ['backend', 'frontend', 'planner'],
        'all three agents are online in the room',
      )
    })

    t.test('--invite --json: a room invite key per agent, reaching this room only', async (t) => {
      const team = await newTeam(n)
      const other = uid('other')
      t.equal((await n.call('/admin/rooms', { method: 'POST', key: team.key, json: { roomId: other } })).status, 201)
      const r = await cli(['create-room', 'checkout', '--agents', 'alice,bob', '--invite', '--json'], {
        AGENTROOMS_URL: `${n.base}/`,
        AGENTROOMS_KEY: team.key,
      })
      t.equal(r.code, 0, r.stderr)
      const out = JSON.parse(r.stdout) as CreateRoomResult
      t.equal(out.room.roomId, 'checkout')
      t.equal(out.mcp_url, `${n.base}/mcp`, 'a trailing slash in AGENTROOMS_URL is dropped')
      t.same(
        out.agents.map((a) => [a.agent_id, a.key_kind]),
        [
          ['alice', 'invite'],
          ['bob', 'invite'],
        ],
      )
      const keys = out.agents.map((a) => a.key)
      t.ok(keys.every((k) => k.startsWith('ar_room_')) && new Set(keys).size === 2, 'two different invite keys')
      for (const a of out.agents) {
        t.equal(a.url, `${out.mcp_url}?agent=${a.agent_id}&room=checkout`, `${a.agent_id}: the bound URL`)
        const eps = await endpoints(t, a.snippets)
        for (const [client, e] of Object.entries(eps)) {
          t.same(e, { url: a.url, authorization: `Bearer ${a.key}` }, `${a.agent_id} / ${client}: its own key`)
          t.notOk(
            (await heartbeatWith(e, 'checkout', a.agent_id)).isError,
            `${a.agent_id} / ${client}: heartbeat works`,
          )
        }
        const elsewhere = await heartbeatWith(eps.generic, other, a.agent_id)
        t.ok(elsewhere.isError, 'the invite key does not reach another room of the team')
        t.match(elsewhere.body, { error: { code: 'not_found' } })
      }
      const invites = (await (await n.call('/admin/rooms/checkout/invites', { key: team.key })).json()) as {
        invites: { tokenId: string; label: string }[]
      }
      t.same(
        invites.invites.map((i) => [i.tokenId, i.label]),
        out.agents.map((a) => [a.invite_token_id, `agent ${a.agent_id}`]),
        'each invite is labelled with its agent (for revoking it later)',
      )
    })
  })
}

t.test('errors say what to do (they do not depend on the backend)', async (t) => {
  const n = await startNode(t, 'standalone')
  const team = await newTeam(n)
  const env = { AGENTROOMS_URL: n.base, AGENTROOMS_KEY: team.key }

  const noKey = await cli(['create-room', 'x', '--agents', 'a'], { AGENTROOMS_URL: n.base })
  t.equal(noKey.code, 2, 'a missing key is a usage error')
  t.match(noKey.stderr, /AGENTROOMS_KEY is not set: export the team key/)

  const port = await freePort()
  const down = await cli(['create-room', 'x', '--agents', 'a'], { ...env, AGENTROOMS_URL: `http://127.0.0.1:${port}` })
  t.equal(down.code, 1)
  t.match(
    down.stderr,
    `cannot reach the service at http://127.0.0.1:${port} (ECONNREFUSED): is it running? Set AGENTROOMS_URL`,
  )

  t.equal((await cli(['create-room', 'taken', '--agents', 'a'], env)).code, 0)
  const taken = await cli(['create-room', 'taken', '--agents', 'b'], env)
  t.equal(taken.code, 1)
  t.match(taken.stderr, /room "taken" already exists in this team: choose another name, or pass another id with --id/)
  t.equal(taken.stdout, '', 'and prints no snippets')

  const wrongKey = await cli(['create-room', 'y', '--agents', 'a'], {
    ...env,
    AGENTROOMS_KEY: `${team.key.slice(0, -4)}AAAA`,
  })
  t.equal(wrongKey.code, 1)
  t.match(wrongKey.stderr, /the service refused the key in AGENTROOMS_KEY/)

  const invite = await cli(['create-room', 'y', '--agents', 'a'], { ...env, AGENTROOMS_KEY: 'ar_room_default.abc' })
  t.equal(invite.code, 2)
  t.match(invite.stderr, /AGENTROOMS_KEY holds a room invite key \(ar_room_…\); creating rooms needs a team key/)

  const template = await cli(['create-room', 'z', '--agents', 'a', '--template', 'nope'], env)
  t.equal(template.code, 1)
  t.match(template.stderr, /400 invalid_request: template/, "the service's message names the field")

  const inside = await cli(['create-room', 'z', '--agents', 'a'], { ...env, AGENTROOMS_URL: `${n.base}/health` })
  t.equal(inside.code, 1)
  t.match(inside.stderr, /has no \/admin\/rooms: AGENTROOMS_URL must be the service's base address/)

  const other = createServer((_req, res) => res.end('<html>hello</html>'))
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r))
  t.teardown(() => other.close())
  const notService = await cli(['create-room', 'z', '--agents', 'a'], {
    ...env,
    AGENTROOMS_URL: `http://127.0.0.1:${(other.address() as AddressInfo).port}`,
  })
  t.equal(notService.code, 1)
  t.match(notService.stderr, /answered 200, not with agentrooms JSON: is AGENTROOMS_URL .* the agentrooms service\?/)

  for (const [args, message] of [
    [['create-room', 'z'], /--agents: required/],
    [['create-room', 'z', '--agents', 'a,,b'], /--agents: an empty agent id/],
    [['create-room', 'z', '--agents', 'a,b,a'], /--agents: "a" is listed twice/],
    [['create-room', '--agents', 'a'], /the room name is missing/],
    [['create-room', 'z', '--agents', 'a', '--colour', 'red'], /Unknown option '--colour'/],
    [['make-room', 'z'], /unknown command "make-room"/],
    [['create-room', '!!!', '--agents', 'a'], /name: cannot make a room id from "!!!"; pass one with --id/],
  ] as const) {
    const r = await cli([...args], env)
    t.equal(r.code, 2, `${args.join(' ')}: usage error`)
    t.match(r.stderr, message)
  }
  const help = await cli(['--help'], {})
  t.equal(help.code, 0)
  t.match(help.stdout, /AGENTROOMS_URL[\s\S]*AGENTROOMS_KEY/, '--help names the environment variables')
})
