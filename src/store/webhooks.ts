// The Redis side of webhook delivery (src/webhooks holds the rest), one method per script
// (lua/*.lua hold the contracts) and the plain reads around them: the global schedule of teams,
// fan-out from a room's event stream into a team's deliveries, claims under leases
// (lua/includes/lease.lua), and outcomes. Nothing here sends a request.
import { decode } from '../shared/msgpack.js'
import type { RoomRef } from './keys.js'
import type { Lease } from './leases.js'
import type { Store } from './store.js'

/** A delivery as stored: the event record is the room stream's own (msgpack fields, ms times). */
export interface Delivery {
  id: string
  /** Webhook id. */
  wh: string
  room: string
  /** Event id. */
  ev: string
  /** The stored event record: {type, agent_id, text, data? (JSON text), reply_to?, created_at}. */
  e: Record<string, unknown>
  /** Attempts made, this one included. */
  n: number
  at: number
  /** The node that claimed it last (host:pid:random), for operators. */
  holder?: string
}

/** A delivery claimed under a lease of its own (src/store/leases.ts): the lease's token settles it. */
export interface ClaimedDelivery extends Delivery {
  lease: Lease
}

export interface Claim {
  claimed: ClaimedDelivery[]
  next?: number
  more: boolean
  hinted: number
  webhooks: number
  now: number
}

export interface FanoutStart {
  webhooks: number
  floor?: number
  rooms: { room: string; hint: string; pos: string }[]
  sweep?: boolean
  now: number
}

export type Outcome = 'ok' | 'retry' | 'fail' | 'gone' | 'drop'

/** What an attempt needs of its webhook, read just before it. */
export interface HookTarget {
  url: string
  secret: string
  /** The secret before the last rotation, signing beside `secret` until `prev_until` (ms). */
  prev_secret?: string
  prev_until?: number
  disabled_at?: number
}

export class WebhookQueue {
  /** Redis time minus this node's clock, as last seen in a script's reply (ms). */
  private clockOffset = 0

  constructor(private readonly store: Store) {}

  /** Redis time now, as well as this node knows it (scores in the team schedule are Redis times). */
  redisNow(): number {
    return Date.now() + this.clockOffset
  }

  /**
   * Learns the offset of Redis's clock from a script's `now`; the reply's travel makes the estimate
   * lag, never lead.
   */
  private saw(now: number): void {
    if (Number.isFinite(now)) this.clockOffset = now - Date.now()
  }

  private team(teamId: string) {
    return this.store.keys.webhooks(teamId)
  }

  /** The webhook teams (also the passes' lease ends), the registrations, the passes' lease tokens. */
  private get global(): [teams: string, registrations: string, tokens: string] {
    const teams = this.store.keys.webhookTeams()
    return [teams, this.store.keys.webhookRegistrations(), this.store.keys.leaseTokens(teams)]
  }

  /** Teams due for a pass, each now leased to the caller for `leaseMs` under the lease token `token`. */
  async claimTeams(max: number, leaseMs: number): Promise<{ teams: string[]; token: number; now: number }> {
    const [teams, , tokens] = this.global
    const r = await this.store.run('claimTeams', [teams, tokens], [max, leaseMs])
    this.saw(r.now)
    return { teams: r.teams, token: r.token, now: r.now }
  }

  /**
   * Ends a pass (releases its lease): the team's next time; or, when the pass no longer holds the
   * team (a wake ended its lease, or it stalled past it), the next time only if that is sooner.
   * Removes a team without webhooks after `graceMs`.
   */
  async rescheduleTeam(
    teamId: string,
    token: number,
    next: number,
    empty: boolean,
    graceMs: number,
  ): Promise<'rescheduled' | 'woken' | 'removed' | 'absent'> {
    const r = await this.store.run('rescheduleTeam', this.global, [
      teamId,
      token,
      Math.round(next),
      empty ? '1' : '0',
      graceMs,
    ])
    return r.done
  }

  /**
   * Makes a team with webhooks due no later than `at` (ms, Redis time; default now). "Now" is the
   * time, not 0, so teams due at once are taken in the order they became due. A team without
   * webhooks is not added.
   */
  async wakeTeam(teamId: string, at = this.redisNow()): Promise<void> {
    await this.store.client.zadd(this.global[0], 'XX', 'LT', Math.round(at), teamId)
  }

  /** Whether a team has (or lately had) webhooks. */
  async hasWebhooks(teamId: string): Promise<boolean> {
    return (await this.store.client.zscore(this.global[0], teamId)) !== null
  }

  /** Records that a room may have events to fan out (a counter, so a hint given during a fan-out survives it). */
  async hintRoom(ref: RoomRef): Promise<void> {
    await this.store.client.zincrby(this.team(ref.teamId).hinted, 1, ref.roomId)
  }

  async beginFanout(teamId: string, maxRooms: number, sweepEveryMs: number): Promise<FanoutStart> {
    const k = this.team(teamId)
    const r = await this.store.run('beginFanout', [k.hooks, k.hinted, k.positions, k.meta], [maxRooms, sweepEveryMs])
    const out: FanoutStart = { webhooks: r.webhooks, rooms: r.rooms, now: r.now }
    if (r.floor !== undefined) out.floor = r.floor
    if (r.sweep) out.sweep = true
    return out
  }

  /**
   * Events of a room after `pos` (and not before `floor`), oldest first, as [id, stored record];
   * `lost`: events trimmed before they were fanned out, none created after `lostBefore` (ms).
   */
  async readOutbox(
    ref: RoomRef,
    pos: string,
    floor: number,
    count: number,
  ): Promise<{ events: [string, Buffer][]; head?: string; lost: number; lostBefore: number }> {
    const r = await this.store.room('readOutbox', ref, { touch: false }, [pos, Math.floor(floor), count])
    const events: [string, Buffer][] = []
    for (let i = 0; i + 1 < r.rows.length; i += 2) events.push([r.rows[i]!.toString('utf8'), r.rows[i + 1]!])
    return {
      events,
      ...(r.head !== undefined ? { head: r.head } : {}),
      lost: r.lost ?? 0,
      lostBefore: r.lost_before ?? 0,
    }
  }

  /**
   * Enqueues deliveries for `events` of a room and moves its position from `expectedPos` to
   * `newPos` ('' unchanged, '-' forget); clears the hint when `hint` is still its score. `lost`
   * events trimmed unread are charged to the webhooks created no later than `lostBefore`.
   */
  async enqueue(
    teamId: string,
    room: string,
    expectedPos: string,
    newPos: string,
    hint: string,
    lost: { count: number; before: number },
    pendingMax: number,
    events: [string, Buffer][],
  ): Promise<{ stale: boolean; enqueued: number; dropped: number }> {
    const k = this.team(teamId)
    const r = await this.store.run(
      'enqueueDeliveries',
      [k.hooks, k.health, k.deliveries, k.due, k.positions, k.hinted, k.meta],
      [teamId, room, expectedPos, newPos, hint, lost.count, pendingMax, Math.floor(lost.before), ...events.flat()],
    )
    return { stale: r.stale ?? false, enqueued: r.enqueued ?? 0, dropped: r.dropped ?? 0 }
  }

  /**
   * Claims up to `max` due deliveries, each under a lease of its own (`token`), for the node
   * named `holder`. A taken-over delivery that already had
   * `maxAttempts` attempts and the two a takeover may add is failed instead (recorded like any
   * failure, `recentKept` kept). A team without webhooks has what its deleted webhooks left
   * deleted, a batch per call (`more` until done).
   */
  async claimDeliveries(
    teamId: string,
    holder: string,
    max: number,
    leaseMs: number,
    maxAttempts: number,
    recentKept: number,
  ): Promise<Claim> {
    const k = this.team(teamId)
    const r = await this.store.run(
      'claimDeliveries',
      [k.hooks, k.health, k.deliveries, k.due, k.leased, k.hinted, this.store.keys.leaseTokens(k.leased)],
      [holder, max, leaseMs, maxAttempts, recentKept],
    )
    this.saw(r.now)
    const claim: Claim = {
      claimed: r.claimed.map(({ token, ...d }) => ({ ...d, lease: { member: d.id, token } })),
      more: r.more,
      hinted: r.hinted,
      webhooks: r.webhooks,
      now: r.now,
    }
    if (r.next !== undefined) claim.next = r.next
    return claim
  }

  /**
   * Records an attempt's outcome and releases its lease; `settled` is false when `token` no longer
   * held it. `at`: when a retry is due.
   */
  async settle(
    teamId: string,
    token: number,
    id: string,
    outcome: Outcome,
    status: number | undefined,
    error: string | undefined,
    delayMs: number,
    kept: { failures: number; attempts: number },
  ): Promise<{ settled: boolean; at?: number }> {
    const k = this.team(teamId)
    const r = await this.store.run(
      'settleDelivery',
      [k.hooks, k.health, k.deliveries, k.due, k.leased, this.store.keys.leaseTokens(k.leased)],
      [
        token,
        id,
        outcome,
        status ?? '',
        (error ?? '').slice(0, 300),
        Math.round(delayMs),
        kept.failures,
        kept.attempts,
      ],
    )
    return { settled: r.settled, ...(r.at !== undefined ? { at: r.at } : {}) }
  }

  /** A webhook's target and secret as they are now (undefined: deleted). */
  async hook(teamId: string, webhookId: string): Promise<HookTarget | undefined> {
    const raw = await this.store.client.hgetBuffer(this.team(teamId).hooks, webhookId)
    return raw ? (decode(raw) as HookTarget) : undefined
  }

  /** The lease set of a team's deliveries (renewed by a LeaseKeeper). */
  leaseSet(teamId: string): string {
    return this.team(teamId).leased
  }

  /** A page of a team's room ids (the room index; rooms are entered in it before they exist). */
  teamRooms(teamId: string, from: number, count: number): Promise<string[]> {
    return this.store.rooms.ids(teamId, from, count)
  }

  /** The fan-out positions of `rooms` ('' for none). */
  async positions(teamId: string, rooms: string[]): Promise<string[]> {
    if (rooms.length === 0) return []
    return (await this.store.client.hmget(this.team(teamId).positions, ...rooms)).map((p) => p ?? '')
  }

  /**
   * One HSCAN step over the team's positions: forgets those of rooms that left the team's index
   * (expired). Returns the next cursor ('0' when done).
   */
  async forgetStalePositions(teamId: string, cursor: string, count: number): Promise<string> {
    const k = this.team(teamId)
    const [next, flat] = await this.store.client.hscan(k.positions, cursor, 'COUNT', count)
    const rooms = flat.filter((_, i) => i % 2 === 0)
    if (rooms.length > 0) {
      const scores = await this.store.client.zmscore(this.store.keys.teamRooms(teamId), ...rooms)
      const gone = rooms.filter((_, i) => scores[i] === null)
      if (gone.length > 0) await this.store.client.hdel(k.positions, ...gone)
    }
    return next
  }

  /** The id of a room's newest event ("<lastms>-<eseq>"), or undefined for a room without events. */
  async roomHead(ref: RoomRef): Promise<string | undefined> {
    const { seq, ms } = await this.store.rooms.head(ref)
    return seq > 0 ? `${ms}-${seq}` : undefined
  }

  /** Announces on the control channel that a team's webhooks changed. */
  announce(teamId: string): Promise<void> {
    return this.store.control({ k: 'webhooks', team: teamId })
  }
}
