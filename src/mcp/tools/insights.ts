// Insight tools: room analytics, and search over tasks, context and recent events. Search is an
// engine of its own (lexical in Redis, or Meilisearch); the node carries one as `node.search`
// when configured, and this tool only forwards to it.
import { z } from 'zod'
import { AppError } from '../../core/errors.js'
import type { Caller } from '../../core/fields.js'
import { tool, type ToolDef } from '../tool.js'

export const SEARCH_KINDS = ['task', 'context', 'event'] as const
export type SearchKind = (typeof SEARCH_KINDS)[number]

export interface SearchInput {
  query: string
  kinds?: SearchKind[]
  limit?: number
  semantic?: boolean
}

/** What the search tool needs from an engine; it validates the input itself and names bad fields. */
export interface SearchEngine {
  search(caller: Caller, input: SearchInput): Promise<Record<string, unknown>>
}

export const insightTools: ToolDef[] = [
  tool({
    name: 'get_room_analytics',
    title: 'Get room analytics',
    description: 'Progress at a glance: task completion rate, tasks by status, online agents, and events and finished tasks per day over the last days.',
    scope: 'room',
    args: { days: z.number().int().optional().describe('1-30, default 7') },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ node, caller }, a) => node.core.analytics.room(caller, a),
  }),
  tool({
    name: 'search',
    title: 'Search',
    description:
      'Full-text search over tasks, context entries and recent events, best matches first. semantic: true finds related wording too, only when the workspace enables it; lexical search always works.',
    scope: 'room',
    args: {
      query: z.string().describe('Words to find'),
      kinds: z.array(z.enum(SEARCH_KINDS)).optional().describe('Default all: task, context, event'),
      limit: z.number().int().optional().describe('Most results to return'),
      semantic: z.boolean().optional().describe('Meaning-based; only if enabled'),
    },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: async ({ node, caller }, a) => {
      const engine = (node as { search?: SearchEngine }).search
      if (!engine) throw new AppError('unavailable', 'search is not configured on this node')
      return engine.search(caller, a)
    },
  }),
]
