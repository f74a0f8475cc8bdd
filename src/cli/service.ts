// The CLI's only way to the service: its HTTP admin API (docs/http-api.md), with a team key.
// Every failure becomes a CliError whose message says what to do, so the CLI never prints a
// stack trace for a wrong address, a wrong key or a taken name.

import { ENV_KEY } from '../shared/hook-configs.js'

export class CliError extends Error {
  constructor(
    message: string,
    /** 1: the service refused or could not be reached; 2: the command line or environment is wrong. */
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message)
  }
}

/** The environment variables the CLI reads (documented in docs/cli.md). */
export const ENV_URL = 'AGENTROOMS_URL'
export { ENV_KEY }
export const DEFAULT_URL = 'http://localhost:8080'
const TIMEOUT_MS = 15_000

/** What a command needs of the key: a team key (creating rooms), or any key that reaches the room. */
export type KeyNeed = 'team' | 'room'

interface ApiError {
  error?: { code?: string; message?: string }
}

export class Service {
  readonly base: string

  constructor(
    base: string,
    private readonly key: string,
    private readonly need: KeyNeed = 'team',
    /** How long a request may take before the service counts as unreachable. */
    readonly timeoutMs = TIMEOUT_MS,
  ) {
    let url: URL
    try {
      url = new URL(base)
    } catch {
      throw new CliError(`${ENV_URL}: not a URL (${JSON.stringify(base)}); e.g. ${DEFAULT_URL}`, 2)
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new CliError(`${ENV_URL}: must be an http or https URL (got ${url.protocol})`, 2)
    this.base = url.href.replace(/\/+$/, '')
  }

  /** Reads the URL and key from `env`; a missing or misplaced key is a usage error. */
  static fromEnv(env: Record<string, string | undefined>, need: KeyNeed = 'team', timeoutMs = TIMEOUT_MS): Service {
    const key = env[ENV_KEY]?.trim()
    if (!key) {
      const which = need === 'team' ? 'the team key' : "the agent's room invite key (ar_room_…) or the team key"
      throw new CliError(
        `${ENV_KEY} is not set: export ${which} the service printed at its first start (ar_team_…), or ` +
          `mint one with \`npm run team -- mint-key default\``,
        2,
      )
    }
    if (need === 'team' && key.startsWith('ar_room_'))
      throw new CliError(
        `${ENV_KEY} holds a room invite key (ar_room_…); creating rooms needs a team key (ar_team_…)`,
        2,
      )
    return new Service(env[ENV_URL]?.trim() || DEFAULT_URL, key, need, timeoutMs)
  }

  /** A JSON request to the admin API; resolves with the parsed body of a 2xx answer. */
  async request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const url = this.base + path
    let res: Response
    try {
      res = await fetch(url, {
        method,
        headers: {
          Authorization: `Bearer ${this.key}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      })
    } catch (err) {
      throw this.unreachable(err)
    }
    const text = await res.text()
    let parsed: unknown
    try {
      parsed = text === '' ? undefined : JSON.parse(text)
    } catch {
      parsed = undefined
    }
    if (res.ok && parsed !== undefined) return parsed as T
    const e = (parsed as ApiError | undefined)?.error
    if (!e?.code) {
      throw new CliError(
        `${method} ${url} answered ${res.status}, not with agentrooms JSON: is ${ENV_URL} (${this.base}) the ` +
          `agentrooms service?`,
      )
    }
    if (res.status === 404 && e.message?.startsWith('no endpoint')) {
      throw new CliError(
        `${this.base} has no ${path}: ${ENV_URL} must be the service's base address (e.g. ${DEFAULT_URL}), ` +
          `not a path inside it`,
      )
    }
    if (res.status === 401)
      throw new CliError(
        `the service refused the key in ${ENV_KEY} (${e.message}); check it, or mint another with \`npm run ` +
          `team -- mint-key default\``,
      )
    if (res.status === 403)
      throw new CliError(
        `the key in ${ENV_KEY} may not do this (${e.message})` +
          (this.need === 'team' ? '; creating rooms needs a team key (ar_team_…)' : ''),
      )
    throw new ServiceError(res.status, e.code, e.message ?? '')
  }

  private unreachable(err: unknown): CliError {
    const e = err as { name?: string; cause?: { code?: string; message?: string } }
    if (e.name === 'TimeoutError')
      return new Unreachable(`the service at ${this.base} did not answer within ${this.timeoutMs / 1000} s`)
    const why = e.cause?.code ?? e.cause?.message ?? String(err)
    return new Unreachable(
      `cannot reach the service at ${this.base} (${why}): is it running? Set ${ENV_URL} to its address ` +
        `(default ${DEFAULT_URL})`,
    )
  }
}

/** The service could not be reached or did not answer in time (nothing is known of what it holds). */
export class Unreachable extends CliError {}

/** An error answer of the service, with its stable code (docs/errors.md). */
export class ServiceError extends CliError {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
  ) {
    super(`the service answered ${status} ${code}: ${detail}`)
  }
}
