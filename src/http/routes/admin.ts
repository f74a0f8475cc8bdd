// The admin API (team keys only): the calling team, rooms, team keys and room invites. Request
// and response bodies use camelCase (roomId, keyId, tokenId), as docs/http-api.md documents.
import { z } from 'zod'
import type { Accounts } from '../../auth/accounts.js'
import type { Audit } from '../../auth/audit.js'
import type { Principal } from '../../auth/principal.js'
import type { RateLimiter } from '../../auth/ratelimit.js'
import { teamSchemas, type Teams } from '../../auth/teams.js'
import { RoomNotFound } from '../../shared/errors.js'
import { idempotencyKey, roomId as roomIdField, roomName } from '../../shared/fields.js'
import type { Core } from '../../core/index.js'
import type { RoomSummary } from '../../core/rooms.js'
import { templateId } from '../../core/templates.js'
import { parse } from '../../shared/validate.js'
import type { SearchEngine } from '../../search/engine.js'
import type { Ctx, Route } from '../router.js'
import { actorOf, budgetOf, minterOf, teamOf } from './access.js'
import type { WaitBudget } from '../../shared/wait-budget.js'
import { RoomAdmin } from '../room-admin.js'

export const roomView = z.object({
  roomId: z.string(),
  name: z.string(),
  template: z.string(),
  createdAt: z.string(),
  createdBy: z.string().optional(),
  lastActiveAt: z.string(),
  archivedAt: z.string().optional().describe('When the room was archived: it is read-only until restored'),
})
const mintedBy = z
  .string()
  .optional()
  .describe(
    'Who minted it, named as the audit trail names people: user:<id> <address> (user:<id> once their account ' +
      "is gone); absent when no person did (the team's first key, operator tools, keys minted before this was " +
      'recorded)',
  )
const keyView = z.object({
  keyId: z.string(),
  hint: z.string(),
  label: z.string().optional(),
  scope: z.enum(['agent', 'admin']),
  access: z.enum(['read', 'write']),
  createdBy: mintedBy,
  createdAt: z.string(),
  revokedAt: z.string().optional(),
})
const inviteView = z.object({
  tokenId: z.string(),
  roomId: z.string(),
  hint: z.string(),
  label: z.string().optional(),
  access: z.enum(['read', 'write']),
  agentId: z.string().optional().describe('The agent the key is bound to'),
  createdBy: mintedBy,
  createdAt: z.string(),
  revokedAt: z.string().optional(),
})

export const adminSchemas = {
  createRoom: z.strictObject({
    roomId: roomIdField.optional().describe('Room id within the team; default a slug of name, else generated'),
    name: roomName.optional(),
    template: templateId.default('blank'),
  }),
  listRooms: z.strictObject({
    limit: z.coerce.number().int().min(1).max(500).default(100),
    after: roomIdField.optional(),
  }),
  listKeys: z.strictObject({
    limit: z.coerce.number().int().min(1).max(500).default(100),
    after: z.string().max(64).optional(),
  }),
  mint: teamSchemas.mint,
  invite: teamSchemas.invite,
}

export function roomToView(r: RoomSummary): z.infer<typeof roomView> {
  const v: z.infer<typeof roomView> = {
    roomId: r.room_id,
    name: r.name,
    template: r.template,
    createdAt: r.created_at,
    lastActiveAt: r.last_active_at,
  }
  if (r.created_by) v.createdBy = r.created_by
  if (r.archived_at) v.archivedAt = r.archived_at
  return v
}

/**
 * Names who minted each key or invite as the audit trail names people (`user:<id> <address>`;
 * `user:<id>` once the account is gone): one read of the accounts directory for the whole list.
 */
async function withMinters<T extends { createdBy?: string }>(
  accounts: Pick<Accounts, 'emails'>,
  items: T[],
  budget: WaitBudget | undefined,
): Promise<T[]> {
  const ids = items.flatMap((i) => (i.createdBy ? [i.createdBy] : []))
  if (ids.length === 0) return items
  const emails = await accounts.emails(ids, budget)
  return items.map((i) => {
    if (!i.createdBy) return i
    const email = emails.get(i.createdBy)
    return { ...i, createdBy: email ? `user:${i.createdBy} ${email}` : `user:${i.createdBy}` }
  })
}

/** The optional Idempotency-Key header, held to the same rule as the MCP tools' idempotency_key. */
function idempotencyKeyOf(ctx: Ctx): string | undefined {
  const value = ctx.ex.req.headers['idempotency-key']
  if (value === undefined) return undefined
  return parse(z.object({ 'Idempotency-Key': idempotencyKey }), { 'Idempotency-Key': value })['Idempotency-Key']
}

/**
 * What the admin API uses: rooms and their stats, team keys and invites (and who minted them), the
 * audit trail, the rate limit and search's status.
 */
export interface AdminDeps {
  core: Pick<Core, 'rooms' | 'analytics'>
  accounts: Pick<Accounts, 'emails'>
  teams: Pick<
    Teams,
    | 'requireTeam'
    | 'mintTeamKey'
    | 'pageKeys'
    | 'revokeKey'
    | 'mintInvite'
    | 'listInvites'
    | 'revokeInvite'
    | 'dropRoom'
  >
  audit: Pick<Audit, 'record' | 'read'>
  rateLimiter: Pick<RateLimiter, 'limitFor' | 'credentialLimitFor'>
  search: Pick<SearchEngine, 'status' | 'dropRoom'>
}

const deletedView = z.object({
  roomId: z.string(),
  tasks: z.number(),
  events: z.number(),
  context: z.number().describe('Context entries'),
  keys: z.number().describe('Redis keys removed'),
  invites: z.number().describe('Room invite keys deleted'),
  live: z.number().describe('How many of those were live: their agents now get 401'),
})

export function adminRoutes(deps: AdminDeps): Route[] {
  const requireRoom = async (teamId: string, roomId: string, budget: WaitBudget | undefined) => {
    parse(z.object({ roomId: roomIdField }), { roomId })
    if (!(await deps.core.rooms.exists({ teamId, roomId }, budget))) throw new RoomNotFound(roomId)
  }
  const rooms = new RoomAdmin(deps)
  const roomRef = (ctx: Ctx) => {
    const roomId = ctx.params.roomId!
    parse(z.object({ roomId: roomIdField }), { roomId })
    return { teamId: teamOf(ctx), roomId }
  }
  const archiving = (archive: boolean): Route => ({
    method: 'POST',
    path: `/admin/rooms/:roomId/${archive ? 'archive' : 'restore'}`,
    auth: 'team',
    needs: 'rooms.manage',
    tag: 'admin',
    summary: archive
      ? 'Archive a room: it becomes read-only (writes get 409 room_archived; reads, search and the snapshot ' +
        'work) and is kept without expiry until restored or deleted. 409 conflict when already archived.'
      : 'Restore an archived room: writable again, and expiring after ROOM_TTL_S without activity as any room. ' +
        '409 conflict when it is not archived.',
    response: z.object({ room: roomView }),
    handle: async (ctx) => ({
      room: roomToView((await rooms.setArchived(roomRef(ctx), archive, actorOf(ctx.principal))).room),
    }),
  })
  return [
    archiving(true),
    archiving(false),
    {
      method: 'DELETE',
      path: '/admin/rooms/:roomId',
      auth: 'team',
      needs: 'rooms.manage',
      tag: 'admin',
      summary:
        'Delete a room, archived or not: every Redis key of it, its search documents and its room invite keys ' +
        '(live ones get 401 on every node within a second). Says what went. Not undone.',
      response: deletedView,
      handle: async (ctx) => {
        const ref = roomRef(ctx)
        return { roomId: ref.roomId, ...(await rooms.remove(ref, actorOf(ctx.principal))) }
      },
    },
    {
      method: 'GET',
      path: '/admin/me',
      auth: 'team',
      tag: 'admin',
      summary:
        "The team of the calling key, its rate limit and the key's own, and the service's search: its engine, " +
        'whether semantic search is on (and with which model).',
      response: z.object({
        teamId: z.string(),
        teamName: z.string(),
        keyId: z.string(),
        rateLimitPerMinute: z.number(),
        credentialRateLimitPerMinute: z.number(),
        search: z.object({
          engine: z.enum(['redis', 'meilisearch']),
          semantic: z.boolean(),
          model: z.string().optional(),
          vectors: z.enum(['vector sets', 'in process']).optional(),
        }),
      }),
      handle: async (ctx) => {
        const p = ctx.principal as Extract<Principal, { kind: 'team' }>
        const team = await deps.teams.requireTeam(p.teamId, budgetOf(ctx))
        const limit = deps.rateLimiter.limitFor(p.teamId)
        return {
          teamId: team.teamId,
          teamName: team.name,
          keyId: p.keyId,
          rateLimitPerMinute: limit,
          credentialRateLimitPerMinute: deps.rateLimiter.credentialLimitFor(limit),
          search: deps.search.status(),
        }
      },
    },
    {
      method: 'POST',
      path: '/admin/rooms',
      auth: 'team',
      needs: 'room.write',
      tag: 'admin',
      status: 201,
      summary: 'Create a room, optionally with a given roomId and from a template (blank, web-app, incident).',
      body: adminSchemas.createRoom,
      response: z.object({ room: roomView }),
      handle: async (ctx) => {
        const b = ctx.body as z.infer<typeof adminSchemas.createRoom>
        const { room } = await deps.core.rooms.create(
          teamOf(ctx),
          { room_id: b.roomId, name: b.name, template: b.template },
          actorOf(ctx.principal),
          idempotencyKeyOf(ctx),
          budgetOf(ctx),
        )
        return { room: roomToView(room) }
      },
    },
    {
      method: 'GET',
      path: '/admin/rooms',
      auth: 'team',
      tag: 'admin',
      summary: "List the team's rooms, oldest first; ?limit (1-500, default 100) and ?after=<roomId> page.",
      query: adminSchemas.listRooms,
      response: z.object({ rooms: z.array(roomView), next: z.string().optional() }),
      handle: async (ctx) => {
        const q = ctx.query as z.infer<typeof adminSchemas.listRooms>
        const page = await deps.core.rooms.list(teamOf(ctx), q, budgetOf(ctx))
        return { rooms: page.rooms.map(roomToView), ...(page.next ? { next: page.next } : {}) }
      },
    },
    {
      method: 'GET',
      path: '/admin/rooms/:roomId/stats',
      auth: 'team',
      tag: 'admin',
      summary:
        'Room stats: tasks by status, completion rate, record counts, online agents, events and finished ' +
        'tasks per day (7 days).',
      handle: async (ctx) => {
        const roomId = ctx.params.roomId!
        parse(z.object({ roomId: roomIdField }), { roomId })
        const room = { teamId: teamOf(ctx), roomId }
        const stats = await deps.core.analytics.room({ room, budget: budgetOf(ctx) }, {}, false)
        const { unread: _unread, ...rest } = stats
        return { roomId, ...rest }
      },
    },
    {
      method: 'POST',
      path: '/admin/keys',
      auth: 'team',
      needs: 'keys.own',
      tag: 'admin',
      status: 201,
      summary:
        'Mint an extra team key. The full key is in this response only; afterwards only its hint (last four ' +
        'characters).',
      body: adminSchemas.mint,
      response: keyView.extend({ key: z.string() }),
      handle: async (ctx) => {
        const budget = budgetOf(ctx)
        const { key, info } = await deps.teams.mintTeamKey(teamOf(ctx), ctx.body, minterOf(ctx), budget)
        await deps.audit.record(teamOf(ctx), actorOf(ctx.principal), 'minted key', info.keyId, budget)
        const [named] = await withMinters(deps.accounts, [info], budget)
        return { key, ...named }
      },
    },
    {
      method: 'GET',
      path: '/admin/keys',
      auth: 'team',
      tag: 'admin',
      summary:
        "List the team's keys (hints only), oldest first, revoked ones for REVOKED_KEY_RETENTION_S (30 " +
        'days); ?limit (1-500, default 100) and ?after=<keyId> page.',
      query: adminSchemas.listKeys,
      response: z.object({ keys: z.array(keyView), next: z.string().optional() }),
      handle: async (ctx) => {
        const budget = budgetOf(ctx)
        const q = ctx.query as z.infer<typeof adminSchemas.listKeys>
        const page = await deps.teams.pageKeys(teamOf(ctx), q, budget)
        return { ...page, keys: await withMinters(deps.accounts, page.keys, budget) }
      },
    },
    {
      method: 'DELETE',
      path: '/admin/keys/:keyId',
      auth: 'team',
      needs: 'keys.others',
      tag: 'admin',
      summary: "Revoke a team key, on every node within a second. The team's last live key cannot be revoked (409).",
      response: z.object({ revoked: keyView }),
      handle: async (ctx) => {
        const budget = budgetOf(ctx)
        const { info } = await deps.teams.revokeKey(teamOf(ctx), ctx.params.keyId!, undefined, budget)
        await deps.audit.record(teamOf(ctx), actorOf(ctx.principal), 'revoked key', info.keyId, budget)
        const [named] = await withMinters(deps.accounts, [info], budget)
        return { revoked: named }
      },
    },
    {
      method: 'GET',
      path: '/admin/audit',
      auth: 'team',
      tag: 'admin',
      summary:
        "The team's audit trail, newest first (90 days): sign-ins, keys and room invites minted or revoked, " +
        'webhooks registered or deleted, members invited or removed.',
      query: z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) }),
      response: z.object({
        entries: z.array(
          z.object({
            id: z.string(),
            at: z.string(),
            actor: z.string(),
            action: z.string(),
            target: z.string().optional(),
          }),
        ),
      }),
      handle: async (ctx) => ({
        entries: await deps.audit.read(teamOf(ctx), (ctx.query as { limit: number }).limit, budgetOf(ctx)),
      }),
    },
    {
      method: 'POST',
      path: '/admin/rooms/:roomId/invite',
      auth: 'team',
      needs: 'keys.own',
      tag: 'admin',
      status: 201,
      summary:
        'Create a room invite key: it reaches this one room (MCP, SSE, snapshot) and nothing else. The full ' +
        'key is in this response only.',
      body: adminSchemas.invite,
      response: inviteView.extend({ key: z.string() }),
      handle: async (ctx) => {
        const teamId = teamOf(ctx)
        const budget = budgetOf(ctx)
        await requireRoom(teamId, ctx.params.roomId!, budget)
        const { key, info } = await deps.teams.mintInvite(teamId, ctx.params.roomId!, ctx.body, minterOf(ctx), budget)
        await deps.audit.record(
          teamId,
          actorOf(ctx.principal),
          'minted room invite',
          `${info.tokenId} (room ${info.roomId})`,
          budget,
        )
        const [named] = await withMinters(deps.accounts, [info], budget)
        return { key, ...named }
      },
    },
    {
      method: 'GET',
      path: '/admin/rooms/:roomId/invites',
      auth: 'team',
      tag: 'admin',
      summary: 'List the invites of a room (hints only), revoked ones included.',
      response: z.object({ invites: z.array(inviteView) }),
      handle: async (ctx) => {
        const teamId = teamOf(ctx)
        const budget = budgetOf(ctx)
        await requireRoom(teamId, ctx.params.roomId!, budget)
        const invites = await deps.teams.listInvites(teamId, ctx.params.roomId!, budget)
        return { invites: await withMinters(deps.accounts, invites, budget) }
      },
    },
    {
      method: 'DELETE',
      path: '/admin/rooms/:roomId/invites/:tokenId',
      auth: 'team',
      needs: 'keys.others',
      tag: 'admin',
      summary: 'Revoke a room invite key, on every node within a second.',
      response: z.object({ revoked: inviteView }),
      handle: async (ctx) => {
        const budget = budgetOf(ctx)
        const { params } = ctx
        const { info } = await deps.teams.revokeInvite(teamOf(ctx), params.roomId!, params.tokenId!, undefined, budget)
        await deps.audit.record(
          teamOf(ctx),
          actorOf(ctx.principal),
          'revoked room invite',
          `${info.tokenId} (room ${info.roomId})`,
          budget,
        )
        const [named] = await withMinters(deps.accounts, [info], budget)
        return { revoked: named }
      },
    },
  ]
}
