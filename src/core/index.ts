// The room model, one object per piece, over one store. Transports (HTTP, MCP) hold a Core and
// call it with an authorized Caller; nothing here knows about HTTP or MCP.
import type { CoreSettings } from './settings.js'
import type { Store } from '../store/store.js'
import { Analytics } from './analytics.js'
import { Context } from './context.js'
import { Locks } from './locks.js'
import { Needs } from './needs.js'
import { PlanGraph } from './plan-graph.js'
import { Plan } from './plan.js'
import { Events } from './events.js'
import { Presence } from './presence.js'
import { Reservations } from './reservations.js'
import { Reviews } from './reviews.js'
import { RoomPage } from './room-page.js'
import { Rooms } from './rooms.js'
import { Snapshot } from './snapshot.js'
import { Summary } from './summary.js'
import { Vars } from './vars.js'

export class Core {
  readonly rooms: Rooms
  readonly plan: Plan
  readonly events: Events
  readonly presence: Presence
  readonly locks: Locks
  readonly reservations: Reservations
  readonly vars: Vars
  readonly reviews: Reviews
  readonly context: Context
  readonly analytics: Analytics
  readonly summary: Summary
  readonly snapshot: Snapshot
  readonly roomPage: RoomPage
  readonly needs: Needs
  readonly graph: PlanGraph

  constructor(
    readonly store: Store,
    readonly settings: CoreSettings,
  ) {
    this.rooms = new Rooms(store, settings)
    this.plan = new Plan(store, settings)
    this.events = new Events(store, settings)
    this.presence = new Presence(store, settings)
    this.locks = new Locks(store, settings)
    this.reservations = new Reservations(store, settings)
    this.vars = new Vars(store, settings)
    this.reviews = new Reviews(store, settings)
    this.context = new Context(store, settings)
    this.analytics = new Analytics(store, settings)
    this.summary = new Summary(store, settings)
    this.snapshot = new Snapshot(store, settings)
    this.roomPage = new RoomPage(store, settings)
    this.needs = new Needs(store, settings)
    this.graph = new PlanGraph(store)
  }
}

export type { Caller } from './fields.js'
export { AppError } from '../shared/errors.js'
