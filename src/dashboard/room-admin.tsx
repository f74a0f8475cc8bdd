// Archiving, restoring and deleting a room from the dashboard (owners and admins: rooms.manage).
// The room page says when a room is archived and what that means, and ends with the controls;
// archiving destroys nothing and takes one step, deleting takes the confirmation step of
// confirm.tsx, whose page counts what goes (read when asked, not on every view of the room).
import { requireRole, roleMay, type Role } from '../auth/permissions.js'
import type { RoomSummary } from '../core/rooms.js'
import { RoomAdmin, type RoomAdminDeps, type RoomContents } from '../http/room-admin.js'
import { roomId as roomIdField } from '../shared/fields.js'
import { AppError } from '../shared/errors.js'
import type { Confirmation } from './confirm.js'
import { Ago, num } from './layout.js'
import { actorOf, see, seeDone, type Reply, type Request } from './page.js'
import { NeedsRole } from './views.js'
import type { Web } from './web.js'

const roomHref = (roomId: string) => `/room?id=${encodeURIComponent(roomId)}`

/** The confirmation of a room's deletion: what goes, counted. */
export function deleteRoomConfirmation(roomId: string, c: RoomContents): Confirmation {
  const keys =
    c.invites > 0
      ? `; its ${num(c.invites)} live room invite key(s) are deleted, and agents using them get 401 within a second`
      : ''
  return {
    action: `Delete room ${roomId}`,
    goes:
      `Room ${roomId} and everything in it go for good: ${num(c.tasks)} task(s), ${num(c.events)} event(s), ` +
      `${num(c.context)} context entr${c.context === 1 ? 'y' : 'ies'} with their versions, its vars, reviews, ` +
      `locks and presence, and its search documents — ${num(c.keys)} stored key(s) in all${keys}. ` +
      'This cannot be undone; archiving keeps the room read-only instead.',
  }
}

export class RoomAdminPages {
  private readonly rooms: RoomAdmin

  constructor(deps: RoomAdminDeps) {
    this.rooms = new RoomAdmin(deps)
  }

  register(web: Web): void {
    web.page('POST', '/room/archive', true, (r) => this.archive(r, true))
    web.page('POST', '/room/restore', true, (r) => this.archive(r, false))
    web.page(
      'POST',
      '/room/delete',
      true,
      (r) => this.remove(r),
      async (r) => {
        if (!roleMay(r.viewer!.user.role, 'rooms.manage')) return undefined
        const ref = this.ref(r)
        return { ...deleteRoomConfirmation(ref.roomId, await this.rooms.contents(ref)), back: roomHref(ref.roomId) }
      },
    )
  }

  private ref(r: Request) {
    const v = roomIdField.safeParse(r.form.get('room') ?? '')
    if (!v.success) throw new AppError('invalid_request', `room: ${v.error.issues[0]!.message}`, { field: 'room' })
    return { teamId: r.viewer!.user.team, roomId: v.data }
  }

  private async archive(r: Request, archive: boolean): Promise<Reply> {
    const user = r.viewer!.user
    requireRole(user.role, 'rooms.manage')
    const ref = this.ref(r)
    await this.rooms.setArchived(ref, archive, actorOf(user))
    // The room page itself says whether the room is archived (ArchivedNote), so no notice travels.
    return see(`${roomHref(ref.roomId)}#manage-h`)
  }

  private async remove(r: Request): Promise<Reply> {
    const user = r.viewer!.user
    requireRole(user.role, 'rooms.manage')
    const ref = this.ref(r)
    const gone = await this.rooms.remove(ref, actorOf(user))
    const notice =
      `Room ${ref.roomId} is deleted: ${num(gone.tasks)} task(s), ${num(gone.events)} event(s), ` +
      `${num(gone.context)} context entr${gone.context === 1 ? 'y' : 'ies'} and ${num(gone.invites)} room invite ` +
      `key(s) went, ${num(gone.keys)} stored key(s) in all.`
    return seeDone(r, '/', { notice })
  }
}

/** Said at the top of an archived room's page: since when, and what still works. */
export function ArchivedNote(props: { room: RoomSummary }) {
  const { room } = props
  if (!room.archived_at) return null
  return (
    <p class="notice archived" role="status">
      <strong>Archived</strong> <Ago at={room.archived_at} />
      {room.archived_by ? ` by ${archivedBy(room.archived_by)}` : ''}: this room is read-only. Agents' writes are
      refused (<code>room_archived</code>); reading, search and the snapshot still work, and it is kept until it is
      restored or deleted.
    </p>
  )
}

/** Who archived the room, as a person reads it: an address, or a key by its id. */
function archivedBy(actor: string): string {
  if (actor.startsWith('user:')) return actor.slice(actor.indexOf(' ') + 1)
  if (actor.startsWith('key:')) return `key ${actor.slice(4)}`
  return actor
}

/** The end of the room page: archive or restore the room, delete it (owners and admins). */
export function RoomManage(props: { room: RoomSummary; role: Role }) {
  const { room, role } = props
  return (
    <section aria-labelledby="manage-h" class="manage">
      <h2 id="manage-h">Archive or delete this room</h2>
      {roleMay(role, 'rooms.manage') ? (
        <div class="manage-actions">
          {room.archived_at ? (
            <form method="post" action="/room/restore" class="inline">
              <input type="hidden" name="room" value={room.room_id} />
              <button type="submit">Restore this room</button>
            </form>
          ) : (
            <form method="post" action="/room/archive" class="inline">
              <input type="hidden" name="room" value={room.room_id} />
              <button type="submit">Archive this room</button>
            </form>
          )}{' '}
          <form method="post" action="/room/delete" class="inline">
            <input type="hidden" name="room" value={room.room_id} />
            <button class="danger" type="submit">
              Delete this room…
            </button>
          </form>
          <p class="small muted">
            Archiving makes the room read-only and keeps it (restore it any time). Deleting asks first, saying what
            goes.
          </p>
        </div>
      ) : (
        <NeedsRole action="rooms.manage" role={role} />
      )}
    </section>
  )
}
