// Leased work, the TypeScript half (the Lua half and the rule: lua/includes/lease.lua;
// docs/data-model.md, "Leases"). The team schedule, webhook deliveries and search indexing each
// claim and release in their own scripts (claimTeams/rescheduleTeam, claimDeliveries/
// settleDelivery, claimSearchRooms/ackSearchRoom), all with the include's rule; renewal is one
// script for all (renewLeases) and one keeper here.
import type { Store } from './store.js'

/** A lease held on one member of a lease set. `token` is the lease's end (ms, Redis time); renewal moves it. */
export interface Lease {
  readonly member: string
  token: number
}

export interface KeeperLog {
  warn(obj: object, msg: string): void
}

interface Held {
  readonly set: string
  /** Its holder's token no longer holds it (it ran out and was taken over, or was released). */
  lost: boolean
}

/**
 * Keeps the leases of work in progress: renews every held lease every third of the lease
 * (BullMQ's lock extension), so only a dead or stalled holder's work is taken over, and tells
 * when one is lost. Renewals run one at a time and update each lease's token in place, so the
 * token read after `release` (which waits for the renewal in flight) is the one that holds it.
 */
export class LeaseKeeper {
  private readonly held = new Map<Lease, Held>()
  private chain: Promise<void> = Promise.resolve()
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly store: Store,
    private readonly leaseMs: number,
    private readonly log?: KeeperLog,
    /** What the log calls the work (e.g. "webhook deliveries"). */
    private readonly what = 'leases',
  ) {}

  /** Keeps `lease` of lease set `set` until `release`. */
  hold(set: string, lease: Lease): void {
    this.held.set(lease, { set, lost: false })
    if (!this.timer) {
      this.timer = setInterval(() => void this.renew().catch(() => undefined), Math.max(10, Math.floor(this.leaseMs / 3)))
      this.timer.unref()
    }
  }

  /**
   * Renews `lease` now (after any renewal in flight): true while it is held, false once lost (its
   * holder must stop: another may be doing the work).
   */
  async check(lease: Lease): Promise<boolean> {
    const h = this.held.get(lease)
    if (!h || h.lost) return false
    await this.renew([lease])
    return !h.lost
  }

  /** Stops keeping `lease`, after the renewal in flight: its token is then the one to release it by. */
  async release(lease: Lease): Promise<void> {
    this.held.delete(lease)
    if (this.held.size === 0 && this.timer) {
      clearInterval(this.timer)
      this.timer = undefined
    }
    await this.chain.catch(() => undefined)
  }

  /** Stops renewing every lease held (shutdown): they run out, and others take their work over. */
  stop(): void {
    this.held.clear()
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
  }

  /** Renews `only`, or every lease held; one call per lease set, one pass at a time. */
  private renew(only?: Lease[]): Promise<void> {
    const pass = async () => {
      const bySet = new Map<string, Lease[]>()
      for (const lease of only ?? this.held.keys()) {
        const h = this.held.get(lease)
        if (!h || h.lost) continue
        const list = bySet.get(h.set)
        if (list) list.push(lease)
        else bySet.set(h.set, [lease])
      }
      for (const [set, leases] of bySet) {
        try {
          await this.renewIn(set, leases)
        } catch (err) {
          this.log?.warn({ err: err instanceof Error ? err.message : String(err), set }, `cannot renew the leases of ${this.what}`)
        }
      }
    }
    this.chain = this.chain.catch(() => undefined).then(pass)
    return this.chain
  }

  private async renewIn(set: string, leases: Lease[]): Promise<void> {
    const args: [leaseMs: number, ...memberThenToken: (string | number)[]] = [this.leaseMs]
    for (const l of leases) args.push(l.member, l.token)
    const r = await this.store.run('renewLeases', [set], args)
    const { tokens } = r
    let lost = 0
    leases.forEach((l, i) => {
      const token = tokens[i] ?? 0
      if (token > 0) l.token = token
      else {
        const h = this.held.get(l)
        if (h) h.lost = true
        lost++
      }
    })
    if (lost > 0) this.log?.warn({ set, lost }, `${this.what}: leases lost to another holder (this one stalled past their end)`)
  }
}
