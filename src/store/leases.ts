// Leased work, the TypeScript half (the Lua half and the rule: lua/includes/lease.lua;
// docs/data-model.md, "Leases"). The team schedule, webhook deliveries and search indexing each
// claim and release in their own scripts (claimTeams/rescheduleTeam, claimDeliveries/
// settleDelivery, claimSearchRooms/ackSearchRoom), all with the include's rule; renewal is one
// script for all (renewLeases) and one keeper here. A lease set is named by its ends (a sorted
// set); its tokens are beside it (Keys.leaseTokens).
import type { Store } from './store.js'

/**
 * A lease held on one member of a lease set. `token` is fixed for the life of the claim; renewal
 * moves only the lease's end.
 */
export interface Lease {
  readonly member: string
  readonly token: number
}

export interface KeeperLog {
  warn(obj: object, msg: string): void
}

interface Held {
  readonly set: string
  /** Its holder's token no longer holds it (it ran out and was taken over, or its score was moved). */
  lost: boolean
}

/**
 * Keeps the leases of work in progress: renews every held lease every third of the lease
 * (BullMQ's lock extension), so only a dead or stalled holder's work is taken over, and tells
 * when one is lost. Renewals run one at a time. A renewal changes no token, so repeating one whose
 * reply was lost (it failed as unavailable: past its deadline, or its connection cut) costs
 * nothing, and a release need not
 * wait for the renewal in flight: run after the release, it finds the lease gone and renews
 * nothing.
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
      this.timer = setInterval(
        () => void this.renew().catch(() => undefined),
        Math.max(10, Math.floor(this.leaseMs / 3)),
      )
      this.timer.unref()
    }
  }

  /**
   * Renews `lease` now (after any renewal in flight): true when this renewal found it held, false
   * once lost (its holder must stop: another may be doing the work). Throws when Redis did not
   * answer: whether it is held is then unknown, and a holder that writes only while its lease is
   * sure stops too.
   */
  async check(lease: Lease): Promise<boolean> {
    const h = this.held.get(lease)
    if (!h || h.lost) return false
    let failed: unknown
    await this.renew([lease], (err) => (failed = err))
    if (failed !== undefined) throw failed
    return !h.lost
  }

  /** Stops keeping `lease`: its holder releases it (by its token, which never changed). */
  release(lease: Lease): void {
    this.held.delete(lease)
    if (this.held.size === 0 && this.timer) {
      clearInterval(this.timer)
      this.timer = undefined
    }
  }

  /** Stops renewing every lease held (shutdown): they run out, and others take their work over. */
  stop(): void {
    this.held.clear()
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
  }

  /**
   * Renews `only`, or every lease held; one call per lease set, one pass at a time. A set whose
   * renewal failed goes to `failed`.
   */
  private renew(only?: Lease[], failed?: (err: unknown) => void): Promise<void> {
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
          failed?.(err)
          this.log?.warn(
            { err: err instanceof Error ? err.message : String(err), set },
            `cannot renew the leases of ${this.what}`,
          )
        }
      }
    }
    this.chain = this.chain.catch(() => undefined).then(pass)
    return this.chain
  }

  private async renewIn(set: string, leases: Lease[]): Promise<void> {
    const args: [leaseMs: number, ...memberThenToken: (string | number)[]] = [this.leaseMs]
    for (const l of leases) args.push(l.member, l.token)
    const { ends } = await this.store.run('renewLeases', [set, this.store.keys.leaseTokens(set)], args)
    let lost = 0
    leases.forEach((l, i) => {
      const h = this.held.get(l)
      // Released meanwhile (the release ran first): not lost, just no longer kept.
      if ((ends[i] ?? 0) > 0 || !h) return
      h.lost = true
      lost++
    })
    if (lost > 0)
      this.log?.warn({ set, lost }, `${this.what}: leases lost to another holder (this one stalled past their end)`)
  }
}
