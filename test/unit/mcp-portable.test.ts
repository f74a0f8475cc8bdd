// tools/list through the real converters of the agent frameworks, in both protocol eras (no Redis:
// listing runs no tool): OpenAI Agents' strict conversion, the AI SDK's MCP client, LangChain's
// MCP adapters with its strict OpenAI conversion, and Gemini's function-declaration subset. Each
// must take every tool as it is: no fallback to non-strict, no warning, no schema it rewrites,
// no tool it drops. The lists come from the node's own pipeline (src/mcp/pipeline.ts), as a
// client over HTTP gets them: a team key's, and the bound listings of credentials that fix the
// agent, the room or both.
import { createMCPClient } from '@ai-sdk/mcp'
import { convertToOpenAITool } from '@langchain/core/utils/function_calling'
import { loadMcpTools } from '@langchain/mcp-adapters'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage, Tool } from '@modelcontextprotocol/sdk/types.js'
import { mcpToFunctionTool, type MCPServer } from '@openai/agents-core'
import t, { type Test } from 'tap'
import type { Principal } from '../../src/auth/principal.js'
import { McpHost } from '../../src/mcp/host.js'
import { mcpPipeline, type McpExchange, type McpInbound } from '../../src/mcp/pipeline.js'
import { ALL_TOOLS } from '../../src/mcp/tools/index.js'
import { META } from '../../src/mcp/wire.js'

const TEAM: Principal = { kind: 'team', teamId: 'tm_portable', keyId: 'k1', scope: 'admin', access: 'write' }
/** The bound listings (src/mcp/host.ts listFor): what the credential fixes is left out of every tool. */
const BOUND: Record<string, Principal> = {
  'an invite key bound to an agent (room and agent bound)': {
    kind: 'room',
    teamId: 'tm_portable',
    roomId: 'r1',
    tokenId: 't1',
    scope: 'agent',
    access: 'write',
    agentId: 'alice',
  },
  'a grant for every room (agent bound)': {
    kind: 'grant',
    teamId: 'tm_portable',
    roomId: undefined,
    grantId: 'g1',
    agentId: 'worker',
    scope: 'agent',
    access: 'write',
  },
  'an invite key (room bound)': {
    kind: 'room',
    teamId: 'tm_portable',
    roomId: 'r1',
    tokenId: 't2',
    scope: 'agent',
    access: 'write',
  },
}
const MODERN = '2026-07-28'

// Only the realtime hub's resync hook and the node's drain hook are touched when the host is made
// (listen streams); the rest is used by tool calls and listens, which this test never makes.
const host = new McpHost({
  hub: { onResync: () => () => {} },
  lifecycle: { onDrain: () => () => {} },
} as unknown as ConstructorParameters<typeof McpHost>[0])
const serve = mcpPipeline(host)
t.before(() => host.start())
t.teardown(() => host.stop())

type Headers = Pick<McpInbound, 'protocolVersion' | 'method' | 'name'>

/** One message through the pipeline, as the HTTP transport hands it on; resolves to the reply. */
function send(body: object, headers: Headers = {}, principal = TEAM): Promise<JSONRPCMessage | undefined> {
  return new Promise((resolve) => {
    const io: McpExchange = {
      answer: (_status, message) => resolve(message as JSONRPCMessage | undefined),
      openReply: (shape) => ({
        reply: (m) => resolve(shape.decorate ? shape.decorate(m) : m),
        notify: () => {},
        startStream: () => {},
      }),
      aborted: false,
      onAbort: () => {},
    }
    const inbound: McpInbound = {
      principal,
      profile: 'full',
      accept: { canStream: false, streamOnly: false },
      ...headers,
      body: Buffer.from(JSON.stringify(body)),
    }
    void serve(inbound, io)
  })
}

async function listOf(era: 'legacy' | 'modern', principal = TEAM): Promise<{ tools: Tool[] }> {
  const reply =
    era === 'legacy'
      ? await send({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, {}, principal)
      : await send(
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/list',
            params: {
              _meta: {
                [META.protocolVersion]: MODERN,
                [META.clientInfo]: { name: 'portable-test', version: '1' },
                [META.clientCapabilities]: {},
              },
            },
          },
          { protocolVersion: MODERN, method: 'tools/list' },
          principal,
        )
  const result = (reply as { result?: { tools: Tool[] } }).result
  if (!result) throw new Error(`tools/list (${era}) failed: ${JSON.stringify(reply)}`)
  return result
}

/**
 * A client transport into the pipeline that answers tools/list with the given era's list (a client
 * library speaks the legacy era; the modern list is the same tools, decorated): what a framework
 * client reads, through its own initialize and list calls.
 */
class PipeTransport implements Transport {
  onmessage?: (m: JSONRPCMessage) => void
  onclose?: () => void
  onerror?: (e: Error) => void
  constructor(private readonly list: object) {}
  async start(): Promise<void> {}
  async close(): Promise<void> {
    this.onclose?.()
  }
  async send(m: JSONRPCMessage): Promise<void> {
    const req = m as { id?: number | string; method?: string }
    const reply =
      req.method === 'tools/list' && req.id !== undefined
        ? ({ jsonrpc: '2.0', id: req.id, result: this.list } as JSONRPCMessage)
        : await send(m)
    if (reply && req.id !== undefined) queueMicrotask(() => this.onmessage?.(reply))
  }
}

/** Warnings a converter prints while it runs `fn` (OpenAI Agents warns on a strict-mode fallback). */
async function warningsOf<T>(fn: () => Promise<T> | T): Promise<{ value: T; warnings: string[] }> {
  const warnings: string[] = []
  const saved = { warn: console.warn, error: console.error }
  console.warn = (...a: unknown[]) => void warnings.push(a.map(String).join(' '))
  console.error = console.warn
  try {
    return { value: await fn(), warnings }
  } finally {
    Object.assign(console, saved)
  }
}

const SERVER = { name: 'agentrooms' } as MCPServer

/**
 * OpenAI's strict rules, by the OpenAI Agents SDK's own converter: the schema must convert
 * strictly and come out unchanged (a schema it had to rewrite, e.g. an optional property it made
 * required, is one LangChain's strict conversion would send as it is, and OpenAI refuse).
 */
function openAiStrict(t: Test, name: string, schema: unknown, via: string): void {
  const ft = mcpToFunctionTool({ name, description: 'd', inputSchema: schema } as never, SERVER, true)
  t.equal(ft.strict, true, `${via}: ${name} converts strictly`)
  t.same(ft.parameters, schema, `${via}: ${name} is strict as listed (the conversion changes nothing)`)
}

const GEMINI_KEYS = new Set([
  'type',
  'description',
  'enum',
  'properties',
  'required',
  'items',
  'anyOf',
  'format',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'title',
  'additionalProperties',
])
const GEMINI_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object'])

/**
 * Offenders against Gemini's function-declaration schema: a keyword outside its subset, a
 * property without a type, a type that is not one type or one type and null (which clients map
 * to `nullable`), a non-string enum value, an object without properties, properties or required
 * on a non-object, and additionalProperties other than false (which its clients drop).
 */
export function geminiOffenders(node: unknown, where: string): string[] {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return [`${where}: not a schema`]
  const n = node as Record<string, unknown>
  const out: string[] = []
  for (const k of Object.keys(n)) if (!GEMINI_KEYS.has(k)) out.push(`${where}: keyword ${k}`)
  const types = (Array.isArray(n.type) ? n.type : [n.type]).filter((x) => x !== 'null')
  if (n.type === undefined) out.push(`${where}: no type`)
  else if (types.length !== 1 || !GEMINI_TYPES.has(types[0] as string)) out.push(`${where}: type ${String(n.type)}`)
  if (Array.isArray(n.enum) && n.enum.some((v) => typeof v !== 'string' && v !== null))
    out.push(`${where}: a non-string enum value`)
  if (n.additionalProperties !== undefined && n.additionalProperties !== false)
    out.push(`${where}: additionalProperties ${JSON.stringify(n.additionalProperties)}`)
  if (types[0] === 'object') {
    const props = (n.properties ?? {}) as Record<string, unknown>
    if (Object.keys(props).length === 0) out.push(`${where}: an object without properties`)
    for (const [k, v] of Object.entries(props)) out.push(...geminiOffenders(v, `${where}.${k}`))
    for (const r of (n.required ?? []) as string[]) if (!(r in props)) out.push(`${where}: required ${r} not listed`)
  } else if (n.properties !== undefined || n.required !== undefined) out.push(`${where}: properties on a non-object`)
  if (types[0] === 'array') out.push(...geminiOffenders(n.items, `${where}[]`))
  return out
}

const LISTINGS: [string, Principal, number][] = [
  ['a team key', TEAM, ALL_TOOLS.length],
  ...Object.entries(BOUND).map(([k, p]): [string, Principal, number] => [
    k,
    p,
    ALL_TOOLS.filter((d) => d.scope === 'room').length,
  ]),
]

for (const [who, principal, count] of LISTINGS)
  for (const era of ['legacy', 'modern'] as const) {
    t.test(`${era} era, ${who}: every framework takes every tool as listed`, async (t) => {
      const list = await listOf(era, principal)
      t.equal(list.tools.length, count, 'every tool it may call is listed')
      const listed = new Map(list.tools.map((tool) => [tool.name, tool.inputSchema]))

      t.test('OpenAI Agents: strict conversion, no fallback, no warning', async (t) => {
        const { warnings } = await warningsOf(() => {
          for (const tool of list.tools) openAiStrict(t, tool.name, tool.inputSchema, 'listed')
        })
        t.same(warnings, [], 'no warning')
      })

      t.test('AI SDK: its MCP client passes every schema on unchanged', async (t) => {
        const { value: tools, warnings } = await warningsOf(async () => {
          const client = await createMCPClient({ transport: new PipeTransport(list) })
          try {
            return await client.tools()
          } finally {
            await client.close()
          }
        })
        t.same(warnings, [], 'no warning')
        t.same(Object.keys(tools).sort(), [...listed.keys()].sort(), 'no tool dropped')
        for (const [name, tool] of Object.entries(tools)) {
          const schema = await (tool.inputSchema as { jsonSchema: unknown }).jsonSchema
          t.same(schema, listed.get(name), `${name}: unchanged`)
          openAiStrict(t, name, schema, 'AI SDK')
        }
      })

      t.test("LangChain: the adapters' tools convert to strict OpenAI tools", async (t) => {
        const client = new Client({ name: 'langchain-test', version: '1' })
        const { value: tools, warnings } = await warningsOf(async () => {
          await client.connect(new PipeTransport(list))
          try {
            return await loadMcpTools('agentrooms', client, { throwOnLoadError: true })
          } finally {
            await client.close()
          }
        })
        t.same(warnings, [], 'no warning')
        t.same(tools.map((x) => x.name).sort(), [...listed.keys()].sort(), 'no tool dropped')
        for (const tool of tools) {
          const fn = convertToOpenAITool(tool, { strict: true }).function as { strict?: boolean; parameters: unknown }
          t.equal(fn.strict, true, `${tool.name}: strict`)
          t.same(fn.parameters, listed.get(tool.name), `${tool.name}: passed on unchanged`)
          openAiStrict(t, tool.name, fn.parameters, 'LangChain')
        }
      })

      t.test('Gemini: within the function-declaration subset', async (t) => {
        for (const tool of list.tools) t.same(geminiOffenders(tool.inputSchema, tool.name), [], tool.name)
      })
    })
  }

t.test('the Gemini check finds what Gemini refuses', async (t) => {
  const o = (properties: object) => geminiOffenders({ type: 'object', properties }, 'x')
  t.same(geminiOffenders({ type: 'object', properties: {} }, 'x'), ['x: an object without properties'])
  t.same(o({ data: {} }), ['x.data: no type'])
  t.same(o({ a: { type: ['string', 'integer'] } }), ['x.a: type string,integer'])
  t.same(o({ a: { type: 'string', pattern: '^a' } }), ['x.a: keyword pattern'])
  t.same(o({ a: { type: 'integer', enum: [1] } }), ['x.a: a non-string enum value'])
  t.same(o({ a: { type: 'string', properties: {} } }), ['x.a: properties on a non-object'])
  t.same(o({ a: { type: ['string', 'null'] } }), [], 'one type and null is nullable')
})
