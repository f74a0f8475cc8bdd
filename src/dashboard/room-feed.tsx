// The room page's event feed: the latest events (or, with ?before=<id>, the page before it),
// newest first, each event's replies collapsed under it, and per event which agents have read it;
// filters (by type, by agent, only the open questions) that the server applies, so they work
// without script and can be linked to; the forms that post an event and reply to one.
import { EVENT_TYPES, type RoomEvent } from '../core/events.js'
import { FEED_SCAN_LIMIT, type FeedFilter, type FeedPage } from '../core/room-page.js'
import type { Here, RoomView } from './room.js'
import { Ago, Select, num, viaText } from './layout.js'
import { FieldError, FormError, fieldAttrs, keptOf, typed, type Kept } from './kept.js'
import { readBy } from './client/words.js'

/** The page parameters the filter form sets; any other is kept as it is. */
const FILTER_PARAMS = ['type', 'agent', 'open', 'before']

/**
 * The agents that have read an event: those whose read position (read_seq, counted by the tools'
 * rule: lua/includes/unreadCount.lua readUpTo) is at or past its seq, as get_event_reads answers.
 */
export function readersOf(reads: RoomView['reads'], eventId: string): string[] {
  const seq = Number(eventId.slice(eventId.indexOf('-') + 1))
  return reads.filter((r) => r.read_seq >= seq).map((r) => r.agent_id)
}

/** The feed's address that shows an event first: the page before the id just after it. */
export function eventHref(here: Here, id: string): string | undefined {
  const m = /^(\d+)-(\d+)$/.exec(id)
  if (!m) return undefined
  return here.href(
    { before: `${m[1]}-${Number(m[2]) + 1}`, type: undefined, agent: undefined, open: undefined },
    `event-${id}`,
  )
}

/** The agents the filter offers: those present or reading, the one filtered by, each once, by name. */
function agentsOf(view: RoomView, chosen: string | undefined): string[] {
  const all = new Set<string>()
  for (const a of [...view.presence.online, ...view.presence.offline]) all.add(a.agent_id)
  for (const r of view.reads) all.add(r.agent_id)
  for (const e of view.events) all.add(e.agent_id)
  if (chosen) all.add(chosen)
  return [...all].sort()
}

/** What the filter shows, in words: "open questions", "question events by backend". */
function filterWords(f: FeedFilter): string {
  if (f.open) return `open questions${f.agent ? ` by ${f.agent}` : ''}`
  return `${f.type ? `${f.type} events` : 'events'}${f.agent ? ` by ${f.agent}` : ''}`
}

function Filters(props: { here: Here; view: RoomView; filter: FeedFilter | undefined }) {
  const { here, filter } = props
  const types: string[] = [...EVENT_TYPES]
  if (filter?.type && !types.includes(filter.type)) types.push(filter.type)
  const keep = here.others(['id', ...FILTER_PARAMS])
  return (
    <form class="filters small" method="get" action="/room" aria-label="Filter the events">
      <input type="hidden" name="id" value={here.roomId} />
      {keep.map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      <label>
        Type
        <Select
          name="type"
          options={[['', 'Every type'] as const, ...types.map((t) => [t, t] as const)]}
          value={filter?.type ?? ''}
        />
      </label>
      <label>
        Agent
        <Select
          name="agent"
          options={[['', 'Every agent'] as const, ...agentsOf(props.view, filter?.agent).map((a) => [a, a] as const)]}
          value={filter?.agent ?? ''}
        />
      </label>
      <label class="check">
        <input type="checkbox" name="open" value="1" checked={filter?.open === true} />
        Only open questions
      </label>
      <button type="submit" class="secondary">
        Show
      </button>
    </form>
  )
}

/** What every item of one feed shares: the page, its time, who read what, the events shown and their replies. */
interface ItemContext {
  here: Here
  now: string
  reads: RoomView['reads']
  ids: Set<string>
  replies: Map<string, RoomEvent[]>
  kept: Kept | undefined
  filter: FeedFilter | undefined
  before: string | undefined
}

/** Every reply under a root, however deep, oldest first: a thread counts them all. */
const threadOf = (x: ItemContext, id: string): RoomEvent[] =>
  (x.replies.get(id) ?? []).flatMap((r) => [r, ...threadOf(x, r.id)])

/** One event of the feed, its replies under it (a root's collapsed in a thread). */
function FeedItem(q: { e: RoomEvent; root?: boolean; x: ItemContext }): preact.JSX.Element {
  const { e, x } = q
  const { here, now, ids, replies, filter, before } = x
  const kids = replies.get(e.id) ?? []
  const kept = keptOf(x.kept, `reply:${e.id}`)
  const fid = `reply-${e.id}`
  const readers = readersOf(x.reads, e.id).filter((a) => a !== e.agent_id)
  // A question is open while nothing shown replies to it (the latest page holds every reply).
  const open = e.type === 'question' && (filter?.open === true || (!before && !filter && kids.length === 0))
  const parent = e.reply_to && !ids.has(e.reply_to) ? e.reply_to : undefined
  const thread = q.root ? threadOf(x, e.id) : []
  const lastReply = thread.at(-1)
  const via = e.via ? viaText(e.via) : undefined
  const keptInThread = thread.some((r) => x.kept?.form === `reply:${r.id}`)
  return (
    <li id={`event-${e.id}`} data-event={e.id} data-author={e.agent_id} class={open ? 'question' : undefined}>
      <div class="small">
        <strong>{e.agent_id}</strong>
        {via ? <span class="muted"> {via}</span> : null} <span class={`tag ${e.type}`}>{e.type}</span>{' '}
        <Ago at={e.created_at} now={now} />
        {parent ? (
          <span class="muted">
            {' · '}
            <a href={eventHref(here, parent)}>in reply to an earlier event</a>
          </span>
        ) : null}
      </div>
      <p class="event-text">{e.text}</p>
      <div class="small muted" data-readers={readers.join(' ')}>
        {readBy(readers)}
      </div>
      <details class="small" open={kept !== undefined}>
        <summary>{`Reply to ${e.agent_id}`}</summary>
        <form class="stack" method="post" action="/room/events">
          <FormError kept={kept} fields={['text']} />
          <input type="hidden" name="room" value={here.roomId} />
          <input type="hidden" name="reply_to" value={e.id} />
          <input type="hidden" name="type" value={e.type === 'question' ? 'answer' : 'message'} />
          <label>
            {`Your reply to ${e.agent_id}`}
            <textarea name="text" required {...fieldAttrs(kept, 'text', fid)}>
              {typed(kept, 'text')}
            </textarea>
          </label>
          <FieldError kept={kept} name="text" id={fid} />
          <button type="submit">Send reply</button>
        </form>
      </details>
      {kids.length > 0 && !q.root ? (
        <ol class="feed" aria-label={`Replies to ${e.agent_id}`}>
          {kids.map((k) => (
            <FeedItem key={k.id} e={k} x={x} />
          ))}
        </ol>
      ) : null}
      {thread.length > 0 ? (
        <details class="thread small" open={keptInThread}>
          <summary>
            {`${thread.length === 1 ? '1 reply' : `${thread.length} replies`}, the last by ${lastReply!.agent_id} `}
            <Ago at={lastReply!.created_at} now={now} />
          </summary>
          <ol class="feed" aria-label={`Replies to ${e.agent_id}`}>
            {kids.map((k) => (
              <FeedItem key={k.id} e={k} x={x} />
            ))}
          </ol>
        </details>
      ) : null}
    </li>
  )
}

/**
 * A new event as the latest page of the feed shows it, before anyone has read or replied to it: the
 * item the live stream sends every open page (live.ts), rendered once.
 */
export function NewEvent(props: { here: Here; e: RoomEvent }) {
  const x: ItemContext = {
    here: props.here,
    now: props.e.created_at,
    reads: [],
    ids: new Set([props.e.id]),
    replies: new Map(),
    kept: undefined,
    filter: undefined,
    before: undefined,
  }
  return <FeedItem e={props.e} root x={x} />
}

/**
 * The feed heading's count: the events posted, and those the feed holds when fewer. Its own
 * `data-part`, which the live stream sends rendered with the head (live.ts).
 */
export function EventsCount(props: { events: number; kept: number }) {
  return (
    <span class="muted" data-part="events-count">
      (
      {props.kept === props.events
        ? `${num(props.events)} posted`
        : `${num(props.kept)} in the feed, of ${num(props.events)} posted`}
      )
    </span>
  )
}

export function Feed(props: {
  here: Here
  view: RoomView
  kept?: Kept | undefined
  feed?: { filter: FeedFilter; page: FeedPage } | undefined
}) {
  const { here, view } = props
  const filter = props.feed?.filter
  const events = props.feed ? props.feed.page.events : view.events
  const now = view.generated_at
  const ids = new Set(events.map((e) => e.id))
  const replies = new Map<string, RoomEvent[]>()
  for (const e of events)
    if (e.reply_to && ids.has(e.reply_to)) replies.set(e.reply_to, [...(replies.get(e.reply_to) ?? []), e])
  const roots = events.filter((e) => !e.reply_to || !ids.has(e.reply_to)).reverse()
  const before = here.get('before')
  const post = keptOf(props.kept, 'post')
  const x: ItemContext = { here, now, reads: view.reads, ids, replies, kept: props.kept, filter, before }
  const next = props.feed ? props.feed.page.next : view.older ? events[0]?.id : undefined
  const title = filter
    ? `${filterWords(filter)}${before ? ', earlier ones' : ''}, newest first`
    : before
      ? 'Earlier events, newest first'
      : 'Latest events, newest first'
  return (
    <section aria-labelledby="events" data-part="events">
      <h2 id="events">
        Events <EventsCount events={view.counts.events} kept={view.counts.events_kept} />
      </h2>
      <details class="post" id="post" open={post !== undefined}>
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
      <Filters here={here} view={view} filter={filter} />
      {filter || before ? (
        <p class="small">
          {filter ? `Showing ${filterWords(filter)}${before ? ' before the ones you saw' : ''}. ` : ''}
          {!filter && before ? 'Showing earlier events. ' : ''}
          {filter && before ? (
            <>
              <a href={here.href({ before: undefined }, 'events')}>Back to the latest of them</a>
              {' · '}
            </>
          ) : null}
          <a href={here.href({ before: undefined, type: undefined, agent: undefined, open: undefined }, 'events')}>
            Show the latest events
          </a>
        </p>
      ) : null}
      {roots.length === 0 ? (
        <p class="muted">
          {filter
            ? `No ${filterWords(filter)}${before ? ' before these' : ''}.`
            : before
              ? 'No events before this one.'
              : 'No events yet.'}
        </p>
      ) : (
        <ol class="feed" id="feed" aria-label={title}>
          {roots.map((e) => (
            <FeedItem key={e.id} e={e} root x={x} />
          ))}
        </ol>
      )}
      {props.feed?.page.exhausted ? (
        <p class="small muted">
          {filter?.open
            ? `Looked through the latest ${num(FEED_SCAN_LIMIT)} events; older questions are not listed.`
            : `Looked through ${num(FEED_SCAN_LIMIT)} events for these.`}
        </p>
      ) : null}
      {next ? (
        <p class="small">
          <a href={here.href({ before: next }, 'events')}>{filter ? 'Earlier ones' : 'Earlier events'}</a>
        </p>
      ) : null}
    </section>
  )
}
