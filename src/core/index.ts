// The room model, one object per piece, over one store. Transports (HTTP, MCP) hold a Core and
// call it with an authorized Caller; nothing here knows about HTTP or MCP.
import type { Settings } from '../config.js'
import type { Store } from '../store/store.js'
import { Plan } from './plan.js'
import { Rooms } from './rooms.js'

export class Core {
  readonly rooms: Rooms
  readonly plan: Plan

  constructor(
    readonly store: Store,
    readonly settings: Settings,
  ) {
    this.rooms = new Rooms(store, settings)
    this.plan = new Plan(store, settings)
  }
}

export type { Caller } from './fields.js'
export { AppError } from './errors.js'
