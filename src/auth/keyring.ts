// Verifies Bearer keys. A node caches what a key hash resolved to for at most CACHE_MS; a
// revocation is published on the control channel and every node drops the hash at once (the
// realtime hub delivers control notices; on a rebuilt subscription every cached key is looked up
// again on its next use, since notices may have been missed). The cache lifetime is the backstop
// when a notice is lost.
//
// A key this node verified keeps working for STALE_MS while its team's Redis shard cannot be
// asked (stale-if-error), also after a rebuild: the rebuild that follows the loss of a cluster
// node must not lock every team of that node's slots out of the rooms on healthy shards. The
// case this admits a revoked key: revoked while this node missed the notice (its subscription
// down, or the publish itself failed), and every lookup of the key since failed as unavailable
// (its team's shard lost, or past the command deadline): for at most STALE_MS after Redis last
// confirmed the key (docs/operations.md). A key served so is looked up again once a cache lifetime
// later, not on every call: each lookup that fails costs its call the wait for it, and the call's
// script gets only what is left of the command deadline (src/shared/wait-budget.ts).
//
// Long-lived uses of a key (an open SSE stream, a parked wait_for_events) hold() it: a revocation
// notice ends them too, on every node. A hold taken just after the notice passed (the request was
// admitted from the cache a moment before) is ended at once, and after a pub/sub rebuild every
// held key is looked up again, so a missed notice cannot leave a stream open.
import { AppError } from '../shared/errors.js'
import type { Store } from '../store/store.js'
import type { CredentialReach } from '../store/records.js'
import type { Principal, Reach, Scope } from './principal.js'
import { parseKey } from './secrets.js'
import type { WaitBudget } from '../shared/wait-budget.js'

/** How long a resolved key is trusted without asking Redis again. */
export const CACHE_MS = 1000

/**
 * The scope of a team key whose record names none (minted before keys had scopes): the admin scope
 * when no person minted it (the team's first key, operator tools), else the agent scope, so that
 * what a member minted back then does not keep the admin API (docs/accounts.md).
 */
const legacyTeamScope = (r: CredentialReach): Scope => r.scope ?? (r.created_by ? 'agent' : 'admin')

/** A key record's reach; a room invite key always has the agent scope. */
function reachOf(r: CredentialReach, scope: Scope): Reach {
  const reach: Reach = { scope, access: r.access ?? 'write' }
  if (r.agent_id) reach.agentId = r.agent_id
  if (r.created_by) reach.by = r.created_by
  if (r.label) reach.label = r.label
  return reach
}

/** The refusal of a request that carries no key. */
export const missingKey = () => unauthorized('missing Authorization header; send "Authorization: Bearer <key>"')
/**
 * How long a key verified on this node keeps working while its team's Redis shard is unreachable
 * (stale-if-error). Safe against revocation: revoking writes to that same shard, so nothing can be
 * revoked while it is down, and a revocation made before dropped the cached key on every node.
 */
export const STALE_MS = 300_000
const CACHE_MAX = 10_000

interface Entry {
  principal: Principal | undefined
  /** When Redis last said what this key is. */
  at: number
  /** Trusted without asking Redis until then (0: ask on the next use). */
  until: number
  hash: string
}

const unauthorized = (why: string) => new AppError('unauthorized', why)

/**
 * How a revocation is announced: every node (this one included, through its hub's control
 * channel) drops the key from its cache and ends what holds it (open streams, parked waits).
 * Teams calls it for every key and invite it revokes, whichever surface asked.
 */
export type AnnounceRevocation = (hash: string) => Promise<void>

/** Announces through the control channel only: for a process without a keyring (operator tools). */
export function broadcastRevocation(store: Store): AnnounceRevocation {
  return (hash) => store.control({ k: 'revoked', hash })
}

/** How long a revoked hash is remembered, for holds taken by requests admitted just before the notice. */
const RECENT_MS = 5000

/** The error a revoked key's open stream or parked wait ends with. */
export const revokedError = () => unauthorized('this key was revoked while the call was open; use a live key')

interface Held {
  teamId: string
  hash: string
  /** Whether the credential is still live, for a principal this keyring did not resolve (adopt()). */
  live?: () => Promise<boolean>
}

interface Holds extends Held {
  ends: Set<() => void>
}

export class Keyring {
  /** By the presented key (so a hit costs no hashing); `byHash` finds entries to forget on revocation. */
  private readonly cache = new Map<string, Entry>()
  private readonly byHash = new Map<string, string>()
  /** The hash each principal was resolved from (principals are the cached objects). */
  private readonly hashes = new WeakMap<Principal, Held>()
  /** Open streams and parked waits, by the hash of their key. */
  private readonly holds = new Map<string, Holds>()
  /** Hashes revoked in the last RECENT_MS, with when. */
  private readonly recent = new Map<string, number>()

  /** `cacheMs`: how long a resolved key is trusted (CACHE_MS; tests make it long to see a resync). */
  constructor(
    private readonly store: Store,
    private readonly cacheMs = CACHE_MS,
  ) {}

  /**
   * The principal of an `Authorization` header value, or an unauthorized error saying why;
   * `budget`: the request's time waiting for Redis, which a lookup adds to.
   */
  async authenticate(header: string | undefined, budget?: WaitBudget): Promise<Principal> {
    if (!header) throw missingKey()
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header)
    if (!m) throw unauthorized('the Authorization header must be "Bearer <key>"')
    const key = m[1]!
    const now = Date.now()
    let entry = this.cache.get(key)
    if (!entry || entry.until <= now) {
      const parsed = parseKey(key)
      if (!parsed)
        throw unauthorized(
          key.startsWith('ar_') || key.includes('.')
            ? 'not a valid key (a key looks like ar_team_<team>.<32 characters>; was it truncated?)'
            : 'not a key: this endpoint takes a team key or a room invite key (an OAuth access token is a ' +
                'credential of /mcp only)',
        )
      let principal: Principal | undefined
      try {
        principal = await this.resolve(parsed.teamId, parsed.hash, budget)
      } catch (err) {
        const stale = entry?.principal
        if (!stale || entry!.at + STALE_MS <= now || !(err instanceof AppError) || err.code !== 'unavailable') throw err
        // Asked again a cache lifetime from now (never past STALE_MS after Redis last said).
        entry!.until = Math.min(Date.now() + this.cacheMs, entry!.at + STALE_MS)
        return stale
      }
      entry = { principal, at: now, until: now + this.cacheMs, hash: parsed.hash }
      if (entry.principal) this.hashes.set(entry.principal, { teamId: parsed.teamId, hash: parsed.hash })
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

  private async resolve(teamId: string, hash: string, budget?: WaitBudget): Promise<Principal | undefined> {
    const k = this.store.keys.team(teamId)
    const r = await this.store.run('lookupKey', [k.secrets, k.keys, k.invites, k.team], [hash], budget)
    if (r.kind === 'team') return { kind: 'team', teamId, keyId: r.id, ...reachOf(r, legacyTeamScope(r)) }
    if (r.kind === 'room') return { kind: 'room', teamId, roomId: r.room_id, tokenId: r.id, ...reachOf(r, 'agent') }
    return undefined
  }

  /** Tells every node to forget a revoked key; this one at once, before the notice comes back. */
  async publishRevocation(hash: string): Promise<void> {
    this.forget(hash)
    await broadcastRevocation(this.store)(hash)
  }

  /** A revocation notice: drops the cached key and ends what holds it. */
  forget(hash: string): void {
    const key = this.byHash.get(hash)
    if (key !== undefined) this.forgetKey(key)
    const now = Date.now()
    for (const [h, at] of this.recent) if (at + RECENT_MS <= now) this.recent.delete(h)
    this.recent.set(hash, now)
    this.endHolds(hash)
  }

  /**
   * Registers a long-lived use of `principal`'s key (an SSE stream, a parked wait): `end` is called
   * once if the key is revoked meanwhile (at once when it was revoked a moment ago). Returns the
   * release function. Principals not made by this keyring (the test-only anonymous one) are not held.
   */
  hold(principal: Principal, end: () => void): () => void {
    const of = this.hashes.get(principal)
    if (!of) return () => undefined
    const at = this.recent.get(of.hash)
    if (at !== undefined && at + RECENT_MS > Date.now()) {
      queueMicrotask(end)
      return () => undefined
    }
    let h = this.holds.get(of.hash)
    if (!h) this.holds.set(of.hash, (h = { ...of, ends: new Set() }))
    // A Set keeps a function once: the same `end` held again gets a wrapper of its own.
    const entry = h.ends.has(end) ? () => end() : end
    h.ends.add(entry)
    return releaseHold(this.holds, h, entry)
  }

  /**
   * Lets another credential kind's principal be held like a key's (an OAuth grant's): a revocation
   * notice carrying `tag` ends its holds, and after a rebuild `live` tells whether it still is.
   */
  adopt(principal: Principal, teamId: string, tag: string, live: () => Promise<boolean>): void {
    this.hashes.set(principal, { teamId, hash: tag, live })
  }

  /**
   * Lets `derived` (a principal made from `from`, as a connection binding narrows it) be held as
   * `from` is: a revocation of `from`'s credential ends the holds of both. No-op for a principal
   * this keyring neither resolved nor adopted.
   */
  alias(derived: Principal, from: Principal): void {
    const held = this.hashes.get(from)
    if (held) this.hashes.set(derived, held)
  }

  private endHolds(hash: string): void {
    const h = this.holds.get(hash)
    if (!h) return
    this.holds.delete(hash)
    for (const end of h.ends) {
      try {
        end()
      } catch {
        // a response that is already gone
      }
    }
  }

  /**
   * After a pub/sub outage, when revocations may have been missed: every cached key is looked up
   * again on its next use (what it was stays for stale-if-error), and every held key at once,
   * ending the holds of those revoked meanwhile.
   */
  resync(): void {
    for (const e of this.cache.values()) e.until = 0
    void this.recheckHolds()
  }

  private async recheckHolds(): Promise<void> {
    for (const [hash, h] of [...this.holds]) {
      try {
        const live = h.live ? await h.live() : (await this.resolve(h.teamId, hash)) !== undefined
        if (!live) this.endHolds(hash)
      } catch {
        // Redis unreachable: the next rebuild checks again
      }
    }
  }
}

/**
 * The release of one hold: what it captures is all an idle stream keeps of its hold (no
 * wrapper of `end`, no context of hold()'s).
 */
function releaseHold(all: Map<string, Holds>, holds: Holds, entry: () => void): () => void {
  return () => {
    if (!holds.ends.delete(entry) || holds.ends.size > 0) return
    if (all.get(holds.hash) === holds) all.delete(holds.hash)
  }
}
