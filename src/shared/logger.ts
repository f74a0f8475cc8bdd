// The service's logger (pino, JSON lines). Secrets never reach it: keys are logged by hint only.
import { pino, type Logger } from 'pino'

export type { Logger }

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'agentrooms' },
    redact: { paths: ['authorization', 'headers.authorization', 'key', '*.key'], censor: '[redacted]' },
  })
}
