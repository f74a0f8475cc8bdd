// Insight tools: room analytics, and search over tasks, context and recent events. Search is an
// engine of its own (src/search: lexical in Redis, or Meilisearch); the node carries one as
// `node.search`, and this tool only forwards to it. GET /rooms/:roomId/search answers the same.
import { analyticsSchema } from '../../core/analytics.js'
import { searchSchema } from '../../search/engine.js'
import { coreArgs } from '../args.js'
import { tool, type ToolDef } from '../tool.js'

export const insightTools: ToolDef[] = [
  tool({
    name: 'get_room_analytics',
    title: 'Get room analytics',
    description: 'Progress at a glance: completion rate, tasks by status, online agents, events and finished tasks per day.',
    scope: 'room',
    args: coreArgs(analyticsSchema, { days: '1-30, default 7' }),
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ node, caller }, a) => node.core.analytics.room(caller, a),
  }),
  tool({
    name: 'search',
    title: 'Search',
    description:
      'Full-text search over tasks, context and retained events, best first; the last word matches as a prefix. Results name the record (ref) with a highlighted snippet. semantic: true also finds related wording, where enabled.',
    scope: 'room',
    args: coreArgs(searchSchema, { query: undefined, kinds: 'Default all', limit: '1-50, default 10', semantic: undefined }),
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ node, caller }, a) => node.search.search(caller, a),
  }),
]
