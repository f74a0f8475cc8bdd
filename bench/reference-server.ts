// The reference for bench/mcp-throughput.ts: an MCP server built the way the SDK documents a
// stateless server (Express + StreamableHTTPServerTransport with no session id, a new McpServer
// and transport for every request), doing the same Redis work as the service for the same three
// tools: key check (cached), team rate limit, and the core operation.
import express from 'express'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { z } from 'zod'
import { Keyring } from '../src/auth/keyring.js'
import { RateLimiter } from '../src/auth/ratelimit.js'
import { credentialOf, roomFor } from '../src/auth/principal.js'
import { loadSettings } from '../src/config.js'
import { Core } from '../src/core/index.js'
import { Store } from '../src/store/store.js'

const settings = loadSettings()
const store = new Store(settings)
const core = new Core(store, settings)
const keyring = new Keyring(store)
const limiter = new RateLimiter(store, settings)

function buildServer(key: string | undefined): McpServer {
  const server = new McpServer({ name: 'reference', version: '1.0.0' })
  const room = { room_id: z.string(), agent_id: z.string() }
  const call = async (
    roomId: string,
    agent: string,
    fn: (c: { room: { teamId: string; roomId: string }; agent: string }) => Promise<unknown>,
  ) => {
    const principal = await keyring.authenticate(key)
    await limiter.check(principal.teamId, credentialOf(principal))
    const ref = roomFor(principal, roomId)
    if (!ref) throw new Error('not found')
    const result = await fn({ room: ref, agent })
    return { content: [{ type: 'text' as const, text: JSON.stringify({ room_id: roomId, ...(result as object) }) }] }
  }
  server.registerTool('heartbeat', { description: 'heartbeat', inputSchema: room }, (a) =>
    call(a.room_id, a.agent_id, (c) => core.presence.heartbeat(c)),
  )
  server.registerTool(
    'post_event',
    { description: 'post', inputSchema: { ...room, type: z.string(), text: z.string() } },
    (a) => call(a.room_id, a.agent_id, (c) => core.events.post(c, { type: a.type, text: a.text })),
  )
  server.registerTool(
    'get_unread_events',
    { description: 'unread', inputSchema: { ...room, limit: z.number().optional() } },
    (a) => call(a.room_id, a.agent_id, (c) => core.events.unread(c, { limit: a.limit })),
  )
  return server
}

const app = express()
app.use(express.json())
app.post('/mcp', async (req, res) => {
  const server = buildServer(req.headers.authorization)
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
  res.on('close', () => {
    void transport.close()
    void server.close()
  })
  await server.connect(transport)
  await transport.handleRequest(req, res, req.body)
})
app.get('/health', (_req, res) => {
  res.json({ status: 'ok' })
})
app.listen(Number(process.env.PORT ?? 8090), process.env.HOST ?? '127.0.0.1')
