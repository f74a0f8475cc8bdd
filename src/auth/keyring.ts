// Verifies Bearer keys. A node caches what a key hash resolved to for at most CACHE_MS; a
// revocation is published on the control channel and every node drops the hash at once (the
// realtime hub delivers control notices; on a rebuilt subscription the whole cache is dropped,
// since notices may have been missed). The cache lifetime is the backstop when a notice is lost.
import { encode } from '@msgpack/msgpack'
import { AppError } from '../core/errors.js'
import type { Store } from '../store/store.js'
import type { Principal } from './principal.js'
import { parseKey } from './secrets.js'

/** How long a resolved key is trusted without asking Redis again. */
export const CACHE_MS = 1000
const CACHE_MAX = 10_000

interface Entry {
  principal: Principal | undefined
  until: number
  hash: string
}

const unauthorized = (why: string) => new AppError('unauthorized', why)

export class Keyring {
  /** By the presented key (so a hit costs no hashing); `byHash` finds entries to forget on revocation. */
  private readonly cache = new Map<string, Entry>()
  private readonly byHash = new Map<string, string>()

  constructor(private readonly store: Store) {}

  /** The principal of an `Authorization` header value, or an unauthorized error saying why. */
  async authenticate(header: string | undefined): Promise<Principal> {
    if (!header) throw unauthorized('missing Authorization header; send "Authorization: Bearer <key>"')
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header)
    if (!m) throw unauthorized('the Authorization header must be "Bearer <key>"')
    const key = m[1]!
    const now = Date.now()
    let entry = this.cache.get(key)
    if (!entry || entry.until <= now) {
      const parsed = parseKey(key)
      if (!parsed) throw unauthorized('not a valid key (a key looks like ar_team_<team>.<32 characters>; was it truncated?)')
      entry = { principal: await this.resolve(parsed.teamId, parsed.hash), until: now + CACHE_MS, hash: parsed.hash }
      if (this.cache.size >= CACHE_MAX) this.forgetKey(this.cache.keys().next().value!)
      this.cache.set(key, entry)
      this.byHash.set(parsed.hash, key)
    }
    if (!entry.principal) throw unauthorized('unknown or revoked key')
    return entry.principal
  }

  private forgetKey(key: string): void {
    const e = this.cache.get(key)
    if (e) this.byHash.delete(e.hash)
    this.cache.delete(key)
  }

  private async resolve(teamId: string, hash: string): Promise<Principal | undefined> {
    const k = this.store.keys.team(teamId)
    const r = await this.store.run('lookupKey', [k.secrets, k.keys, k.invites, k.team], [hash])
    if (r.kind === 'team') return { kind: 'team', teamId, keyId: r.id as string }
    if (r.kind === 'room') return { kind: 'room', teamId, roomId: r.room_id as string, tokenId: r.id as string }
    return undefined
  }

  /** Tells every node (this one included) to forget a revoked key. */
  async publishRevocation(hash: string): Promise<void> {
    this.forget(hash)
    await this.store.client.spublish(this.store.keys.controlChannel(), Buffer.from(encode({ k: 'revoked', hash })))
  }

  forget(hash: string): void {
    const key = this.byHash.get(hash)
    if (key !== undefined) this.forgetKey(key)
  }

  /** Drops every cached key (after a pub/sub outage, when revocations may have been missed). */
  clear(): void {
    this.cache.clear()
    this.byHash.clear()
  }
}
