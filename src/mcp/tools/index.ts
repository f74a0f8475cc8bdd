// Every MCP tool of the service, by domain (plan, context, events, presence, locks,
// vars, rooms, reviews, search), and the `core` profile: the tools of a typical agent turn.
import type { ToolDef } from '../tool.js'
import { contextTools, type ContextToolDeps } from './context.js'
import { eventTools, type EventToolDeps } from './events.js'
import { insightTools, type InsightToolDeps } from './insights.js'
import { lockTools, type LockToolDeps } from './locks.js'
import { planTools, type PlanToolDeps } from './plan.js'
import { presenceTools, type PresenceToolDeps } from './presence.js'
import { reviewTools, type ReviewToolDeps } from './reviews.js'
import { roomTools, type RoomToolDeps } from './rooms.js'
import { varTools, type VarToolDeps } from './vars.js'

/** What the tools use, all together: what node.ts hands the runner (with the runner's own). */
export type ToolDeps = PlanToolDeps &
  ContextToolDeps &
  EventToolDeps &
  PresenceToolDeps &
  LockToolDeps &
  VarToolDeps &
  RoomToolDeps &
  ReviewToolDeps &
  InsightToolDeps

export const ALL_TOOLS: readonly ToolDef<ToolDeps>[] = [
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
export function findTool(name: string): ToolDef<ToolDeps> | undefined {
  return byName.get(name)
}

export type { SearchEngine, SearchInput } from '../../search/engine.js'
