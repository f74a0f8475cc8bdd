// The room page: the plan as a board by status, context with a viewer, history and diff, the
// event feed with replies threaded and who has read what, presence, locks, vars, reviews,
// analytics with a small server-rendered chart, and search. Rendered on the server from one
// snapshot; every value is escaped by preact-render-to-string (room content is agents' text).
import type { ContextVersion } from '../core/context.js'
import type { RoomEvent } from '../core/events.js'
import type { Task } from '../core/plan.js'
import type { Snapshot } from '../core/snapshot.js'
import type { SearchAnswer } from '../search/engine.js'
import { roomHref } from './rooms.js'
import { Flash, Layout, type Viewer } from './views.js'

export type RoomSnapshot = Awaited<ReturnType<Snapshot['room']>>

export interface RoomStats {
  completion_rate: number | null
  online_count: number
  events_per_day: { date: string; events: number; tasks_done: number }[]
}

export interface ContextView {
  type: string
  key: string
  body: string
  version: number
  versions: ContextVersion[]
  diff?: { from: number; to: number; patch: string; added: number; removed: number }
}

export interface RoomPageProps {
  viewer: Viewer
  /** The agent id the signed-in person acts as (human:<name>). */
  human: string
  snap: RoomSnapshot
  stats: RoomStats
  context?: ContextView
  search?: { query: string; answer?: SearchAnswer; error?: string }
  /** The task whose edit form is open (?edit=t7): one form, not one per card (a room has up to 2,000 tasks). */
  edit?: string
  notice?: string
  error?: string
}

const STATUSES = [
  ['todo', 'To do'],
  ['in_progress', 'In progress'],
  ['in_review', 'In review'],
  ['done', 'Done'],
  ['cancelled', 'Cancelled'],
] as const

const when = (iso: string) => `${iso.replace('T', ' ').slice(0, 19)} UTC`

/** Stream ids compare as (ms, seq) pairs. */
export function eventAtOrBefore(a: string, b: string): boolean {
  const [am, as] = a.split('-').map(Number) as [number, number]
  const [bm, bs] = b.split('-').map(Number) as [number, number]
  return am < bm || (am === bm && as <= bs)
}

export function RoomPage(p: RoomPageProps) {
  const { snap } = p
  const roomId = snap.room.room_id
  return (
    <Layout title={snap.room.name} viewer={p.viewer} wide script>
      <p class="small">
        <a href="/">Rooms</a> / <span>{roomId}</span>
      </p>
      <h1>{snap.room.name}</h1>
      <p class="live small" id="live-status" data-state="static" role="status" aria-live="polite">
        Updates when you reload the page.
      </p>
      <div data-live={`/live?id=${encodeURIComponent(roomId)}`} data-last-event={snap.events.at(-1)?.id ?? ''} hidden />
      <p class="muted" data-part="head">
        {snap.room.template} template · last activity <time datetime={snap.room.last_active_at}>{when(snap.room.last_active_at)}</time> · {snap.counts.events} events posted
      </p>
      <Flash notice={p.notice} error={p.error} />
      <nav aria-label="Sections of the room" class="small">
        <a href="#plan">Plan</a> · <a href="#context">Context</a> · <a href="#events">Events</a> · <a href="#agents">Agents</a> · <a href="#locks">Locks and vars</a> ·{' '}
        <a href="#reviews">Reviews</a> · <a href="#analytics">Analytics</a>
      </nav>
      <SearchBox roomId={roomId} search={p.search} />
      <p class="small muted">
        Your changes here are made as <code>{p.human}</code> and recorded in the team's audit trail.
      </p>
      <Board roomId={roomId} tasks={snap.tasks} edit={p.edit} />
      <ContextSection roomId={roomId} snap={snap} view={p.context} />
      <Feed roomId={roomId} events={snap.events} reads={snap.reads} />
      <Agents snap={snap} />
      <LocksAndVars snap={snap} />
      <Reviews roomId={roomId} snap={snap} />
      <Analytics snap={snap} stats={p.stats} />
    </Layout>
  )
}

function SearchBox(props: { roomId: string; search: RoomPageProps['search'] }) {
  const s = props.search
  return (
    <section aria-labelledby="search-h">
      <h2 id="search-h">Search this room</h2>
      <form class="search" method="get" action="/room">
        <input type="hidden" name="id" value={props.roomId} />
        <label>
          Words to find in tasks, context and events
          <input type="text" name="q" value={s?.query ?? ''} maxLength={500} />
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
          <ol class="feed" aria-label="Search results">
            {s.answer.results.map((h) => (
              <li key={h.ref}>
                <strong>{h.ref}</strong> {h.title ? <span>{h.title}</span> : null}
                <p class="event-text">{h.snippet.replaceAll('**', '')}</p>
              </li>
            ))}
          </ol>
        )
      ) : null}
    </section>
  )
}

/** Tasks that are not done or cancelled, among the ids given. */
function openOf(ids: string[], byId: Map<string, Task>): string[] {
  return ids.filter((id) => {
    const t = byId.get(id)
    return t !== undefined && t.status !== 'done' && t.status !== 'cancelled'
  })
}

function Board(props: { roomId: string; tasks: Task[]; edit?: string | undefined }) {
  const byId = new Map(props.tasks.map((t) => [t.id, t]))
  const blocks = new Map<string, string[]>()
  for (const t of props.tasks) for (const d of t.depends_on) blocks.set(d, [...(blocks.get(d) ?? []), t.id])
  return (
    <section aria-labelledby="plan" data-part="plan">
      <h2 id="plan">Plan</h2>
      {props.tasks.length === 0 ? <p class="muted">No tasks yet. Agents add them with add_task; you can add one below.</p> : null}
      <div class="board">
        {STATUSES.map(([status, title]) => {
          const tasks = props.tasks.filter((t) => t.status === status)
          return (
            <div class="column" key={status} role="region" aria-label={`${title}: ${tasks.length}`}>
              <h3>
                {title} <span class="muted">({tasks.length})</span>
              </h3>
              {tasks.map((t) => {
                const blockedBy = status === 'todo' ? openOf(t.depends_on, byId) : []
                return (
                  <article class="card" key={t.id} id={`task-${t.id}`}>
                    <div class="title">
                      <span class="muted">{t.id}</span> {t.title}
                    </div>
                    <div class="small">
                      <span class={`tag ${t.priority}`}>{t.priority}</span> {t.assignee ? <span>assignee {t.assignee}</span> : <span class="muted">unassigned</span>}
                    </div>
                    {t.depends_on.length > 0 ? <div class="small">depends on {t.depends_on.join(', ')}</div> : null}
                    {blockedBy.length > 0 ? <div class="small tag blocked">blocked by {blockedBy.join(', ')}</div> : null}
                    {blocks.has(t.id) ? <div class="small muted">blocks {blocks.get(t.id)!.join(', ')}</div> : null}
                    {props.edit === t.id ? (
                      <EditTask roomId={props.roomId} task={t} />
                    ) : (
                      <a class="small" href={`${roomHref(props.roomId)}&edit=${t.id}#task-${t.id}`}>{`Edit ${t.id}`}</a>
                    )}
                  </article>
                )
              })}
            </div>
          )
        })}
      </div>
      <details>
        <summary>Add a task</summary>
        <form class="stack" method="post" action="/room/tasks">
          <input type="hidden" name="room" value={props.roomId} />
          <label>
            Title
            <input type="text" name="title" required maxLength={200} />
          </label>
          <label>
            Priority
            <PrioritySelect value="normal" />
          </label>
          <label>
            Depends on (task ids, separated by commas, e.g. t1, t2)
            <input type="text" name="depends_on" />
          </label>
          <label>
            Notes (optional)
            <textarea name="notes" />
          </label>
          <button type="submit">Add task</button>
        </form>
      </details>
    </section>
  )
}

function PrioritySelect(props: { value: string }) {
  return (
    <select name="priority">
      {['urgent', 'high', 'normal', 'low'].map((p) => (
        <option key={p} value={p} selected={p === props.value}>
          {p}
        </option>
      ))}
    </select>
  )
}

function EditTask(props: { roomId: string; task: Task }) {
  const t = props.task
  return (
    <details class="small" open>
      <summary>{`Edit ${t.id}`}</summary>
      <form class="stack" method="post" action="/room/tasks">
        <input type="hidden" name="room" value={props.roomId} />
        <input type="hidden" name="task_id" value={t.id} />
        <label>
          Title
          <input type="text" name="title" value={t.title} maxLength={200} />
        </label>
        <label>
          Status
          <select name="status">
            {STATUSES.map(([s, title]) => (
              <option key={s} value={s} selected={s === t.status}>
                {title}
              </option>
            ))}
          </select>
        </label>
        <label>
          Assignee (an agent id; empty: nobody)
          <input type="text" name="assignee" value={t.assignee ?? ''} maxLength={128} />
        </label>
        <label>
          Priority
          <PrioritySelect value={t.priority} />
        </label>
        <label class="check">
          <input type="checkbox" name="force" value="1" />
          Even if another agent holds it or it is blocked
        </label>
        <button type="submit">{`Save ${t.id}`}</button>
      </form>
    </details>
  )
}

function ctxHref(roomId: string, type: string, key: string, extra = ''): string {
  return `${roomHref(roomId)}&ctx=${encodeURIComponent(`${type}/${key}`)}${extra}#context`
}

function ContextSection(props: { roomId: string; snap: RoomSnapshot; view: ContextView | undefined }) {
  const v = props.view
  return (
    <section aria-labelledby="context" data-part="context">
      <h2 id="context">Context</h2>
      {props.snap.context.length === 0 ? (
        <p class="muted">No context entries yet.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Entry</th>
                <th scope="col">Version</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {props.snap.context.map((c) => (
                <tr key={`${c.type}/${c.key}`}>
                  <td>
                    <a href={ctxHref(props.roomId, c.type, c.key)}>{`${c.type}/${c.key}`}</a>
                  </td>
                  <td>v{c.version}</td>
                  <td>
                    {when(c.updated_at)} {c.updated_by ? `by ${c.updated_by}` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {v ? (
        <div aria-label={`Context entry ${v.type}/${v.key}`}>
          <h3>
            {v.type}/{v.key} <span class="muted">v{v.version}</span>
          </h3>
          <pre class="body" tabIndex={0} aria-label={`Body of ${v.type}/${v.key}`}>
            {v.body}
          </pre>
          <h4>Versions</h4>
          <ul class="plain">
            {v.versions.map((h) => (
              <li key={h.version}>
                v{h.version} · {when(h.updated_at)} {h.updated_by ? `by ${h.updated_by}` : ''} · {h.size} bytes{' '}
                {h.version > 1 ? <a href={ctxHref(props.roomId, v.type, v.key, `&from=${h.version - 1}&to=${h.version}`)}>{`diff v${h.version - 1} → v${h.version}`}</a> : null}
              </li>
            ))}
          </ul>
          {v.diff ? (
            <>
              <h4>
                Diff v{v.diff.from} → v{v.diff.to} <span class="muted">(+{v.diff.added} −{v.diff.removed} lines)</span>
              </h4>
              <pre class="diff">
                {v.diff.patch.split('\n').map((line, i) => (
                  <span key={i} class={line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : undefined}>
                    {line + '\n'}
                  </span>
                ))}
              </pre>
            </>
          ) : null}
        </div>
      ) : null}
      <details open={v !== undefined}>
        <summary>{v ? `Write a new version of ${v.type}/${v.key}` : 'Write a context entry'}</summary>
        <form class="stack" method="post" action="/room/context">
          <input type="hidden" name="room" value={props.roomId} />
          <label>
            Type (lowercase, e.g. spec, decision)
            <input type="text" name="type" required value={v?.type ?? ''} maxLength={32} />
          </label>
          <label>
            Key
            <input type="text" name="key" required value={v?.key ?? ''} maxLength={200} />
          </label>
          <label>
            Body
            <textarea name="body" rows={8}>
              {v?.body ?? ''}
            </textarea>
          </label>
          <button type="submit">Save context entry</button>
        </form>
      </details>
    </section>
  )
}

const EVENT_TYPES = ['message', 'question', 'answer', 'status', 'blocker']

function TypeSelect(props: { value: string }) {
  return (
    <select name="type">
      {EVENT_TYPES.map((t) => (
        <option key={t} value={t} selected={t === props.value}>
          {t}
        </option>
      ))}
    </select>
  )
}

function Feed(props: { roomId: string; events: RoomEvent[]; reads: RoomSnapshot['reads'] }) {
  const ids = new Set(props.events.map((e) => e.id))
  const replies = new Map<string, RoomEvent[]>()
  for (const e of props.events) if (e.reply_to && ids.has(e.reply_to)) replies.set(e.reply_to, [...(replies.get(e.reply_to) ?? []), e])
  const roots = props.events.filter((e) => !e.reply_to || !ids.has(e.reply_to)).reverse()
  const readers = (id: string) => props.reads.filter((r) => eventAtOrBefore(id, r.last_read_event_id)).map((r) => r.agent_id)
  const Item = (q: { e: RoomEvent }): preact.JSX.Element => {
    const by = readers(q.e.id)
    const kids = replies.get(q.e.id) ?? []
    return (
      <li id={`event-${q.e.id}`} data-event={q.e.id}>
        <div class="small">
          <strong>{q.e.agent_id}</strong> <span class="tag">{q.e.type}</span> <time datetime={q.e.created_at}>{when(q.e.created_at)}</time>
          {q.e.reply_to && !ids.has(q.e.reply_to) ? <span class="muted"> · reply to {q.e.reply_to}</span> : null}
        </div>
        <p class="event-text">{q.e.text}</p>
        <div class="small muted">{by.length > 0 ? `read by ${by.join(', ')}` : 'not read yet'}</div>
        <details class="small">
          <summary>{`Reply to ${q.e.agent_id}`}</summary>
          <form class="stack" method="post" action="/room/events">
            <input type="hidden" name="room" value={props.roomId} />
            <input type="hidden" name="reply_to" value={q.e.id} />
            <input type="hidden" name="type" value={q.e.type === 'question' ? 'answer' : 'message'} />
            <label>
              {`Your reply to ${q.e.id}`}
              <textarea name="text" required />
            </label>
            <button type="submit">Send reply</button>
          </form>
        </details>
        {kids.length > 0 ? (
          <ol class="feed" aria-label={`Replies to ${q.e.id}`}>
            {kids.map((k) => (
              <Item key={k.id} e={k} />
            ))}
          </ol>
        ) : null}
      </li>
    )
  }
  return (
    <section aria-labelledby="events" data-part="events">
      <h2 id="events">Events</h2>
      <form class="stack" method="post" action="/room/events">
        <input type="hidden" name="room" value={props.roomId} />
        <label>
          Type
          <TypeSelect value="message" />
        </label>
        <label>
          Post to the room
          <textarea name="text" required />
        </label>
        <button type="submit">Post</button>
      </form>
      {roots.length === 0 ? (
        <p class="muted">No events yet.</p>
      ) : (
        <ol class="feed" id="feed" aria-label="Latest events, newest first">
          {roots.map((e) => (
            <Item key={e.id} e={e} />
          ))}
        </ol>
      )}
    </section>
  )
}

function Agents(props: { snap: RoomSnapshot }) {
  const { online, offline } = props.snap.presence
  return (
    <section aria-labelledby="agents" data-part="agents">
      <h2 id="agents">Agents</h2>
      {online.length + offline.length === 0 ? (
        <p class="muted">No agent has been here yet.</p>
      ) : (
        <ul class="plain">
          {online.map((a) => (
            <li key={a.agent_id}>
              <strong>{a.agent_id}</strong> — online, last seen {when(a.last_seen_at)}
            </li>
          ))}
          {offline.map((a) => (
            <li key={a.agent_id}>
              {a.agent_id} — <span class="muted">offline, last seen {when(a.last_seen_at)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

function LocksAndVars(props: { snap: RoomSnapshot }) {
  const { locks, vars } = props.snap
  return (
    <section aria-labelledby="locks" class="grid2" data-part="locks">
      <div>
        <h2 id="locks">Locks</h2>
        {locks.length === 0 ? (
          <p class="muted">No locks held.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Lock</th>
                <th scope="col">Holder</th>
                <th scope="col">Time left</th>
              </tr>
            </thead>
            <tbody>
              {locks.map((l) => (
                <tr key={l.name}>
                  <td>{l.name}</td>
                  <td>{l.owner}</td>
                  <td>{l.expires_in_s} s</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <div>
        <h2 id="vars">Shared vars</h2>
        {vars.length === 0 ? (
          <p class="muted">No vars set.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Value</th>
                <th scope="col">By</th>
              </tr>
            </thead>
            <tbody>
              {vars.map((v) => (
                <tr key={v.name}>
                  <td>{v.name}</td>
                  <td>
                    <code>{v.value}</code>
                  </td>
                  <td>{v.updated_by ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </section>
  )
}

function Reviews(props: { roomId: string; snap: RoomSnapshot }) {
  const { reviews } = props.snap
  return (
    <section aria-labelledby="reviews" data-part="reviews">
      <h2 id="reviews">Reviews</h2>
      {reviews.length === 0 ? (
        <p class="muted">No reviews requested.</p>
      ) : (
        <ul class="plain">
          {reviews.map((r) => (
            <li key={r.id}>
              <strong>{r.id}</strong> {r.target.kind === 'task' ? `task ${r.target.task_id}` : `context ${r.target.type}/${r.target.key}`} — <span class="tag">{r.status}</span>, asked
              by {r.requested_by}
              {r.reviewer ? `, reviewer ${r.reviewer}` : ''}
              {r.note ? <p class="event-text">{r.note}</p> : null}
              {r.decided_by ? <p class="small muted">{`${r.status} by ${r.decided_by}${r.decision_note ? `: ${r.decision_note}` : ''}`}</p> : null}
              {r.status === 'pending' ? (
                <form class="stack" method="post" action="/room/reviews">
                  <input type="hidden" name="room" value={props.roomId} />
                  <input type="hidden" name="review_id" value={r.id} />
                  <label>
                    {`Note on ${r.id} (optional)`}
                    <input type="text" name="note" />
                  </label>
                  <div>
                    <button type="submit" name="decision" value="approve">{`Approve ${r.id}`}</button>{' '}
                    <button type="submit" class="secondary" name="decision" value="reject">{`Reject ${r.id}`}</button>
                  </div>
                </form>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

/** Events per day as bars, drawn on the server (no script, no image request). */
export function DayChart(props: { days: RoomStats['events_per_day'] }) {
  const W = 44
  const H = 80
  const max = Math.max(1, ...props.days.map((d) => d.events))
  const summary = props.days.map((d) => `${d.date}: ${d.events}`).join(', ')
  return (
    <svg class="chart" role="img" aria-label={`Events per day: ${summary}`} viewBox={`0 0 ${props.days.length * W} ${H + 28}`} width={props.days.length * W * 1.5}>
      {props.days.map((d, i) => {
        const h = Math.round((d.events / max) * H)
        return (
          <g key={d.date}>
            <rect x={i * W + 4} y={H - h + 12} width={W - 8} height={h} />
            <text x={i * W + W / 2} y={H - h + 9} text-anchor="middle">
              {d.events}
            </text>
            <text x={i * W + W / 2} y={H + 24} text-anchor="middle">
              {d.date.slice(5)}
            </text>
          </g>
        )
      })}
    </svg>
  )
}

function Analytics(props: { snap: RoomSnapshot; stats: RoomStats }) {
  const rate = props.stats.completion_rate
  return (
    <section aria-labelledby="analytics" data-part="analytics">
      <h2 id="analytics">Analytics</h2>
      <ul class="plain">
        <li>Completion: {rate === null ? 'nothing to complete yet' : `${Math.round(rate * 100)} %`}</li>
        <li>Online agents: {props.stats.online_count}</li>
      </ul>
      <h3>Events per day (UTC)</h3>
      <DayChart days={props.stats.events_per_day} />
    </section>
  )
}
