// The service's logger (pino, JSON lines). Secrets never reach it: keys are logged by hint only,
// and errors are written by serializeError, which keeps what tells an operator what failed and
// drops what a library attached to them (ioredis' command and its arguments, which carry webhook
// secrets; request headers and bodies).
import { pino, type DestinationStream, type Logger } from 'pino'

export type { Logger }

/** How many causes of an error are followed. */
const CAUSE_DEPTH = 3

/**
 * An error as a log field: its name, message, code, stack and (a few levels of) causes, nothing
 * else. Library errors carry extra enumerable fields (ioredis: `command: {name, args}`,
 * `previousErrors`; fetch: `cause` with headers) that must not reach a log.
 */
export function serializeError(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error)) return typeof err === 'object' && err !== null ? String(err) : err
  const out: Record<string, unknown> = { type: err.name, message: err.message }
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string' || typeof code === 'number') out.code = code
  if (err.stack) out.stack = err.stack
  if (err.cause !== undefined && depth < CAUSE_DEPTH) out.cause = serializeError(err.cause, depth + 1)
  return out
}

/** A logger at `level`, writing JSON lines to stdout or to `destination` (tests read it). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'agentrooms' },
    serializers: { err: serializeError, error: serializeError },
    redact: { paths: ['authorization', 'headers.authorization', 'key', '*.key'], censor: '[redacted]' },
  }
  return destination ? pino(options, destination) : pino(options)
}
