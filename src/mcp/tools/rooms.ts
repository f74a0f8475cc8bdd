// Room tools: the team's rooms and templates (team scope: a team key, no room_id), and the
// calling agent's view of its room (info, leaving).
import { z } from 'zod'
import { reachesTeam, type Principal } from '../../auth/principal.js'
import { AppError, invalid } from '../../shared/errors.js'
import { presenceSchemas } from '../../core/presence.js'
import { roomSchemas } from '../../core/rooms.js'
import { listTemplates, templateSchemas, TEMPLATES } from '../../core/templates.js'
import type { Core } from '../../core/index.js'
import type { SearchEngine } from '../../search/engine.js'
import { coreArgs, coreField } from '../args.js'
import { LISTED_COMMON, toolsOf, type ToolDef } from '../tool.js'
import * as o from '../outputs.js'

/**
 * The team key behind a team tool. The runner refuses invite keys and room-bound connections first;
 * this keeps the type honest.
 */
function teamKey(p: Principal): { teamId: string; keyId: string } {
  if (p.kind !== 'team' || !reachesTeam(p))
    throw new AppError('forbidden', 'this tool needs a team key; a room invite key reaches only its room', {
      field: 'authorization',
    })
  return p
}

/** What the room tools use. */
export interface RoomToolDeps {
  core: Pick<Core, 'rooms' | 'presence'>
  search: Pick<SearchEngine, 'semanticEnabled'>
}

const tool = toolsOf<RoomToolDeps>()

/** What create_room_from_template answers a caller that still names the new room room_id. */
export const DEPRECATED_ROOM_ID =
  'room_id is deprecated here and accepted until the next release: name the new room new_room_id'

export const roomTools: ToolDef<RoomToolDeps>[] = [
  tool({
    name: 'list_rooms',
    title: 'List rooms',
    description: "The team's rooms, oldest first, a page at a time.",
    scope: 'team',
    args: coreArgs(roomSchemas.list, { limit: '1-500, default 100', after: "The previous page's next" }),
    output: { rooms: z.array(o.roomSummary), next: o.str.optional() },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: async ({ deps, principal, budget }, a) => deps.core.rooms.list(teamKey(principal).teamId, a, budget),
  }),
  tool({
    name: 'leave_room',
    title: 'Leave room',
    description: 'Clears your presence, posts agent_left. Release locks and hand off tasks first.',
    scope: 'room',
    args: coreArgs(presenceSchemas.leave, {}),
    output: { left: z.boolean(), was_present: z.boolean(), was_online: z.boolean(), event: o.event, released: o.strs },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: ({ deps, caller }, a) => deps.core.presence.leave(caller, a),
  }),
  tool({
    name: 'get_room_info',
    title: 'Get room info',
    description: 'The room: name, template, activity, expiry, counts, whether semantic search works.',
    scope: 'room',
    args: coreArgs(roomSchemas.info, {}),
    output: { room: o.roomSummary, counts: o.counts, expires_at: o.time, semantic_search: z.boolean() },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: async ({ deps, caller }, a) => {
      const { unread, ...info } = await deps.core.rooms.info(caller, a)
      return { ...info, semantic_search: deps.search.semanticEnabled, unread }
    },
  }),
  tool({
    name: 'list_templates',
    title: 'List templates',
    description: 'Room templates for create_room_from_template, with their sizes.',
    scope: 'team',
    args: coreArgs(templateSchemas.list, { template: 'Only this template id' }),
    output: { templates: z.array(o.templateItem) },
    mutates: false,
    annotations: { readOnlyHint: true },
    run: async (_ctx, a) => ({ templates: listTemplates(a) }),
  }),
  tool({
    name: 'create_room_from_template',
    title: 'Create room from template',
    description:
      "Creates a team room from a template's starter plan and context. Id: new_room_id, else a slug of name.",
    scope: 'team',
    args: {
      new_room_id: coreField(roomSchemas.create, 'room_id', "The new room's id: 1-64 letters, digits, _ . -"),
      name: coreField(roomSchemas.create, 'name', 'Display name; default the id'),
      // Required here though the core defaults it: a model should choose, not get a blank room.
      template: z.string().describe(`Template id: ${TEMPLATES.map((t) => t.id).join(', ')}`),
      idempotency_key: z.string().optional().describe(LISTED_COMMON.idempotency_key),
    },
    // Team tools take no room_id; an agent that passes its own room out of habit is told so.
    deprecatedArgs: { room_id: coreField(roomSchemas.create, 'room_id') },
    output: { room: o.roomSummary, deprecated: o.str.optional() },
    mutates: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: async ({ deps, principal, budget }, a) => {
      const key = teamKey(principal)
      const old = (a as { room_id?: string }).room_id
      if (old !== undefined && a.new_room_id !== undefined && old !== a.new_room_id)
        throw invalid('room_id: deprecated; pass only new_room_id', { field: 'room_id' })
      const r = await deps.core.rooms.create(
        key.teamId,
        { room_id: a.new_room_id ?? old, name: a.name, template: a.template },
        `key:${key.keyId}`,
        a.idempotency_key,
        budget,
      )
      return old === undefined ? r : { ...r, deprecated: DEPRECATED_ROOM_ID }
    },
  }),
]
