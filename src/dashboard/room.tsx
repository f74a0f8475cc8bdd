// The room page: the plan as a board by status (room-plan.tsx); the event feed with replies
// threaded and who has read what (room-feed.tsx); presence, reviews, locks, vars, analytics and
// context (room-parts.tsx); the task and context entry opened, in a side panel (room-panels.tsx);
// search. Rendered on the server from one bounded read of the room
// (Snapshot.page: long lists come a page at a time, counts are exact); every value is escaped by
// preact-render-to-string (room content is agents' text). Each part that the live script may
// swap carries `data-part`.
import type { ContextVersion } from '../core/context.js'
import type { Task } from '../core/plan.js'
import type { FeedFilter, FeedPage, RoomPage as RoomPageRead } from '../core/room-page.js'
import type { SearchAnswer, SearchHit } from '../search/engine.js'
import type { Kept } from './kept.js'
import { Feed, eventHref } from './room-feed.js'
import { Agents, Analytics, ContextSection, Locks, Reviews, Vars } from './room-parts.js'
import { Plan } from './room-plan.js'
import { ActivityStrips, PlanGraph } from './room-graph.js'
import { Panels, panelChoices } from './room-panels.js'
import type { PlanPicture } from '../core/plan-graph.js'
import { Ago, Flash, Layout, num, type Viewer } from './layout.js'
import { needsCount, type RoomNeeds } from '../core/needs.js'
import { NeedsBlock } from './needs.js'
import { ROOM_ROLE_ROWS, RoleNote } from './role-note.js'
import { ArchivedNote, RoomManage } from './room-admin.js'
import { ShortcutsHelp } from './shortcuts.js'

/** The room page's skip links: straight to what needs the person, and to the feed. */
const ROOM_SKIPS = [
  { href: '#needs', text: 'Skip to what needs you' },
  { href: '#events', text: 'Skip to the events' },
]

export type RoomView = Awaited<ReturnType<RoomPageRead['read']>>

export interface ContextView {
  type: string
  key: string
  body: string
  version: number
  versions: ContextVersion[]
  /** The selected version's changes (`from` 0: the first version, against nothing). */
  diff?: { from: number; to: number; patch: string; added: number; removed: number }
  /** Why the selected version has no diff shown (the version before it is no longer kept). */
  diffMissing?: string
}

/** The task opened on the page (?task=t7): the whole record, notes included, and its edit form. */
export type OpenTask = { task: Task; blocked_by: string[] } | { missing: string }

/** The page's address: every link keeps what the person has open (pages, entry, search) and changes one thing. */
export class Here {
  constructor(
    readonly roomId: string,
    private readonly params: URLSearchParams,
  ) {}

  get(name: string): string | undefined {
    return this.params.get(name) ?? undefined
  }

  /** The page's parameters but those named, in order (for a form that sets the named ones). */
  others(names: readonly string[]): [string, string][] {
    return [...this.params].filter(([k]) => !names.includes(k))
  }

  /** This page with `changes` (undefined removes a parameter), then `#anchor`. */
  href(changes: Record<string, string | number | undefined>, anchor?: string): string {
    const p = new URLSearchParams([['id', this.roomId]])
    for (const [k, v] of this.params) if (k !== 'id' && !(k in changes)) p.append(k, v)
    for (const [k, v] of Object.entries(changes)) if (v !== undefined) p.set(k, String(v))
    return `/room?${p.toString()}${anchor ? `#${anchor}` : ''}`
  }
}

/** The room page's sections, in the page's order: the links at its top. */
const SECTIONS = [
  ['plan', 'Plan'],
  ['graph', 'Graph'],
  ['events', 'Events'],
  ['agents', 'Agents'],
  ['activity', 'Activity'],
  ['reviews', 'Reviews'],
  ['locks', 'Locks'],
  ['vars', 'Vars'],
  ['analytics', 'Analytics'],
  ['context', 'Context'],
] as const

export interface RoomPageProps {
  viewer: Viewer
  /** The agent id the signed-in person acts as (human:<name>). */
  human: string
  view: RoomView
  /** What in the room needs the person (the block at the top, and the count in the title). */
  needs: RoomNeeds
  /** The plan's graph and the agents' activity strips. */
  graph: PlanPicture
  here: Here
  /** Cards per column and rows per list. */
  size: number
  task?: OpenTask
  context?: ContextView
  search?: { query: string; answer?: SearchAnswer; error?: string }
  /** The feed filtered (?type, ?agent, ?open), read apart from the room's latest events. */
  feed?: { filter: FeedFilter; page: FeedPage }
  notice?: string
  error?: string
  /** The form the room model refused, shown again as it was sent. */
  kept?: Kept
}

export function RoomPage(p: RoomPageProps) {
  const { view, here } = p
  const roomId = view.room.room_id
  // Following the stream from the last event shown, unless the page shows older events.
  const last = here.get('before') ? '' : (view.events.at(-1)?.id ?? '')
  return (
    <Layout title={view.room.name} viewer={p.viewer} count={needsCount(p.needs)} skips={ROOM_SKIPS} wide>
      <nav aria-label="Breadcrumb" class="small crumbs">
        <a href="/">Rooms</a> / <span aria-current="page">{roomId}</span>
      </nav>
      <div class="room-head">
        <h1>{view.room.name}</h1>
        <p class="live small" id="live-status" data-state="static" role="status" aria-live="polite">
          Updates when you reload the page.
        </p>
      </div>
      {/* data-now: the server's clock, on which the script counts the page's times (client/live.ts). */}
      <div data-live={`/live?id=${encodeURIComponent(roomId)}`} data-last-event={last} data-now={Date.now()} hidden />
      <ShortcutsHelp />
      <RoomHead view={view} />
      <ArchivedNote room={view.room} />
      <Flash notice={p.notice} error={p.error} />
      <NeedsBlock roomId={roomId} needs={p.needs} on="room" kept={p.kept} />
      <nav aria-label="Sections of the room" class="small sections">
        {SECTIONS.map(([id, label], i) => (
          <>
            {i > 0 ? ' ' : null}
            <a href={`#${id}`}>{label}</a>
          </>
        ))}
      </nav>
      <Panels
        here={here}
        task={p.task}
        context={p.context}
        choices={panelChoices(view, p.graph, p.human, p.task)}
        kept={p.kept}
      />
      <SearchBox here={here} search={p.search} />
      <p class="small muted">
        Your changes here are made as <code>{p.human}</code> and recorded in the team's audit trail.
      </p>
      <RoleNote role={p.viewer.user.role} rows={ROOM_ROLE_ROWS} />
      <Plan view={view} here={here} size={p.size} kept={p.kept} />
      <PlanGraph picture={p.graph} here={here} />
      <div class="room-grid">
        <Feed here={here} view={view} kept={p.kept} feed={p.feed} />
        <div class="side">
          <Agents view={view} here={here} kept={p.kept} />
          <ActivityStrips activity={p.graph.activity} posts={p.needs.posts ?? new Map()} view={view} />
          <Reviews view={view} here={here} size={p.size} kept={p.kept} />
          <Locks view={view} here={here} size={p.size} />
          <Vars view={view} here={here} size={p.size} />
          <Analytics view={view} />
        </div>
      </div>
      <ContextSection view={view} here={here} size={p.size} open={p.context} kept={p.kept} />
      <RoomManage room={view.room} role={p.viewer.user.role} />
    </Layout>
  )
}

function RoomHead(props: { view: RoomView }) {
  const { room, counts, presence } = props.view
  return <HeadLine room={room} events={counts.events} online={presence.online_count} />
}

/** The line under the room's name; the live stream renders it alone from a small read (live.ts). */
export function HeadLine(props: { room: RoomView['room']; events: number; online: number }) {
  const { room } = props
  const rest = ` · ${num(props.events)} events posted · ${num(props.online)} agents online`
  return (
    <p class="muted" data-part="head">
      {room.template} template · last activity <Ago at={room.last_active_at} />
      {rest}
    </p>
  )
}

/**
 * The parts of the room page that GET /room/part renders alone, by the name the live script asks
 * for: each is the page's section with its `data-part` (`needs` is `data-part="needs-<roomId>"`).
 */
export const PARTS = [
  'head',
  'needs',
  'panel',
  'plan',
  'graph',
  'events',
  'agents',
  'activity',
  'reviews',
  'locks',
  'vars',
  'analytics',
  'context',
] as const
export type PartName = (typeof PARTS)[number]

/**
 * The parts that need the read of what needs the person (the activity strips' events come with
 * it), and those drawn from the plan's graph (their own reads; the side panel's task and agent
 * pickers include its open tasks).
 */
export const NEEDS_PARTS: readonly PartName[] = ['needs', 'activity']
export const GRAPH_PARTS: readonly PartName[] = ['graph', 'activity', 'panel']

/** A part's props: the page's, without the reads that part does not show. */
export type PartProps = Omit<RoomPageProps, 'needs' | 'graph'> &
  Partial<Pick<RoomPageProps, 'needs' | 'graph'>> & { part: PartName }

/** One part of the room page, rendered by the component, and with the props, the whole page uses. */
export function RoomPart(p: PartProps) {
  const { view, here } = p
  const needs = () => p.needs ?? missing('needs')
  const graph = () => p.graph ?? missing('graph')
  switch (p.part) {
    case 'head':
      return <RoomHead view={view} />
    case 'needs':
      return <NeedsBlock roomId={view.room.room_id} needs={needs()} on="room" kept={p.kept} />
    case 'panel':
      return (
        <Panels
          here={here}
          task={p.task}
          context={p.context}
          choices={panelChoices(view, graph(), p.human, p.task)}
          kept={p.kept}
        />
      )
    case 'plan':
      return <Plan view={view} here={here} size={p.size} kept={p.kept} />
    case 'graph':
      return <PlanGraph picture={graph()} here={here} />
    case 'events':
      return <Feed here={here} view={view} kept={p.kept} feed={p.feed} />
    case 'agents':
      return <Agents view={view} here={here} kept={p.kept} />
    case 'activity':
      return <ActivityStrips activity={graph().activity} posts={needs().posts ?? new Map()} view={view} />
    case 'reviews':
      return <Reviews view={view} here={here} size={p.size} kept={p.kept} />
    case 'locks':
      return <Locks view={view} here={here} size={p.size} />
    case 'vars':
      return <Vars view={view} here={here} size={p.size} />
    case 'analytics':
      return <Analytics view={view} />
    case 'context':
      return <ContextSection view={view} here={here} size={p.size} open={p.context} kept={p.kept} />
  }
}

function missing(read: string): never {
  throw new Error(`a room part was rendered without its ${read} read`)
}

/** Where a search result is on the page: a task opens, a context entry opens, an event shows at the top of the feed. */
function hitHref(here: Here, h: SearchHit): string | undefined {
  if (h.kind === 'task') return here.href({ task: h.id }, 'open-task')
  if (h.kind === 'context' && h.type && h.key)
    return here.href({ ctx: `${h.type}/${h.key}`, from: undefined, to: undefined }, 'open-context')
  // The feed shows the events before an id: just after this one puts it first.
  if (h.kind === 'event') return eventHref(here, h.id)
  return undefined
}

function SearchBox(props: { here: Here; search: RoomPageProps['search'] }) {
  const s = props.search
  return (
    <section aria-labelledby="search-h" class="search">
      <h2 id="search-h" class="visually-hidden">
        Search this room
      </h2>
      <form class="search" method="get" action="/room" role="search">
        <input type="hidden" name="id" value={props.here.roomId} />
        <label>
          Search tasks, context and events
          <input type="search" name="q" value={s?.query ?? ''} maxLength={500} />
        </label>
        <button type="submit">Search</button>
      </form>
      {s?.error ? (
        <p class="error" role="alert">
          {s.error}
        </p>
      ) : null}
      {s?.answer ? (
        s.answer.results.length === 0 ? (
          <p class="muted">Nothing found for “{s.query}”.</p>
        ) : (
          <ol class="feed results" aria-label={`Search results for ${s.query}`}>
            {s.answer.results.map((h) => {
              const href = hitHref(props.here, h)
              return (
                <li key={h.ref}>
                  {href ? <a href={href}>{h.ref}</a> : <strong>{h.ref}</strong>}{' '}
                  {h.title ? <span>{h.title}</span> : null}
                  <p class="event-text">{h.snippet.replaceAll('**', '')}</p>
                </li>
              )
            })}
          </ol>
        )
      ) : null}
      {s?.answer?.note ? <p class="small muted">{s.answer.note}</p> : null}
    </section>
  )
}
