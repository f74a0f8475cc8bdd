// Presence tools: who is online, by heartbeat.
import { presenceSchemas } from '../../core/presence.js'
import type { Core } from '../../core/index.js'
import { coreArgs } from '../args.js'
import { toolsOf, type ToolDef } from '../tool.js'
import * as o from '../outputs.js'
import { z } from 'zod'

/** What the presence tools use. */
export interface PresenceToolDeps {
  core: Pick<Core, 'presence'>
}

const tool = toolsOf<PresenceToolDeps>()

/** A heartbeat's reply without its own entry (get_presence lists it). */
const withoutYou = <R extends { you: unknown }>(r: R) => o.without(r, YOU)
const YOU = ['you'] as const

export const presenceTools: ToolDef<PresenceToolDeps>[] = [
  tool({
    name: 'heartbeat',
    title: 'Heartbeat',
    description: 'Marks you online; call first in every turn.',
    scope: 'room',
    args: coreArgs(presenceSchemas.heartbeat, {}),
    output: { online_count: o.int, presence_ttl_s: z.number() },
    mutates: true,
    core: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: ({ deps, caller }, a) => deps.core.presence.heartbeat(caller, a).then(withoutYou),
  }),
  tool({
    name: 'get_presence',
    title: 'Get presence',
    description: 'Online agents with their last heartbeat, newest first.',
    scope: 'room',
    args: coreArgs(presenceSchemas.list, { include_offline: 'Also agents seen in the last day' }),
    output: {
      online: z.array(o.presenceEntry),
      online_count: o.int,
      offline: z.array(o.presenceEntry).optional(),
      offline_count: o.int.optional(),
      presence_ttl_s: z.number(),
    },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: ({ deps, caller }, a) => deps.core.presence.list(caller, a),
  }),
]
