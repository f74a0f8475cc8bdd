// GET /rooms/:roomId/search: the MCP `search` tool for bots, with a team key or the room's invite
// key. The answer is the tool's result (results, engine, semantic, note), with room_id.
import { z } from 'zod'
import { AppError } from '../../shared/errors.js'
import { SEARCH_KINDS, type SearchEngine } from '../../search/engine.js'
import type { Route } from '../router.js'
import { roomOf } from './access.js'

const searchQuery = z.strictObject({
  q: z.string().describe('Words to find (the last one also matches as a prefix)'),
  kinds: z
    .string()
    .regex(
      new RegExp(`^(${SEARCH_KINDS.join('|')})(,(${SEARCH_KINDS.join('|')}))*$`),
      `must be a comma-separated list of ${SEARCH_KINDS.join(', ')}`,
    )
    .optional()
    .describe('Comma-separated kinds to search; default all'),
  limit: z.coerce.number().int().optional().describe('Most results, 1-50, default 10'),
  semantic: z.enum(['true', 'false']).optional().describe('"true": meaning-based search, where enabled'),
})

/** The engine names its input as the MCP tool does (`query`); this route calls it `q`. */
function inHttpTerms(err: unknown): unknown {
  if (err instanceof AppError && err.details?.field === 'query')
    return new AppError(err.code, err.message.replace(/^query:/, 'q:'), { ...err.details, field: 'q' })
  return err
}

export function searchRoutes(deps: { search: Pick<SearchEngine, 'search'> }): Route[] {
  return [
    {
      method: 'GET',
      path: '/rooms/:roomId/search',
      auth: 'any',
      tag: 'rooms',
      summary:
        "Full-text search over the room's tasks, context and recent events, best first (the MCP search " +
        'tool): ?q, ?kinds=task,context,event, ?limit (1-50), ?semantic=true where enabled.',
      query: searchQuery,
      handle: async (ctx) => {
        const room = roomOf(ctx)
        const q = ctx.query as z.infer<typeof searchQuery>
        const input = { query: q.q, kinds: q.kinds?.split(','), limit: q.limit, semantic: q.semantic === 'true' }
        try {
          const answer = await deps.search.search({ room, budget: ctx.ex.req.budget }, input)
          return { room_id: room.roomId, ...answer }
        } catch (err) {
          throw inHttpTerms(err)
        }
      },
    },
  ]
}
