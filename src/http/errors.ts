// How the edge answers a failure: an AppError as the error body of docs/errors.md with its
// status, and a Refusal as the ready-made answer it carries (a protocol's own error shape, such
// as the JSON-RPC refusals of /mcp).
import type { AppError } from '../shared/errors.js'
import type { Exchange } from './exchange.js'

const WWW_AUTHENTICATE = { 'WWW-Authenticate': 'Bearer realm="agentrooms"' }

/**
 * Sends an AppError; 401s carry WWW-Authenticate (`challenge`, or the plain Bearer realm), errors
 * with details.retry_after_s a Retry-After.
 */
export function sendError(ex: Exchange, err: AppError, challenge?: string): void {
  const retry = err.details?.retry_after_s
  const headers: Record<string, string> =
    err.code !== 'unauthorized' ? {} : challenge ? { 'WWW-Authenticate': challenge } : { ...WWW_AUTHENTICATE }
  if (typeof retry === 'number') headers['Retry-After'] = String(retry)
  ex.error(err, headers)
}

/** A refusal with its whole answer (status, body, headers), thrown by a step and sent as it is. */
export class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`refused with ${status}`)
    this.name = 'Refusal'
  }

  send(ex: Exchange): void {
    ex.send(this.status, this.body, this.headers)
  }
}
