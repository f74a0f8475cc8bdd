// The dashboard's room pages, added after the sign-in pages of account-pages.ts: the rooms page
// (the signed-in home), room creation with each agent's client configuration, and the room page.
// The dashboard acts for the signed-in person's team on the server: it calls the room model
// directly, so no team key is ever needed in, or sent to, the browser.
import { requireRole } from '../auth/permissions.js'
import { z } from 'zod'
import { Fragment, h } from 'preact'
import type { User } from '../auth/accounts.js'
import type { Audit } from '../auth/audit.js'
import type { Teams } from '../auth/teams.js'
import type { Core } from '../core/index.js'
import { AppError, RoomExists, RoomNotFound } from '../shared/errors.js'
import { eventId as eventIdField } from '../core/fields.js'
import { agentId as agentIdField, agentIdList, EVENT_TYPE, roomId as roomIdField, roomName } from '../shared/fields.js'
import { PAGED, type FeedFilter, type Paged } from '../core/room-page.js'
import { SNAPSHOT_EVENTS } from '../core/snapshot.js'
import { ACTIVITY_SPAN_MS } from '../core/plan-graph.js'
import { roomIdFromName } from '../shared/room-name.js'
import type { SearchEngine } from '../search/engine.js'
import { Steer } from './steer.js'
import { InboxPages, roomsCursor } from './inbox.js'
import { Live, type LiveDeps } from './live.js'
import { NeedsBlock } from './needs.js'
import { KeysPages, type KeysDeps } from './keys.js'
import { WebhooksPages, type WebhooksDeps } from './webhooks.js'
import { RoomAdminPages } from './room-admin.js'
import {
  GRAPH_PARTS,
  Here,
  NEEDS_PARTS,
  PARTS,
  RoomPage,
  RoomPart,
  type ContextView,
  type OpenTask,
  type PartName,
  type PartProps,
  type RoomPageProps,
} from './room.js'
import { TEMPLATES, templateId } from '../core/templates.js'
import { fromForm, keep, type Kept } from './kept.js'
import { humanId, actorOf, done, html, refusal, see, seeDone, type Reply, type Request } from './page.js'
import type { Logger } from '../shared/logger.js'
import type { Web } from './web.js'
import { renderToString } from 'preact-render-to-string'
import type { RoomRef } from '../store/keys.js'
import type { Viewer } from './layout.js'
import { partsIn, stampParts, timeless } from './patch.js'
import { CreatedPage, RoomsPage, type AgentSetup, type RoomRow, TEAM_KEY_PLACEHOLDER } from './rooms.js'

/** What a room's creation (or "Connect more agents") seals for the page of configurations. */
interface Created {
  room: string
  agents: { agent: string; key?: string | undefined }[]
  added: boolean
}

export interface PagesDeps {
  core: Pick<
    Core,
    'rooms' | 'analytics' | 'roomPage' | 'context' | 'events' | 'reviews' | 'plan' | 'locks' | 'needs' | 'graph'
  >
  search: Pick<SearchEngine, 'search' | 'dropRoom'>
  teams: Pick<Teams, 'mintInvites' | 'revokeInvite' | 'dropRoom' | 'listInvites'>
  audit: Pick<Audit, 'record'>
  log: Pick<Logger, 'warn'>
  live: LiveDeps
  keys: KeysDeps
  webhooks: WebhooksDeps
}

/** Rooms listed on the rooms page. */
export const ROOMS_SHOWN = 100
/** Cards per board column and rows per list on the room page; the rest is a page away. */
export const ROOM_PAGE_SIZE = 20
/** Events a page of the room's feed shows. */
export const FEED_PAGE = SNAPSHOT_EVENTS
/** Days of the room page's events-per-day chart. */
export const CHART_DAYS = 7
/** Task ids a card lists under "blocked by" and "blocks" before "and N more". */
export const CARD_IDS = 10
/** Agents one creation may set up. */
export const AGENTS_PER_CREATE = 20

/**
 * The create form: the room's name and template by the schemas the API's create body uses, and the
 * agents to set up. A refusal names the form's field (kept.tsx shows it there).
 */
export const createForm = z.object({
  name: roomName,
  template: templateId.default('blank'),
  agents: agentIdList(AGENTS_PER_CREATE),
  invite: z.string().optional(),
})
/** The room page's "Connect more agents" form. */
export const connectForm = z.object({ agents: agentIdList(AGENTS_PER_CREATE) })

export class Pages {
  private readonly live: Live

  constructor(
    private readonly deps: PagesDeps,
    /** The service's base URL: MCP configuration points at `${base}/mcp`. */
    private readonly base: string,
  ) {
    this.live = new Live({ ...deps.live, renderParts: (viewer, ref, parts) => this.liveParts(viewer, ref, parts) })
  }

  register(web: Web): void {
    web.page('GET', '/', true, (r) => this.rooms(r))
    web.page('POST', '/rooms', true, (r) => this.create(r))
    web.page('GET', '/room', true, (r) => this.room(r))
    web.page('GET', '/room/part', true, (r) => this.part(r))
    web.page('POST', '/room/agents', true, (r) => this.connect(r))
    web.page('GET', '/rooms/created', true, (r) => this.created(r))
    this.live.register(web)
    new KeysPages(this.deps.keys).register(web)
    new WebhooksPages(this.deps.webhooks).register(web)
    new RoomAdminPages(this.deps).register(web)
    const inbox = new InboxPages({ core: this.deps.core })
    inbox.register(web)
    new Steer({
      core: this.deps.core,
      audit: this.deps.audit,
      roomPage: (r, extra, status) => this.room(r, extra, status),
      inboxPage: (r, extra, status) => inbox.page(r, extra, status),
    }).register(web)
  }

  /**
   * One page of the team's rooms: pages follow the order of creation (a stable key, so a room
   * that becomes active between two page loads neither repeats nor goes missing); each page shows
   * its rooms most recently active first.
   */
  private async rows(
    teamId: string,
    after: { id: string; at?: number } | undefined,
  ): Promise<{ rows: RoomRow[]; next: { id: string; at: number } | undefined }> {
    const page = await this.deps.core.rooms.page(teamId, after, ROOMS_SHOWN)
    const read = await Promise.all(
      page.rooms.map(async (room): Promise<RoomRow | undefined> => {
        const ref = { teamId, roomId: room.room_id }
        // Read without touching: looking at a room is not activity. A room that expired since it
        // was listed is left out; any other failure is the page's, never a row of zeros.
        const a = await this.deps.core.analytics.room({ room: ref }, { days: 1 }, false).catch((err: unknown) => {
          if (err instanceof AppError && err.code === 'not_found') return undefined
          throw err
        })
        return (
          a && {
            room,
            online: a.online_agents,
            open: a.tasks.by_status.todo,
            inProgress: a.tasks.by_status.in_progress,
          }
        )
      }),
    )
    const rows = read.filter((row): row is RoomRow => row !== undefined)
    rows.sort((a, b) => (a.room.last_active_at < b.room.last_active_at ? 1 : -1))
    return { rows, next: page.next }
  }

  private async rooms(r: Request, extra: { kept?: Kept } = {}, status = 200): Promise<Reply> {
    const viewer = r.viewer!
    const q = r.ex.req.query
    const after = roomsCursor(q)
    const { rows, next } = await this.rows(viewer.user.team, after)
    const { notice } = done<{ notice: string }>(r, '/')
    return html(
      RoomsPage({ viewer, rooms: rows, next, after: after?.id, templates: TEMPLATES, notice, ...extra }),
      status,
    )
  }

  /**
   * Each agent's client configuration for a room, with a room invite key of its own when `invite`:
   * all minted in one script (all or none), then audited. Should the audit fail, the keys are
   * revoked before the error shows, so no key is left live that the person was never shown;
   * should Redis refuse that revocation too (it was unreachable), the log names the keys left.
   */
  private async setups(user: User, roomId: string, agents: string[], invite: boolean): Promise<AgentSetup[]> {
    const url = `${this.base}/mcp`
    if (!invite)
      return agents.map((agentId) => ({ access: { agentId, roomId, key: TEAM_KEY_PLACEHOLDER, url }, invite }))
    const minted = await this.deps.teams.mintInvites(
      user.team,
      roomId,
      agents.map((agentId) => ({ label: `agent ${agentId}`.slice(0, 100), agentId })),
      { user: user.id },
    )
    try {
      for (const m of minted)
        await this.deps.audit.record(
          user.team,
          actorOf(user),
          'minted room invite',
          `${m.info.tokenId} (room ${roomId})`,
        )
    } catch (err) {
      const undone = await Promise.allSettled(
        minted.map((m) => this.deps.teams.revokeInvite(user.team, roomId, m.info.tokenId)),
      )
      const left = minted.filter((_, i) => undone[i]!.status === 'rejected').map((m) => m.info.tokenId)
      if (left.length > 0)
        this.deps.log.warn(
          { team: user.team, room: roomId, invites: left },
          'dashboard: invite keys minted for a page that failed could not be revoked; revoke them on the Keys page',
        )
      throw err
    }
    return agents.map((agentId, i) => ({ access: { agentId, roomId, key: minted[i]!.key, url }, invite }))
  }

  /** More agents for a room that exists: their configuration, with invite keys of their own when asked. */
  private async connect(r: Request): Promise<Reply> {
    const viewer = r.viewer!
    const v = roomIdField.safeParse(r.form.get('room') ?? '')
    if (!v.success) throw new AppError('invalid_request', `room: ${v.error.issues[0]!.message}`, { field: 'room' })
    let agents: string[]
    try {
      requireRole(viewer.user.role, 'room.write')
      ;({ agents } = fromForm(connectForm, r.form))
    } catch (err) {
      const refused = refusal(err)
      if (refused) return this.room(r, { kept: keep('agents', r.form, refused) }, refused.status)
      throw err
    }
    const { room } = await this.deps.core.rooms.info({ room: { teamId: viewer.user.team, roomId: v.data } })
    const setups = await this.setups(viewer.user, room.room_id, agents, r.form.get('invite') === '1')
    return this.seeCreated(r, room.room_id, setups, true)
  }

  /** Post/Redirect/Get to the agents' configuration, each invite key sealed for this session (flash.ts). */
  private seeCreated(r: Request, roomId: string, setups: AgentSetup[], added: boolean): Reply {
    const sealed: Created = {
      room: roomId,
      agents: setups.map((s) => ({ agent: s.access.agentId, key: s.invite ? s.access.key : undefined })),
      added,
    }
    return seeDone(r, `/rooms/created?${new URLSearchParams({ id: roomId }).toString()}`, sealed)
  }

  /**
   * The configuration of the agents a room was just created or extended with. Without its sealed
   * outcome (reloaded past FLASH_MS, or opened by another session) the room page stands in: the
   * invite keys were shown and are not kept.
   */
  private async created(r: Request): Promise<Reply> {
    const viewer = r.viewer!
    const v = roomIdField.safeParse(r.ex.req.query.get('id') ?? '')
    if (!v.success) throw new AppError('invalid_request', `id: ${v.error.issues[0]!.message}`, { field: 'id' })
    const got = done<Created>(r, '/rooms/created')
    if (got.room !== v.data || !Array.isArray(got.agents))
      return see(`/room?${new URLSearchParams({ id: v.data }).toString()}`)
    const { room } = await this.deps.core.rooms.info({ room: { teamId: viewer.user.team, roomId: v.data } })
    const url = `${this.base}/mcp`
    const agents = got.agents.map((a): AgentSetup => ({
      access: { agentId: a.agent, roomId: room.room_id, key: a.key ?? TEAM_KEY_PLACEHOLDER, url },
      invite: a.key !== undefined,
    }))
    return html(CreatedPage({ viewer, room, agents, added: got.added === true }))
  }

  private async create(r: Request): Promise<Reply> {
    const user = r.viewer!.user
    let room
    let form: z.output<typeof createForm>
    try {
      requireRole(user.role, 'room.write')
      form = fromForm(createForm, r.form)
      const roomId = roomIdFromName(form.name)
      ;({ room } = await this.deps.core.rooms.create(
        user.team,
        { name: form.name, template: form.template, ...(roomId ? { room_id: roomId } : {}) },
        humanId(user.name, user.email),
      ))
    } catch (err) {
      const refused = refusal(err)
      if (!refused) throw err
      const named =
        refused instanceof RoomExists
          ? new AppError(
              'conflict',
              `A room named ${JSON.stringify(r.form.get('name'))} already exists in this team: choose another name.`,
              { field: 'name' },
            )
          : refused
      return this.rooms(r, { kept: keep('create', r.form, named) }, refused.status)
    }
    await this.deps.audit.record(user.team, actorOf(user), 'created room', room.room_id)
    const setups = await this.setups(user, room.room_id, form.agents, form.invite === '1')
    return this.seeCreated(r, room.room_id, setups, false)
  }

  /**
   * The room page: ?id=<roomId>, optionally &task=<id> (the task opened), &ctx=<type>/<key> (&from=&to=
   * for a diff), &q= (search), &before=<event id> (earlier events), &type=, &agent=, &open=1 (the
   * feed filtered: by event type, by agent, only open questions), &<part>_from=<n> (a later page of
   * a board column or list).
   */
  async room(r: Request, extra: { notice?: string; error?: string; kept?: Kept } = {}, status = 200): Promise<Reply> {
    const { needs, graph, ...props } = await this.roomProps(r, undefined, extra)
    const reply = html(RoomPage({ ...props, needs: needs!, graph: graph! }), status)
    // At the room's plain address, what the page shows is the base of its first live patch.
    const q = r.ex.req.query
    const plain = status === 200 && !extra.kept && r.ex.req.method === 'GET' && [...q.keys()].join() === 'id'
    const viewer = r.viewer!
    const ref = { teamId: viewer.user.team, roomId: props.here.roomId }
    return { ...reply, stamp: plain ? (parts) => this.live.seed(viewer, ref, parts) : true }
  }

  /**
   * `parts` of the room page at the room's plain address (?id= alone) as `viewer` sees it, for the
   * live stream's patches (live-room.ts): each part's root by its `data-part` value, unstamped.
   */
  private async liveParts(viewer: Viewer, ref: RoomRef, parts: readonly PartName[]): Promise<Map<string, string>> {
    const out = new Map<string, string>()
    const q = new URLSearchParams({ id: ref.roomId })
    const rest = parts.filter((p) => p !== 'needs')
    // The parts' read of what needs the person (the activity strips') serves the block too.
    const shared = parts.includes('needs') && rest.some((p) => NEEDS_PARTS.includes(p))
    const [props, alone] = await Promise.all([
      rest.length > 0 ? this.propsAt(viewer, q, null, rest, {}) : undefined,
      parts.includes('needs') && !shared ? this.deps.core.needs.read({ room: ref }) : undefined,
    ])
    const needs = shared ? props?.needs : alone
    if (props) {
      const text = renderToString(
        h(
          Fragment,
          null,
          rest.map((part) => RoomPart({ ...props, part })),
        ),
      )
      for (const p of partsIn(text)) out.set(p.name, timeless(text.slice(p.start, p.end)))
    }
    if (needs) {
      const text = renderToString(NeedsBlock({ roomId: ref.roomId, needs, on: 'room' }))
      for (const p of partsIn(text)) out.set(p.name, timeless(text.slice(p.start, p.end)))
    }
    return out
  }

  /**
   * Parts of the room page alone (GET /room/part?id=<roomId>&part=<name>[&part=…] and the page's
   * other parameters): each section as the whole page at that address renders it, one after the
   * other in the order asked, with only the reads those parts show. The live script swaps them in.
   */
  private async part(r: Request): Promise<Reply> {
    const asked = r.ex.req.query.getAll('part')
    if (asked.length === 0)
      throw new AppError('invalid_request', `part: give at least one of ${PARTS.join(', ')}`, { field: 'part' })
    if (asked.length > PARTS.length)
      throw new AppError('invalid_request', `part: at most ${PARTS.length} parts (${asked.length} given)`, {
        field: 'part',
      })
    const unknown = asked.find((a) => !(PARTS as readonly string[]).includes(a))
    if (unknown !== undefined)
      throw new AppError('not_found', `part: ${JSON.stringify(unknown.slice(0, 40))} is not a part of the room page`, {
        field: 'part',
      })
    const parts = [...new Set(asked)] as PartName[]
    // A live page of the person at the room's plain address gets the parts its stream last
    // patched from: the version the next patch starts from, and no rendering.
    const q = r.ex.req.query
    if ([...new Set(q.keys())].join() === 'id,part' && !parts.includes('head') && !parts.includes('events')) {
      const viewer = r.viewer!
      const roomId = q.get('id')!
      const names = parts.map((p) => (p === 'needs' ? `needs-${roomId}` : p))
      const held = this.live.latest(viewer, { teamId: viewer.user.team, roomId }, names)
      if (held)
        return {
          status: 200,
          raw: stampParts(`<!doctype html>${held.join('')}`),
          headers: { 'Cache-Control': 'no-store' },
        }
    }
    // What needs the person alone (what a question, a blocker or an answer changes) is its own
    // small read: not the room page's.
    if (parts.length === 1 && parts[0] === 'needs') return this.needsPart(r)
    const props = await this.roomProps(r, parts, {})
    const body = h(
      Fragment,
      null,
      parts.map((part) => RoomPart({ ...props, part })),
    )
    return { ...html(body, 200, { 'Cache-Control': 'no-store' }), stamp: true }
  }

  /** The `needs` part alone, from the read of what needs the person only. */
  private async needsPart(r: Request): Promise<Reply> {
    const v = roomIdField.safeParse(r.ex.req.query.get('id') ?? '')
    if (!v.success) throw new AppError('invalid_request', `id: ${v.error.issues[0]!.message}`, { field: 'id' })
    const needs = await this.deps.core.needs.read({ room: { teamId: r.viewer!.user.team, roomId: v.data } })
    return {
      ...html(NeedsBlock({ roomId: v.data, needs, on: 'room' }), 200, { 'Cache-Control': 'no-store' }),
      stamp: true,
    }
  }

  /**
   * The room page's props from its address: ?id=<roomId>, optionally &task=<id> (the task opened),
   * &ctx=<type>/<key> (&from=&to= for a diff), &q= (search), &before=<event id> (earlier events),
   * &type=, &agent=, &open=1 (the feed filtered: by event type, by agent, only open questions),
   * &<part>_from=<n> (a later page of a board column or list). With `parts`, only the reads those
   * parts show (no search; needs and graph only for their parts).
   */
  private async roomProps(
    r: Request,
    parts: readonly PartName[] | undefined,
    extra: { notice?: string; error?: string; kept?: Kept },
  ): Promise<Omit<PartProps, 'part'>> {
    return this.propsAt(r.viewer!, r.ex.req.query, r.form.get('room'), parts, extra)
  }

  /** roomProps() for `viewer` at the address `q` (`formRoom`: the room a posted form names). */
  private async propsAt(
    viewer: Viewer,
    q: URLSearchParams,
    formRoom: string | null,
    parts: readonly PartName[] | undefined,
    extra: { notice?: string; error?: string; kept?: Kept },
  ): Promise<Omit<PartProps, 'part'>> {
    const wants = (names: readonly PartName[]) => parts === undefined || names.some((n) => parts.includes(n))
    const v = roomIdField.safeParse(q.get('id') ?? formRoom ?? '')
    if (!v.success) throw new AppError('invalid_request', `id: ${v.error.issues[0]!.message}`, { field: 'id' })
    const room = { teamId: viewer.user.team, roomId: v.data }
    const c = { room }
    const before = q.get('before') ?? undefined
    if (before !== undefined && !eventIdField.safeParse(before).success)
      throw new AppError('invalid_request', 'before: must be an event id like "1732263097123-42"', { field: 'before' })
    const from: Partial<Record<Paged, number>> = {}
    for (const part of PAGED) {
      const raw = q.get(`${part}_from`)
      if (raw === null) continue
      if (!/^\d{1,6}$/.test(raw))
        throw new AppError('invalid_request', `${part}_from: must be a whole number from 0 to 999999`, {
          field: `${part}_from`,
        })
      from[part] = Number(raw)
    }
    const filter = feedFilter(q)
    const reviews = q.get('reviews')
    if (reviews !== null && reviews !== 'pending')
      throw new AppError('invalid_request', 'reviews: must be "pending" (or absent, for every review)', {
        field: 'reviews',
      })
    // A refused edit of a task shows that task open again, with the form as it was sent.
    const taskId = q.get('task') ?? (/^(task|deps):/.test(extra.kept?.form ?? '') ? extra.kept!.form.slice(5) : null)
    const ctx = q.get('ctx')
    const query = q.get('q')
    const reads = Promise.all([
      this.deps.core.roomPage.read(c, {
        size: ROOM_PAGE_SIZE,
        from,
        days: CHART_DAYS,
        ids: CARD_IDS,
        pendingReviews: reviews === 'pending',
        ...(before ? { before } : {}),
      }),
      taskId && wants(['panel']) ? this.openTask(c, taskId) : undefined,
      ctx && wants(['panel', 'context']) ? this.contextView(c, ctx, q.get('from'), q.get('to')) : undefined,
      parts === undefined && query !== null && query.trim() !== '' ? this.search(c, query) : undefined,
      wants(NEEDS_PARTS) ? this.deps.core.needs.read(c, { postsWithinMs: ACTIVITY_SPAN_MS }) : undefined,
      wants(GRAPH_PARTS) ? this.deps.core.graph.read(c) : undefined,
      filter && wants(['events'])
        ? this.deps.core.roomPage.feed(c, { ...filter, before, limit: FEED_PAGE })
        : undefined,
    ])
    // A missing room is RoomNotFound, which the failure page words (inPageWords).
    const [view, task, context, search, needs, graph, feed] = await reads
    const props: Omit<PartProps, 'part'> = {
      viewer,
      view,
      here: new Here(room.roomId, parts ? pageParams(q) : q),
      size: ROOM_PAGE_SIZE,
      human: humanId(viewer.user.name, viewer.user.email),
      ...extra,
    }
    if (task) props.task = task
    if (context) props.context = context
    if (search) props.search = search
    if (filter && feed) props.feed = { filter, page: feed }
    if (needs) props.needs = needs
    if (graph) props.graph = graph
    return props
  }

  private async openTask(c: { room: { teamId: string; roomId: string } }, taskId: string): Promise<OpenTask> {
    try {
      return await this.deps.core.plan.getTask(c, { task_id: taskId }, false)
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found' && !(err instanceof RoomNotFound))
        return { missing: taskId }
      throw err
    }
  }

  private async search(
    c: { room: { teamId: string; roomId: string } },
    query: string,
  ): Promise<NonNullable<RoomPageProps['search']>> {
    try {
      return { query, answer: await this.deps.search.search(c, { query, limit: 20 }) }
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err
      return { query, error: `Search: ${err.message}` }
    }
  }

  private async contextView(
    c: { room: { teamId: string; roomId: string } },
    ref: string,
    from: string | null,
    to: string | null,
  ): Promise<ContextView> {
    const slash = ref.indexOf('/')
    const type = slash > 0 ? ref.slice(0, slash) : ref
    const key = slash > 0 ? ref.slice(slash + 1) : ''
    // The selected version's diff (from&to), or by default the current version's against the one
    // before it; a version whose predecessor is no longer kept has none.
    const span = from !== null && to !== null ? { from_version: Number(from), to_version: Number(to) } : {}
    const [read, hist, d] = await Promise.all([
      this.deps.core.context.read(c, { type, key }),
      this.deps.core.context.history(c, { type, key }),
      this.deps.core.context.diff(c, { type, key, ...span }).catch((err: unknown) => {
        if (err instanceof AppError && err.code === 'not_found' && !(err instanceof RoomNotFound)) return err
        throw err
      }),
    ])
    const view: ContextView = { type, key, body: read.body, version: read.entry.version, versions: hist.versions }
    if (d instanceof AppError) view.diffMissing = `No changes to show: ${d.message.replace(/^[a-z_]+: /, '')}.`
    else view.diff = { from: d.from_version, to: d.to_version, patch: d.patch, added: d.added, removed: d.removed }
    return view
  }
}

/** The address of the page a part belongs to: the part's own without `part`, so its links lead to the page. */
function pageParams(q: URLSearchParams): URLSearchParams {
  const p = new URLSearchParams(q)
  p.delete('part')
  return p
}

/** The feed's filter from the page's address, or undefined when it shows every event. */
function feedFilter(q: URLSearchParams): FeedFilter | undefined {
  const type = q.get('type') || undefined
  if (type !== undefined && !EVENT_TYPE.test(type))
    throw new AppError('invalid_request', 'type: must be an event type like "question" (1-32 of a-z 0-9 _ . -)', {
      field: 'type',
    })
  const agent = q.get('agent') || undefined
  if (agent !== undefined && !agentIdField.safeParse(agent).success)
    throw new AppError('invalid_request', 'agent: must be an agent id like "backend"', { field: 'agent' })
  const open = q.get('open')
  if (open !== null && open !== '' && open !== '1')
    throw new AppError('invalid_request', 'open: must be 1 (only open questions), or absent', { field: 'open' })
  if (type === undefined && agent === undefined && open !== '1') return undefined
  return { type, agent, open: open === '1' }
}
