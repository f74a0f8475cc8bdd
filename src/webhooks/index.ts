// Webhooks of a node: the registry (admin API), the hints the events appended on this node give, and the
// dispatcher that delivers. See docs/webhooks.md for the design.
import { readFileSync } from 'node:fs'
import type { WebhookSettings } from './settings.js'
import type { Logger } from '../shared/logger.js'
import { LeaseKeeper } from '../store/leases.js'
import type { Committed, Store } from '../store/store.js'
import { Dispatcher } from './dispatcher.js'
import type { Resolver } from './guard.js'
import { Hinter } from './hints.js'
import { WebhookQueue } from '../store/webhooks.js'
import { WebhookRegistry } from './registry.js'

export interface WebhooksOptions {
  log: Logger
  /** TEST ONLY: the DNS seam (rebinding tests). Default: the system resolver. */
  resolve?: Resolver | undefined
}

export class Webhooks {
  readonly queue: WebhookQueue
  readonly registry: WebhookRegistry
  readonly dispatcher: Dispatcher
  readonly hinter: Hinter

  constructor(
    store: Store,
    private readonly settings: WebhookSettings,
    opts: WebhooksOptions,
  ) {
    const ca = settings.webhookTestLoopbackCa === undefined ? undefined : readFileSync(settings.webhookTestLoopbackCa)
    this.queue = new WebhookQueue(store)
    this.registry = new WebhookRegistry(store, {
      limit: settings.webhooksPerTeam,
      resolve: opts.resolve,
      allowLoopback: ca !== undefined,
      announce: (teamId) => this.queue.announce(teamId),
      pendingMax: settings.webhookPendingMax,
      wake: async (teamId) => {
        await this.queue.wakeTeam(teamId)
        this.dispatcher.wake()
      },
      log: opts.log,
    })
    const leases = new LeaseKeeper(store, settings.webhookLeaseMs, opts.log, 'webhook deliveries')
    this.dispatcher = new Dispatcher(this.queue, { settings, log: opts.log, resolve: opts.resolve, ca, leases })
    this.hinter = new Hinter(
      this.queue,
      () => this.dispatcher.wake(),
      (err) =>
        opts.log.warn({ err: (err as Error).message }, 'webhooks: could not hint a room (the sweep will find it)'),
    )
  }

  /** Starts delivering, unless WEBHOOKS_ENABLED is false. */
  start(): void {
    if (this.settings.webhooksEnabled) this.dispatcher.start()
  }

  stop(graceMs: number): Promise<void> {
    return this.dispatcher.stop(graceMs)
  }

  /**
   * A script committed on this node (Store.onCommitted): when its Effects say it may append
   * events, its room is hinted. A hint after a call that appended none (updateTask appends one
   * only when it overrides another agent's claim) finds nothing new, which costs only the hint,
   * and nothing for a team without webhooks.
   */
  committed(c: Committed): void {
    if (c.ref && c.effects.words.has('events')) this.hinter.appended(c.ref)
  }
}
