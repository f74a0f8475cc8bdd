// The MCP conformance fixture server: an SDK 1.32 McpServer with the tools, prompts and resources
// the scenarios of @modelcontextprotocol/conformance call by name, connected to our MuxTransport
// so the suite exercises our pipeline (src/mcp/pipeline.ts), transport and reply streaming
// rather than the SDK's own HTTP transport. Written from the scenario descriptions. One shared
// server serves every client, exactly like the node's McpHost.
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js'
import { completable } from '@modelcontextprotocol/sdk/server/completable.js'
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ErrorCode,
  McpError,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import type { EndpointHost } from '../../src/mcp/pipeline.js'
import { MuxTransport } from '../../src/mcp/transport.js'
import {
  ELICIT_DEFAULTS_SCHEMA,
  ELICIT_ENUMS_SCHEMA,
  ELICIT_USER_SCHEMA,
  JSON_SCHEMA_2020_12,
  PNG_1PX,
  TEXTS,
  WAV_MINIMAL,
} from './content.js'
import { intercept, mayLog, type Extra } from './intercept.js'
import { registerModernFixtures } from './modern.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] })

export class FixtureHost implements EndpointHost {
  readonly transport = new MuxTransport()
  readonly serverInfo = { name: 'agentrooms-conformance-fixture', version: '1.0.0' }
  readonly capabilities = {
    tools: { listChanged: false },
    resources: { subscribe: true, listChanged: false },
    prompts: { listChanged: false },
    logging: {},
    completions: {},
  }
  readonly mcp: McpServer
  private readonly subscriptions = new Set<string>()

  constructor() {
    this.mcp = new McpServer(this.serverInfo, { capabilities: this.capabilities })
    this.tools()
    this.resources()
    this.prompts()
    registerModernFixtures(this.mcp)
    this.rawSchemaListing()
    // McpServer announces listChanged: true once it registers a kind; a stateless server has no
    // stream to announce changes on, and initialize must say what server/discover says.
    this.mcp.server.registerCapabilities(this.capabilities)
  }

  async start(): Promise<void> {
    await this.mcp.connect(this.transport)
  }

  async stop(): Promise<void> {
    await this.mcp.close()
  }

  private tools(): void {
    const m = this.mcp
    m.registerTool('test_simple_text', { description: 'Returns simple text content' }, async () => text(TEXTS.simple))
    m.registerTool('test_image_content', { description: 'Returns image content' }, async () => ({
      content: [{ type: 'image', data: PNG_1PX, mimeType: 'image/png' }],
    }))
    m.registerTool('test_audio_content', { description: 'Returns audio content' }, async () => ({
      content: [{ type: 'audio', data: WAV_MINIMAL, mimeType: 'audio/wav' }],
    }))
    m.registerTool('test_embedded_resource', { description: 'Returns an embedded resource' }, async () => ({
      content: [
        {
          type: 'resource',
          resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: TEXTS.embedded },
        },
      ],
    }))
    m.registerTool(
      'test_multiple_content_types',
      { description: 'Returns text, image and resource content' },
      async () => ({
        content: [
          { type: 'text', text: 'Multiple content types test:' },
          { type: 'image', data: PNG_1PX, mimeType: 'image/png' },
          {
            type: 'resource',
            resource: {
              uri: 'test://mixed-content-resource',
              mimeType: 'application/json',
              text: JSON.stringify({ test: 'data', value: 123 }),
            },
          },
        ],
      }),
    )
    m.registerTool(
      'test_tool_with_logging',
      { description: 'Sends three info log notifications while it runs', inputSchema: {} },
      async (_args, extra) => {
        for (const [i, data] of [
          'Tool execution started',
          'Tool processing data',
          'Tool execution completed',
        ].entries()) {
          if (i > 0) await sleep(50)
          if (mayLog(extra, 'info'))
            await extra.sendNotification({
              method: 'notifications/message',
              params: { level: 'info', logger: 'fixture', data },
            })
        }
        return text('Tool with logging executed successfully')
      },
    )
    m.registerTool(
      'test_tool_with_progress',
      { description: 'Reports progress 0, 50 and 100 of 100', inputSchema: {} },
      async (_args, extra) => {
        const token = extra._meta?.progressToken
        for (const progress of [0, 50, 100]) {
          if (progress > 0) await sleep(50)
          if (token !== undefined)
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress, total: 100, message: `Completed step ${progress} of 100` },
            })
        }
        return text(String(token ?? 'no progress token'))
      },
    )
    m.registerTool('test_error_handling', { description: 'Always fails with isError: true' }, async () => {
      throw new Error(TEXTS.error)
    })
    m.registerTool(
      'test_reconnection',
      { description: 'SEP-1699 polling: a stateless server cannot close and resume a stream', inputSchema: {} },
      async () => {
        await sleep(100)
        return text('Reconnection test completed successfully.')
      },
    )
    m.registerTool(
      'test_sampling',
      {
        description: 'Asks the client for an LLM completion',
        inputSchema: { prompt: z.string().describe('The prompt to send to the LLM') },
      },
      async ({ prompt }, extra) => {
        const r = await extra.sendRequest(
          {
            method: 'sampling/createMessage',
            params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 },
          },
          CreateMessageResultSchema,
        )
        const content = r.content as { type: string; text?: string }
        return text(`LLM response: ${content.type === 'text' ? content.text : JSON.stringify(content)}`)
      },
    )
    m.registerTool(
      'test_elicitation',
      {
        description: 'Asks the user for input',
        inputSchema: { message: z.string().describe('The message to show the user') },
      },
      async ({ message }, extra) => {
        const r = await this.elicit(extra, message, ELICIT_USER_SCHEMA)
        return text(`User response: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`)
      },
    )
    m.registerTool(
      'test_elicitation_sep1034_defaults',
      { description: 'Elicitation with a default for every primitive type', inputSchema: {} },
      async (_args, extra) => {
        const r = await this.elicit(
          extra,
          'Please review and update the form fields with defaults',
          ELICIT_DEFAULTS_SCHEMA,
        )
        return text(`Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`)
      },
    )
    m.registerTool(
      'test_elicitation_sep1330_enums',
      { description: 'Elicitation with the five enum shapes', inputSchema: {} },
      async (_args, extra) => {
        const r = await this.elicit(extra, 'Please select options from the enum fields', ELICIT_ENUMS_SCHEMA)
        return text(`Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`)
      },
    )
    m.registerTool(
      'json_schema_2020_12_tool',
      {
        description: 'Tool with JSON Schema 2020-12 features',
        inputSchema: {
          name: z.string().optional(),
          address: z.object({ street: z.string().optional(), city: z.string().optional() }).optional(),
        },
      },
      async (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
    )
  }

  private async elicit(extra: Extra, message: string, requestedSchema: object) {
    return extra.sendRequest(
      { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema } } as ServerRequest,
      ElicitResultSchema,
    )
  }

  private resources(): void {
    const m = this.mcp
    m.registerResource(
      'static-text',
      'test://static-text',
      { title: 'Static Text Resource', description: 'A static text resource', mimeType: 'text/plain' },
      async () => ({
        contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: TEXTS.staticText }],
      }),
    )
    m.registerResource(
      'static-binary',
      'test://static-binary',
      { title: 'Static Binary Resource', description: 'A 1x1 PNG', mimeType: 'image/png' },
      async () => ({
        contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG_1PX }],
      }),
    )
    m.registerResource(
      'watched-resource',
      'test://watched-resource',
      { title: 'Watched Resource', description: 'A resource to subscribe to', mimeType: 'text/plain' },
      async () => ({
        contents: [{ uri: 'test://watched-resource', mimeType: 'text/plain', text: TEXTS.watched }],
      }),
    )
    m.registerResource(
      'template',
      new ResourceTemplate('test://template/{id}/data', { list: undefined }),
      { title: 'Resource Template', description: 'Substitutes {id}', mimeType: 'application/json' },
      async (uri, { id }) => ({
        contents: [
          {
            uri: uri.href,
            mimeType: 'application/json',
            text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }),
          },
        ],
      }),
    )
    // SEP-2164: an unknown URI is -32602 naming the URI in data (McpServer leaves data out).
    const known = ['test://static-text', 'test://static-binary', 'test://watched-resource']
    intercept(this.mcp.server, 'resources/read', (next) => async (req, extra) => {
      const uri = String(req.params?.uri)
      if (!known.includes(uri) && !/^test:\/\/template\/[^/]+\/data$/.test(uri))
        throw new McpError(ErrorCode.InvalidParams, `Resource not found: ${uri}`, { uri })
      return next(req, extra)
    })
    this.mcp.server.setRequestHandler(SubscribeRequestSchema, async (req) => {
      this.subscriptions.add(req.params.uri)
      return {}
    })
    this.mcp.server.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
      this.subscriptions.delete(req.params.uri)
      return {}
    })
  }

  private prompts(): void {
    const m = this.mcp
    m.registerPrompt(
      'test_simple_prompt',
      { title: 'Simple Test Prompt', description: 'A prompt without arguments' },
      async () => ({
        messages: [{ role: 'user', content: { type: 'text', text: TEXTS.simplePrompt } }],
      }),
    )
    const suggestions = ['paris', 'park', 'party']
    m.registerPrompt(
      'test_prompt_with_arguments',
      {
        title: 'Prompt With Arguments',
        description: 'A prompt with two required arguments',
        argsSchema: {
          arg1: completable(z.string().describe('First test argument'), (value) =>
            suggestions.filter((s) => s.startsWith(value)),
          ),
          arg2: z.string().describe('Second test argument'),
        },
      },
      async ({ arg1, arg2 }) => ({
        messages: [
          { role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } },
        ],
      }),
    )
    m.registerPrompt(
      'test_prompt_with_embedded_resource',
      {
        title: 'Prompt With Embedded Resource',
        description: 'Embeds the resource named by resourceUri',
        argsSchema: { resourceUri: z.string().describe('URI of the resource to embed') },
      },
      async ({ resourceUri }) => ({
        messages: [
          {
            role: 'user',
            content: {
              type: 'resource',
              resource: { uri: resourceUri, mimeType: 'text/plain', text: TEXTS.promptEmbedded },
            },
          },
          { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
        ],
      }),
    )
    m.registerPrompt(
      'test_prompt_with_image',
      { title: 'Prompt With Image', description: 'A prompt with image content' },
      async () => ({
        messages: [
          { role: 'user', content: { type: 'image', data: PNG_1PX, mimeType: 'image/png' } },
          { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
        ],
      }),
    )
  }

  /**
   * McpServer lists a tool's input schema as converted from zod, which loses $schema, $defs,
   * $anchor and the composition keywords the json-schema-2020-12 scenario checks: list that one
   * tool with its raw schema.
   */
  private rawSchemaListing(): void {
    intercept(this.mcp.server, 'tools/list', (next) => async (req, extra) => {
      const r = (await next(req, extra)) as { tools: { name: string }[] }
      return {
        ...r,
        tools: r.tools.map((t) =>
          t.name === 'json_schema_2020_12_tool' ? { ...t, inputSchema: JSON_SCHEMA_2020_12 } : t,
        ),
      }
    })
  }
}
