// Fixtures only the 2026-07-28 scenarios call: the multi-round tools and prompt (mrtr.ts), the
// diagnostic tools of server-stateless (test_missing_capability, test_logging_tool,
// test_streaming_elicitation) and subscriptions/listen. Tools are registered with McpServer so
// tools/list shows them; their calls are answered from the raw request by an interceptor, since
// McpServer strips inputResponses / requestState and turns thrown protocol errors into results.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { intercept, mayLog, modernClientCapabilities, type Extra, type RawRequest } from './intercept.js'
import { PROMPT_FLOWS, TOOL_FLOWS, runFlow } from './mrtr.js'

/** -32021 MissingRequiredClientCapability: the data names the capabilities as a ClientCapabilities object. */
function missingCapability(name: string): McpError {
  return new McpError(-32021 as ErrorCode, `Missing required client capability: ${name}`, {
    requiredCapabilities: { [name]: {} },
  })
}

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId'

type Special = (request: RawRequest, extra: Extra) => Promise<Record<string, unknown>>

const unreachable = async (): Promise<never> => {
  throw new Error('answered by the fixture interceptor')
}

export function registerModernFixtures(m: McpServer): void {
  const special: Record<string, Special> = {
    test_missing_capability: async (_req, extra) => {
      const caps = modernClientCapabilities(extra)
      if (caps && !caps.sampling) throw missingCapability('sampling')
      return { content: [{ type: 'text', text: 'the client declared sampling' }] }
    },
    test_logging_tool: async (_req, extra) => {
      if (mayLog(extra, 'info'))
        await extra.sendNotification({
          method: 'notifications/message',
          params: { level: 'info', logger: 'fixture', data: 'test_logging_tool ran' },
        })
      return { content: [{ type: 'text', text: 'logged only if asked to' }] }
    },
    // A tool that needs the user: in 2026-07-28 it asks through the result, never with a request on the stream.
    test_streaming_elicitation: async (_req, extra) => {
      const caps = modernClientCapabilities(extra)
      if (caps && !caps.elicitation) throw missingCapability('elicitation')
      return {
        resultType: 'input_required',
        inputRequests: {
          answer: {
            method: 'elicitation/create',
            params: {
              mode: 'form',
              message: 'Anything to add?',
              requestedSchema: { type: 'object', properties: { note: { type: 'string' } } },
            },
          },
        },
      }
    },
  }
  for (const name of Object.keys(special))
    m.registerTool(name, { description: `2026-07-28 diagnostic tool ${name}`, inputSchema: {} }, unreachable)
  for (const name of Object.keys(TOOL_FLOWS))
    m.registerTool(name, { description: `Multi-round input (SEP-2322): ${name}`, inputSchema: {} }, unreachable)
  for (const name of Object.keys(PROMPT_FLOWS))
    m.registerPrompt(name, { description: 'A prompt that asks the client for context first (SEP-2322)' }, unreachable)

  intercept(m.server, 'tools/call', (next) => async (request, extra) => {
    const name = String(request.params?.name)
    const flow = TOOL_FLOWS[name]
    if (flow) return runFlow(flow, name, request, extra)
    const handler = special[name]
    return handler ? handler(request, extra) : next(request, extra)
  })
  intercept(m.server, 'prompts/get', (next) => async (request, extra) => {
    const name = String(request.params?.name)
    const flow = PROMPT_FLOWS[name]
    return flow ? runFlow(flow, name, request, extra) : next(request, extra)
  })

  // subscriptions/listen: acknowledge what is honoured (this server's lists never change, so only
  // resource subscriptions), tagged with the client's request id, then hold the stream open until
  // the client closes it (which aborts the handler through the transport).
  m.server.setRequestHandler(
    z.object({
      method: z.literal('subscriptions/listen'),
      params: z.object({ notifications: z.record(z.string(), z.unknown()).optional() }).passthrough(),
    }),
    async (req, extra) => {
      const data = extra.authInfo?.extra as { clientRequestId?: string | number } | undefined
      if (data?.clientRequestId === undefined)
        throw new McpError(ErrorCode.InternalError, 'fixture: the transport did not pass the client request id')
      const wanted = req.params.notifications ?? {}
      const honoured = Array.isArray(wanted.resourceSubscriptions)
        ? { resourceSubscriptions: wanted.resourceSubscriptions }
        : {}
      await extra.sendNotification({
        method: 'notifications/subscriptions/acknowledged',
        params: { _meta: { [SUBSCRIPTION_ID]: data.clientRequestId }, notifications: honoured },
      } as never)
      await new Promise<void>((resolve) =>
        extra.signal.aborted ? resolve() : extra.signal.addEventListener('abort', () => resolve(), { once: true }),
      )
      return {}
    },
  )
}
