// Bounded reads of a room's event stream for the feeds: plain reads through the store
// (RoomRecords: no script, they change nothing and must not count as room activity), each one
// MULTI on the room's own slot so the trim point and the entries agree.
import { eventsOf, type RoomEvent } from '../core/events.js'
import type { RoomRef } from '../store/keys.js'
import type { Store } from '../store/store.js'

/** Entries one read returns at most: no XRANGE is unbounded, so no read holds Redis for long. */
export const PAGE_SIZE = 100

/**
 * A position in the feed: an event id "<ms>-<seq>" and the two numbers it carries. Within one
 * history of a room, ms and seq grow together (ms = max(now, last ms)), so positions are ordered
 * by (ms, seq): the stream's own id order. The ms part is also the feed's epoch: a room deleted
 * and created again, or a Redis restored from an older copy, numbers its new events from a lower
 * seq but at a later ms, so an event later than a position with a seq not above it means the
 * history went back (see rewound()). A counter kept in Redis could not tell the second case: it
 * goes back with the data.
 */
export interface Position {
  id: string
  ms: number
  seq: number
}

export const START: Position = { id: '0-0', ms: 0, seq: 0 }

/** The room sequence number an event id "<ms>-<seq>" carries. */
export function seqOf(id: string): number {
  return Number(id.slice(id.indexOf('-') + 1))
}

export function positionOf(id: string): Position {
  return { id, ms: Number(id.slice(0, id.indexOf('-'))), seq: seqOf(id) }
}

/** Whether `a` comes after `b` in the stream (id order). */
export function later(a: Position, b: Position): boolean {
  return a.ms > b.ms || (a.ms === b.ms && a.seq > b.seq)
}

/** Whether `next`, later than `known`, belongs to a history that went back: its seq is not above. */
export function rewound(next: Position, known: Position): boolean {
  return later(next, known) && next.seq <= known.seq
}

export interface Page {
  /** False when the room does not exist (never created, or expired). */
  exists: boolean
  /** Seq of the last event trimmed away (0: none). */
  trim: number
  /** Up to PAGE_SIZE events after the position, oldest first. */
  events: RoomEvent[]
}

/** The newest id the room ever gave ("<lastms>-<eseq>", deleted or trimmed events included), or START. */
export async function readHead(store: Store, ref: RoomRef): Promise<{ exists: boolean; head: Position }> {
  const { exists, seq, ms } = await store.rooms.head(ref)
  return { exists, head: seq > 0 ? positionOf(`${ms}-${seq}`) : START }
}

/** One page of events after `after` (exclusive), with the trim point read at the same instant. */
export async function readPage(store: Store, ref: RoomRef, after: Position): Promise<Page> {
  const { exists, trim, rows } = await store.rooms.eventsAfter(ref, after.id, PAGE_SIZE)
  return { exists, trim, events: eventsOf(rows) }
}
