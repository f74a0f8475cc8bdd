// The picture of the plan on the room page: the open tasks and their dependencies as an SVG laid
// out on the server by dagre (layered, left to right: a task stands right of what it waits for),
// each node a link to its task, its status in words and in colour, the critical path (the
// longest chain of open tasks by dependency) drawn thick and starred. Beside it, a strip per agent
// of its recent activity. Titles are agents' text: preact escapes them like every value.
//
// A layout depends only on the nodes and edges, not on statuses, so it is kept (LAYOUTS of them,
// the least recently used dropped first) and a page re-read after a claim or a post lays nothing
// out again; the cost of a new layout at the cap is in BENCHMARKS.md (bench/dashboard-render.ts).
import dagre from '@dagrejs/dagre'
import type { ComponentChildren } from 'preact'
import { ACTIVITY_HOURS, GRAPH_TASKS, type Activity, type Edge, type PlanPicture } from '../core/plan-graph.js'
import type { TaskStatus } from '../core/plan.js'
import { NEEDS_EVENTS } from '../core/needs.js'
import type { Here, RoomView } from './room.js'
import { Ago, num } from './layout.js'
import { ago } from './client/words.js'

const NODE_W = 180
const NODE_H = 48
/** Characters of a title a node shows; the whole title is its tooltip and its link's name. */
const TITLE_CHARS = 24
/** Layouts kept, by the shape of the graph. */
const LAYOUTS = 64

const STATUS_WORDS: Record<TaskStatus, string> = {
  todo: 'to do',
  in_progress: 'in progress',
  in_review: 'in review',
  done: 'done',
  cancelled: 'cancelled',
}

interface Layout {
  width: number
  height: number
  nodes: Map<string, { x: number; y: number }>
  edges: Map<string, { x: number; y: number }[]>
}

const edgeKey = (e: Edge) => `${e.from}>${e.to}`
const layouts = new Map<string, Layout>()

const byNumber = (a: string, b: string) => Number(a.slice(1)) - Number(b.slice(1))

/**
 * Lays the graph out (dagre), or takes the layout kept for the same nodes and edges. The tasks
 * and edges go to dagre sorted, so a shape has one layout whatever order the board gives them
 * (a change of priority reorders the board, not the graph).
 */
export function layoutOf(shown: string[], links: Edge[]): Layout {
  const ids = [...shown].sort(byNumber)
  const edges = [...links].sort((a, b) => byNumber(a.from, b.from) || byNumber(a.to, b.to))
  const key = `${ids.join(',')}|${edges.map(edgeKey).join(',')}`
  const kept = layouts.get(key)
  if (kept) {
    layouts.delete(key)
    layouts.set(key, kept)
    return kept
  }
  const g = new dagre.graphlib.Graph()
  g.setGraph({ rankdir: 'LR', nodesep: 14, ranksep: 36, marginx: 8, marginy: 8 })
  g.setDefaultEdgeLabel(() => ({}))
  for (const id of ids) g.setNode(id, { width: NODE_W, height: NODE_H })
  for (const e of edges) g.setEdge(e.from, e.to)
  dagre.layout(g)
  const out: Layout = {
    width: Math.ceil(g.graph().width ?? 0),
    height: Math.ceil(g.graph().height ?? 0),
    nodes: new Map(ids.map((id) => [id, { x: g.node(id).x, y: g.node(id).y }])),
    edges: new Map(edges.map((e) => [edgeKey(e), g.edge(e.from, e.to).points ?? []])),
  }
  layouts.set(key, out)
  if (layouts.size > LAYOUTS) layouts.delete(layouts.keys().next().value!)
  return out
}

/** `s` cut to `n` characters (whole code points), with an ellipsis when cut. */
function cut(s: string, n: number): string {
  const chars = Array.from(s)
  return chars.length <= n ? s : `${chars.slice(0, n - 1).join('')}…`
}

const r1 = (n: number) => Math.round(n * 10) / 10

export function PlanGraph(props: { picture: PlanPicture; here: Here }) {
  const { picture: p, here } = props
  const onPath = new Set(p.critical)
  const pathEdges = new Set(p.critical.slice(1).map((to, i) => `${p.critical[i]}>${to}`))
  const left = p.open - p.tasks.length
  return (
    <section aria-labelledby="graph" data-part="graph">
      <h2 id="graph">
        Plan graph <span class="muted">({num(p.open)} open)</span>
      </h2>
      {p.tasks.length === 0 ? (
        <p class="muted">No open task: nothing waits on anything.</p>
      ) : (
        <GraphBody p={p} here={here} onPath={onPath} pathEdges={pathEdges} />
      )}
      {left > 0 ? (
        <p class="small muted">
          {`Shows ${num(p.tasks.length)} of ${num(p.open)} open tasks (at most ${GRAPH_TASKS}: in review, in ` +
            `progress, then to do, in the board's order); ${num(left)} left out` +
            (p.outside.length > 0
              ? `, ${num(p.outside.length)} of them awaited by a task shown: ${p.outside.slice(0, 10).join(', ')}` +
                (p.outside.length > 10 ? ` and ${num(p.outside.length - 10)} more` : '')
              : '') +
            '. The board lists them all.'}
        </p>
      ) : null}
    </section>
  )
}

function GraphBody(props: { p: PlanPicture; here: Here; onPath: Set<string>; pathEdges: Set<string> }) {
  const { p, here, onPath, pathEdges } = props
  const l = layoutOf(
    p.tasks.map((t) => t.id),
    p.edges,
  )
  return (
    <>
      <p class="small">
        Each open task stands right of the tasks it waits for; an arrow points from a dependency to the task that waits
        for it. <strong>Critical path</strong> ({p.critical.length} {p.critical.length === 1 ? 'task' : 'tasks'}, the
        longest chain of open tasks): {p.critical.join(' → ')}, drawn with a thick border and ★.
      </p>
      <ul class="plain graph-legend small" aria-label="Legend">
        {(['todo', 'in_progress', 'in_review'] as const).map((st) => (
          <li key={st}>
            <Swatch class={`g-${st}`} /> {STATUS_WORDS[st]}
          </li>
        ))}
        <li>
          <Swatch class="g-todo g-critical" /> ★ on the critical path
        </li>
      </ul>
      <div class="graph-scroll" role="region" aria-label="Plan graph (scrolls)" tabindex={0}>
        <svg
          class="graph"
          viewBox={`0 0 ${l.width} ${l.height}`}
          width={l.width}
          height={l.height}
          aria-label={`Dependency graph of ${p.tasks.length} open tasks`}
        >
          <defs>
            <marker
              id="g-arrow"
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerUnits="userSpaceOnUse"
              markerWidth="9"
              markerHeight="9"
              orient="auto"
            >
              <path d="M0,0 L10,5 L0,10 z" />
            </marker>
          </defs>
          {p.edges.map((e) => {
            const pts = l.edges.get(edgeKey(e)) ?? []
            const d = pts.map((pt, i) => `${i === 0 ? 'M' : 'L'}${r1(pt.x)},${r1(pt.y)}`).join(' ')
            return (
              <path
                key={edgeKey(e)}
                class={pathEdges.has(edgeKey(e)) ? 'g-edge g-critical' : 'g-edge'}
                d={d}
                marker-end="url(#g-arrow)"
              />
            )
          })}
          {p.tasks.map((t) => {
            const at = l.nodes.get(t.id)!
            const critical = onPath.has(t.id)
            const x = r1(at.x - NODE_W / 2)
            const y = r1(at.y - NODE_H / 2)
            // The link's name and tooltip: the whole title, and what the node shows in short.
            const words =
              `${t.id} ${t.title}, ${STATUS_WORDS[t.status]}${t.assignee ? `, ${t.assignee}` : ''}` +
              (critical ? ', on the critical path' : '')
            return (
              <a
                key={t.id}
                href={here.href({ task: t.id }, 'open-task')}
                class={`g-node g-${t.status}${critical ? ' g-critical' : ''}`}
                data-task={t.id}
              >
                <title>{words}</title>
                <rect x={x} y={y} width={NODE_W} height={NODE_H} rx="6" />
                <text x={r1(x + 8)} y={r1(y + 18)} class="g-head">
                  {`${critical ? '★ ' : ''}${t.id} · ${STATUS_WORDS[t.status]}${t.assignee ? ` · ${t.assignee}` : ''}`}
                </text>
                <text x={r1(x + 8)} y={r1(y + 37)}>
                  {cut(t.title, TITLE_CHARS)}
                </text>
              </a>
            )
          })}
        </svg>
      </div>
    </>
  )
}

function Swatch(props: { class: string }) {
  return (
    <svg class={`swatch ${props.class}`} width="18" height="12" viewBox="0 0 18 12" aria-hidden="true">
      <rect x="1" y="1" width="16" height="10" rx="2" />
    </svg>
  )
}

/** Width of a strip, for ACTIVITY_HOURS; 5-minute columns of posts. */
const STRIP_W = 240
const STRIP_H = 30
const BUCKET_MS = 5 * 60_000

/** One strip per agent: its posts per 5 minutes as bars, tasks taken ▲, tasks done ●, when last seen. */
export function ActivityStrips(props: {
  activity: Activity
  /** Each agent's events within the span (ms, newest first), among the latest NEEDS_EVENTS. */
  posts: Map<string, number[]>
  view: RoomView
}) {
  const a = props.activity
  const all = props.posts
  // Drawn as of the minute: two renderings within one minute are the same (one version, patch.ts).
  const span = Date.parse(a.now) - Date.parse(a.since)
  const from = Math.floor(Date.parse(a.now) / 60_000) * 60_000 - span
  const seen = new Map<string, string>()
  for (const x of [...props.view.presence.online, ...props.view.presence.offline]) seen.set(x.agent_id, x.last_seen_at)
  // The agents the page lists, then any other author within the span (a person, an agent not listed).
  const agents = [...seen.keys()]
  for (const agent of all.keys()) if (!seen.has(agent)) agents.push(agent)
  const xOf = (ms: number) => r1(((ms - from) / span) * STRIP_W)
  const buckets = Math.ceil(span / BUCKET_MS)
  return (
    <section aria-labelledby="activity" data-part="activity">
      <h2 id="activity">
        Activity <span class="muted">(last {ACTIVITY_HOURS} h)</span>
      </h2>
      {agents.length === 0 ? (
        <p class="muted">No agent has been here yet.</p>
      ) : (
        <>
          <p class="small muted">
            Bars: events posted per 5 minutes; ▲ a task taken (in progress or in review, at its last change); ● a task
            done; the dashed line: last seen.
          </p>
          <ul class="plain strips">
            {agents.map((agent) => {
              const posts = all.get(agent) ?? []
              const held = a.held.filter((h) => h.agent === agent)
              const done = a.done.filter((d) => d.agent === agent)
              const count = new Array<number>(buckets).fill(0)
              for (const ms of posts) count[Math.min(buckets - 1, Math.max(0, Math.floor((ms - from) / BUCKET_MS)))]!++
              const max = Math.max(1, ...count)
              const last = seen.get(agent)
              const lastMs = last ? Date.parse(last) : undefined
              const summary =
                `${agent}: ${posts.length} ${posts.length === 1 ? 'event' : 'events'}, ` +
                `${held.length} ${held.length === 1 ? 'task' : 'tasks'} taken, ${done.length} done in the last ` +
                `${ACTIVITY_HOURS} h; ${last ? `last seen ${ago(last, a.now)}` : 'not seen'}`
              const marks: ComponentChildren[] = []
              count.forEach((n, i) => {
                if (n === 0) return
                const h = Math.max(2, Math.round((n / max) * 16))
                const w = STRIP_W / buckets
                marks.push(
                  <rect key={`b${i}`} class="s-post" x={r1(i * w + 0.5)} y={20 - h} width={r1(w - 1)} height={h} />,
                )
              })
              for (const t of held) {
                const x = Math.min(STRIP_W - 4, Math.max(4, xOf(t.ms)))
                marks.push(<path key={`h${t.id}`} class="s-held" d={`M${x},22 l4,7 h-8 z`} />)
              }
              for (const t of done)
                marks.push(
                  <circle
                    key={`d${t.id}`}
                    class="s-done"
                    cx={Math.min(STRIP_W - 4, Math.max(4, xOf(t.ms)))}
                    cy={26}
                    r={3.5}
                  />,
                )
              if (lastMs !== undefined && lastMs >= from)
                marks.push(<line key="seen" class="s-seen" x1={xOf(lastMs)} x2={xOf(lastMs)} y1={0} y2={STRIP_H} />)
              return (
                <li key={agent}>
                  <div class="strip-head">
                    <strong>{agent}</strong>{' '}
                    <span class="small muted">
                      {`${num(posts.length)} posted · ${num(held.length)} taken · ${num(done.length)} done · `}
                      {last ? (
                        <>
                          seen <Ago at={last} now={a.now} />
                        </>
                      ) : (
                        'not seen'
                      )}
                    </span>
                  </div>
                  <svg
                    class="strip"
                    viewBox={`0 0 ${STRIP_W} ${STRIP_H}`}
                    width={STRIP_W}
                    height={STRIP_H}
                    role="img"
                    aria-label={summary}
                  >
                    <line class="s-axis" x1={0} x2={STRIP_W} y1={20.5} y2={20.5} />
                    {marks}
                  </svg>
                </li>
              )
            })}
          </ul>
          <p class="small muted strip-scale" aria-hidden="true">
            <span>{ACTIVITY_HOURS} h ago</span>
            <span>now</span>
          </p>
          {[...all.values()].reduce((n, l) => n + l.length, 0) >= NEEDS_EVENTS ? (
            <p class="small muted">
              Counted from the latest {num(NEEDS_EVENTS)} events; earlier ones in the span are not.
            </p>
          ) : null}
        </>
      )}
    </section>
  )
}
