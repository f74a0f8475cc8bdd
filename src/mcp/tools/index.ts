// Every MCP tool of the service, in the spec's order (plan, context, events, presence, locks,
// vars, rooms, reviews, search), and the `core` profile: the tools of a typical agent turn.
import type { ToolDef } from '../tool.js'
import { contextTools } from './context.js'
import { eventTools } from './events.js'
import { insightTools } from './insights.js'
import { lockTools } from './locks.js'
import { planTools } from './plan.js'
import { presenceTools } from './presence.js'
import { reviewTools } from './reviews.js'
import { roomTools } from './rooms.js'
import { varTools } from './vars.js'

export const ALL_TOOLS: readonly ToolDef[] = [
  ...planTools,
  ...contextTools,
  ...eventTools,
  ...presenceTools,
  ...lockTools,
  ...varTools,
  ...roomTools,
  ...reviewTools,
  ...insightTools,
]

/** Names of the tools listed by `/mcp?profile=core`. */
export const CORE_TOOL_NAMES: readonly string[] = ALL_TOOLS.filter((t) => t.core === true).map((t) => t.name)

const byName = new Map(ALL_TOOLS.map((t) => [t.name, t]))

/** The tool of that name, or undefined. */
export function findTool(name: string): ToolDef | undefined {
  return byName.get(name)
}

export type { SearchEngine, SearchInput } from '../../search/engine.js'
