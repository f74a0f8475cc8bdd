// The room page's side panels: the task opened with ?task=<id> (every field, its notes, the form
// that edits it with the assignee picked from the room's agents, and the form that sets its
// dependencies from the room's tasks) and the context entry opened with ?ctx=<type>/<key> (its
// text, its versions, the diff of the selected version against the one before). Links and forms
// only, so they work without the page's script; beside the page on a wide screen (panels.css),
// in its flow on a narrow one. Both live in one part, `panel`, present (empty) when nothing is
// open, so the live script swaps it like any other.
import { PRIORITIES, TASK_STATUSES, type Task, type TaskStatus } from '../core/plan.js'
import type { PlanPicture } from '../core/plan-graph.js'
import type { ContextView, Here, OpenTask, RoomView } from './room.js'
import { Ago, Select, num, viaText } from './layout.js'
import { FieldError, FormError, fieldAttrs, keptOf, typed, type Kept } from './kept.js'
import { STATUS_TITLES } from './room-plan.js'

/** A task a dependency may be chosen from. */
export interface TaskChoice {
  id: string
  title: string
  status: TaskStatus
}

/**
 * What the task panel's pickers offer: the room's tasks the page read (the board's cards and the
 * open tasks of the graph, a bounded set; any other task is typed by id) and its known agents
 * (those present or seen lately, assignees of those tasks, the person).
 */
export interface PanelChoices {
  tasks: TaskChoice[]
  agents: string[]
}

const byNumber = (a: { id: string }, b: { id: string }) => Number(a.id.slice(1)) - Number(b.id.slice(1))

/** The choices from the page's reads (`graph` when read, `open` the task opened). */
export function panelChoices(
  view: RoomView,
  graph: PlanPicture | undefined,
  human: string,
  open: OpenTask | undefined,
): PanelChoices {
  const tasks = new Map<string, TaskChoice>()
  const agents = new Set<string>()
  const add = (t: Task) => {
    tasks.set(t.id, { id: t.id, title: t.title, status: t.status })
    if (t.assignee) agents.add(t.assignee)
  }
  for (const s of TASK_STATUSES) for (const c of view.columns[s].items) add(c.task)
  for (const t of graph?.tasks ?? []) add(t)
  if (open && 'task' in open) add(open.task)
  for (const a of [...view.presence.online, ...view.presence.offline]) agents.add(a.agent_id)
  agents.add(human)
  return { tasks: [...tasks.values()].sort(byNumber), agents: [...agents].sort() }
}

export function Panels(props: {
  here: Here
  task: OpenTask | undefined
  context: ContextView | undefined
  choices: PanelChoices
  kept: Kept | undefined
}) {
  const open = props.task !== undefined || props.context !== undefined
  return (
    <div data-part="panel" class={open ? 'side-panels open' : 'side-panels'}>
      {props.task ? <TaskPanel here={props.here} open={props.task} choices={props.choices} kept={props.kept} /> : null}
      {props.context ? <ContextPanel here={props.here} v={props.context} /> : null}
    </div>
  )
}

/** Task ids as links that open each task in the panel. */
function TaskLinks(props: { here: Here; ids: string[]; none: string }) {
  if (props.ids.length === 0) return <>{props.none}</>
  return (
    <>
      {props.ids.map((id, i) => (
        <>
          {i > 0 ? ', ' : null}
          <a href={props.here.href({ task: id }, 'open-task')}>{id}</a>
        </>
      ))}
    </>
  )
}

function TaskPanel(props: { here: Here; open: OpenTask; choices: PanelChoices; kept: Kept | undefined }) {
  const { here } = props
  if ('missing' in props.open) {
    return (
      <section class="panel side-panel" id="open-task" aria-label={`Task ${props.open.missing}`}>
        <p class="error" role="alert">
          {`Task ${props.open.missing} does not exist in this room (it may have been deleted).`}
        </p>
        <a href={here.href({ task: undefined }, 'plan')}>Close</a>
      </section>
    )
  }
  const { task: t, blocked_by } = props.open
  return (
    <section class="panel side-panel" id="open-task" aria-labelledby="open-task-h">
      <div class="panel-head">
        <h2 id="open-task-h">
          <span class="muted">{t.id}</span> {t.title}
        </h2>
        <a class="close" href={here.href({ task: undefined }, `task-${t.id}`)}>{`Close ${t.id}`}</a>
      </div>
      <dl class="facts small">
        <dt>Status</dt>
        <dd>{STATUS_TITLES[t.status]}</dd>
        <dt>Assignee</dt>
        <dd>
          {t.assignee ?? 'nobody'}
          {t.assignee && t.claimed_via ? ` (claimed ${viaText(t.claimed_via)})` : ''}
        </dd>
        <dt>Priority</dt>
        <dd>{t.priority}</dd>
        <dt>Depends on</dt>
        <dd>
          <TaskLinks here={here} ids={t.depends_on} none="nothing" />
        </dd>
        {blocked_by.length > 0 ? (
          <>
            <dt>Blocked by</dt>
            <dd>
              <TaskLinks here={here} ids={blocked_by} none="" />
            </dd>
          </>
        ) : null}
        <dt>Created</dt>
        <dd>
          <Ago at={t.created_at} />
          {t.created_by ? ` by ${t.created_by}` : ''}
          {t.created_via ? ` ${viaText(t.created_via)}` : ''}
        </dd>
        <dt>Updated</dt>
        <dd>
          <Ago at={t.updated_at} />
          {t.updated_by ? ` by ${t.updated_by}` : ''}
          {t.updated_via ? ` ${viaText(t.updated_via)}` : ''}
        </dd>
      </dl>
      {t.notes ? (
        <pre class="body" tabIndex={0} aria-label={`Notes of ${t.id}`}>
          {t.notes}
        </pre>
      ) : (
        <p class="muted small">No notes.</p>
      )}
      <EditTask roomId={here.roomId} task={t} agents={props.choices.agents} kept={keptOf(props.kept, `task:${t.id}`)} />
      <Dependencies
        roomId={here.roomId}
        task={t}
        tasks={props.choices.tasks}
        kept={keptOf(props.kept, `deps:${t.id}`)}
      />
    </section>
  )
}

/** The task's edit form: title, status, assignee (one of the room's agents, or nobody), priority, notes. */
function EditTask(props: { roomId: string; task: Task; agents: string[]; kept: Kept | undefined }) {
  const t = props.task
  const kept = props.kept
  const assignee = typed(kept, 'assignee', t.assignee ?? '')
  // The current and the typed assignee stay choosable even when not among the known agents.
  const agents = [...new Set([...props.agents, ...(t.assignee ? [t.assignee] : []), ...(assignee ? [assignee] : [])])]
  return (
    <form class="stack" method="post" action="/room/tasks" aria-labelledby="edit-task-h">
      <h3 id="edit-task-h">{`Edit ${t.id}`}</h3>
      <FormError kept={kept} fields={['title', 'status', 'assignee', 'priority', 'notes']} />
      <input type="hidden" name="room" value={props.roomId} />
      <input type="hidden" name="task_id" value={t.id} />
      <label>
        Title
        <input
          type="text"
          name="title"
          value={typed(kept, 'title', t.title)}
          maxLength={200}
          {...fieldAttrs(kept, 'title', 'edit-title')}
        />
      </label>
      <FieldError kept={kept} name="title" id="edit-title" />
      <label>
        Status
        <select name="status" {...fieldAttrs(kept, 'status', 'edit-status')}>
          {TASK_STATUSES.map((s) => (
            <option key={s} value={s} selected={s === typed(kept, 'status', t.status)}>
              {STATUS_TITLES[s]}
            </option>
          ))}
        </select>
      </label>
      <FieldError kept={kept} name="status" id="edit-status" />
      <label>
        Assignee
        <select name="assignee" {...fieldAttrs(kept, 'assignee', 'edit-assignee')}>
          <option value="" selected={assignee === ''}>
            unassigned
          </option>
          {agents.map((a) => (
            <option key={a} value={a} selected={a === assignee}>
              {a}
            </option>
          ))}
        </select>
      </label>
      <FieldError kept={kept} name="assignee" id="edit-assignee" />
      <label>
        Priority
        <Select name="priority" options={PRIORITIES} value={typed(kept, 'priority', t.priority)} />
      </label>
      <label>
        Notes
        <textarea name="notes" rows={5} {...fieldAttrs(kept, 'notes', 'edit-notes')}>
          {typed(kept, 'notes', t.notes ?? '')}
        </textarea>
      </label>
      <FieldError kept={kept} name="notes" id="edit-notes" />
      <label class="check">
        <input type="checkbox" name="force" value="1" checked={kept?.values.get('force') === '1'} />
        Even if another agent holds it or it is blocked
      </label>
      <button type="submit">{`Save ${t.id}`}</button>
    </form>
  )
}

/**
 * The dependencies form: a box per current dependency (untick to remove), a task of the room to
 * add, or ids typed for tasks the picker does not list; saved as one set (setDependencies), so a
 * refusal changes nothing and comes back with the boxes, the choice and the typed ids as sent.
 */
function Dependencies(props: { roomId: string; task: Task; tasks: TaskChoice[]; kept: Kept | undefined }) {
  const t = props.task
  const kept = props.kept
  const current = new Set(t.depends_on)
  const sent = kept ? new Set(kept.values.getAll('depends_on')) : undefined
  // The picker's choice as sent: the one sent id that has no box.
  const picked = kept ? (kept.values.getAll('depends_on').find((d) => d !== '' && !current.has(d)) ?? '') : ''
  const titles = new Map(props.tasks.map((c) => [c.id, c]))
  const addable = props.tasks.filter((c) => c.id !== t.id && !current.has(c.id))
  // Every refusal of this form is about the set it sends: its message sits at the pickers.
  const err = kept !== undefined
  const described = err ? { 'aria-invalid': true, 'aria-describedby': 'edit-deps-error' } : {}
  return (
    <form class="stack" method="post" action="/room/tasks/dependencies" aria-labelledby="edit-deps-h">
      <h3 id="edit-deps-h">{`Dependencies of ${t.id}`}</h3>
      <input type="hidden" name="room" value={props.roomId} />
      <input type="hidden" name="task_id" value={t.id} />
      {t.depends_on.length > 0 ? (
        <fieldset>
          <legend>{`${t.id} waits for (untick to remove)`}</legend>
          {t.depends_on.map((d) => {
            const c = titles.get(d)
            return (
              <label class="check" key={d}>
                <input type="checkbox" name="depends_on" value={d} checked={sent ? sent.has(d) : true} />
                {d}
                {c ? ` ${c.title} (${STATUS_TITLES[c.status].toLowerCase()})` : ''}
              </label>
            )
          })}
        </fieldset>
      ) : (
        <p class="small muted">{`${t.id} waits for nothing.`}</p>
      )}
      <label>
        Add a dependency
        <select name="depends_on" {...described} autoFocus={err || undefined}>
          <option value="" selected={picked === ''}>
            (none)
          </option>
          {TASK_STATUSES.map((s) => {
            const group = addable.filter((c) => c.status === s)
            if (group.length === 0) return null
            return (
              <optgroup key={s} label={STATUS_TITLES[s]}>
                {group.map((c) => (
                  <option key={c.id} value={c.id} selected={c.id === picked}>
                    {`${c.id} ${c.title}`}
                  </option>
                ))}
              </optgroup>
            )
          })}
          {picked !== '' && !titles.has(picked) ? (
            <option value={picked} selected>
              {picked}
            </option>
          ) : null}
        </select>
      </label>
      <label>
        Or task ids not listed, separated by commas (e.g. t41, t57)
        <input type="text" name="more" value={typed(kept, 'more')} maxLength={400} {...described} />
      </label>
      {err ? (
        <p class="error field" id="edit-deps-error" role="alert">
          {kept.message}
        </p>
      ) : null}
      <button type="submit">{`Save dependencies of ${t.id}`}</button>
    </form>
  )
}

/** The opened context entry: its text, its versions (each selectable), the selected one's diff. */
function ContextPanel(props: { here: Here; v: ContextView }) {
  const { here, v } = props
  const ref = `${v.type}/${v.key}`
  const select = (version: number) => here.href({ ctx: ref, from: version - 1, to: version }, 'open-context')
  const kept = new Set(v.versions.map((h) => h.version))
  return (
    <section class="panel side-panel" id="open-context" aria-labelledby="open-context-h">
      <div class="panel-head">
        <h2 id="open-context-h">
          {ref} <span class="muted">v{v.version}</span>
        </h2>
        <a class="close" href={here.href({ ctx: undefined, from: undefined, to: undefined }, 'context')}>
          {`Close ${ref}`}
        </a>
      </div>
      <pre class="body" tabIndex={0} aria-label={`Body of ${ref}`}>
        {v.body}
      </pre>
      <p class="small">
        <a href={here.href({}, 'context-write')}>{`Write a new version of ${ref}`}</a>
      </p>
      <h3>Versions</h3>
      <ul class="plain versions">
        {v.versions.map((h) => {
          const selected = v.diff?.to === h.version && v.diff.from === h.version - 1
          // A version's diff needs the one before it kept (or none before: version 1).
          const diffable = h.version === 1 || kept.has(h.version - 1)
          const label = `v${h.version}`
          return (
            <li key={h.version} class={selected ? 'selected' : undefined}>
              {selected ? (
                <strong aria-current="true">{label}</strong>
              ) : diffable ? (
                <a href={select(h.version)} aria-label={`Show the changes of v${h.version}`}>
                  {label}
                </a>
              ) : (
                <span>{label}</span>
              )}{' '}
              · <Ago at={h.updated_at} /> {h.updated_by ? `by ${h.updated_by}` : ''}
              {h.via ? ` ${viaText(h.via)}` : ''} · {num(h.size)} bytes
            </li>
          )
        })}
      </ul>
      {v.diffMissing ? <p class="small muted">{v.diffMissing}</p> : null}
      {v.diff ? (
        <>
          <h3>
            {v.diff.from === 0 ? `v${v.diff.to}, the first version` : `Changes v${v.diff.from} → v${v.diff.to}`}{' '}
            <span class="muted">
              (+{v.diff.added} −{v.diff.removed} lines)
            </span>
          </h3>
          <pre class="diff" tabIndex={0} aria-label={`Diff of ${ref} from v${v.diff.from} to v${v.diff.to}`}>
            {v.diff.patch.split('\n').map((line, i) => (
              <span
                key={i}
                class={
                  line.startsWith('+') && !line.startsWith('+++')
                    ? 'add'
                    : line.startsWith('-') && !line.startsWith('---')
                      ? 'del'
                      : undefined
                }
              >
                {line + '\n'}
              </span>
            ))}
          </pre>
        </>
      ) : null}
    </section>
  )
}
