// Room endpoints reachable with a team key or that room's invite key: the dashboard snapshot and
// the SSE stream of new events.
import type { Core } from '../../core/index.js'
import type { Route } from '../router.js'
import { roomOf } from './access.js'
import { sseRoute, type SseDeps } from './sse.js'

/** What the room endpoints use: the snapshot, and what the stream uses. */
export type RoomRouteDeps = SseDeps & { core: Pick<Core, 'snapshot'> }

export function roomRoutes(deps: RoomRouteDeps): Route[] {
  return [
    {
      method: 'GET',
      path: '/room/:roomId',
      auth: 'any',
      tag: 'rooms',
      summary:
        'Dashboard snapshot of a room: plan, context metadata, latest 50 events, who has read what (reads), ' +
        'presence, locks, vars, reviews. Not counted as room activity.',
      handle: async (ctx) => {
        const room = roomOf(ctx)
        return deps.core.snapshot.room({ room, budget: ctx.ex.req.budget })
      },
    },
    sseRoute(deps),
  ]
}
