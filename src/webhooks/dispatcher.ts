// The webhook dispatcher of one node. Any number of nodes run one; they share the work through
// Redis only (docs/webhooks.md):
//   1. claimTeams picks teams whose work is due (the posting node wakes its team at once);
//   2. a pass over a team fans out its hinted rooms (and, every WEBHOOK_SWEEP_S, sweeps them all),
//      then claims due deliveries under a lease and sets the team's next time;
//   3. each delivery is attempted over HTTPS and its outcome settled; leases of attempts in
//      flight are renewed (a LeaseKeeper), so only a dead or stalled node's deliveries are taken
//      over.
import { hostname } from 'node:os'
import type { WebhookSettings } from './settings.js'
import { randomBase32 } from '../shared/ids.js'
import type { Logger } from '../shared/logger.js'
import type { LeaseKeeper } from '../store/leases.js'
import type { Claim, ClaimedDelivery, HookTarget, Outcome, WebhookQueue } from '../store/webhooks.js'
import { fanOutRoom, sweepTeam } from './fanout.js'
import { decide, deliveryBody, signedAttempt } from './attempt.js'
import type { Resolver } from './guard.js'
import { RECENT_ATTEMPTS, RECENT_FAILURES } from './registry.js'
import { deliveryAgent, type Attempt } from './send.js'

/** Teams one claimTeams call picks. */
const TEAMS_PER_ROUND = 8
/** Hinted rooms one pass fans out, and how many at once. */
const ROOMS_PER_PASS = 50
const ROOMS_AT_ONCE = 8
/** A team without webhooks stays scheduled this long after a registration began (registerWebhookTeam). */
export const REGISTRATION_GRACE_MS = 10 * 60_000
/** What a test request to a webhook got (POST /admin/webhooks/:id/test). */
export interface TestSend {
  testId: string
  /** A 2xx came back. */
  delivered: boolean
  status?: number
  error?: string
  durationMs: number
}

/** What a webhook's health keeps of failed deliveries and of attempts. */
const KEPT = { failures: RECENT_FAILURES, attempts: RECENT_ATTEMPTS }
/** Deliveries one pass claims at most. */
const CLAIM_MAX = 100
/** How long a delivery waits behind the running one of the same webhook and room (for order). */
export const ORDER_WAIT_MS = 1000

export interface DispatcherOptions {
  settings: WebhookSettings
  log: Logger
  resolve?: Resolver | undefined
  /** Extra trusted CA; with it, loopback targets are allowed (test only). */
  ca?: Buffer | undefined
  /** Keeps the leases of the deliveries claimed here, for WEBHOOK_LEASE_MS each. */
  leases: LeaseKeeper
}

/**
 * When a pass wants its team looked at next: now when work is left (the time of the claim, not 0,
 * so a busy team queues behind teams that were due before it instead of ahead of every team by
 * name), else at its earliest due delivery or lease end, at most one sweep interval away.
 */
export function nextLookAt(claim: Pick<Claim, 'hinted' | 'more' | 'next' | 'now'>, sweepMs: number): number {
  if (claim.hinted > 0 || claim.more) return claim.now
  return Math.min(claim.next ?? Infinity, claim.now + sweepMs)
}

export class Dispatcher {
  /**
   * Names this node as the holder of the deliveries it claims (host and pid, so an operator can
   * tell which process holds one).
   */
  readonly holder = `${hostname()}:${process.pid}:${randomBase32(8)}`
  /** Delivery id -> team, for every delivery claimed and not yet settled here. */
  private readonly inflight = new Map<string, string>()
  /** Per team, webhook and room with a delivery running here: the deliveries waiting behind it. */
  private readonly chains = new Map<string, ClaimedDelivery[]>()
  /** Delivery id -> the timer that stops it waiting in its chain. */
  private readonly waiting = new Map<string, NodeJS.Timeout>()
  private readonly agent: ReturnType<typeof deliveryAgent>
  /** Cuts the attempts still running when the node stops. */
  private readonly abort = new AbortController()
  /** Set when stop() gave up waiting: attempts cut by it are not settled (see stop()). */
  private abandoned = false
  private readonly settings: WebhookSettings
  private readonly log: Logger
  private readonly teamLeaseMs: number
  /** Free slots that make the loop look for more work. */
  private readonly refillAt: number
  private running: Promise<void> | undefined
  private stopped = false
  private woken = false
  private wakeUp: (() => void) | undefined
  private drained: (() => void) | undefined

  constructor(
    private readonly queue: WebhookQueue,
    private readonly opts: DispatcherOptions,
  ) {
    this.settings = opts.settings
    this.log = opts.log
    this.teamLeaseMs = Math.min(this.settings.webhookLeaseMs, 10_000)
    this.agent = deliveryAgent(this.settings.webhookConcurrency)
    this.refillAt = Math.max(1, Math.floor(this.settings.webhookConcurrency / 4))
  }

  start(): void {
    if (this.running) return
    this.running = this.loop()
  }

  /** Look for work now (an event was just posted on this node). */
  wake(): void {
    this.woken = true
    this.wakeUp?.()
  }

  /** Attempts in flight on this node. */
  get busy(): number {
    return this.inflight.size
  }

  /**
   * Stops claiming, then waits up to `graceMs` for the attempts in flight. Any still running
   * are abandoned: cut without settling them (their failure is the node's, not the receiver's,
   * so it must not count as a failed attempt or wait out a retry delay); their leases run out
   * and another node takes them over.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true
    this.wake()
    await this.running
    if (this.inflight.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs)
        this.drained = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    }
    this.opts.leases.stop()
    // What never started is left to its lease: another node takes it over.
    for (const timer of this.waiting.values()) clearTimeout(timer)
    this.waiting.clear()
    for (const chain of this.chains.values()) chain.length = 0
    this.abandoned = true
    this.abort.abort()
    this.agent.destroy()
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const free = this.settings.webhookConcurrency - this.inflight.size
      if (free <= 0) {
        await this.idle()
        continue
      }
      let picked: Awaited<ReturnType<WebhookQueue['claimTeams']>>
      try {
        picked = await this.queue.claimTeams(TEAMS_PER_ROUND, this.teamLeaseMs)
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'webhooks: cannot claim teams')
        await this.idle()
        continue
      }
      if (picked.teams.length === 0) {
        await this.idle()
        continue
      }
      const share = Math.min(CLAIM_MAX, Math.max(1, Math.floor(free / picked.teams.length)))
      await Promise.all(
        picked.teams.map((team) =>
          this.pass(team, picked.token, share).catch((err: unknown) => {
            this.log.warn(
              { err: (err as Error).message, team },
              'webhooks: pass failed; the team is retried after its lease',
            )
          }),
        ),
      )
    }
  }

  /** Waits for a wake-up (an event posted here, an attempt finished) or the poll interval. */
  private idle(): Promise<void> {
    if (this.woken || this.stopped) {
      this.woken = false
      return Promise.resolve()
    }
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer)
        this.wakeUp = undefined
        this.woken = false
        resolve()
      }
      const timer = setTimeout(finish, this.settings.webhookPollMs)
      this.wakeUp = finish
    })
  }

  /** One pass over a team: fan out, claim, launch, reschedule. */
  private async pass(team: string, token: number, max: number): Promise<void> {
    const s = this.settings
    const sweepMs = s.webhookSweepMs
    const start = await this.queue.beginFanout(team, ROOMS_PER_PASS, sweepMs)
    if (start.floor !== undefined) {
      const floor = start.floor
      const rooms = [...start.rooms]
      const worker = async () => {
        for (let r = rooms.shift(); r; r = rooms.shift())
          await fanOutRoom(this.queue, team, r, floor, s.webhookPendingMax)
      }
      await Promise.all(Array.from({ length: Math.min(ROOMS_AT_ONCE, rooms.length) }, worker))
      if (start.sweep) {
        const n = await sweepTeam(this.queue, team, floor)
        if (n > 0) this.log.info({ team, rooms: n }, 'webhooks: sweep found rooms with events not fanned out')
      }
    }
    const claim = await this.queue.claimDeliveries(
      team,
      this.holder,
      max,
      s.webhookLeaseMs,
      s.webhookRetryScheduleMs.length + 1,
      RECENT_FAILURES,
    )
    for (const d of claim.claimed) {
      this.inflight.set(d.id, team)
      this.opts.leases.hold(this.queue.leaseSet(team), d.lease)
    }
    this.launch(team, claim.claimed)
    // A team without webhooks is removed only once the claim has deleted all it left behind (`more` until then).
    await this.queue.rescheduleTeam(
      team,
      token,
      nextLookAt(claim, sweepMs),
      claim.webhooks === 0 && !claim.more,
      REGISTRATION_GRACE_MS,
    )
  }

  /**
   * Runs the claimed deliveries. Those of one webhook and room go one after another, in the order
   * claimed (event order, when they were due together), also across passes: a delivery claimed
   * while an earlier one of the same webhook and room runs here waits behind it, but for at most
   * ORDER_WAIT_MS. Order is kept where it costs nothing (a receiver that answers promptly); a slow
   * or hanging receiver never holds the node's slots in a queue. Different webhooks and rooms run
   * in parallel.
   */
  private launch(team: string, claimed: ClaimedDelivery[]): void {
    for (const d of claimed) {
      const key = `${team}\n${d.wh}\n${d.room}`
      const running = this.chains.get(key)
      if (!running) {
        const chain = [d]
        this.chains.set(key, chain)
        void this.runChain(team, key, chain)
        continue
      }
      running.push(d)
      const timer = setTimeout(() => {
        this.waiting.delete(d.id)
        const at = running.indexOf(d)
        if (at < 0) return
        running.splice(at, 1)
        void this.runOne(team, d)
      }, ORDER_WAIT_MS)
      timer.unref()
      this.waiting.set(d.id, timer)
    }
  }

  private async runChain(team: string, key: string, chain: ClaimedDelivery[]): Promise<void> {
    for (let d = chain.shift(); d; d = chain.shift()) {
      clearTimeout(this.waiting.get(d.id))
      this.waiting.delete(d.id)
      await this.runOne(team, d)
    }
    this.chains.delete(key)
  }

  private async runOne(team: string, d: ClaimedDelivery): Promise<void> {
    try {
      await this.deliver(team, d)
    } catch (err) {
      // Redis failed: the lease runs out and the delivery is tried again.
      this.log.warn({ err: (err as Error).message, delivery: d.id }, 'webhooks: could not attempt or settle a delivery')
    } finally {
      this.opts.leases.release(d.lease)
      this.inflight.delete(d.id)
      if (this.inflight.size === 0) this.drained?.()
      // Refill in batches: a pass per finished attempt would cost more Redis calls than the attempts.
      if (this.inflight.size === 0 || this.settings.webhookConcurrency - this.inflight.size >= this.refillAt)
        this.wake()
    }
  }

  /**
   * One attempt of one delivery, then its outcome settled. The webhook is read just before: a
   * delivery claimed before its webhook was deleted or disabled (410) is dropped, not sent.
   */
  private async deliver(team: string, d: ClaimedDelivery): Promise<void> {
    const s = this.settings
    const hook = await this.queue.hook(team, d.wh)
    if (!hook || hook.disabled_at) {
      await this.settle(team, d, 'drop', undefined, undefined, 0)
      return
    }
    if (this.abandoned) return
    const started = Date.now()
    const body = deliveryBody(team, d, new Date(started))
    const attempt = await this.attempt(hook, d.id, body, started)
    if (this.abandoned && attempt.status === undefined) {
      // Cut by stop(), not failed by the receiver: the lease takeover sends it again.
      this.log.info(
        { delivery: d.id },
        'webhooks: attempt abandoned at shutdown; another node takes it over after its lease',
      )
      return
    }
    const { outcome, delayMs } = decide(attempt, d.n, s.webhookRetryScheduleMs, s.webhookRetryJitter)
    const r = await this.settle(team, d, outcome, attempt.status, attempt.error, delayMs)
    if (!r.settled)
      this.log.info({ delivery: d.id }, 'webhooks: lease was taken over while attempting; the other node settles it')
    if (r.at !== undefined) await this.queue.wakeTeam(team, r.at)
    if (outcome === 'gone')
      this.log.warn({ team, webhook: d.wh }, 'webhooks: receiver answered 410 Gone; webhook disabled')
  }

  /** One signed POST of `body` to the webhook (attempt.ts), cut short when the node stops. */
  private attempt(hook: HookTarget, id: string, body: Buffer, started: number): Promise<Attempt> {
    const s = this.settings
    return signedAttempt(hook, id, body, started, {
      timeoutMs: s.webhookTimeoutMs,
      agent: this.agent,
      ca: this.opts.ca,
      resolve: this.opts.resolve,
      signal: this.abort.signal,
    })
  }

  /**
   * Sends a test request to a webhook now, signed like a delivery, and answers what came back.
   * Nothing is queued or retried, and the webhook's health does not count it. A disabled webhook
   * is sent one too (to check that its receiver is back). Undefined: no such webhook.
   */
  async sendTest(team: string, webhookId: string): Promise<TestSend | undefined> {
    const hook = await this.queue.hook(team, webhookId)
    if (!hook) return undefined
    const started = Date.now()
    const id = `test_${randomBase32(16)}`
    const body = Buffer.from(
      JSON.stringify({
        id,
        type: 'webhook.test',
        team_id: team,
        webhook_id: webhookId,
        sent_at: new Date(started).toISOString(),
      }),
    )
    const a = await this.attempt(hook, id, body, started)
    const out: TestSend = {
      testId: id,
      delivered: a.status !== undefined && a.status >= 200 && a.status < 300,
      durationMs: Date.now() - started,
    }
    if (a.status !== undefined) out.status = a.status
    if (a.error !== undefined) out.error = a.error
    return out
  }

  /** Settles an attempt with its lease's token (the claim's, which renewals never change). */
  private async settle(
    team: string,
    d: ClaimedDelivery,
    outcome: Outcome,
    status: number | undefined,
    error: string | undefined,
    delayMs: number,
  ): ReturnType<WebhookQueue['settle']> {
    this.opts.leases.release(d.lease)
    return this.queue.settle(team, d.lease.token, d.id, outcome, status, error, delayMs, KEPT)
  }
}
