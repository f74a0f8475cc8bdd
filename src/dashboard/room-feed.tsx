// The room page's event feed: the latest events (or, with ?before=<id>, the page before it),
// newest first, replies threaded under their event, and per event which agents have read it; the
// forms that post an event and reply to one.
import type { RoomEvent } from '../core/events.js'
import type { Here, RoomView } from './room.js'
import { Select, num, utc, viaText } from './layout.js'
import { FieldError, FormError, fieldAttrs, keptOf, typed, type Kept } from './kept.js'

const EVENT_TYPES = ['message', 'question', 'answer', 'status', 'blocker']
/** Readers named per event; more are counted. */
const READERS_SHOWN = 8

/**
 * The agents that have read an event: those whose read position (read_seq, counted by the tools'
 * rule: lua/includes/unreadCount.lua readUpTo) is at or past its seq, as get_event_reads answers.
 */
export function readersOf(reads: RoomView['reads'], eventId: string): string[] {
  const seq = Number(eventId.slice(eventId.indexOf('-') + 1))
  return reads.filter((r) => r.read_seq >= seq).map((r) => r.agent_id)
}

function readBy(agents: string[]): string {
  if (agents.length === 0) return 'not read yet'
  const named = agents.slice(0, READERS_SHOWN).join(', ')
  return agents.length > READERS_SHOWN
    ? `read by ${named} and ${agents.length - READERS_SHOWN} more`
    : `read by ${named}`
}

export function Feed(props: { here: Here; view: RoomView; kept?: Kept | undefined }) {
  const { here, view } = props
  const events = view.events
  const ids = new Set(events.map((e) => e.id))
  const replies = new Map<string, RoomEvent[]>()
  for (const e of events)
    if (e.reply_to && ids.has(e.reply_to)) replies.set(e.reply_to, [...(replies.get(e.reply_to) ?? []), e])
  const roots = events.filter((e) => !e.reply_to || !ids.has(e.reply_to)).reverse()
  const readers = (id: string) => readersOf(view.reads, id)
  const before = here.get('before')
  const post = keptOf(props.kept, 'post')
  const Item = (q: { e: RoomEvent }): preact.JSX.Element => {
    const kids = replies.get(q.e.id) ?? []
    const kept = keptOf(props.kept, `reply:${q.e.id}`)
    const fid = `reply-${q.e.id}`
    return (
      <li id={`event-${q.e.id}`} data-event={q.e.id} class={q.e.type === 'question' ? 'question' : undefined}>
        <div class="small">
          <strong>{q.e.agent_id}</strong>
          {q.e.via ? <span class="muted"> {viaText(q.e.via)}</span> : null}{' '}
          <span class={`tag ${q.e.type}`}>{q.e.type}</span> <time datetime={q.e.created_at}>{utc(q.e.created_at)}</time>
          {q.e.reply_to && !ids.has(q.e.reply_to) ? <span class="muted"> · reply to {q.e.reply_to}</span> : null}
        </div>
        <p class="event-text">{q.e.text}</p>
        <div class="small muted">{readBy(readers(q.e.id))}</div>
        <details class="small" open={kept !== undefined}>
          <summary>{`Reply to ${q.e.agent_id}`}</summary>
          <form class="stack" method="post" action="/room/events">
            <FormError kept={kept} fields={['text']} />
            <input type="hidden" name="room" value={here.roomId} />
            <input type="hidden" name="reply_to" value={q.e.id} />
            <input type="hidden" name="type" value={q.e.type === 'question' ? 'answer' : 'message'} />
            <label>
              {`Your reply to ${q.e.id}`}
              <textarea name="text" required {...fieldAttrs(kept, 'text', fid)}>
                {typed(kept, 'text')}
              </textarea>
            </label>
            <FieldError kept={kept} name="text" id={fid} />
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
      <h2 id="events">
        Events{' '}
        <span class="muted">
          (
          {view.counts.events_kept === view.counts.events
            ? `${num(view.counts.events)} posted`
            : `${num(view.counts.events_kept)} in the feed, of ${num(view.counts.events)} posted`}
          )
        </span>
      </h2>
      <details class="post" open={post !== undefined}>
        <summary>Post to the room</summary>
        <form class="stack" method="post" action="/room/events">
          <FormError kept={post} fields={['text', 'type']} />
          <input type="hidden" name="room" value={here.roomId} />
          <label>
            Type
            <Select name="type" options={EVENT_TYPES} value={typed(post, 'type', 'message')} />
          </label>
          <FieldError kept={post} name="type" id="post" />
          <label>
            Text
            <textarea name="text" required {...fieldAttrs(post, 'text', 'post')}>
              {typed(post, 'text')}
            </textarea>
          </label>
          <FieldError kept={post} name="text" id="post" />
          <button type="submit">Post</button>
        </form>
      </details>
      {before ? (
        <p class="small">
          Showing events before {before}. <a href={here.href({ before: undefined }, 'events')}>Back to the latest</a>
        </p>
      ) : null}
      {roots.length === 0 ? (
        <p class="muted">{before ? 'No events before this one.' : 'No events yet.'}</p>
      ) : (
        <ol class="feed" id="feed" aria-label={before ? 'Earlier events, newest first' : 'Latest events, newest first'}>
          {roots.map((e) => (
            <Item key={e.id} e={e} />
          ))}
        </ol>
      )}
      {view.older && events[0] ? (
        <p class="small">
          <a href={here.href({ before: events[0].id }, 'events')}>Earlier events</a>
        </p>
      ) : null}
    </section>
  )
}
