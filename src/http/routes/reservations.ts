// POST /rooms/:roomId/reservations/check: the commit guard's one request. It names an agent and
// the paths a commit changes; the answer lists each path another agent holds exclusively, with
// the holder, its pattern and the expiry. The caller's own and shared reservations never conflict.
import { z } from 'zod'
import { agentId } from '../../shared/fields.js'
import type { Core } from '../../core/index.js'
import { PATHS_PER_CHECK } from '../../core/reservations.js'
import type { Route } from '../router.js'
import { roomOf } from './access.js'

const checkBody = z.strictObject({
  agent_id: agentId.describe('The committing agent: its own reservations never conflict'),
  paths: z
    .array(z.string())
    .max(PATHS_PER_CHECK, `must be at most ${PATHS_PER_CHECK} paths`)
    .describe('Repository-relative paths as git prints them (src/api/users.ts)'),
})

const conflict = z.object({
  path: z.string(),
  holder: z.string(),
  pattern: z.string(),
  exclusive: z.boolean(),
  token: z.number(),
  reason: z.string().optional(),
  expires_at: z.string(),
  expires_in_s: z.number(),
})

export function reservationRoutes(deps: { core: Pick<Core, 'reservations'> }): Route[] {
  return [
    {
      method: 'POST',
      path: '/rooms/:roomId/reservations/check',
      auth: 'any',
      tag: 'rooms',
      summary:
        'Which of the paths another agent holds exclusively (the commit guard): each with the holder, its ' +
        'pattern and when it expires. One read of the room, however many paths.',
      body: checkBody,
      response: z.object({ room_id: z.string(), checked: z.number(), conflicts: z.array(conflict) }),
      handle: async (ctx) => {
        const room = roomOf(ctx)
        const b = ctx.body as z.infer<typeof checkBody>
        const r = await deps.core.reservations.check(
          { room, agent: b.agent_id, budget: ctx.ex.req.budget },
          { paths: b.paths },
        )
        return { room_id: room.roomId, checked: r.checked, conflicts: r.conflicts }
      },
    },
  ]
}
