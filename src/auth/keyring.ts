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
}

const unauthorized = (why: string) => new AppError('unauthorized', why)

export class Keyring {
  private readonly cache = new Map<string, Entry>()

  constructor(private readonly store: Store) {}

  /** The principal of an `Authorization` header value, or an unauthorized error saying why. */
  async authenticate(header: string | undefined): Promise<Principal> {
    if (!header) throw unauthorized('missing Authorization header; send "Authorization: Bearer <key>"')
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header)
    if (!m) throw unauthorized('the Authorization header must be "Bearer <key>"')
    const parsed = parseKey(m[1]!)
    if (!parsed) throw unauthorized('not a valid key (a key looks like ar_team_<team>.<32 characters>; was it truncated?)')
    const now = Date.now()
    let entry = this.cache.get(parsed.hash)
    if (!entry || entry.until <= now) {
      entry = { principal: await this.resolve(parsed.teamId, parsed.hash), until: now + CACHE_MS }
      if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!)
      this.cache.set(parsed.hash, entry)
    }
    if (!entry.principal) throw unauthorized('unknown or revoked key')
    return entry.principal
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
    this.cache.delete(hash)
  }

  /** Drops every cached key (after a pub/sub outage, when revocations may have been missed). */
  clear(): void {
    this.cache.clear()
  }
}
