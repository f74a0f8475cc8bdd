// The scripts called with explicit keys (Store.run): teams and their keys, webhooks, search
// indexing, vectors, leases, the rate limit. Each one's keys (KEYS[1..]), arguments (ARGV[1..])
// and reply; `rows: true` when raw records follow the reply. Checked against each script's
// header by test/unit/script-map.test.ts.
import type { CredentialReach, StoredCredential, StoredHealth, StoredWebhook } from '../records.js'

type Scope = NonNullable<CredentialReach['scope']>
type Access = NonNullable<CredentialReach['access']>
import type { Delivery, Outcome } from '../webhooks.js'

type Flag = '0' | '1'
type Key = string

/** One rate window's part of a lease (lua/leaseRate-2.lua): calls granted, left, until full, until one more fits. */
export interface RateWindow {
  granted: number
  remaining: number
  reset_ms: number
  retry_ms: number
}

export interface KeyedScripts {
  ackSearchRoom: {
    keys: [dirty: Key, leases: Key, tokens: Key]
    args: [room: string, mark: number, retryMs: number, token: number]
    reply: { cleared: boolean; held: boolean }
  }
  beginFanout: {
    keys: [hooks: Key, hinted: Key, positions: Key, meta: Key]
    args: [maxRooms: number, sweepEveryMs: number]
    reply: {
      webhooks: number
      floor?: number
      rooms: { room: string; hint: string; pos: string }[]
      sweep?: true
      now: number
    }
  }
  claimDeliveries: {
    keys: [hooks: Key, health: Key, deliveries: Key, due: Key, leased: Key, hinted: Key, tokens: Key]
    args: [holder: string, max: number, leaseMs: number, maxAttempts: number, recentKept: number]
    reply: {
      claimed: (Delivery & { token: number })[]
      next?: number
      more: boolean
      hinted: number
      webhooks: number
      now: number
    }
  }
  claimSearchRooms: {
    keys: [dirty: Key, leases: Key, tokens: Key]
    args: [leaseMs: number, max: number, only: string]
    reply: { rooms: { room: string; mark: number; token: number }[] }
  }
  claimTeams: {
    keys: [teams: Key, tokens: Key]
    args: [max: number, leaseMs: number]
    reply: { teams: string[]; token: number; now: number }
  }
  createTeam: {
    keys: [team: Key, keys: Key, secrets: Key]
    args: [teamId: string, name: string, key: Buffer]
    reply: { created: boolean; team: { id: string; name: string; created_at: number } }
  }
  createWebhook: {
    keys: [hooks: Key, health: Key]
    args: [record: Buffer, limit: number]
    reply: { record: StoredWebhook }
  }
  deleteWebhook: {
    keys: [hooks: Key, health: Key]
    args: [webhookId: string]
    reply: { record: StoredWebhook; health?: StoredHealth; remaining: number }
  }
  dropVectors: {
    keys: [vec: Key, order: Key, log: Key, dels: Key, set: Key, meta: Key]
    args: [ttlMs: number, epoch: string]
    reply: { epoch: string }
  }
  enqueueDeliveries: {
    keys: [hooks: Key, health: Key, deliveries: Key, due: Key, positions: Key, hinted: Key, meta: Key]
    args: [
      teamId: string,
      room: string,
      expectedPos: string,
      newPos: string,
      hint: string,
      lost: number,
      pendingMax: number,
      lostBefore: number,
      ...events: (string | Buffer)[],
    ]
    reply: { enqueued?: number; dropped?: number; stale?: true }
  }
  indexRoom: { keys: [index: Key]; args: [roomId: string, limit: number]; reply: { added: boolean; count: number } }
  listWebhooks: { keys: [hooks: Key, health: Key]; args: []; reply: { n: number }; rows: true }
  lookupKey: {
    keys: [secrets: Key, keys: Key, invites: Key, team: Key]
    args: [hash: string]
    reply:
      | {
          kind: 'team'
          id: string
          scope?: Scope
          access?: Access
          agent_id?: string
          created_by?: string
          label?: string
        }
      | {
          kind: 'room'
          id: string
          room_id: string
          scope?: Scope
          access?: Access
          agent_id?: string
          created_by?: string
          label?: string
        }
      | { kind?: undefined }
  }
  mintKey: {
    keys: [team: Key, records: Key, secrets: Key, keys: Key]
    args: [kind: 'k' | 'i', records: Buffer, limit: number, retentionMs: number, by: string]
    reply: { records: StoredCredential[] }
  }
  leaseRate: {
    keys: [team: Key, credential: Key]
    args: [periodMs: number, teamLimit: number, teamWant: number, credLimit: number, credWant: number, teamHeld: number]
    reply: { team: RateWindow; cred?: RateWindow }
  }
  rateLimit: {
    keys: [window: Key]
    args: [limit: number, periodMs: number, n: number]
    reply: { allowed: number; remaining: number; reset_ms: number; retry_after_ms: number }
  }
  mirrorVectors: {
    keys: [vec: Key, order: Key, set: Key]
    args: [fresh: Flag, records: Buffer, ...packedThenFp32: Buffer[]]
    reply: { added: number; mirrored: number; card: number }
  }
  readVectorChanges: {
    keys: [vec: Key, log: Key, dels: Key]
    args: [since: number, epoch: string, max: number]
    reply: { ver: number; epoch: string; gen: string; full: boolean; upto: number; keys: string[]; dels: string[] }
    rows: true
  }
  readVectorHashes: { keys: [vec: Key]; args: [docKeys: Buffer]; reply: { hashes: string[] } }
  registerWebhookTeam: { keys: [teams: Key, registrations: Key]; args: [teamId: string]; reply: Record<string, never> }
  renewLeases: {
    keys: [ends: Key, tokens: Key]
    args: [leaseMs: number, ...memberThenToken: (string | number)[]]
    reply: { ends: number[] }
  }
  replayDelivery: {
    keys: [hooks: Key, health: Key, deliveries: Key, due: Key]
    args: [webhookId: string, deliveryId: string, pendingMax: number, event: Buffer | '']
    reply: { room?: string; ev?: string; due?: number }
  }
  rescheduleTeam: {
    keys: [teams: Key, registrations: Key, tokens: Key]
    args: [teamId: string, token: number, next: number, empty: Flag, graceMs: number]
    reply: { done: 'rescheduled' | 'woken' | 'removed' | 'absent' }
  }
  revokeKey: {
    keys: [team: Key, records: Key, secrets: Key]
    args: [kind: 'k' | 'i', id: string, roomId: string, retentionMs: number, onlyOf: string]
    reply: { record: StoredCredential; hash: string }
  }
  revokeMemberKeys: {
    keys: [team: Key, keys: Key, invites: Key, secrets: Key, hooks: Key]
    args: [userId: string, retentionMs: number, only: 'admin' | '', webhooksReason: string]
    // Lua packs an empty list as an empty map.
    reply: {
      keys: StoredCredential[] | Record<string, never>
      invites: StoredCredential[] | Record<string, never>
      hashes: string[] | Record<string, never>
      webhooks: { id: string; url: string; disabled_reason: string }[] | Record<string, never>
    }
  }
  renameTeam: { keys: [team: Key]; args: [name: string]; reply: { renamed: boolean; from?: string } }
  dropRoom: {
    keys: [invites: Key, secrets: Key, rooms: Key, positions: Key, hinted: Key]
    args: [roomId: string]
    reply: { invites: string[] | Record<string, never>; hashes: string[] | Record<string, never> }
  }
  revokeTeam: { keys: [team: Key, keys: Key, invites: Key, secrets: Key]; args: []; reply: { hashes: string[] } }
  enableWebhook: {
    keys: [hooks: Key]
    args: [webhookId: string, via: Buffer]
    reply: { record: StoredWebhook; was: string }
  }
  rotateWebhookSecret: {
    keys: [hooks: Key]
    args: [webhookId: string, secret: string, overlapMs: number]
    reply: { record: StoredWebhook }
  }
  saveSearchManifest: { keys: [manifest: Key]; args: [ttlMs: number, change: Buffer]; reply: { fields: number } }
  searchVectors: {
    keys: [vec: Key, order: Key, set: Key]
    args: [query: Buffer, count: number, filter: string]
    reply: { gen: string; mirrored: boolean; card: number; keys: string[] }
    rows: true
  }
  settleDelivery: {
    keys: [hooks: Key, health: Key, deliveries: Key, due: Key, leased: Key, tokens: Key]
    args: [
      token: number,
      id: string,
      outcome: Outcome,
      status: number | '',
      error: string,
      delayMs: number,
      failuresKept: number,
      attemptsKept: number,
    ]
    reply: { settled: boolean; outcome?: Outcome; at?: number }
  }
  writeVectors: {
    keys: [vec: Key, order: Key, log: Key, dels: Key, set: Key]
    args: [ttlMs: number, bound: number, mirror: Flag, change: Buffer, ...blobs: Buffer[]]
    reply: { ver: number; count: number; evicted: number; mirrored: number }
  }
}
