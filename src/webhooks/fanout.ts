// Fan-out: a room's event stream is the outbox. Each team keeps, per room, the id of the last
// event turned into deliveries (its position); fanning out reads the events after it and
// enqueues them in one compare-and-set script, so an event stored by a room script is pending for
// webhooks from that moment on, and no crash anywhere can lose or double it.
//
// Which rooms to read: the node that posted an event hints its room right after the post (fast
// path); a periodic sweep over every room of the team finds what a lost hint left behind.
import { AppError } from '../shared/errors.js'
import type { WebhookQueue } from '../store/webhooks.js'

/** Events read and enqueued per script call. */
export const FANOUT_BATCH = 100
/** Batches one pass takes from one room; a room with more stays hinted for the next pass. */
const BATCHES_PER_PASS = 5
/** Rooms whose heads a sweep reads at once. */
const SWEEP_CHUNK = 200
const NONE_LOST = { count: 0, before: 0 }

/** [ms, seq] of an event id "<ms>-<seq>". */
function partsOf(id: string): [number, number] {
  const dash = id.indexOf('-')
  return [Number(id.slice(0, dash)), Number(id.slice(dash + 1))]
}

/** Whether event id `a` comes after `b` ('' = before everything). */
export function isAfter(a: string, b: string): boolean {
  if (b === '') return a !== ''
  if (a === '') return false
  const [am, as] = partsOf(a)
  const [bm, bs] = partsOf(b)
  return am > bm || (am === bm && as > bs)
}

/**
 * Fans out one hinted room of a team: up to BATCHES_PER_PASS batches of its events after `pos`
 * (none before `floor`, the creation of the oldest active webhook). Returns the deliveries
 * enqueued. A room that no longer exists is forgotten.
 */
export async function fanOutRoom(
  queue: WebhookQueue,
  teamId: string,
  hinted: { room: string; hint: string; pos: string },
  floor: number,
  pendingMax: number,
): Promise<number> {
  let pos = hinted.pos
  let enqueued = 0
  for (let b = 0; b < BATCHES_PER_PASS; b++) {
    let out: Awaited<ReturnType<WebhookQueue['readOutbox']>>
    try {
      out = await queue.readOutbox({ teamId, roomId: hinted.room }, pos, floor, FANOUT_BATCH)
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'not_found')) throw err
      await queue.enqueue(teamId, hinted.room, pos, '-', '', NONE_LOST, pendingMax, [])
      return enqueued
    }
    const full = out.events.length === FANOUT_BATCH
    const last = out.events.at(-1)?.[0]
    // No event wanted: still move past the head, so the next read starts there.
    const next = last ?? (out.head !== undefined && isAfter(out.head, pos) ? out.head : pos)
    const r = await queue.enqueue(
      teamId,
      hinted.room,
      pos,
      next === pos ? '' : next,
      full ? '' : hinted.hint,
      { count: out.lost, before: out.lostBefore },
      pendingMax,
      out.events,
    )
    enqueued += r.enqueued
    if (r.stale || !full) return enqueued
    pos = next
  }
  return enqueued
}

/**
 * Hints every room of the team whose newest event (at or after `floor`) is past its position,
 * and forgets the positions of rooms that left the team's index. Returns the rooms hinted.
 */
export async function sweepTeam(queue: WebhookQueue, teamId: string, floor: number): Promise<number> {
  let hinted = 0
  for (let from = 0; ; from += SWEEP_CHUNK) {
    const rooms = await queue.teamRooms(teamId, from, SWEEP_CHUNK)
    if (rooms.length === 0) break
    const [positions, heads] = await Promise.all([
      queue.positions(teamId, rooms),
      Promise.all(rooms.map((roomId) => queue.roomHead({ teamId, roomId }))),
    ])
    const behind = rooms.filter((_, j) => {
      const head = heads[j]
      return head !== undefined && partsOf(head)[0] >= floor && isAfter(head, positions[j]!)
    })
    await Promise.all(behind.map((roomId) => queue.hintRoom({ teamId, roomId })))
    hinted += behind.length
  }
  let cursor = '0'
  do cursor = await queue.forgetStalePositions(teamId, cursor, SWEEP_CHUNK)
  while (cursor !== '0')
  return hinted
}
