// `agentrooms hook <client>-stop`: a coding agent's Stop hook as a command. It reads the hook's
// JSON on stdin, asks the service what is new for the agent (POST
// /rooms/:roomId/agents/:agentId/hooks/stop, which may wait up to --wait seconds and consumes
// nothing), and answers in the client's format: keep the agent going with a summary of what to
// read, or print nothing so it may stop.
//
// Never kept forever: a stop that follows a stop the hook already blocked only blocks for what
// arrived since (the service's rule), and after --max-blocks consecutive blocks in one session the
// hook lets the agent stop whatever comes. Claude Code and Codex say "already blocked" with
// stop_hook_active and the hook counts blocks per session_id in a small state file; Cursor counts
// them itself (loop_count).
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { hookPath, type HookClient } from '../shared/hook-configs.js'
import { CliError, type Service } from './service.js'

/** Longest --wait, in seconds (the service's limit). */
export const HOOK_WAIT_MAX_S = 540
/** Largest hook input read from stdin. */
const STDIN_BYTES = 4 * 1024 * 1024

export interface HookOptions {
  client: HookClient
  room: string
  agent: string
  waitS: number
  mentions: boolean
  maxBlocks: number
}

/** What a client's hook input says about the stop. */
interface StopInput {
  /** A stop hook already kept the agent going in this turn. */
  continued: boolean
  /** Blocks so far, when the client counts them (Cursor). */
  count?: number
  /** The session, for counting blocks ourselves. */
  session?: string
  /** False: the agent did not finish normally (Cursor's aborted or error): never wake it. */
  completed: boolean
}

export function parseStopInput(client: HookClient, text: string): StopInput {
  let v: unknown
  try {
    v = text.trim() === '' ? {} : JSON.parse(text)
  } catch (e) {
    throw new CliError(`hook: stdin is not the hook's JSON (${(e as Error).message})`)
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new CliError('hook: stdin must be a JSON object')
  const o = v as Record<string, unknown>
  if (client === 'cursor') {
    const count = typeof o.loop_count === 'number' ? o.loop_count : 0
    const session = typeof o.conversation_id === 'string' ? o.conversation_id : undefined
    return { continued: count > 0, count, completed: o.status === undefined || o.status === 'completed', session }
  }
  const session = typeof o.session_id === 'string' ? o.session_id : undefined
  return { continued: o.stop_hook_active === true, completed: true, session }
}

/** Where the block count of a session is kept (one small file per session, removed when it stops). */
function stateFile(env: Record<string, string | undefined>, o: HookOptions, session: string): string {
  const dir = join(env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state'), 'agentrooms', 'stop-hooks')
  const id = createHash('sha256')
    .update(JSON.stringify([o.room, o.agent, o.client, session]))
    .digest('hex')
  return join(dir, `${id.slice(0, 32)}.json`)
}

function readCount(file: string): number {
  try {
    const n = (JSON.parse(readFileSync(file, 'utf8')) as { blocks?: unknown }).blocks
    return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : 0
  } catch {
    return 0
  }
}

/** The client's output for a blocked stop. */
export function blockOutput(client: HookClient, reason: string): string {
  return JSON.stringify(client === 'cursor' ? { followup_message: reason } : { decision: 'block', reason })
}

/**
 * Runs the hook: resolves with what to print on stdout ('' to let the agent stop). Throws a
 * CliError for what the user should see (the client shows a failed hook and lets the agent stop).
 */
export async function runStopHook(
  service: Service,
  o: HookOptions,
  stdin: string,
  env: Record<string, string | undefined>,
): Promise<string> {
  const input = parseStopInput(o.client, stdin)
  if (!input.completed) return ''
  const file = input.session === undefined ? undefined : stateFile(env, o, input.session)
  let blocks = input.count ?? 0
  if (input.count === undefined && file !== undefined) {
    if (input.continued) blocks = readCount(file)
    else rmSync(file, { force: true })
  }
  if (input.continued && blocks >= o.maxBlocks) {
    if (file !== undefined) rmSync(file, { force: true })
    return ''
  }
  const q = new URLSearchParams({ wait_s: String(o.waitS) })
  if (o.mentions) q.set('mentions', 'true')
  const route = `${hookPath(o.room, o.agent)}?${q}`
  const answer = await service.request<{ decision?: string; reason?: string }>('POST', route, {
    stop_hook_active: input.continued,
  })
  if (answer.decision !== 'block' || !answer.reason) {
    if (file !== undefined) rmSync(file, { force: true })
    return ''
  }
  if (input.count === undefined && file !== undefined) {
    mkdirSync(join(file, '..'), { recursive: true })
    writeFileSync(file, JSON.stringify({ blocks: blocks + 1 }))
  }
  return blockOutput(o.client, answer.reason)
}

/** Reads all of stdin (the hook's JSON), up to STDIN_BYTES. */
export async function readStdin(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const c of stream) {
    const b = typeof c === 'string' ? Buffer.from(c) : (c as Buffer)
    size += b.length
    if (size > STDIN_BYTES) throw new CliError(`hook: stdin is larger than ${STDIN_BYTES} bytes`)
    chunks.push(b)
  }
  return Buffer.concat(chunks).toString('utf8')
}
