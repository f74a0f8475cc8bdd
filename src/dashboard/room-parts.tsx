// The room page's other parts: agents with last seen, reviews with their state and the forms that
// decide them, locks with holder and time left, shared vars, analytics with a chart drawn on the
// server, and the context entries (the one opened shows in the side panel, room-panels.tsx) with
// the form that writes one. Long lists come a page at a time (Pager), with exact counts.
import type { ContextView, Here, RoomView } from './room.js'
import { Ago, Pager, Table, TimeLeft, num } from './layout.js'
import { FieldError, FormError, KeptInput, fieldAttrs, keptOf, typed, type Kept } from './kept.js'

type Part = { view: RoomView; here: Here; size: number; kept?: Kept | undefined }

export function Agents(props: { view: RoomView; here: Here; kept?: Kept | undefined }) {
  const { online, offline, online_count, offline_count } = props.view.presence
  const kept = keptOf(props.kept, 'agents')
  return (
    <section aria-labelledby="agents" data-part="agents">
      <h2 id="agents">
        Agents <span class="muted">({num(online_count)} online)</span>
      </h2>
      {online_count + offline_count === 0 ? (
        <p class="muted">No agent has been here yet.</p>
      ) : (
        <ul class="plain agents">
          {online.map((a) => (
            <li key={a.agent_id}>
              <span class="dot on" aria-hidden="true" /> <strong>{a.agent_id}</strong>{' '}
              <span class="small">
                online, last seen <Ago at={a.last_seen_at} now={props.view.generated_at} />
              </span>
            </li>
          ))}
          {offline.map((a) => (
            <li key={a.agent_id}>
              <span class="dot" aria-hidden="true" /> {a.agent_id}{' '}
              <span class="small muted">
                offline, last seen <Ago at={a.last_seen_at} now={props.view.generated_at} />
              </span>
            </li>
          ))}
        </ul>
      )}
      {online_count + offline_count > online.length + offline.length ? (
        <p class="small muted">
          {`Showing the ${online.length + offline.length} most recently seen of ` +
            `${num(online_count + offline_count)} agents.`}
        </p>
      ) : null}
      <details open={kept !== undefined}>
        <summary>Connect more agents</summary>
        <form class="stack" method="post" action="/room/agents">
          <FormError kept={kept} fields={['agents']} />
          <input type="hidden" name="room" value={props.here.roomId} />
          <KeptInput kept={kept} name="agents" id="connect" label="Agent ids, separated by commas" />
          <label class="check">
            <input type="checkbox" name="invite" value="1" checked />
            Give each agent a room invite key of its own (shown once)
          </label>
          <button type="submit">Show their configuration</button>
        </form>
      </details>
    </section>
  )
}

export function Reviews(props: Part) {
  const { reviews } = props.view
  const { here } = props
  return (
    <section aria-labelledby="reviews" data-part="reviews">
      <h2 id="reviews">
        Reviews{' '}
        <span class="muted">({reviews.pending_only ? `${num(reviews.total)} pending` : num(reviews.total)})</span>
      </h2>
      <p class="small">
        {reviews.pending_only ? (
          <>
            Pending only, newest first.{' '}
            <a href={here.href({ reviews: undefined, reviews_from: undefined }, 'reviews')}>Show every review</a>
          </>
        ) : (
          <>
            Newest first.{' '}
            <a href={here.href({ reviews: 'pending', reviews_from: undefined }, 'reviews')}>
              Show only pending reviews
            </a>
          </>
        )}
      </p>
      {reviews.total === 0 ? (
        <p class="muted">{reviews.pending_only ? 'No review is waiting for a decision.' : 'No reviews requested.'}</p>
      ) : (
        <ul class="plain reviews">
          {reviews.items.map((r) => {
            const kept = keptOf(props.kept, `review:${r.id}`)
            return (
              <li key={r.id}>
                <strong>{r.id}</strong>{' '}
                {r.target.kind === 'task' ? (
                  <a href={here.href({ task: r.target.task_id }, 'open-task')}>{`task ${r.target.task_id}`}</a>
                ) : (
                  <a
                    href={here.href(
                      { ctx: `${r.target.type}/${r.target.key}`, from: undefined, to: undefined },
                      'context',
                    )}
                  >{`context ${r.target.type}/${r.target.key}`}</a>
                )}{' '}
                <span class={`tag ${r.status}`}>{r.status}</span>
                <div class="small muted">
                  asked by {r.requested_by}
                  {r.reviewer ? `, of ${r.reviewer}` : ''}, <Ago at={r.created_at} now={props.view.generated_at} />
                </div>
                {r.note ? <p class="event-text">{r.note}</p> : null}
                {r.decided_by ? (
                  <p class="small muted">
                    {`${r.status} by ${r.decided_by}${r.overrode ? ` in place of ${r.overrode}` : ''}` +
                      `${r.decision_note ? `: ${r.decision_note}` : ''}`}
                  </p>
                ) : null}
                {r.status === 'pending' ? (
                  <form class="stack" method="post" action="/room/reviews">
                    <FormError kept={kept} fields={['note']} />
                    <input type="hidden" name="room" value={here.roomId} />
                    <input type="hidden" name="review_id" value={r.id} />
                    {r.reviewer ? (
                      <p class="small">
                        {`${r.reviewer} is asked to review this. ` +
                          'Deciding it yourself overrides them; the audit trail says so.'}
                      </p>
                    ) : null}
                    <label>
                      {`Note on ${r.id} (optional)`}
                      <input
                        type="text"
                        name="note"
                        value={typed(kept, 'note')}
                        {...fieldAttrs(kept, 'note', `note-${r.id}`)}
                      />
                    </label>
                    <FieldError kept={kept} name="note" id={`note-${r.id}`} />
                    <div class="buttons">
                      <button type="submit" name="decision" value="approve">{`Approve ${r.id}`}</button>
                      <button type="submit" class="secondary" name="decision" value="reject">{`Reject ${r.id}`}</button>
                    </div>
                  </form>
                ) : null}
              </li>
            )
          })}
        </ul>
      )}
      <Pager
        label="Reviews"
        from={reviews.from}
        shown={reviews.items.length}
        total={reviews.total}
        size={props.size}
        href={(from) => here.href({ reviews_from: from || undefined }, 'reviews')}
      />
    </section>
  )
}

export function Locks(props: Part) {
  const { locks } = props.view
  return (
    <section aria-labelledby="locks" data-part="locks">
      <h2 id="locks">
        Locks <span class="muted">({num(locks.total)} held)</span>
      </h2>
      {locks.total === 0 ? (
        <p class="muted">No locks held.</p>
      ) : (
        <Table
          cols={['Lock', 'Holder', 'Time left']}
          rows={locks.items}
          rowKey={(l) => l.name}
          cells={(l) => [l.name, l.owner, <TimeLeft until={l.expires_at} left={l.expires_in_s} />]}
        />
      )}
      <Pager
        label="Locks"
        from={locks.from}
        shown={locks.items.length}
        total={locks.total}
        size={props.size}
        href={(from) => props.here.href({ locks_from: from || undefined }, 'locks')}
      />
    </section>
  )
}

export function Vars(props: Part) {
  const { vars } = props.view
  return (
    <section aria-labelledby="vars" data-part="vars">
      <h2 id="vars">
        Shared vars <span class="muted">({num(vars.total)})</span>
      </h2>
      {vars.total === 0 ? (
        <p class="muted">No vars set.</p>
      ) : (
        <Table
          cols={['Name', 'Value', 'By']}
          rows={vars.items}
          rowKey={(v) => v.name}
          cells={(v) => [v.name, <code>{v.value}</code>, v.updated_by ?? '']}
        />
      )}
      <Pager
        label="Shared vars"
        from={vars.from}
        shown={vars.items.length}
        total={vars.total}
        size={props.size}
        href={(from) => props.here.href({ vars_from: from || undefined }, 'vars')}
      />
    </section>
  )
}

type Day = RoomView['analytics']['events_per_day'][number]

/** Events per day as bars, drawn on the server (no script, no image request). */
export function DayChart(props: { days: Day[] }) {
  const W = 44
  const H = 80
  const max = Math.max(1, ...props.days.map((d) => d.events))
  const summary = props.days.map((d) => `${d.date}: ${d.events}`).join(', ')
  return (
    <svg
      class="chart"
      role="img"
      aria-label={`Events per day: ${summary}`}
      viewBox={`0 0 ${props.days.length * W} ${H + 28}`}
      width={props.days.length * W * 1.5}
    >
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

export function Analytics(props: { view: RoomView }) {
  const a = props.view.analytics
  const done = a.events_per_day.reduce((n, d) => n + d.tasks_done, 0)
  return (
    <section aria-labelledby="analytics" data-part="analytics">
      <h2 id="analytics">Analytics</h2>
      <ul class="plain">
        <li>
          Completion:{' '}
          {a.completion_rate === null ? 'nothing to complete yet' : `${Math.round(a.completion_rate * 100)} %`}
        </li>
        <li>Online agents: {num(a.online_count)}</li>
        <li>{`Tasks done in the last ${a.events_per_day.length} days: ${num(done)}`}</li>
      </ul>
      <h3>Events per day (UTC)</h3>
      <DayChart days={a.events_per_day} />
    </section>
  )
}

export function ContextSection(props: Part & { open: ContextView | undefined }) {
  const v = props.open
  const kept = keptOf(props.kept, 'context')
  const { context } = props.view
  const { here } = props
  const ctxHref = (
    type: string,
    key: string,
    extra: Record<string, string | number | undefined> = { from: undefined, to: undefined },
  ) => here.href({ ctx: `${type}/${key}`, ...extra }, 'open-context')
  return (
    <section aria-labelledby="context" data-part="context">
      <h2 id="context">
        Context <span class="muted">({num(context.total)} entries)</span>
      </h2>
      {context.total === 0 ? (
        <p class="muted">No context entries yet.</p>
      ) : (
        <Table
          cols={['Entry', 'Version', 'Updated']}
          rows={context.items}
          rowKey={(c) => `${c.type}/${c.key}`}
          cells={(c) => [
            <a href={ctxHref(c.type, c.key)}>{`${c.type}/${c.key}`}</a>,
            `v${c.version}`,
            <>
              <Ago at={c.updated_at} now={props.view.generated_at} />
              {c.updated_by ? ` by ${c.updated_by}` : ''}
            </>,
          ]}
        />
      )}
      <Pager
        label="Context"
        from={context.from}
        shown={context.items.length}
        total={context.total}
        size={props.size}
        href={(from) => here.href({ context_from: from || undefined }, 'context')}
      />
      <details id="context-write" open={v !== undefined || kept !== undefined}>
        <summary>{v ? `Write a new version of ${v.type}/${v.key}` : 'Write a context entry'}</summary>
        <form class="stack" method="post" action="/room/context">
          <FormError kept={kept} fields={['type', 'key', 'body']} />
          <input type="hidden" name="room" value={here.roomId} />
          <KeptInput
            kept={kept}
            name="type"
            id="ctx-type"
            label="Type (lowercase, e.g. spec, decision)"
            value={v?.type}
            maxLength={32}
          />
          <KeptInput kept={kept} name="key" id="ctx-key" label="Key" value={v?.key} maxLength={200} />
          <label>
            Body
            <textarea name="body" rows={8} {...fieldAttrs(kept, 'body', 'ctx-body')}>
              {typed(kept, 'body', v?.body ?? '')}
            </textarea>
          </label>
          <FieldError kept={kept} name="body" id="ctx-body" />
          <button type="submit">Save context entry</button>
        </form>
      </details>
    </section>
  )
}
