// Rooms: creation (optionally from a template), info with counts, the team's room list. A room
// belongs to one team and its id is unique within that team. A room with no activity for
// ROOM_TTL_S disappears by key expiry; the team's room index is pruned of such rooms lazily.
import { roomIdFromName } from '../shared/room-name.js'
import { encode } from '../shared/msgpack.js'
import { createHash } from 'node:crypto'
import { z } from 'zod'
import type { CoreSettings } from './settings.js'
import type { RoomRef } from '../store/keys.js'
import type { Store } from '../store/store.js'
import { AppError } from '../shared/errors.js'
import { type Caller } from './fields.js'
import { roomId, roomName } from '../shared/fields.js'
import { newId } from '../shared/ids.js'
import { callOptions } from './records.js'
import { iso } from '../shared/time.js'
import { findTemplate, templateId, type Template } from './templates.js'
import { parse } from '../shared/validate.js'
import type { WaitBudget } from '../shared/wait-budget.js'

export interface RoomSummary {
  room_id: string
  name: string
  template: string
  created_at: string
  created_by?: string
  last_active_at: string
  /** Set while the room is archived (read-only; kept until restored or deleted). */
  archived_at?: string
  archived_by?: string
}

export const roomSchemas = {
  create: z.object({
    room_id: roomId.optional(),
    name: roomName.optional(),
    template: templateId.default('blank'),
  }),
  list: z.object({
    limit: z.number().int().min(1).max(500).default(100),
    /** Rooms after this one in the order of creation (the `next` of the previous page). */
    after: roomId.optional(),
  }),
  /** No input (get_room_info's arguments come from here all the same: src/mcp/args.ts). */
  info: z.object({}),
}

/** A generated room id: "room-" and 10 base32 characters (50 bits). */
export function newRoomId(): string {
  return newId('room', 10, '-')
}

/** The generated id of a room created with an idempotency key: the same key names the same room. */
export function roomIdFor(teamId: string, idempotencyKey: string): string {
  const digest = createHash('sha256').update(`${teamId}\0${idempotencyKey}`).digest()
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567'
  let id = 'room-'
  for (let i = 0; i < 10; i++) id += alphabet[digest[i]! & 31]
  return id
}

/** The starter content of a template, as createRoom.lua writes it. */
export function starterContent(t: Template, by: string) {
  const tasks = t.tasks.map((task, i) => ({
    id: `t${i + 1}`,
    title: task.title,
    status: 'todo',
    depends_on: (task.after ?? []).map((j) => `t${j + 1}`),
    priority: task.priority ?? 'normal',
    order: i + 1,
    created_by: by,
  }))
  const notes: Record<string, string> = {}
  t.tasks.forEach((task, i) => {
    if (task.notes) notes[`t${i + 1}`] = task.notes
  })
  const context = t.context.map((c) => ({
    meta: { type: c.type, key: c.key, version: 1, size: Buffer.byteLength(c.body), updated_by: by, created_by: by },
    body: c.body,
  }))
  return { tasks, notes, context }
}

export function summaryOf(meta: Record<string, string>): RoomSummary {
  const s: RoomSummary = {
    room_id: meta.id ?? '',
    name: meta.name ?? meta.id ?? '',
    template: meta.template ?? 'blank',
    created_at: iso(meta.created_at),
    last_active_at: iso(meta.touched ?? meta.created_at),
  }
  if (meta.created_by) s.created_by = meta.created_by
  if (meta.archived_at) {
    s.archived_at = iso(meta.archived_at)
    if (meta.archived_by) s.archived_by = meta.archived_by
  }
  return s
}

export class Rooms {
  constructor(
    private readonly store: Store,
    private readonly settings: CoreSettings,
  ) {}

  /**
   * Creates a room for `teamId`: two round trips, because the team's index and the room live
   * under different hash tags. The index gets the id first, then the room script runs: a crash
   * between the two leaves an index entry without a room, which listing prunes, never a room
   * missing from its team's list.
   */
  async create(
    teamId: string,
    input: unknown,
    createdBy: string,
    idempotencyKey?: string,
    budget?: WaitBudget,
  ): Promise<{ room: RoomSummary }> {
    const v = parse(roomSchemas.create, input)
    // Without a room id, a creation with an idempotency key names the room after the key, so a
    // retry replays and the key reused with another body is refused; else a room made from a name
    // gets the name's slug, as the CLI and the dashboard make it.
    const fromName = v.name === undefined ? undefined : roomIdFromName(v.name)
    const id = v.room_id ?? (idempotencyKey ? roomIdFor(teamId, idempotencyKey) : (fromName ?? newRoomId()))
    const template = findTemplate(v.template)!
    const indexKey = this.store.keys.teamRooms(teamId)
    const index = () => this.store.run('indexRoom', [indexKey], [id, this.settings.roomsPerTeam], budget)
    await index().catch(async (err: unknown) => {
      if (!(err instanceof AppError) || err.code !== 'limit_reached') throw err
      // Rooms expire by key expiry and leave their index entries behind: prune, then retry once.
      await this.pruneIndex(teamId, budget)
      await index()
    })
    const record = { id, team: teamId, name: v.name ?? id, template: template.id, created_by: createdBy }
    const r = await this.store.room('createRoom', { teamId, roomId: id }, { idempotencyKey, budget }, [
      Buffer.from(encode(record)),
      Buffer.from(encode(starterContent(template, createdBy))),
    ])
    const { room } = r
    return { room: summaryOf({ ...room, touched: room.created_at! }) }
  }

  /** The room's record and counts. */
  async info(c: Caller, input: unknown = {}) {
    parse(roomSchemas.info, input)
    const r = await this.store.room('roomInfo', c.room, callOptions(c), [this.settings.presenceTtlMs])
    const meta = r.room
    return {
      room: summaryOf(meta),
      counts: r.counts,
      expires_at: iso(Number(meta.touched ?? meta.created_at) + this.settings.roomTtlMs),
      unread: r.unread,
    }
  }

  /**
   * The team's rooms, oldest first, a page at a time; rooms that expired are pruned from the index.
   * `budget` (here and below): the calling request's time waiting for Redis (src/shared/wait-budget.ts).
   */
  async list(teamId: string, input: unknown = {}, budget?: WaitBudget) {
    const v = parse(roomSchemas.list, input)
    const after = v.after === undefined ? undefined : { id: v.after }
    const { rooms, next } = await this.page(teamId, after, v.limit, budget)
    return { rooms, next: next?.id }
  }

  /**
   * list() with the cursor's index score beside its room id, as the dashboard's links keep it: a
   * page follows such a cursor even when its room expired (and left the index) since.
   */
  async page(
    teamId: string,
    after: { id: string; at?: number | undefined } | undefined,
    limit: number,
    budget?: WaitBudget,
  ) {
    const { metas, next } = await this.store.reads(budget).rooms.page(teamId, after, limit)
    return { rooms: metas.map(summaryOf), next }
  }

  /**
   * Archives the room (`archive`) or restores it: archived, every write to it is refused with
   * room_archived while reads go on, and its keys are kept without a TTL (lua/archiveRoom.lua).
   * Conflict when it already is in that state. `by` is recorded as archived_by.
   */
  async setArchived(ref: RoomRef, archive: boolean, by: string): Promise<{ room: RoomSummary }> {
    const r = await this.store.room(
      'archiveRoom',
      ref,
      { touch: false },
      [archive ? 'archive' : 'restore', by],
      this.store.keys.roomStore(ref),
    )
    return { room: summaryOf(r.room) }
  }

  /**
   * What deleting the room removes, read without touching it: its tasks, events and context
   * entries, and how many Redis keys it has (lock keys included).
   */
  async contents(ref: RoomRef): Promise<{ tasks: number; events: number; context: number; keys: number }> {
    const [{ counts }, keys] = await Promise.all([
      this.store.room('roomInfo', ref, { touch: false }, [this.settings.presenceTtlMs]),
      this.store.rooms.keyCount(ref),
    ])
    return { tasks: counts.tasks, events: counts.events, context: counts.context, keys }
  }

  /**
   * Deletes every key of the room in one script (lua/deleteRoom.lua): what it held and how many
   * keys went. The team's side (index, invite keys) goes first, by the caller (Teams.dropRoom).
   */
  async deleteKeys(ref: RoomRef) {
    const r = await this.store.room('deleteRoom', ref, { touch: false }, [], this.store.keys.roomStore(ref))
    await this.store.rooms.forgetIndexes(ref)
    return r.deleted
  }

  /** Removes index entries of rooms that no longer exist (expired, or a crashed creation). */
  pruneIndex(teamId: string, budget?: WaitBudget): Promise<number> {
    return this.store.reads(budget).rooms.pruneIndex(teamId)
  }

  /** Whether the room exists (used by auth and transports before they open streams). */
  exists(ref: RoomRef, budget?: WaitBudget): Promise<boolean> {
    return this.store.reads(budget).rooms.exists(ref)
  }
}
