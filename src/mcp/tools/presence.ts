// Presence tools: who is online, by heartbeat.
import { presenceSchemas } from '../../core/presence.js'
import { coreArgs } from '../args.js'
import { tool, type ToolDef } from '../tool.js'

export const presenceTools: ToolDef[] = [
  tool({
    name: 'heartbeat',
    title: 'Heartbeat',
    description: 'Marks you online; call first in every turn. Returns how many agents are online.',
    scope: 'room',
    args: coreArgs(presenceSchemas.heartbeat, {}),
    mutates: true,
    core: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ node, caller }, a) => node.core.presence.heartbeat(caller, a),
  }),
  tool({
    name: 'get_presence',
    title: 'Get presence',
    description: 'Online agents with their last heartbeat, newest first; include_offline adds agents seen in the last day.',
    scope: 'room',
    args: coreArgs(presenceSchemas.list, { include_offline: 'Also agents seen in the last day' }),
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ node, caller }, a) => node.core.presence.list(caller, a),
  }),
]
