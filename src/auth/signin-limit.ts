// The sign-in and mail rate limits (docs/accounts.md): sign-in, waitlist and link requests and OAuth
// client registrations per client IP, and the mails the service sends per e-mail address (sign-in
// links, invites) and per team (its invites), each a GCRA over an hour in one Lua call (lua/rateLimit-1.lua, the team
// rate limit's script), so the limit holds across nodes. Keys carry a hash of the address, IP or
// team, never the value itself.
import { createHash } from 'node:crypto'
import { AppError } from '../shared/errors.js'
import type { Store } from '../store/store.js'

const HOUR_MS = 3_600_000

export type RateKind = 'address' | 'ip' | 'team' | 'registration'

const REFUSAL: Record<RateKind, string> = {
  address: 'Too many mails to this address',
  ip: 'Too many sign-in requests for your network address',
  team: 'Too many invites mailed by this team',
  registration: 'Too many OAuth client registrations from your network address',
}

const minutes = (n: number) => (n === 1 ? '1 minute' : `${n} minutes`)

const short = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 32)

export class SignInLimiter {
  constructor(private readonly store: Pick<Store, 'run' | 'keys'>) {}

  /** Counts one request of `id`; refused: rate_limited with when to retry. */
  async check(kind: RateKind, id: string, perHour: number): Promise<void> {
    const r = await this.store.run('rateLimit', [this.store.keys.signInRate(kind, short(id))], [perHour, HOUR_MS, 1])
    if (r.allowed > 0) return
    const retry = Math.max(1, Math.ceil(r.retry_after_ms / 1000))
    throw new AppError(
      'rate_limited',
      `${REFUSAL[kind]} (the limit is ${perHour} an hour). Try again in ${minutes(Math.ceil(retry / 60))}.`,
      { retry_after_s: retry, limit: perHour, ...(kind === 'address' ? { field: 'email' } : {}) },
    )
  }
}
