// Plain reads of rooms and of a team's room index, outside any room script: they change nothing
// and must not count as room activity (listings, the feeds' catch-up, webhook fan-out). A read
// of one room is one MULTI on the room's slot, so what it returns agrees with itself.
import { AppError } from '../shared/errors.js'
import { ROOM_KEYS, type RoomRef } from './keys.js'
import { forgetRoomIndexes } from './purge.js'
import { toStoreError } from './health.js'
import type { RedisClient } from './store.js'
import type { Keys } from './keys.js'

/** The results of a MULTI, or the first error among them. */
export function execResults(res: [Error | null, unknown][] | null, what: string): unknown[] {
  if (!res) throw new Error(`${what}: the transaction was aborted`)
  return res.map(([err, value]) => {
    if (err) throw toStoreError(err)
    return value
  })
}

export class RoomRecords {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
  ) {}

  /** How many Redis keys the room has: its fixed keys, lock keys, reservations, search and vectors. */
  async keyCount(ref: RoomRef): Promise<number> {
    const k = this.keys.room(ref)
    const locks = await this.client.hkeys(k.locks)
    const all = [
      ...ROOM_KEYS.filter((n) => n !== 'channel').map((n) => k[n]),
      ...locks.map((name) => this.keys.lock(ref, name)),
      ...this.keys.roomStore(ref),
    ]
    return this.client.exists(...all)
  }

  /** The room's entries in the search and vector indexers' shared state, once the room is deleted. */
  forgetIndexes(ref: RoomRef): Promise<void> {
    return forgetRoomIndexes(this.client, this.keys, ref)
  }

  /** Whether the room exists (it has its meta record). */
  async exists(ref: RoomRef): Promise<boolean> {
    return (await this.client.exists(this.keys.room(ref).meta)) === 1
  }

  /**
   * A page of a team's rooms, oldest first: the meta records of up to `limit` rooms after the room
   * `after`, and `next` (the last room's id and index score) when more follow. The order is the
   * index's: creation time, then room id for rooms created in the same millisecond, so a page
   * starts exactly after its cursor whatever happened since (activity does not move a room).
   * `after.at`, the cursor's score, lets a page follow a cursor whose room has left the index since
   * (expired and pruned); without it such a cursor is refused, naming `after`. Index entries of
   * rooms that no longer exist are removed.
   */
  async page(
    teamId: string,
    after: { id: string; at?: number | undefined } | undefined,
    limit: number,
  ): Promise<{ metas: Record<string, string>[]; next?: { id: string; at: number } }> {
    const indexKey = this.keys.teamRooms(teamId)
    let flat: string[]
    if (!after) {
      flat = await this.client.zrange(indexKey, 0, limit, 'WITHSCORES')
    } else {
      const rank = await this.client.zrank(indexKey, after.id)
      if (rank !== null) {
        flat = await this.client.zrange(indexKey, rank + 1, rank + 1 + limit, 'WITHSCORES')
      } else if (after.at !== undefined) {
        // Its room is gone: the rooms of its score that sort after it, then those of later scores.
        const ties = await this.client.zrangebyscore(indexKey, after.at, after.at, 'WITHSCORES')
        const later = await this.client.zrangebyscore(
          indexKey,
          `(${after.at}`,
          '+inf',
          'WITHSCORES',
          'LIMIT',
          0,
          limit + 1,
        )
        flat = [
          ...ties.filter((_, i) => i % 2 === 0 && ties[i]! > after.id).flatMap((id) => [id, String(after.at)]),
          ...later,
        ].slice(0, 2 * (limit + 1))
      } else {
        throw new AppError(
          'invalid_request',
          `after: room ${after.id} is no longer in the team's list (it expired); list again from the first page`,
          { field: 'after' },
        )
      }
    }
    const ids = flat.filter((_, i) => i % 2 === 0)
    const page = ids.slice(0, limit)
    const all = await Promise.all(page.map((id) => this.client.hgetall(this.keys.room({ teamId, roomId: id }).meta)))
    const gone = page.filter((_, i) => !all[i]!.id)
    if (gone.length > 0) await this.client.zrem(indexKey, ...gone)
    const metas = all.filter((m) => m.id)
    return ids.length > limit ? { metas, next: { id: page[limit - 1]!, at: Number(flat[2 * limit - 1]) } } : { metas }
  }

  /** Removes index entries of rooms that no longer exist (expired, or a crashed creation); returns how many. */
  async pruneIndex(teamId: string): Promise<number> {
    const indexKey = this.keys.teamRooms(teamId)
    let removed = 0
    let cursor = '0'
    do {
      const [next, flat] = await this.client.zscan(indexKey, cursor, 'COUNT', 200)
      cursor = next
      const ids = flat.filter((_, i) => i % 2 === 0)
      const exists = await Promise.all(ids.map((id) => this.client.exists(this.keys.room({ teamId, roomId: id }).meta)))
      const gone = ids.filter((_, i) => exists[i] === 0)
      if (gone.length > 0) removed += await this.client.zrem(indexKey, ...gone)
    } while (cursor !== '0')
    return removed
  }

  /** Room ids `from` .. `from + count - 1` of the team's index (rooms are entered in it before they exist). */
  ids(teamId: string, from: number, count: number): Promise<string[]> {
    return this.client.zrange(this.keys.teamRooms(teamId), from, from + count - 1)
  }

  /** Every room id of the team's index. */
  allIds(teamId: string): Promise<string[]> {
    return this.client.zrange(this.keys.teamRooms(teamId), 0, -1)
  }

  /** Whether the room exists, and the seq and ms of the newest event id it ever gave (0 and 0: none). */
  async head(ref: RoomRef): Promise<{ exists: boolean; seq: number; ms: number }> {
    const k = this.keys.room(ref)
    const [exists, m] = execResults(
      await this.client.multi().exists(k.meta).hmget(k.meta, 'eseq', 'lastms').exec(),
      'reading the room head',
    )
    const [eseq, lastms] = m as (string | null)[]
    return { exists: exists === 1, seq: Number(eseq ?? 0), ms: Number(lastms ?? 0) }
  }

  /**
   * Up to `count` events after the event id `after` (exclusive), oldest first, as rows [id, stored
   * record, ...], with the trim point (seq of the last event trimmed away, 0: none) read at the
   * same instant.
   */
  async eventsAfter(
    ref: RoomRef,
    after: string,
    count: number,
  ): Promise<{ exists: boolean; trim: number; rows: Buffer[] }> {
    const k = this.keys.room(ref)
    const res = await this.client
      .multi()
      .exists(k.meta)
      .hget(k.meta, 'trim')
      .xrangeBuffer(k.events, `(${after}`, '+', 'COUNT', count)
      .exec()
    const [exists, trim, entries] = execResults(res, "reading the room's events") as [
      number,
      string | null,
      [Buffer, Buffer[]][],
    ]
    const rows: Buffer[] = []
    for (const [id, fields] of entries) rows.push(id, fields[1]!)
    return { exists: exists === 1, trim: Number(trim ?? 0), rows }
  }
}
