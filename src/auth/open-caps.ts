// Caps on what a tenant keeps open on one node: event streams (the room stream, the dashboard's
// live view, subscriptions/listen) and parked waits (wait_for_events, a Stop hook's wait), counted
// per credential and per team. Each open use costs the node a socket, buffers and timers whatever
// the rate limit says, so the caps are per node: that is the resource they protect. With N nodes
// behind a balancer a credential may hold up to N times its cap in all (docs/operations.md).
import { AppError } from '../shared/errors.js'
import { credentialOf, type Principal } from './principal.js'

/** Who holds an open use: the team it counts against, and the credential (or person) within it. */
export interface Holder {
  teamId: string
  /** "key:<id>", "invite:<id>", "grant:<id>" (credentialOf), or "user:<id>" for a person's page. */
  credential: string
}

export const holderOf = (p: Principal): Holder => ({ teamId: p.teamId, credential: credentialOf(p) })

export interface OpenLimits {
  /** Open uses one credential may hold on this node (OPEN_PER_CREDENTIAL). */
  openPerCredential: number
  /** Open uses one team's credentials and people may hold on this node together (OPEN_PER_TEAM). */
  openPerTeam: number
}

/** One credential's or team's count of open uses, keyed by `key` in `map` while above 0. */
interface Count {
  n: number
  readonly key: string
  readonly map: Map<string, Count>
}

export class OpenCaps {
  private readonly byCredential = new Map<string, Count>()
  private readonly byTeam = new Map<string, Count>()

  constructor(private readonly limits: OpenLimits) {}

  /**
   * Counts one open use of `h` and returns its release (idempotent). Past either cap it throws
   * limit_reached naming the cap, and counts nothing. The release holds the two counts only (not
   * `h` nor a key of its own): thousands of idle streams each keep one.
   */
  take(h: Holder): () => void {
    const cred = `${h.teamId}/${h.credential}`
    const mine = this.byCredential.get(cred)?.n ?? 0
    const team = this.byTeam.get(h.teamId)?.n ?? 0
    const { openPerCredential, openPerTeam } = this.limits
    if (mine >= openPerCredential) {
      throw new AppError(
        'limit_reached',
        `streams: ${h.credential} holds ${mine} open streams and waits on this node; the limit is ` +
          `${openPerCredential} (OPEN_PER_CREDENTIAL); close one first`,
        { field: 'streams', limit: openPerCredential },
      )
    }
    if (team >= openPerTeam) {
      throw new AppError(
        'limit_reached',
        `streams: team ${h.teamId} holds ${team} open streams and waits on this node; the limit is ` +
          `${openPerTeam} (OPEN_PER_TEAM); close one first`,
        { field: 'streams', limit: openPerTeam },
      )
    }
    return releaseOf(increment(this.byCredential, cred), increment(this.byTeam, h.teamId))
  }

  /** What `h` and its team hold open now. */
  held(h: Holder): { credential: number; team: number } {
    return {
      credential: this.byCredential.get(`${h.teamId}/${h.credential}`)?.n ?? 0,
      team: this.byTeam.get(h.teamId)?.n ?? 0,
    }
  }
}

function increment(map: Map<string, Count>, key: string): Count {
  let c = map.get(key)
  if (!c) map.set(key, (c = { n: 0, key, map }))
  c.n++
  return c
}

function decrement(c: Count): void {
  if (--c.n > 0) return
  if (c.map.get(c.key) === c) c.map.delete(c.key)
}

/** The release of one use counted in `cred` and `team`: each count goes down once. */
function releaseOf(cred: Count, team: Count): () => void {
  let held: Count | undefined = cred
  return () => {
    if (!held) return
    decrement(held)
    held = undefined
    decrement(team)
  }
}
