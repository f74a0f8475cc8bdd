// "What needs you": what in a room waits for a person (src/core/needs.ts) — questions and
// blockers nobody answered, reviews waiting for a person, and stale work (a task in progress or a
// lock held by an agent offline past the presence TTL) — each with the form that settles it in
// place: answer, approve or reject, give the task to another agent or put it back to do, release
// the lock. Shown at the top of the room page and, room by room, on the team's inbox (/inbox).
// Every form posts to the room's own routes (steer.ts) with `from=needs` (and `back=inbox` from
// the inbox), which send the person back here afterwards and key a refused form apart from the
// same form elsewhere on the page.
import type { RoomNeeds } from '../core/needs.js'
import { needsCount } from '../core/needs.js'
import type { Review } from '../core/reviews.js'
import { CONFIRM, Confirm } from './confirm.js'
import { Ago, TimeLeft, num } from './layout.js'
import { FieldError, FormError, fieldAttrs, keptOf, typed, type Kept } from './kept.js'

/** The prefix of the keys of forms posted from this block (steer.ts formKey). */
export const NEEDS_FORM = 'needs-'

export interface NeedsProps {
  roomId: string
  needs: RoomNeeds
  /** Where the block is: its forms come back there. */
  on: 'room' | 'inbox'
  kept?: Kept | undefined
  /** The room's name: the inbox's heading for the block. */
  title?: string
}

const roomHref = (roomId: string, extra: Record<string, string> = {}, anchor = '') =>
  `/room?${new URLSearchParams({ id: roomId, ...extra }).toString()}${anchor ? `#${anchor}` : ''}`

/** The hidden fields every form of the block carries. */
function Back(props: { roomId: string; on: 'room' | 'inbox' }) {
  return (
    <>
      <input type="hidden" name="room" value={props.roomId} />
      <input type="hidden" name="from" value="needs" />
      {props.on === 'inbox' ? <input type="hidden" name="back" value="inbox" /> : null}
    </>
  )
}

/** "offline, last seen 4 min ago" (the time as Ago says it). */
function Seen(props: { needs: RoomNeeds; agent: string }) {
  const at = props.needs.lastSeen[props.agent]
  return at ? (
    <>
      offline, last seen <Ago at={at} />
    </>
  ) : (
    <>offline, not seen lately</>
  )
}

function targetOf(roomId: string, r: Review) {
  return r.target.kind === 'task' ? (
    <a href={roomHref(roomId, { task: r.target.task_id }, 'open-task')}>{`task ${r.target.task_id}`}</a>
  ) : (
    <a href={roomHref(roomId, { ctx: `${r.target.type}/${r.target.key}` }, 'open-context')}>
      {`context ${r.target.type}/${r.target.key}`}
    </a>
  )
}

/** "3 more not shown" when a list holds fewer than were found. */
function More(props: { shown: number; total: number; what: string }) {
  if (props.total <= props.shown) return null
  return <p class="small muted">{`and ${num(props.total - props.shown)} more ${props.what} not shown here`}</p>
}

export function NeedsBlock(p: NeedsProps) {
  const { needs, roomId } = p
  const count = needsCount(needs)
  const hid = `needs-h-${roomId}`
  const kept = (form: string) => keptOf(p.kept, `${NEEDS_FORM}${form}`)
  const choices = needs.online.filter((a) => !a.startsWith('human:'))
  const block = (
    <section
      class={count > 0 ? 'needs has' : 'needs'}
      id={p.on === 'room' ? 'needs' : `needs-${roomId}`}
      aria-labelledby={hid}
      data-part={`needs-${roomId}`}
      data-needs={count}
    >
      <h2 id={hid}>
        {p.on === 'room' ? 'What needs you' : <a href={roomHref(roomId)}>{p.title ?? roomId}</a>}{' '}
        <span class="muted">({count === 0 ? 'nothing' : num(count)})</span>
      </h2>
      {count === 0 ? (
        <p class="muted small">Nothing waits for you here: no open question, blocker or stale work.</p>
      ) : null}
      {needs.questions.length > 0 ? (
        <ul class="plain needs-list" aria-label="Questions and blockers nobody answered">
          {needs.questions.map((e) => {
            const k = kept(`reply:${e.id}`)
            const fid = `needs-reply-${e.id}`
            return (
              <li key={e.id} class={`need ${e.type}`}>
                <div class="small">
                  <strong>{e.agent_id}</strong> <span class={`tag ${e.type}`}>{e.type}</span> <Ago at={e.created_at} />
                </div>
                <p class="event-text">{e.text}</p>
                <form class="stack" method="post" action="/room/events">
                  <FormError kept={k} fields={['text']} />
                  <Back roomId={roomId} on={p.on} />
                  <input type="hidden" name="reply_to" value={e.id} />
                  <input type="hidden" name="type" value={e.type === 'question' ? 'answer' : 'message'} />
                  <label>
                    {e.type === 'question' ? `Your answer to ${e.agent_id}` : `Your reply to ${e.agent_id}`}
                    <textarea name="text" required rows={2} {...fieldAttrs(k, 'text', fid)}>
                      {typed(k, 'text')}
                    </textarea>
                  </label>
                  <FieldError kept={k} name="text" id={fid} />
                  <button type="submit">{e.type === 'question' ? 'Send answer' : 'Send reply'}</button>
                </form>
              </li>
            )
          })}
        </ul>
      ) : null}
      <More shown={needs.questions.length} total={needs.totals.questions} what="questions and blockers" />
      {needs.reviews.length > 0 ? (
        <ul class="plain needs-list" aria-label="Reviews waiting for you">
          {needs.reviews.map((r) => {
            const k = kept(`review:${r.id}`)
            const fid = `needs-note-${r.id}`
            return (
              <li key={r.id} class="need review">
                <div class="small">
                  <span class="tag pending">review</span> {targetOf(roomId, r)}, asked by{' '}
                  <strong>{r.requested_by}</strong> <Ago at={r.created_at} />
                </div>
                {r.note ? <p class="event-text">{r.note}</p> : null}
                {r.reviewer && !r.reviewer.startsWith('human:') ? (
                  <p class="small">
                    {`${r.reviewer} is asked to review this and is `}
                    <Seen needs={needs} agent={r.reviewer} />
                    {'. Deciding it yourself overrides them; the audit trail says so.'}
                  </p>
                ) : null}
                <form class="stack" method="post" action="/room/reviews">
                  <FormError kept={k} fields={['note']} />
                  <Back roomId={roomId} on={p.on} />
                  <input type="hidden" name="review_id" value={r.id} />
                  <label>
                    {`Note on ${r.id} (optional)`}
                    <input type="text" name="note" value={typed(k, 'note')} {...fieldAttrs(k, 'note', fid)} />
                  </label>
                  <FieldError kept={k} name="note" id={fid} />
                  <div class="buttons">
                    <button type="submit" name="decision" value="approve">{`Approve ${r.id}`}</button>
                    <button type="submit" class="secondary" name="decision" value="reject">{`Reject ${r.id}`}</button>
                  </div>
                </form>
              </li>
            )
          })}
        </ul>
      ) : null}
      <More shown={needs.reviews.length} total={needs.totals.reviews} what="reviews" />
      {needs.tasks.length > 0 ? (
        <ul class="plain needs-list" aria-label="Tasks in progress with their agent offline">
          {needs.tasks.map((t) => {
            const k = kept(`task:${t.id}`)
            const fid = `needs-assignee-${t.id}`
            return (
              <li key={t.id} class="need stale">
                <div class="small">
                  <span class="tag stale">stale</span>{' '}
                  <a href={roomHref(roomId, { task: t.id }, 'open-task')}>{`${t.id} ${t.title}`}</a>
                </div>
                <p class="small">
                  {`In progress with ${t.assignee}, `}
                  <Seen needs={needs} agent={t.assignee ?? ''} />.
                </p>
                <form class="inline-form" method="post" action="/room/tasks">
                  <FormError kept={k} fields={['assignee']} />
                  <Back roomId={roomId} on={p.on} />
                  <input type="hidden" name="task_id" value={t.id} />
                  <input type="hidden" name="force" value="1" />
                  <label>
                    {`Give ${t.id} to`}
                    <select name="assignee" {...fieldAttrs(k, 'assignee', fid)}>
                      <option value="" selected={typed(k, 'assignee') === ''}>
                        nobody: back to To do
                      </option>
                      {choices.map((a) => (
                        <option key={a} value={a} selected={typed(k, 'assignee') === a}>
                          {`${a} (online)`}
                        </option>
                      ))}
                    </select>
                  </label>
                  <FieldError kept={k} name="assignee" id={fid} />
                  <button type="submit">{`Reassign ${t.id}`}</button>
                </form>
              </li>
            )
          })}
        </ul>
      ) : null}
      <More shown={needs.tasks.length} total={needs.totals.tasks} what="stale tasks" />
      {needs.locks.length > 0 ? (
        <ul class="plain needs-list" aria-label="Locks held by an agent offline">
          {needs.locks.map((l) => {
            const k = kept(`lock:${l.name}`)
            return (
              <li key={l.name} class="need stale">
                <div class="small">
                  <span class="tag stale">stale</span> lock <code>{l.name}</code>
                </div>
                <p class="small">
                  {`Held by ${l.owner}, `}
                  <Seen needs={needs} agent={l.owner} />
                  {'; it expires in '}
                  <TimeLeft until={l.expires_at} left={l.expires_in_s} />.
                </p>
                <Confirm action="/room/locks/release" confirm={CONFIRM.releaseLock(l.name, l.owner)} open={!!k}>
                  <FormError kept={k} fields={[]} />
                  <Back roomId={roomId} on={p.on} />
                  <input type="hidden" name="name" value={l.name} />
                  <input type="hidden" name="token" value={String(l.token)} />
                </Confirm>
              </li>
            )
          })}
        </ul>
      ) : null}
      <More shown={needs.locks.length} total={needs.totals.locks} what="stale locks" />
    </section>
  )
  if (p.on === 'inbox') return block
  // The button lives outside the part the live script swaps, so it keeps its state.
  return (
    <>
      {block}
      <p class="small notify">
        <button type="button" class="secondary" id="notify" hidden>
          Notify me when agents need me
        </button>
      </p>
    </>
  )
}
