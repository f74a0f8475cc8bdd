// The room page's plan: the board by status, each column a page of cards with its exact count
// (assignee, priority, depends on, blocked by, blocks), the task opened with ?task=<id> (notes,
// every field, the edit form), and the form that adds a task.
import { PRIORITIES, TASK_STATUSES, type Task, type TaskStatus } from '../core/plan.js'
import type { Card } from '../core/room-page.js'
import type { Here, OpenTask, RoomView } from './room.js'
import { Pager, Select, num, utc, viaText } from './layout.js'
import { FieldError, FormError, fieldAttrs, keptOf, typed, type Kept } from './kept.js'

export const STATUS_TITLES: Record<TaskStatus, string> = {
  todo: 'To do',
  in_progress: 'In progress',
  in_review: 'In review',
  done: 'Done',
  cancelled: 'Cancelled',
}

/** Ids, then "and N more" when the list was cut. */
const idList = (ids: string[], total = ids.length) =>
  `${ids.join(', ')}${total > ids.length ? ` and ${num(total - ids.length)} more` : ''}`

export function Plan(props: {
  view: RoomView
  here: Here
  size: number
  open: OpenTask | undefined
  kept?: Kept | undefined
}) {
  const { view, here } = props
  const kept = keptOf(props.kept, 'task')
  const total = TASK_STATUSES.reduce((n, s) => n + view.columns[s].total, 0)
  return (
    <section aria-labelledby="plan" data-part="plan">
      <h2 id="plan">
        Plan <span class="muted">({num(total)} tasks)</span>
      </h2>
      {props.open ? <TaskPanel here={here} open={props.open} kept={props.kept} /> : null}
      {total === 0 ? <p class="muted">No tasks yet. Agents add them with add_task; you can add one below.</p> : null}
      <div class="board">
        {TASK_STATUSES.map((status) => {
          const col = view.columns[status]
          const title = STATUS_TITLES[status]
          return (
            <div class="column" key={status} id={`col-${status}`} role="region" aria-label={`${title}: ${col.total}`}>
              <h3>
                {title} <span class="muted">({num(col.total)})</span>
              </h3>
              {col.items.map((c) => (
                <TaskCard key={c.task.id} card={c} here={here} />
              ))}
              <Pager
                label={title}
                from={col.from}
                shown={col.items.length}
                total={col.total}
                size={props.size}
                href={(from) => here.href({ [`${status}_from`]: from || undefined }, `col-${status}`)}
              />
            </div>
          )
        })}
      </div>
      <details open={kept !== undefined}>
        <summary>Add a task</summary>
        <form class="stack" method="post" action="/room/tasks">
          <FormError kept={kept} fields={['title', 'priority', 'depends_on', 'notes']} />
          <input type="hidden" name="room" value={here.roomId} />
          <label>
            Title
            <input
              type="text"
              name="title"
              required
              maxLength={200}
              value={typed(kept, 'title')}
              {...fieldAttrs(kept, 'title', 'new-title')}
            />
          </label>
          <FieldError kept={kept} name="title" id="new-title" />
          <label>
            Priority
            <Select name="priority" options={PRIORITIES} value={typed(kept, 'priority', 'normal')} />
          </label>
          <label>
            Depends on (task ids, separated by commas, e.g. t1, t2)
            <input
              type="text"
              name="depends_on"
              value={typed(kept, 'depends_on')}
              {...fieldAttrs(kept, 'depends_on', 'new-deps')}
            />
          </label>
          <FieldError kept={kept} name="depends_on" id="new-deps" />
          <label>
            Notes (optional)
            <textarea name="notes" {...fieldAttrs(kept, 'notes', 'new-notes')}>
              {typed(kept, 'notes')}
            </textarea>
          </label>
          <FieldError kept={kept} name="notes" id="new-notes" />
          <button type="submit">Add task</button>
        </form>
      </details>
    </section>
  )
}

function TaskCard(props: { card: Card; here: Here }) {
  const { task: t, blocked_by, blocks, blocks_total } = props.card
  return (
    <article class="card" id={`task-${t.id}`}>
      <a class="title" href={props.here.href({ task: t.id }, 'open-task')}>
        <span class="muted">{t.id}</span> {t.title}
      </a>
      <div class="small">
        <span class={`tag ${t.priority}`}>{t.priority}</span>{' '}
        {t.assignee ? <span>assignee {t.assignee}</span> : <span class="muted">unassigned</span>}
      </div>
      {t.depends_on.length > 0 ? <div class="small">depends on {idList(t.depends_on)}</div> : null}
      {blocked_by.length > 0 ? <div class="small tag blocked">blocked by {idList(blocked_by)}</div> : null}
      {blocks_total > 0 ? <div class="small muted">blocks {idList(blocks, blocks_total)}</div> : null}
    </article>
  )
}

/** The opened task: every field, its notes, and the form that edits it. */
function TaskPanel(props: { here: Here; open: OpenTask; kept: Kept | undefined }) {
  const close = props.here.href({ task: undefined }, 'plan')
  if ('missing' in props.open) {
    return (
      <div class="panel" id="open-task">
        <p
          class="error"
          role="alert"
        >{`Task ${props.open.missing} does not exist in this room (it may have been deleted).`}</p>
        <a href={close}>Close</a>
      </div>
    )
  }
  const { task: t, blocked_by } = props.open
  return (
    <section class="panel" id="open-task" aria-labelledby="open-task-h">
      <h3 id="open-task-h">
        <span class="muted">{t.id}</span> {t.title}
      </h3>
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
        <dd>{t.depends_on.length > 0 ? t.depends_on.join(', ') : 'nothing'}</dd>
        {blocked_by.length > 0 ? (
          <>
            <dt>Blocked by</dt>
            <dd>{blocked_by.join(', ')}</dd>
          </>
        ) : null}
        <dt>Created</dt>
        <dd>
          {utc(t.created_at)}
          {t.created_by ? ` by ${t.created_by}` : ''}
          {t.created_via ? ` ${viaText(t.created_via)}` : ''}
        </dd>
        <dt>Updated</dt>
        <dd>
          {utc(t.updated_at)}
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
      <EditTask roomId={props.here.roomId} task={t} kept={keptOf(props.kept, `task:${t.id}`)} />
      <p>
        <a href={close}>{`Close ${t.id}`}</a>
      </p>
    </section>
  )
}

function EditTask(props: { roomId: string; task: Task; kept: Kept | undefined }) {
  const t = props.task
  const kept = props.kept
  const fields = ['title', 'status', 'assignee', 'priority', 'notes']
  return (
    <details class="small" open={kept !== undefined}>
      <summary>{`Edit ${t.id}`}</summary>
      <form class="stack" method="post" action="/room/tasks">
        <FormError kept={kept} fields={fields} />
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
          <Select
            name="status"
            options={TASK_STATUSES.map((s) => [s, STATUS_TITLES[s]] as const)}
            value={typed(kept, 'status', t.status)}
          />
        </label>
        <FieldError kept={kept} name="status" id="edit-status" />
        <label>
          Assignee (an agent id; empty: nobody)
          <input
            type="text"
            name="assignee"
            value={typed(kept, 'assignee', t.assignee ?? '')}
            maxLength={128}
            {...fieldAttrs(kept, 'assignee', 'edit-assignee')}
          />
        </label>
        <FieldError kept={kept} name="assignee" id="edit-assignee" />
        <label>
          Priority
          <Select name="priority" options={PRIORITIES} value={typed(kept, 'priority', t.priority)} />
        </label>
        <label>
          Notes
          <textarea name="notes" {...fieldAttrs(kept, 'notes', 'edit-notes')}>
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
    </details>
  )
}
