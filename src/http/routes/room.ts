// Room endpoints reachable with a team key or that room's invite key: the dashboard snapshot and
// the SSE stream of new events.
import type { ServiceNode } from '../../node.js'
import type { Route } from '../router.js'
import { inRoom, roomOf } from './access.js'
import { sseRoute } from './sse.js'

export function roomRoutes(node: ServiceNode): Route[] {
  return [
    {
      method: 'GET',
      path: '/room/:roomId',
      auth: 'any',
      tag: 'rooms',
      summary: 'Dashboard snapshot of a room: plan, context metadata, latest 50 events, who has read what (reads), presence, locks, vars, reviews. Not counted as room activity.',
      handle: async (ctx) => {
        const room = roomOf(ctx)
        return inRoom(room, () => node.core.snapshot.room({ room }))
      },
    },
    sseRoute(node),
  ]
}
