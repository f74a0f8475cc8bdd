// The fast path of fan-out: after a room script appended an event, the node that ran it hints the
// room to its team's webhook work and wakes the team (its own dispatcher at once, others at their
// next poll). Teams without webhooks cost one cached lookup, not a write per event. A hint lost to
// a crash right after the post is found by the sweep (fanout.ts): hints are for latency only.
import type { RoomRef } from '../store/keys.js'
import type { WebhookQueue } from '../store/webhooks.js'

/** How long a node trusts what it learned about a team having webhooks (a control notice cuts it short). */
export const HINT_CACHE_MS = 5000
const CACHE_MAX = 10_000

export class Hinter {
  private readonly cache = new Map<string, { has: Promise<boolean>; until: number }>()

  constructor(
    private readonly queue: WebhookQueue,
    private readonly onHinted: (teamId: string) => void,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Called after each appended event; never throws, never delays the caller. */
  appended(ref: RoomRef): void {
    void this.hint(ref).catch(this.onError)
  }

  private async hint(ref: RoomRef): Promise<void> {
    if (!(await this.hasWebhooks(ref.teamId))) return
    await Promise.all([this.queue.hintRoom(ref), this.queue.wakeTeam(ref.teamId)])
    this.onHinted(ref.teamId)
  }

  private hasWebhooks(teamId: string): Promise<boolean> {
    const now = Date.now()
    const hit = this.cache.get(teamId)
    if (hit && hit.until > now) return hit.has
    if (this.cache.size >= CACHE_MAX) this.cache.clear()
    const has = this.queue.hasWebhooks(teamId)
    this.cache.set(teamId, { has, until: now + HINT_CACHE_MS })
    has.catch(() => this.cache.delete(teamId))
    return has
  }

  /** A team's webhooks changed (control notice): look again at its next event. */
  forget(teamId: string): void {
    this.cache.delete(teamId)
  }

  /** Notices may have been missed (hub resync): look again for every team. */
  clear(): void {
    this.cache.clear()
  }
}
