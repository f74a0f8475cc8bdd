// The records of the OAuth authorization server (src/http/oauth/), in the shape its protocol
// library stores them: a JSON payload per record kind and id, with an expiry. No usable access
// token, refresh token or authorization code is in Redis: every id is keyed by its sha256 and a
// payload's `jti` (the id itself) is left out and put back on read. The library's session and
// interaction records still name their session (its uid, and the session id in the uid index and
// in an interaction): what that gives is an authorization-server session, which issues nothing
// without a person's consent in the dashboard. The connected-agent records a grant adds for the
// service (team, room, agent, access) live under the team's hash tag.
import { createHash } from 'node:crypto'
import type { Keys } from './keys.js'
import type { RedisClient } from './store.js'

const sha256 = (s: string) => createHash('sha256').update(s).digest('base64url')

/** The payload as stored: without its `jti` when that is the record's id. */
function stored(id: string, payload: object): string {
  if ((payload as { jti?: unknown }).jti !== id) return JSON.stringify(payload)
  const { jti: _, ...rest } = payload as { jti: string }
  return JSON.stringify({ ...rest, jti_is_id: true })
}

function restored(id: string, raw: string): Record<string, unknown> {
  const { jti_is_id, ...payload } = JSON.parse(raw) as Record<string, unknown>
  return jti_is_id === true ? { ...payload, jti: id } : payload
}

export class OAuthRecords {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
  ) {}

  /** Writes a record for `ttlS` seconds (none: no expiry); indexes it under its grant and session uid. */
  async upsert(
    model: string,
    id: string,
    payload: { grantId?: string; uid?: string },
    ttlS: number | undefined,
  ): Promise<void> {
    const key = this.keys.oauth(model, sha256(id))
    const json = stored(id, payload)
    if (ttlS !== undefined && ttlS > 0) await this.client.set(key, json, 'EX', ttlS)
    else await this.client.set(key, json)
    if (payload.grantId) {
      const idx = this.keys.oauthGrantIndex(sha256(payload.grantId))
      await this.client.sadd(idx, key)
      // The index outlives its longest record: refresh tokens, the longest-lived kind.
      if (ttlS !== undefined && ttlS > 0) {
        const left = await this.client.ttl(idx)
        if (left >= 0 && left < ttlS) await this.client.expire(idx, ttlS)
        else if (left === -1) await this.client.expire(idx, ttlS)
      }
    }
    if (model === 'Session' && payload.uid) {
      const uidKey = this.keys.oauthSessionUid(sha256(payload.uid))
      if (ttlS !== undefined && ttlS > 0) await this.client.set(uidKey, id, 'EX', ttlS)
      else await this.client.set(uidKey, id)
    }
  }

  /** The payload of a record, or undefined when there is none (expired, destroyed). */
  async find(model: string, id: string): Promise<Record<string, unknown> | undefined> {
    const raw = await this.client.get(this.keys.oauth(model, sha256(id)))
    return raw === null ? undefined : restored(id, raw)
  }

  /** The session with this uid. */
  async findSessionByUid(uid: string): Promise<Record<string, unknown> | undefined> {
    const id = await this.client.get(this.keys.oauthSessionUid(sha256(uid)))
    return id === null ? undefined : this.find('Session', id)
  }

  /**
   * Marks a record consumed (a redeemed code, a rotated refresh token), keeping its expiry.
   * Returns false when it was consumed already or is gone: a second redemption. Two nodes
   * consuming the same record at once get one true between them: the claim is a SET NX of a
   * marker beside the record, living as long as it.
   */
  async consume(model: string, id: string): Promise<boolean> {
    const key = this.keys.oauth(model, sha256(id))
    const [raw, ttlMs] = await Promise.all([this.client.get(key), this.client.pttl(key)])
    if (raw === null) return false
    const payload = JSON.parse(raw) as Record<string, unknown>
    if (payload.consumed !== undefined) return false
    const now = Math.floor(Date.now() / 1000)
    const claimed =
      ttlMs > 0
        ? await this.client.set(`${key}:consumed`, String(now), 'PX', ttlMs, 'NX')
        : await this.client.set(`${key}:consumed`, String(now), 'NX')
    if (claimed === null) return false
    payload.consumed = now
    await this.client.set(key, JSON.stringify(payload), 'KEEPTTL')
    return true
  }

  async destroy(model: string, id: string): Promise<void> {
    await this.client.del(this.keys.oauth(model, sha256(id)))
  }

  /** Deletes every record issued under a grant (its codes, access and refresh tokens). */
  async revokeByGrant(grantId: string): Promise<void> {
    const idx = this.keys.oauthGrantIndex(sha256(grantId))
    const members = await this.client.smembers(idx)
    for (const key of members) await this.client.del(key)
    await this.client.del(idx)
  }

  /** The server's secret `name`, made once by whichever node asks first (SET NX), the same on every node. */
  async secret(name: string, make: () => string): Promise<string> {
    const key = this.keys.oauthSecrets()
    await this.client.hsetnx(key, name, make())
    const v = await this.client.hget(key, name)
    if (v === null) throw new Error(`the authorization server's secret ${name} could not be stored`)
    return v
  }

  /** Writes a team's connected-agent record (JSON). */
  async putGrant(teamId: string, grantId: string, record: string): Promise<void> {
    await this.client.hset(this.keys.team(teamId).grants, grantId, record)
  }

  async grant(teamId: string, grantId: string): Promise<string | undefined> {
    return (await this.client.hget(this.keys.team(teamId).grants, grantId)) ?? undefined
  }

  async grants(teamId: string): Promise<string[]> {
    return this.client.hvals(this.keys.team(teamId).grants)
  }

  /** Records when a grant was last used (ms). */
  async touchGrant(teamId: string, grantId: string, at: number): Promise<void> {
    await this.client.hset(this.keys.team(teamId).grantUse, grantId, String(at))
  }

  /** When each grant of the team was last used (ms), by grant id. */
  async grantUses(teamId: string): Promise<Record<string, string>> {
    return this.client.hgetall(this.keys.team(teamId).grantUse)
  }

  async deleteGrant(teamId: string, grantId: string): Promise<void> {
    await this.client.hdel(this.keys.team(teamId).grants, grantId)
  }
}
