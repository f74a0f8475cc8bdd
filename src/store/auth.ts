// What src/auth reads and writes outside its scripts: the team directory, the stored credential
// and account records a listing shows, and the audit trail (a stream per team, trimmed on
// append). Records come back as stored (msgpack), for auth to decode.
import type { Keys } from './keys.js'
import { execResults } from './rooms.js'
import type { RedisClient } from './store.js'

export class AuthRecords {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
  ) {}

  /** Enters a team in the directory operators list (after its creation script: another slot). */
  async register(teamId: string): Promise<void> {
    await this.client.sadd(this.keys.teams(), teamId)
  }

  /** The team's record (id, name, created_at); empty when there is no such team. */
  record(teamId: string): Promise<Record<string, string>> {
    return this.client.hgetall(this.keys.team(teamId).team)
  }

  /** Every team id of the directory. */
  ids(): Promise<string[]> {
    return this.client.smembers(this.keys.teams())
  }

  /** The stored team key records (`keys`) or room invite records (`invites`) of a team, live and revoked. */
  credentials(teamId: string, kind: 'keys' | 'invites'): Promise<Buffer[]> {
    return this.client.hvalsBuffer(this.keys.team(teamId)[kind])
  }

  /** Appends an entry (msgpack) to the team's audit trail, which keeps `keepMs` and at most about `keepMax` entries. */
  async appendAudit(teamId: string, entry: Buffer, keepMs: number, keepMax: number): Promise<void> {
    await this.appendTrail(this.keys.team(teamId).audit, entry, keepMs, keepMax)
  }

  /** Appends to the trail stream `key` (a team's, or the authorization server's), trimming it as appendAudit does. */
  async appendTrail(key: string, entry: Buffer, keepMs: number, keepMax: number): Promise<void> {
    execResults(
      await this.client
        .multi()
        .xadd(key, 'MINID', '~', `${Date.now() - keepMs}-0`, '*', 'd', entry)
        .xtrim(key, 'MAXLEN', '~', keepMax)
        .exec(),
      'appending to the audit trail',
    )
  }

  /** The newest `limit` entries of the team's audit trail, newest first: [stream id, entry]. */
  async readAudit(teamId: string, limit: number): Promise<[string, Buffer][]> {
    return this.readTrail(this.keys.team(teamId).audit, limit)
  }

  /** The newest `limit` entries of the trail stream `key`, newest first: [stream id, entry]. */
  async readTrail(key: string, limit: number): Promise<[string, Buffer][]> {
    const rows = await this.client.xrevrangeBuffer(key, '+', '-', 'COUNT', limit)
    return rows.map(([id, fields]) => [id.toString(), fields[1]!])
  }

  /** The stored records of these people (user ids), in order; undefined for one deleted since. */
  async users(ids: readonly string[]): Promise<(Buffer | undefined)[]> {
    if (ids.length === 0) return []
    const rows = await this.client.hmgetBuffer(this.keys.accounts().users, ...ids)
    return rows.map((r) => r ?? undefined)
  }

  /** A live or spent link token's stored record, by the token's hash (undefined: none). */
  async linkToken(hash: string): Promise<Buffer | undefined> {
    return (await this.client.hgetBuffer(this.keys.accounts().tokens, hash)) ?? undefined
  }

  /** Every stored waitlist entry. */
  waitlist(): Promise<Buffer[]> {
    return this.client.hvalsBuffer(this.keys.accounts().waitlist)
  }
}
