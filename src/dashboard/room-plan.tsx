// The room page's plan: the board by status, each column a page of cards with its exact count
// (assignee, priority, depends on, blocked by, blocks), each opening its task in the side panel
// (room-panels.tsx), and the form that adds a task.
import { PRIORITIES, TASK_STATUSES, type TaskStatus } from '../core/plan.js'
import type { Card } from '../core/room-page.js'
import type { Here, RoomView } from './room.js'
import { Pager, Select, num } from './layout.js'
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

export function Plan(props: { view: RoomView; here: Here; size: number; kept?: Kept | undefined }) {
  const { view, here } = props
  const kept = keptOf(props.kept, 'task')
  const total = TASK_STATUSES.reduce((n, s) => n + view.columns[s].total, 0)
  return (
    <section aria-labelledby="plan" data-part="plan">
      <h2 id="plan">
        Plan <span class="muted">({num(total)} tasks)</span>
      </h2>
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
