// The one error table: every code the service can answer with, its HTTP status and what a caller
// should do next. HTTP maps an AppError to `{"error": {code, message, details?}}` with `status`;
// MCP returns the same object as a tool result with isError: true. docs/errors.md is checked
// against this table by a test.

export const ERRORS = {
  invalid_request: { status: 400, hint: 'Fix the named field and call again.' },
  unauthorized: { status: 401, hint: 'Send a valid key as "Authorization: Bearer <key>".' },
  forbidden: { status: 403, hint: 'This key or agent may not do this; use a key or agent that may.' },
  not_found: { status: 404, hint: 'Check the id; list the collection to see what exists.' },
  method_not_allowed: { status: 405, hint: 'Use one of the methods listed in the Allow header.' },
  conflict: { status: 409, hint: 'The state changed or is held by someone else; read it again, then decide.' },
  room_archived: {
    status: 409,
    hint:
      'The room is archived, so it is read-only: read it, search it and export it; an owner or admin can restore ' +
      'it (the room page, or POST /admin/rooms/:roomId/restore).',
  },
  limit_reached: {
    status: 409,
    hint: 'A count limit of the room or team is reached; delete something or ask an operator to raise the limit.',
  },
  url_refused: {
    status: 422,
    hint:
      'Use an https URL whose host resolves only to public addresses (not loopback, private, link-local or ' +
      'cloud metadata ones).',
  },
  too_large: { status: 413, hint: 'Send less: shorten the named field to within its limit.' },
  rate_limited: {
    status: 429,
    hint: 'Too many calls this minute for this credential or its team; wait Retry-After seconds.',
  },
  semantic_search_disabled: { status: 400, hint: 'Call search without semantic: true; lexical search always works.' },
  unavailable: {
    status: 503,
    hint: 'A backing service is unreachable; retry after Retry-After seconds (details.retry_after_s).',
  },
  store_full: {
    status: 507,
    hint:
      "The service's storage is full: calls that add data are refused until an operator frees memory; reads " +
      'still work.',
  },
  internal: { status: 500, hint: 'An unexpected failure; retry, and report it if it persists.' },
} as const satisfies Record<string, { status: number; hint: string }>

export type ErrorCode = keyof typeof ERRORS

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERRORS, code)
}

/**
 * A failure with a stable code. `message` names the field and the limit where one applies.
 * `hint` is the code's next step from ERRORS, unless the failure knows a more precise one (a
 * claim conflict names the tool that finds other work).
 */
export class AppError extends Error {
  readonly code: ErrorCode
  readonly details: Record<string, unknown> | undefined
  private readonly nextStep: string | undefined

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, hint?: string) {
    super(message)
    this.name = 'AppError'
    this.code = code
    this.details = details
    this.nextStep = hint
  }

  get status(): number {
    return ERRORS[this.code].status
  }

  get hint(): string {
    return this.nextStep ?? ERRORS[this.code].hint
  }

  /** The wire form shared by HTTP error bodies and MCP error results. */
  toJSON(): { code: ErrorCode; message: string; hint: string; details?: Record<string, unknown> } {
    return this.details === undefined
      ? { code: this.code, message: this.message, hint: this.hint }
      : { code: this.code, message: this.message, hint: this.hint, details: this.details }
  }
}

/**
 * The room named does not exist, or the caller may not see it (the two read alike, so nothing
 * leaks). A domain error: it carries the room, not a transport's name for the argument that named
 * it; each transport words it for its callers (src/mcp, src/http, src/dashboard).
 */
export class RoomNotFound extends AppError {
  constructor(readonly roomId: string) {
    super('not_found', `room ${roomId} not found`)
    this.name = 'RoomNotFound'
  }
}

/** A room is to be created with an id its team already uses. A domain error, like RoomNotFound. */
export class RoomExists extends AppError {
  constructor(readonly roomId: string) {
    super('conflict', 'a room with this id already exists in this team')
    this.name = 'RoomExists'
  }
}

/**
 * An idempotency key was already used for another call (another operation, agent or arguments).
 * A domain error, like RoomNotFound: it carries the key and what differed, `reason` (e.g. "with
 * other arguments; use a new key for a new call"), never a transport's name for the key; each
 * transport names it as its callers send it (the MCP tools' `idempotency_key` argument, the API's
 * `Idempotency-Key` header).
 */
export class KeyReused extends AppError {
  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    super('conflict', `idempotency key "${key}" was already used ${reason}`, { key })
    this.name = 'KeyReused'
  }

  /** The refusal worded with `name`, the caller's name for the key, which details.field carries. */
  named(name: string): AppError {
    return new AppError('conflict', `${name} "${this.key}" was already used ${this.reason}`, {
      field: name,
      key: this.key,
    })
  }
}

export const invalid = (message: string, details?: Record<string, unknown>) =>
  new AppError('invalid_request', message, details)
export const notFound = (message: string, details?: Record<string, unknown>) =>
  new AppError('not_found', message, details)

/** A size limit was exceeded: names the field, the limit and the size sent. */
export function tooLarge(field: string, limit: number, size: number, unit = 'bytes'): AppError {
  return new AppError('too_large', `${field} is ${size} ${unit}; the limit is ${limit} ${unit}`, { field, limit, size })
}
