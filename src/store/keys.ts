// Every Redis key and channel name is built here and nowhere else.
//
// A room's keys share the hash tag {r:<teamId>/<roomId>}, so every script of a room runs on one
// Cluster slot; a team's keys share {t:<teamId>}. Room ids are namespaced by team: two teams may
// both have a room "payments", and creating one never reveals that another team's room exists.

/** A room is named by its owning team and its id within that team. */
export interface RoomRef {
  readonly teamId: string
  readonly roomId: string
}

/**
 * The fixed keys of a room, in the order every room script receives them as KEYS[1..] (KEYS[room]
 * in its header). Adding one renames no script: the loader counts them (src/store/scripts.ts).
 * lua/includes/roomKeys.lua names them in the same order (a unit test compares the two).
 */
export const ROOM_KEYS = [
  'meta', //     hash: room record, counters (eseq, trim, tseq, rseq, fence), touched, per-day event counts
  'tasks', //    hash: task id -> msgpack task (without notes)
  'notes', //    hash: task id -> notes text
  'ctx', //      hash: "<type>/<key>" -> msgpack context entry metadata
  'ctxv', //     hash: "<type>/<key>#<version>" -> msgpack {body, by, at} for the kept versions
  'events', //   stream: id "<ms>-<seq>", one field "d" -> msgpack event
  'evdel', //    sorted set: seq of deleted events (score = seq), pruned below the trim point
  'cursors', //  hash: agent id -> id of the last event it has read
  'presence', // sorted set: agent id -> last heartbeat (ms)
  'locks', //    hash: lock name -> msgpack {owner, token, acquired_at, expires_at} (listing index)
  'vars', //     hash: var name -> msgpack {value, version, updated_by, updated_at}
  'reviews', //  hash: review id -> msgpack review
  'idem', //     hash: idempotency key -> msgpack {op, at, res}
  'idemt', //    sorted set: idempotency key -> time stored (ms), for pruning
  'board', //    sorted set: every task by status, then in its column's order (lua/includes/task.lua boardScore)
  'deps', //     sorted set, all scores 0: "<dependency>:<dependent>" for every depends_on entry (task numbers padded)
  'channel', //  sharded pub/sub channel of the room (not a key; never stored or expired)
] as const

export type RoomKeyName = (typeof ROOM_KEYS)[number]
export type RoomKeys = Readonly<Record<RoomKeyName, string>> & { readonly list: readonly string[] }

/** Room key sets kept for reuse: building 17 names per call showed in profiles. */
const ROOM_KEYS_CACHE_MAX = 10_000

/**
 * The fixed keys of the accounts directory, in the order every account script receives them as
 * KEYS[1..] (KEYS[accounts] in their headers; docs/accounts.md describes each).
 */
export const ACCOUNT_KEYS = [
  'users', //    hash: user id -> msgpack {id, email, name, team, role, created_at, last_sign_in_at?, idents[]}
  'emails', //   hash: verified e-mail address -> user id
  'idents', //   hash: "<provider>:<subject>" -> user id
  'members', //  sorted set, all scores 0: "<teamId>|<userId>" (a team's members by ZRANGEBYLEX)
  'tokens', //   hash: sha256 of a link token -> msgpack {kind = signin | invite, email, invite?, exp}
  'tokexp', //   sorted set: token hash -> expiry (ms), for pruning
  'invites', //  hash: invite id -> msgpack member invite {id, email, team, role, new_team, by, hash, created_at,
  //             expires_at, state}
  'waitlist', // hash: e-mail address -> msgpack {email, note, at, state = pending | approved | declined, decided_at?}
  'sessions', // hash: sha256 of a session token -> msgpack {user, created_at, abs, seen}
  'sessexp', //  sorted set: session hash -> idle deadline (ms), for pruning
  'usess', //    sorted set, all scores 0: "<userId>|<session hash>" (a user's sessions by ZRANGEBYLEX)
  'tinvites', // sorted set, all scores 0: "<teamId>|<inviteId>" (a team's member invites by ZRANGEBYLEX)
  'invexp', //   sorted set: invite id -> when its record is deleted (ms): its end (expiry, revocation or
  //             acceptance) plus the retention (lua/includes/acct.lua, INVITE_KEEP_MS)
] as const

export type AccountKeyName = (typeof ACCOUNT_KEYS)[number]
export type AccountKeys = Readonly<Record<AccountKeyName, string>> & { readonly list: readonly string[] }

export class Keys {
  private readonly roomCache = new Map<string, RoomKeys>()
  private accountCache: AccountKeys | undefined

  constructor(readonly prefix: string) {}

  roomTag(ref: RoomRef): string {
    return `{r:${ref.teamId}/${ref.roomId}}`
  }

  /** The fixed keys of a room (the first KEYS of every room script), by name and as a list. */
  room(ref: RoomRef): RoomKeys {
    const tag = this.roomTag(ref)
    let keys = this.roomCache.get(tag)
    if (keys) return keys
    const base = `${this.prefix}:${tag}:`
    const list = Object.freeze(ROOM_KEYS.map((name) => base + name))
    const named = Object.fromEntries(ROOM_KEYS.map((name, i) => [name, list[i]])) as Record<RoomKeyName, string>
    keys = Object.freeze({ ...named, list })
    if (this.roomCache.size >= ROOM_KEYS_CACHE_MAX) this.roomCache.clear()
    this.roomCache.set(tag, keys)
    return keys
  }

  /** A lock's own key: its expiry is the lock's TTL. */
  lock(ref: RoomRef, name: string): string {
    return `${this.prefix}:${this.roomTag(ref)}:lock:${name}`
  }

  /**
   * A room's file reservations (lua/includes/reservations.lua): hash "<agent>\n<pattern>" ->
   * msgpack {agent, pattern, exclusive, token, reason?, acquired_at, expires_at}.
   */
  reservations(ref: RoomRef): string {
    return `${this.prefix}:${this.roomTag(ref)}:resv`
  }

  /**
   * A room's keys beside its fixed ones and its lock keys, in the order lua/archiveRoom.lua and
   * lua/deleteRoom.lua take them: reservations, the search manifest, the vector keys.
   */
  roomStore(ref: RoomRef): RoomStoreKeyList {
    const v = this.vectors(ref)
    return [this.reservations(ref), this.searchManifest(ref), v.manifest, v.vec, v.order, v.log, v.dels, v.set]
  }

  /** Sorted set of a team's room ids (score = creation time); pruned of expired rooms lazily. */
  teamRooms(teamId: string): string {
    return `${this.prefix}:{t:${teamId}}:rooms`
  }

  /** A team's keys, all under the team's hash tag. */
  team(teamId: string): TeamKeys {
    const base = `${this.prefix}:{t:${teamId}}:`
    return {
      team: `${base}team`, //         hash: id, name, created_at
      keys: `${base}keys`, //         hash: key id -> msgpack team key record (hash, hint, label, created_at,
      //                              revoked_at?)
      invites: `${base}invites`, //   hash: token id -> msgpack invite record (room_id, hash, hint, label, created_at,
      //                              revoked_at?)
      secrets: `${base}secrets`, //   hash: sha256 of a live key -> "k:<keyId>" or "i:<tokenId>"
      rooms: `${base}rooms`, //       sorted set: room id -> creation time
      rate: `${base}rate`, //         hash: 1 s bucket -> calls, the team's rolling rate window (lua/rateLimit-1.lua)
      grants: `${base}grants`, //   hash: grant id -> JSON connected-agent record (src/auth/grants.ts)
      grantUse: `${base}grantuse`, // hash: grant id -> when its tokens were last used (ms)
      audit: `${base}audit`, //       stream: the team's audit trail, one field "d" -> msgpack {actor, action,
      //                              target?, detail?}; trimmed to 90 days
    }
  }

  /**
   * The accounts directory (docs/accounts.md): people, their e-mail addresses and sign-in
   * identities, team membership, single-use link tokens, member invites, the waitlist and
   * browser sessions, all under one hash tag, in the order every account script receives them as
   * their first KEYS (lua/includes/acctKeys.lua names them in the same order). One tag, not one per
   * user ({u:<userId>}): admission, invite acceptance and deletion each change a
   * person, an address index and a membership together, and one script can do that atomically
   * only within one slot. Account changes are rare (sign-ins, invites), so one slot carries them.
   */
  accounts(): AccountKeys {
    if (this.accountCache) return this.accountCache
    const base = `${this.prefix}:{acct}:`
    const list = Object.freeze(ACCOUNT_KEYS.map((name) => base + name))
    const named = Object.fromEntries(ACCOUNT_KEYS.map((name, i) => [name, list[i]])) as Record<AccountKeyName, string>
    this.accountCache = Object.freeze({ ...named, list })
    return this.accountCache
  }

  /**
   * The rate window of one credential of a team (`key:<id>`, `invite:<id>`, `grant:<id>`, `user:<id>`),
   * beside the team's own (TeamKeys.rate) under the team's hash tag: one script counts both.
   */
  credentialRate(teamId: string, credential: string): string {
    return `${this.prefix}:{t:${teamId}}:rate:${credential}`
  }

  /** A GCRA rate key of src/auth/signin-limit.ts: per address, client IP or team (`id` is a hash of it). */
  signInRate(kind: 'address' | 'ip' | 'team' | 'registration', id: string): string {
    return `${this.prefix}:{rl:${kind}:${id}}`
  }

  /** The GCRA rate key of one person's dashboard actions (src/auth/action-limit.ts). */
  actionRate(userId: string): string {
    return `${this.prefix}:{rl:person:${userId}}`
  }

  /** Set of every team id (operators list teams with it). */
  teams(): string {
    return `${this.prefix}:teams`
  }

  /**
   * One record of the OAuth authorization server (docs/accounts.md): `model` is the protocol
   * library's record kind (AccessToken, RefreshToken, Client, Grant, Interaction, ...), `idHash`
   * the sha256 of its id, so no token is stored as given. Each record has its own slot: nothing
   * writes two of them atomically.
   */
  oauth(model: string, idHash: string): string {
    return `${this.prefix}:oauth:${model}:${idHash}`
  }

  /** Set of the record keys (oauth()) issued under one grant, for revoking them together. */
  oauthGrantIndex(grantHash: string): string {
    return `${this.prefix}:oauth:grantidx:${grantHash}`
  }

  /** A session's id by its uid (hashed like oauth()). */
  oauthSessionUid(uidHash: string): string {
    return `${this.prefix}:oauth:sessuid:${uidHash}`
  }

  /**
   * Stream: the authorization server's trail, one field "d" -> msgpack {actor, action, target?}
   * (src/auth/audit.ts): the protocol requests it refused, which name no team yet.
   */
  oauthAudit(): string {
    return `${this.prefix}:oauth:audit`
  }

  /** The authorization server's own keys (cookie signing, token signing), shared by every node. */
  oauthSecrets(): string {
    return `${this.prefix}:oauth:secrets`
  }

  /** A team's webhook keys, all under the team's hash tag (docs/webhooks.md). */
  webhooks(teamId: string): WebhookKeys {
    const base = `${this.prefix}:{t:${teamId}}:`
    return {
      hooks: `${base}wh`, //              hash: webhook id -> msgpack {id, url, secret, description?, events?,
      //                                  created_at, created_via?, disabled_at?, disabled_reason?,
      //                                  enabled_at?, enabled_via?}
      health: `${base}whhealth`, //       hash: webhook id -> msgpack delivery health (pending, delivered, failed,
      //                                  last attempt, recent failures)
      deliveries: `${base}whd`, //        hash: delivery id -> msgpack {id, wh, room, ev, e (event record), n
      //                                  (attempts), at, holder?}
      due: `${base}whdue`, //             sorted set: delivery id -> when it is due (ms)
      leased: `${base}whlease`, //        sorted set: delivery id -> when its lease runs out (ms); its tokens:
      //                                  leaseTokens(leased)
      positions: `${base}whpos`, //       hash: room id -> id of the last event fanned out into deliveries
      hinted: `${base}whrooms`, //        sorted set: room id -> hint counter (rooms that may have events to fan out)
      meta: `${base}whmeta`, //           hash: seq (delivery counter), swept (last sweep, ms)
    }
  }

  /**
   * Sorted set of teams with webhooks -> when a node should next look at the team (ms; due ones are
   * taken oldest first).
   */
  webhookTeams(): string {
    return `${this.prefix}:{wh}:teams`
  }

  /**
   * The tokens of a lease set (lua/includes/lease.lua; `ends` is the set's sorted set of lease
   * ends): hash member -> "<token>:<end>" of the lease held. Every lease set's name has a hash
   * tag, so this key is in its slot.
   */
  leaseTokens(ends: string): string {
    return `${ends}:tok`
  }

  /**
   * Sorted set of teams -> when a webhook was last being registered (ms): a team is never dropped
   * from webhookTeams() right after.
   */
  webhookRegistrations(): string {
    return `${this.prefix}:{wh}:reg`
  }

  /** Sharded channel of node-wide control notices (key revocations, hub probes). */
  controlChannel(): string {
    return `${this.prefix}:{ctl}:control`
  }

  /**
   * The Meilisearch indexer's position in a room (hash: pos = content seq indexed, room = the
   * room's created_at, t:<id> / c:<type>/<key> / e:<seq> = what is indexed). Under the room's tag,
   * with the room's TTL, so it goes when the room goes.
   */
  searchManifest(ref: RoomRef): string {
    return `${this.prefix}:${this.roomTag(ref)}:search`
  }

  /**
   * The vectors of a room's semantic search (Redis engine, docs/search.md), all under the room's
   * tag and given the room's TTL: written by the vector indexer (src/search/vectors/), read by
   * searches.
   */
  vectors(ref: RoomRef): VectorKeys {
    const base = `${this.prefix}:${this.roomTag(ref)}:`
    return {
      manifest: `${base}vman`, // hash: the vector indexer's position in the room (layout of searchManifest, plus gen
      //                          = embedding model)
      vec: `${base}vec`, //       hash: doc key -> packed vector (text hash, Q8 range, int8 values); "#ver", "#epoch",
      //                          "#floor", "#gen" counters
      order: `${base}vord`, //    sorted set: doc key -> keep priority (tasks and context above events, newer above
      //                          older); the lowest go past the bound
      log: `${base}vlog`, //      sorted set: doc key -> #ver of its last write (nodes that hold the vectors follow it)
      dels: `${base}vdel`, //     sorted set: doc key -> #ver of its removal (pruned; #floor is the last version pruned)
      set: `${base}vset`, //      vector set (Redis 8 VADD/VSIM): the same vectors, with SEARCH_VECTOR_SETS=auto on a
      //                          server that has them
    }
  }

  /** The vector indexer's shared state (marks, leases, rooms with vectors, sweep), under one tag. */
  vectorIndex(): SearchKeys {
    const base = `${this.prefix}:{vec}:`
    return { dirty: `${base}dirty`, leases: `${base}leases`, rooms: `${base}rooms`, sweep: `${base}sweep` }
  }

  /** The Meilisearch indexer's shared state, all under one tag (docs/search.md). */
  search(): SearchKeys {
    const base = `${this.prefix}:{search}:`
    return {
      dirty: `${base}dirty`, //   sorted set: "<teamId>/<roomId>" -> mark counter (+1 per change mark; cleared by a
      //                          sync that saw the last one)
      leases: `${base}leases`, // sorted set: "<teamId>/<roomId>" -> until when a node holds it, or must not retry it
      //                          (ms); tokens: leaseTokens(leases)
      rooms: `${base}rooms`, //   sorted set: "<teamId>/<roomId>" -> when its documents were last written (rooms with
      //                          documents)
      sweep: `${base}sweep`, //   string: the node running the periodic sweep (expires)
    }
  }
}

export type RoomStoreKeyList = [string, string, string, string, string, string, string, string]

export interface VectorKeys {
  readonly manifest: string
  readonly vec: string
  readonly order: string
  readonly log: string
  readonly dels: string
  readonly set: string
}

export interface SearchKeys {
  readonly dirty: string
  readonly leases: string
  readonly rooms: string
  readonly sweep: string
}

export interface TeamKeys {
  readonly team: string
  readonly keys: string
  readonly invites: string
  readonly secrets: string
  readonly rooms: string
  readonly rate: string
  readonly grants: string
  readonly grantUse: string
  readonly audit: string
}

export interface WebhookKeys {
  readonly hooks: string
  readonly health: string
  readonly deliveries: string
  readonly due: string
  readonly leased: string
  readonly positions: string
  readonly hinted: string
  readonly meta: string
}

/** The hash tag of a key (the text between the first `{` and the next `}`), as Redis Cluster reads it. */
export function hashTagOf(key: string): string {
  const open = key.indexOf('{')
  if (open < 0) return key
  const close = key.indexOf('}', open + 1)
  if (close < 0 || close === open + 1) return key
  return key.slice(open + 1, close)
}
