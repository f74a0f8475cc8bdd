// How the edge answers a failure: an AppError as the error body of docs/errors.md with its
// status, and a Refusal as the ready-made answer it carries (a protocol's own error shape, such
// as the JSON-RPC refusals of /mcp). Domain errors are worded here in the API's terms.
import { AppError, KeyReused, RoomExists, RoomNotFound } from '../shared/errors.js'
import type { Exchange } from './exchange.js'

const WWW_AUTHENTICATE = { 'WWW-Authenticate': 'Bearer realm="agentrooms"' }

/**
 * Sends an AppError; 401s carry WWW-Authenticate (`challenge`, or the plain Bearer realm), errors
 * with details.retry_after_s a Retry-After.
 */
export function sendError(ex: Exchange, raised: AppError, challenge?: string): void {
  const err = inApiWords(raised)
  const retry = err.details?.retry_after_s
  const headers: Record<string, string> =
    err.code !== 'unauthorized' ? {} : challenge ? { 'WWW-Authenticate': challenge } : { ...WWW_AUTHENTICATE }
  if (typeof retry === 'number') headers['Retry-After'] = String(retry)
  ex.error(err, headers)
}

/**
 * A domain error in this API's words: the path or body named the room as roomId, and a missing
 * room is named in the message (a room of another team reads exactly like one that does not exist);
 * the Idempotency-Key header named the key.
 */
export function inApiWords(err: AppError): AppError {
  if (err instanceof RoomNotFound) return new AppError('not_found', `room ${err.roomId} not found`, { field: 'roomId' })
  if (err instanceof RoomExists) return new AppError('conflict', `roomId: ${err.message}`, { field: 'roomId' })
  if (err instanceof KeyReused) return err.named('Idempotency-Key')
  return err
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
