// Insight tools: room analytics, and search over tasks, context and recent events. Search is an
// engine of its own (src/search: lexical in Redis, or Meilisearch); the node carries one as
// `deps.search`, and this tool only forwards to it. GET /rooms/:roomId/search answers the same.
import { analyticsSchema } from '../../core/analytics.js'
import { searchSchema, type SearchEngine } from '../../search/engine.js'
import type { Core } from '../../core/index.js'
import { coreArgs } from '../args.js'
import { toolsOf, type ToolDef } from '../tool.js'
import * as o from '../outputs.js'
import { z } from 'zod'

/** What the insight tools use. */
export interface InsightToolDeps {
  core: Pick<Core, 'analytics'>
  search: Pick<SearchEngine, 'search'>
}

const tool = toolsOf<InsightToolDeps>()

export const insightTools: ToolDef<InsightToolDeps>[] = [
  tool({
    name: 'get_room_analytics',
    title: 'Get room analytics',
    description: 'Progress: completion rate, tasks by status, online agents, activity by day.',
    scope: 'room',
    args: coreArgs(analyticsSchema, { days: '1-30, default 7' }),
    output: {
      tasks: z.object({ total: o.int, by_status: o.counts }),
      counts: o.counts,
      completion_rate: z.number().nullable(),
      online_agents: o.strs,
      online_count: o.int,
      events_per_day: z.array(z.object({ date: o.str, events: o.int, tasks_done: o.int })),
    },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ deps, caller }, a) => deps.core.analytics.room(caller, a),
  }),
  tool({
    name: 'search',
    title: 'Search',
    description: 'Full-text search over tasks, context and recent events, best first.',
    scope: 'room',
    args: coreArgs(searchSchema, {
      query: 'Words; the last one matches as a prefix',
      kinds: 'Default all',
      limit: '1-50, default 10',
      semantic: 'Also related wording, where enabled',
    }),
    output: {
      results: z.array(o.searchHit),
      engine: z.enum(['redis', 'meilisearch']),
      semantic: z.boolean(),
      note: o.str.optional(),
    },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ deps, caller }, a) => deps.search.search(caller, a),
  }),
]
