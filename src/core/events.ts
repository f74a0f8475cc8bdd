// The event feed: an append-only stream of signals with a read cursor per agent. Ids are the
// stream ids "<ms>-<seq>"; seq numbers the room's events 1, 2, 3, ... so unread counts are one
// subtraction. Rules that need the room's state (cursors, authorship, retention) run inside the
// Lua scripts (shared parts in lua/includes/events.lua); this module validates input, shapes
// arguments and decodes results.
import { decode } from '../shared/msgpack.js'
import { z } from 'zod'
import type { CoreSettings } from './settings.js'
import type { RoomReply } from '../store/script-map/index.js'
import type { Store } from '../store/store.js'
import { AppError } from '../shared/errors.js'
import { eventId, requireAgent, viaArg, type Caller } from './fields.js'
import { callOptions, decodeRecord, pairs } from './records.js'
import { eventFromReply, eventOf, type RoomEvent } from '../shared/events.js'
import { iso } from '../shared/time.js'
import { parse, text } from '../shared/validate.js'
import { EVENT_TYPE } from '../shared/fields.js'

/** The room model's event: one shape for every layer (src/shared/events.ts decodes it). */
export type { RoomEvent }

/**
 * A cursor that fell behind the trimmed history: `lost` events went unread; reading resumed at
 * `reset_to`. Or, with `rewound`, a cursor of a history that went back (the room created again
 * under its id, or Redis restored from an older copy): `lost` is 0 and reading resumed at
 * `reset_to`, the new history's first event after the cursor (absent when none came yet).
 */
export interface CursorReset {
  lost: number
  rewound?: true
  reset_to?: string
}

/** A pub/sub notice published by a room script (lua/includes/notify.lua). */
export interface Notice {
  /** Kind: event, presence, task, context, ... */
  k: string
  op: string
  /** Redis time of the change (ms). */
  at: number
  /** Set whenever the notice announces a newly appended event, whatever its kind. */
  event_id?: string
  [field: string]: unknown
}

/** Conventional event types; any type matching EVENT_TYPE is accepted. */
export const EVENT_TYPES = ['message', 'status', 'question', 'answer', 'blocker'] as const
/** Types only the service posts. */
export const RESERVED_EVENT_TYPES = ['agent_left', 'task_overridden'] as const
/** Most stream entries one read_events page examines (a rare `type` filter gives a short page). */
export const READ_SCAN_LIMIT = 1000

/** Any JSON value whose compact JSON is at most `limit` UTF-8 bytes; larger ones fail as too_large. */
function jsonData(limit: number) {
  return z.json().superRefine((v, ctx) => {
    const size = Buffer.byteLength(JSON.stringify(v), 'utf8')
    if (size > limit)
      ctx.addIssue({
        code: 'custom',
        message: `must be at most ${limit} bytes of JSON`,
        params: { tooLarge: true, limit, size, unit: 'bytes' },
      })
  })
}

export function eventSchemas(s: CoreSettings) {
  const type = z
    .string()
    .regex(EVENT_TYPE, 'must be 1-32 characters: lowercase letters, digits, "_", "." or "-", e.g. "status"')
  const postType = type.refine((t) => !(RESERVED_EVENT_TYPES as readonly string[]).includes(t), {
    message:
      'is reserved: the service posts it (agent_left when an agent leaves, task_overridden when a claimed task is ' +
      'changed with force)',
  })
  const body = text(s.eventTextBytes).refine((v) => v.length > 0, { message: 'must not be empty' })
  const data = jsonData(s.eventDataBytes)
  const limit = (dflt: number) =>
    z.number().int().min(1, 'must be at least 1').max(100, 'must be at most 100').default(dflt)
  return {
    post: z.object({ type: postType, text: body, data: data.optional(), reply_to: eventId.optional() }),
    reply: z.object({ event_id: eventId, text: body, type: postType.default('message'), data: data.optional() }),
    read: z
      .object({ before: eventId.optional(), after: eventId.optional(), limit: limit(20), type: type.optional() })
      .refine((v) => v.before === undefined || v.after === undefined, {
        message: 'give before or after, not both',
        path: ['before'],
      }),
    unread: z.object({ limit: limit(50) }),
    eventRef: z.object({ event_id: eventId }),
  }
}

/** The events of a reply's rows [id, d, id, d, ...]. */
export function eventsOf(rows: Buffer[]): RoomEvent[] {
  return pairs(rows).map(([id, d]) => eventOf(id.toString('utf8'), decodeRecord<Record<string, unknown>>(d)))
}

/**
 * Decodes a notice received on a room's channel. Returns undefined for anything that is not a
 * notice. `event_id` is filled in for every notice that announces a new event: {k: 'event', op:
 * 'posted', id} and notices of other kinds that carry event_id (e.g. presence offline from leave_room).
 */
export function decodeNotice(buf: Uint8Array): Notice | undefined {
  let n: unknown
  try {
    n = decode(buf)
  } catch {
    return undefined
  }
  return toNotice(n)
}

/** decodeNotice() for a message already decoded from msgpack (the realtime hub decodes once). */
export function toNotice(n: unknown): Notice | undefined {
  if (typeof n !== 'object' || n === null || Array.isArray(n)) return undefined
  const notice = n as Notice
  if (typeof notice.k !== 'string' || typeof notice.op !== 'string') return undefined
  if (notice.k === 'event' && notice.op === 'posted' && typeof notice.id === 'string') notice.event_id = notice.id
  return notice
}

/**
 * The event a notice carries (postEvent and leaveRoom put the record, with its id, in `event`),
 * or undefined when it carries none.
 */
export function noticeEvent(n: Notice): RoomEvent | undefined {
  const rec = n.event
  if (typeof rec !== 'object' || rec === null || Array.isArray(rec) || typeof (rec as { id?: unknown }).id !== 'string')
    return undefined
  return eventFromReply(rec as Record<string, unknown>)
}

/**
 * `last_event_at` of a consuming read that found nothing new: when the feed last got an event
 * (absent when it never did).
 */
export function lastEventAt(r: Pick<RoomReply<'readUnread'>, 'last_event_ms'>): { last_event_at?: string } {
  return typeof r.last_event_ms === 'number' ? { last_event_at: iso(r.last_event_ms) } : {}
}

/** The `cursor_reset` of a consuming read, when the script reported one. */
export function cursorResetOf(r: Pick<RoomReply<'readUnread'>, 'cursor_reset'>): CursorReset | undefined {
  const reset = r.cursor_reset
  if (!reset) return undefined
  const out: CursorReset = { lost: reset.lost }
  if (reset.rewound === true) out.rewound = true
  if (reset.reset_to !== undefined) out.reset_to = reset.reset_to
  return out
}

export class Events {
  readonly schemas: ReturnType<typeof eventSchemas>

  constructor(
    private readonly store: Store,
    private readonly settings: CoreSettings,
  ) {
    this.schemas = eventSchemas(settings)
  }

  /** Posts an event (post_event). A poster that had read everything does not get its own event as unread. */
  async post(c: Caller, input: unknown) {
    requireAgent(c)
    const v = parse(this.schemas.post, input)
    return this.append(c, { type: v.type, text: v.text, data: v.data, reply_to: v.reply_to })
  }

  /** Posts a reply to an event (reply_to_event); type defaults to "message". */
  async reply(c: Caller, input: unknown) {
    requireAgent(c)
    const v = parse(this.schemas.reply, input)
    return this.append(c, { type: v.type, text: v.text, data: v.data, reply_to: v.event_id }).catch((err: unknown) => {
      // The script names its own argument; the caller of reply_to_event passed it as event_id.
      if (err instanceof AppError && err.details?.field === 'reply_to') {
        throw new AppError(err.code, err.message.replace(/^reply_to:/, 'event_id:'), {
          ...err.details,
          field: 'event_id',
        })
      }
      throw err
    })
  }

  private async append(c: Caller, ev: { type: string; text: string; data: unknown; reply_to: string | undefined }) {
    const data = ev.data === undefined ? '' : JSON.stringify(ev.data)
    const r = await this.store.room('postEvent', c.room, callOptions(c), [
      ev.type,
      ev.text,
      data,
      ev.reply_to ?? '',
      this.settings.eventsRetained,
      viaArg(c),
    ])
    return { event: eventFromReply(r.event), unread: r.unread }
  }

  /**
   * A page of the feed, oldest first, consuming nothing (read_events): the latest `limit` events,
   * or those after / before an id. `prev` continues to older events (pass as before), `next` to
   * newer ones (pass as after); each is present only when such events exist.
   */
  async read(c: Caller, input: unknown = {}) {
    const v = parse(this.schemas.read, input)
    const [mode, boundary]: ['after' | 'before' | 'latest', string] =
      v.after !== undefined ? ['after', v.after] : v.before !== undefined ? ['before', v.before] : ['latest', '']
    const r = await this.store.room('readEvents', c.room, callOptions(c), [
      mode,
      boundary,
      v.limit,
      v.type ?? '',
      READ_SCAN_LIMIT,
    ])
    const out: { events: RoomEvent[]; prev?: string; next?: string; unread: number | undefined } = {
      events: eventsOf(r.rows),
      unread: r.unread,
    }
    if (typeof r.prev === 'string') out.prev = r.prev
    if (typeof r.next === 'string') out.next = r.next
    return out
  }

  /** Consumes unread events (get_unread_events): see consume(). */
  async unread(c: Caller, input: unknown = {}) {
    const v = parse(this.schemas.unread, input)
    return this.consume(c, v.limit)
  }

  /**
   * Returns up to `limit` of the caller's unread events, oldest first, and moves its cursor past
   * them (the building block of get_unread_events and wait_for_events). `remaining` is what is
   * still unread; `cursor_reset` reports events trimmed away before the caller read them.
   */
  async consume(c: Caller, limit: number) {
    requireAgent(c)
    const r = await this.store.room('readUnread', c.room, callOptions(c), [limit])
    const reset = cursorResetOf(r)
    const out: {
      events: RoomEvent[]
      remaining: number
      last_event_at?: string
      cursor_reset?: CursorReset
      unread: number | undefined
    } = {
      events: r.events.map(eventFromReply),
      remaining: r.remaining,
      ...lastEventAt(r),
      unread: r.unread,
    }
    if (reset) out.cursor_reset = reset
    return out
  }

  /** The caller's unread count, consuming nothing (for the waiter of wait_for_events). */
  async peekUnread(c: Caller): Promise<number> {
    requireAgent(c)
    const r = await this.store.room('peekUnread', c.room, callOptions(c, false))
    return r.unread ?? 0
  }

  /**
   * The caller's unread events, consuming nothing: the first `limit` the next consuming read would
   * return, oldest first, and how many are unread in all.
   */
  async peekUnreadEvents(c: Caller, limit: number): Promise<{ events: RoomEvent[]; unread: number }> {
    requireAgent(c)
    const r = await this.store.room('peekUnreadEvents', c.room, callOptions(c, false), [limit])
    return { events: r.events.map(eventFromReply), unread: r.unread ?? 0 }
  }

  /** Moves the caller's cursor forward to an event (mark_event_read); never back (moved: false). */
  async markRead(c: Caller, input: unknown) {
    requireAgent(c)
    const v = parse(this.schemas.eventRef, input)
    const r = await this.store.room('markRead', c.room, callOptions(c), [v.event_id])
    return { moved: r.moved, cursor: r.cursor, unread: r.unread }
  }

  /** Who has read an event (get_event_reads): agents whose cursor is at or past it, and its author. */
  async reads(c: Caller, input: unknown) {
    const v = parse(this.schemas.eventRef, input)
    const r = await this.store.room('getEventReads', c.room, callOptions(c), [v.event_id])
    return { event_id: r.event_id, author: r.author, read_by: r.read_by, unread: r.unread }
  }

  /** Deletes an event (delete_event); only its author may. */
  async delete(c: Caller, input: unknown) {
    requireAgent(c)
    const v = parse(this.schemas.eventRef, input)
    const r = await this.store.room('deleteEvent', c.room, callOptions(c), [v.event_id])
    return { deleted: r.deleted, unread: r.unread }
  }
}
