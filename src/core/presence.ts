// Presence: which agents are online, by heartbeat. An agent is online while its last heartbeat is
// younger than PRESENCE_TTL_S; agents not seen for a day are forgotten. Leaving the room clears
// the agent's presence and posts an `agent_left` event in the same script.
import { z } from 'zod'
import type { CoreSettings } from './settings.js'
import type { Store } from '../store/store.js'
import { eventFromReply } from '../shared/events.js'
import { requireAgent, viaArg, type Caller } from './fields.js'
import { callOptions } from './records.js'
import { iso } from '../shared/time.js'
import { parse } from '../shared/validate.js'

export interface PresenceEntry {
  agent_id: string
  last_seen_at: string
}

/** Agents not seen for this long are dropped from presence (and from the recently-offline list). */
export const PRESENCE_FORGET_MS = 24 * 3600 * 1000
/** Most agents listed per group (online, offline) by get_presence; counts are always exact. */
export const PRESENCE_LIST_MAX = 200

export const presenceSchemas = {
  heartbeat: z.object({}),
  list: z.object({ include_offline: z.boolean().default(false) }),
  leave: z.object({}),
}

export function entriesOf(raw: unknown): PresenceEntry[] {
  return ((raw ?? []) as { agent_id: string; last_seen_at: number }[]).map((e) => ({
    agent_id: e.agent_id,
    last_seen_at: iso(e.last_seen_at),
  }))
}

export class Presence {
  private readonly ttlMs: number

  constructor(
    private readonly store: Store,
    private readonly settings: CoreSettings,
  ) {
    this.ttlMs = settings.presenceTtlMs
  }

  /**
   * Marks the caller online now (heartbeat). Returns how many agents are online as online_count,
   * the name get_presence gives the count (its online is the list).
   */
  async heartbeat(c: Caller, input: unknown = {}) {
    const agent = requireAgent(c)
    parse(presenceSchemas.heartbeat, input)
    const r = await this.store.room('recordHeartbeat', c.room, callOptions(c), [this.ttlMs, PRESENCE_FORGET_MS])
    return {
      online_count: r.online,
      you: { agent_id: agent, last_seen_at: iso(r.last_seen_at) },
      presence_ttl_s: this.settings.presenceTtlMs / 1000,
      unread: r.unread,
    }
  }

  /** Online agents, newest heartbeat first (get_presence); with include_offline, those seen within a day too. */
  async list(c: Caller, input: unknown = {}) {
    const v = parse(presenceSchemas.list, input)
    const r = await this.store.room('listPresence', c.room, callOptions(c), [
      this.ttlMs,
      PRESENCE_FORGET_MS,
      v.include_offline ? '1' : '0',
      PRESENCE_LIST_MAX,
    ])
    const out: {
      online: PresenceEntry[]
      online_count: number
      offline?: PresenceEntry[]
      offline_count?: number
      presence_ttl_s: number
      unread: number | undefined
    } = {
      online: entriesOf(r.online),
      online_count: r.online_count,
      presence_ttl_s: this.settings.presenceTtlMs / 1000,
      unread: r.unread,
    }
    if (v.include_offline) {
      out.offline = entriesOf(r.offline)
      out.offline_count = r.offline_count
    }
    return out
  }

  /**
   * The caller leaves the room (leave_room): presence cleared, an `agent_left` event posted,
   * whatever its presence was (was_present: whether it had one).
   */
  async leave(c: Caller, input: unknown = {}) {
    requireAgent(c)
    parse(presenceSchemas.leave, input)
    const r = await this.store.room(
      'leaveRoom',
      c.room,
      callOptions(c),
      [this.settings.eventsRetained, this.ttlMs, viaArg(c)],
      [this.store.keys.reservations(c.room)],
    )
    const released = [...(r.released ?? [])].sort()
    return {
      left: true,
      was_present: r.was_present,
      was_online: r.was_online,
      event: eventFromReply(r.event),
      released,
      unread: r.unread,
    }
  }
}
