// 2026-07-28 multi-round-trip requests (SEP-2322) for the input-required-result-* scenarios: a
// tool (or prompt) that needs input from the client answers `resultType: "input_required"` with
// `inputRequests` and an HMAC-signed `requestState`; the client retries the same call with
// `inputResponses` (and the state) until the result is complete. Everything lives in the
// request, so any node can answer any round — the stateless shape our transport serves.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import type { Extra, RawRequest } from './intercept.js'
import { modernClientCapabilities } from './intercept.js'

type InputRequest = { method: string; params: Record<string, unknown> }
type Rounds = Record<string, InputRequest>[]
type Responses = Record<string, Record<string, unknown>>

const elicit = (message: string, property: string, type = 'string'): InputRequest => ({
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message,
    requestedSchema: { type: 'object', properties: { [property]: { type } }, required: [property] },
  },
})
const sample = (text: string, maxTokens = 100): InputRequest => ({
  method: 'sampling/createMessage',
  params: { messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens },
})
const ROOTS: InputRequest = { method: 'roots/list', params: {} }

/** What an answered elicitation / sampling / roots request says, for the final text. */
function describe(r: Record<string, unknown> | undefined): string {
  if (!r) return '(none)'
  if (r.content !== undefined && r.action !== undefined) return JSON.stringify(r.content)
  const content = r.content as { text?: string } | undefined
  if (typeof content?.text === 'string') return content.text
  if (Array.isArray(r.roots)) return (r.roots as { uri: string }[]).map((x) => x.uri).join(', ')
  return JSON.stringify(r)
}

interface Flow {
  /** The input each round asks for; computed per call (capability-dependent flows). */
  rounds(extra: Extra): Rounds
  finish(responses: Responses): Record<string, unknown>
}

const text = (t: string) => ({ content: [{ type: 'text', text: t }] })

export const TOOL_FLOWS: Record<string, Flow> = {
  test_input_required_result_elicitation: {
    rounds: () => [{ user_name: elicit('What is your name?', 'name') }],
    finish: (r) =>
      text(`Hello, ${String((r.user_name?.content as { name?: string } | undefined)?.name ?? 'stranger')}!`),
  },
  test_input_required_result_sampling: {
    rounds: () => [{ capital_question: sample('What is the capital of France?') }],
    finish: (r) => text(`The model said: ${describe(r.capital_question)}`),
  },
  test_input_required_result_list_roots: {
    rounds: () => [{ client_roots: ROOTS }],
    finish: (r) => text(`Client roots: ${describe(r.client_roots)}`),
  },
  test_input_required_result_request_state: {
    rounds: () => [{ confirm: elicit('Please confirm', 'ok', 'boolean') }],
    finish: (r) => text(`state-ok: confirmed ${describe(r.confirm)}`),
  },
  test_input_required_result_tampered_state: {
    rounds: () => [{ confirm: elicit('Please confirm', 'ok', 'boolean') }],
    finish: () => text('state-ok'),
  },
  test_input_required_result_multiple_inputs: {
    rounds: () => [
      {
        user_name: elicit('What is your name?', 'name'),
        greeting: sample('Generate a greeting', 50),
        client_roots: ROOTS,
      },
    ],
    finish: (r) =>
      text(`name ${describe(r.user_name)}, greeting ${describe(r.greeting)}, roots ${describe(r.client_roots)}`),
  },
  test_input_required_result_multi_round: {
    rounds: (): Rounds => [
      { step1: elicit('Step 1: What is your name?', 'name') },
      { step2: elicit('Step 2: What is your favorite color?', 'color') },
    ],
    finish: (r) => text(`Done: ${describe(r.step2)}`),
  },
  test_input_required_result_capabilities: {
    // Only ask for what the client declared it can answer.
    rounds: (extra) => {
      const caps = modernClientCapabilities(extra) ?? {}
      const round: Record<string, InputRequest> = {}
      if (caps.elicitation) round.user_name = elicit('What is your name?', 'name')
      if (caps.sampling) round.capital_question = sample('What is the capital of France?')
      if (caps.roots) round.client_roots = ROOTS
      return Object.keys(round).length > 0 ? [round] : []
    },
    finish: (r) => text(`Answered: ${Object.keys(r).join(', ') || 'nothing needed'}`),
  },
}

export const PROMPT_FLOWS: Record<string, Flow> = {
  test_input_required_result_prompt: {
    rounds: () => [{ user_context: elicit('What context should the prompt use?', 'context') }],
    finish: (r) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Use this context: ${describe(r.user_context)}` } }],
    }),
  },
}

const SECRET = randomBytes(32)
const sign = (payload: string) => createHmac('sha256', SECRET).update(payload).digest('base64url')

function stateFor(name: string, round: number, answered: Responses): string {
  const payload = Buffer.from(JSON.stringify({ name, round, answered })).toString('base64url')
  return `${payload}.${sign(payload)}`
}

/** The round a signed state names, and the answers gathered so far; -32602 when it was altered. */
function readState(state: unknown, name: string): { round: number; answered: Responses } {
  const invalid = () =>
    new McpError(
      ErrorCode.InvalidParams,
      'requestState: failed its integrity check (altered, or not issued for this call)',
    )
  if (typeof state !== 'string') throw invalid()
  const [payload, mac] = state.split('.')
  if (!payload || !mac) throw invalid()
  const want = Buffer.from(sign(payload))
  const got = Buffer.from(mac)
  if (want.length !== got.length || !timingSafeEqual(want, got)) throw invalid()
  const s = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
    name: string
    round: number
    answered: Responses
  }
  if (s.name !== name) throw invalid()
  return { round: s.round, answered: s.answered }
}

const inputRequired = (inputRequests: Record<string, InputRequest>, requestState: string) => ({
  resultType: 'input_required',
  inputRequests,
  requestState,
})

/**
 * One call of a multi-round flow. No inputResponses: round 0's requests. Otherwise the round the
 * state names (round 0 without state): a missing answer re-requests that round, a malformed one
 * is -32602, a complete round moves to the next or finishes. Unknown answer keys are ignored.
 */
export function runFlow(flow: Flow, name: string, request: RawRequest, extra: Extra): Record<string, unknown> {
  const params = request.params ?? {}
  const rounds = flow.rounds(extra)
  if (rounds.length === 0) return flow.finish({})
  if (!('inputResponses' in params)) return inputRequired(rounds[0]!, stateFor(name, 0, {}))
  const given = params.inputResponses
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    throw new McpError(ErrorCode.InvalidParams, 'inputResponses: must be an object of answers keyed like inputRequests')
  }
  const { round, answered } =
    params.requestState === undefined ? { round: 0, answered: {} } : readState(params.requestState, name)
  const asked = rounds[round]
  if (!asked)
    throw new McpError(
      ErrorCode.InvalidParams,
      `requestState: names round ${round}, but this call has ${rounds.length}`,
    )
  const answers = given as Record<string, unknown>
  for (const key of Object.keys(asked)) {
    const a = answers[key]
    if (a === undefined) return inputRequired(asked, stateFor(name, round, answered))
    if (a === null || typeof a !== 'object' || Array.isArray(a))
      throw new McpError(
        ErrorCode.InvalidParams,
        `inputResponses.${key}: must be the result object of ${asked[key]!.method}`,
      )
  }
  const all: Responses = { ...answered }
  for (const key of Object.keys(asked)) all[key] = answers[key] as Record<string, unknown>
  const nextRound = rounds[round + 1]
  return nextRound ? inputRequired(nextRound, stateFor(name, round + 1, all)) : flow.finish(all)
}
