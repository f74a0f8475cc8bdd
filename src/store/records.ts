// Records as the Lua scripts store and return them: msgpack, times in epoch ms, snake_case. The
// script map (script-map/) types replies with them; the modules that show a record turn it into
// their own form (ISO times, camelCase where the API has it).
import type { Via } from '../shared/fields.js'

/** A record handed on as it is (to a decoder that takes any record). */
export type StoredRecord = Record<string, unknown>

/**
 * A map of a reply. Lua packs an empty table as an empty list, so a map with no entries comes back
 * as [] (test Array.isArray before reading it).
 */
export type LuaMap<T> = Record<string, T> | []

/** A list field of a stored record, which its readers also accept as a map (test Array.isArray before reading it). */
export type LuaList<T> = T[] | Record<string, never>

/** The statuses and priorities a task takes (src/core/plan.ts validates against the same). */
export type StoredTaskStatus = 'todo' | 'in_progress' | 'in_review' | 'done' | 'cancelled'
export type StoredPriority = 'urgent' | 'high' | 'normal' | 'low'

/** A task (lua/includes/task.lua); blocked_by is added by the scripts that list waiting tasks. */
export type StoredTask = StoredRecord & {
  id: string
  title: string
  status: StoredTaskStatus
  priority: StoredPriority
  assignee?: string
  blocked_by?: string[]
}

/** An event as a script returns it: the stored record with its stream id. */
export type StoredEvent = StoredRecord & { id: string }

/** A lock (the locks hash and the lock's own key). */
export type StoredLock = {
  owner: string
  token: number
  acquired_at: number
  expires_at: number
}

/** A file reservation (lua/includes/reservations.lua). */
export type StoredReservation = {
  agent: string
  pattern: string
  exclusive: boolean
  token: number
  reason?: string
  acquired_at: number
  expires_at: number
}

/** A presence entry of listPresence. */
export type PresenceRow = { agent_id: string; last_seen_at: number }

/** A person's role in their team (src/auth/permissions.ts says what each may do). */
export type StoredRole = 'owner' | 'admin' | 'member' | 'viewer'

/** A person of the accounts directory. */
export type StoredUser = {
  id: string
  email: string
  name: string
  team: string
  role: StoredRole
  created_at: number
  last_sign_in_at?: number
  idents?: LuaList<string>
}

/** A member invite of the accounts directory. */
export type StoredInvite = {
  id: string
  email: string
  team: string
  role: StoredRole
  new_team: boolean
  by: string
  state: 'pending' | 'accepted' | 'revoked'
  created_at: number
  expires_at: number
}

/** A waitlist entry. */
export type StoredWaitlistEntry = {
  email: string
  note: string
  at: number
  state: 'pending' | 'approved' | 'declined'
  decided_at?: number
}

/**
 * What a key record says of its reach (src/auth/principal.ts Reach); records minted before these
 * were recorded have none, and src/auth/keyring.ts decides for them.
 */
export type CredentialReach = {
  scope?: 'admin' | 'agent'
  access?: 'read' | 'write'
  /** The agent id the key is bound to. */
  agent_id?: string
  /**
   * User id of the person who minted it (absent: the team's first key, operator tools, keys minted
   * before it was recorded).
   */
  created_by?: string
  /** Its label, as records made with it name it. */
  label?: string
}

/** A team key or a room invite key (only its hash: the secret is never stored). */
export type StoredCredential = CredentialReach & {
  id: string
  hash: string
  hint: string
  room_id?: string
  created_at: number
  revoked_at?: number
}

/** A webhook: the secrets are stored (they sign every delivery) and never shown. */
export type StoredWebhook = {
  id: string
  url: string
  secret: string
  prev_secret?: string
  prev_until?: number
  rotated_at?: number
  description?: string
  events?: string[]
  created_at: number
  /** Who registered it: {kind: 'person', id: user id} on the dashboard, the credential's via on the API. */
  created_via?: StoredVia
  disabled_at?: number
  disabled_reason?: string
  /** When it was last re-enabled (Redis ms; it gets the events posted from then on) and by whom. */
  enabled_at?: number
  enabled_via?: StoredVia
}

/** A `via` as a webhook record keeps it (a msgpack map; src/shared/fields.ts Via). */
export type StoredVia = { kind: Via['kind']; id: string; label?: string; person?: string }

/** A delivery that failed for good, kept in its webhook's health. */
export type StoredFailure = {
  id: string
  room: string
  ev: string
  n: number
  at: number
  status?: number
  error?: string
}

/** An attempt, kept in its webhook's health. */
export type StoredAttempt = {
  id: string
  room: string
  ev: string
  n: number
  at: number
  outcome: 'ok' | 'retry' | 'fail' | 'gone'
  status?: number
  error?: string
}

/** A webhook's delivery health (lua/includes/webhookHealth.lua). */
export type StoredHealth = Partial<
  Record<'pending' | 'delivered' | 'failed' | 'dropped' | 'lost' | 'takeovers' | 'consecutive_failures', number>
> & {
  last_attempt_at?: number
  last_status?: number
  last_error?: string
  last_success_at?: number
  recent?: LuaList<StoredFailure>
  attempts?: LuaList<StoredAttempt>
}
