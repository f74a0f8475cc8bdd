// Archiving, restoring and deleting a room, for the admin API and the dashboard alike: the one
// place that knows the order of a deletion's steps across slots and stores, and audits each
// change. The role or scope check is the caller's (rooms.manage: src/auth/permissions.ts).
import type { Audit } from '../auth/audit.js'
import type { Teams } from '../auth/teams.js'
import type { Core } from '../core/index.js'
import type { RoomSummary } from '../core/rooms.js'
import type { SearchEngine } from '../search/engine.js'
import type { RoomRef } from '../store/keys.js'

export interface RoomAdminDeps {
  core: Pick<Core, 'rooms'>
  teams: Pick<Teams, 'dropRoom' | 'listInvites'>
  search: Pick<SearchEngine, 'dropRoom'>
  audit: Pick<Audit, 'record'>
}

/** What deleting a room removes: its records, its Redis keys and its room invite keys (live ones). */
export interface RoomContents {
  tasks: number
  events: number
  context: number
  keys: number
  invites: number
}

/** What a deletion removed. */
export interface RoomDeleted extends RoomContents {
  /** How many of the invite keys were still live (their agents now get 401). */
  live: number
}

export class RoomAdmin {
  constructor(private readonly deps: RoomAdminDeps) {}

  /** Archives (read-only, kept) or restores the room; audited `archived room` / `restored room`. */
  async setArchived(ref: RoomRef, archive: boolean, actor: string): Promise<{ room: RoomSummary }> {
    const r = await this.deps.core.rooms.setArchived(ref, archive, actor)
    await this.deps.audit.record(ref.teamId, actor, archive ? 'archived room' : 'restored room', ref.roomId)
    return r
  }

  /** What deleting the room would remove now (RoomNotFound when there is no such room). */
  async contents(ref: RoomRef): Promise<RoomContents> {
    const [held, invites] = await Promise.all([
      this.deps.core.rooms.contents(ref),
      this.deps.teams.listInvites(ref.teamId, ref.roomId),
    ])
    return { ...held, invites: invites.filter((i) => i.revokedAt === undefined).length }
  }

  /**
   * Deletes the room: first what a search engine keeps outside Redis (so an unreachable index
   * stops the deletion before anything changed), then the team's side (index, invite keys,
   * webhook positions: Teams.dropRoom), then every key of the room in one script. Audited
   * `deleted room`, saying what went. RoomNotFound when there is no such room.
   */
  async remove(ref: RoomRef, actor: string): Promise<RoomDeleted> {
    await this.deps.core.rooms.contents(ref)
    await this.deps.search.dropRoom?.(ref)
    const { invites, live } = await this.deps.teams.dropRoom(ref.teamId, ref.roomId)
    const held = await this.deps.core.rooms.deleteKeys(ref)
    const gone: RoomDeleted = { ...held, invites: invites.length, live }
    await this.deps.audit.record(
      ref.teamId,
      actor,
      'deleted room',
      `${ref.roomId} (${gone.tasks} tasks, ${gone.events} events, ${gone.context} context entries, ` +
        `${gone.keys} keys, ${gone.invites} room invite keys)`,
    )
    return gone
  }
}
