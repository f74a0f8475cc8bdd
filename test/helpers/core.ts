// A Core on a shared test backend, and a fresh room of a fresh team for each test.
import type { Test } from 'tap'
import type { Settings } from '../../src/config.js'
import { Core, type Caller } from '../../src/core/index.js'
import { decodeNotice, type Notice } from '../../src/core/events.js'
import type { RoomKeys } from '../../src/store/keys.js'
import type { Store } from '../../src/store/store.js'
import { rawClient, storeFor, subscriberFor, uid, type Backend } from './shared.js'
import { eventually } from './wait.js'

export interface TestRoom {
  core: Core
  teamId: string
  roomId: string
  /** A caller in the room as `agent` (no agent when omitted). */
  as(agent?: string, idempotencyKey?: string): Caller
}

/** A Core on `backend`, closed when the test ends. */
export function coreFor(t: Test, backend: Backend, overrides: Partial<Settings> = {}): Core {
  const store = storeFor(backend, overrides)
  const core = new Core(store, store.settings)
  t.teardown(() => store.close())
  return core
}

/** What a new room is: its template (blank by default), and its team and id when not new ones. */
export interface NewRoom {
  template?: string
  teamId?: string
  roomId?: string
}

/** A new room (NewRoom) on `backend`, through a Core of its own (`settings` on top of the backend's). */
export async function newRoom(
  t: Test,
  backend: Backend,
  opts: NewRoom & { settings?: Partial<Settings> } = {},
): Promise<TestRoom> {
  return roomThrough(t, storeFor(backend, opts.settings ?? {}), opts)
}

/** A new room (NewRoom) written through a Core of its own over `store`, which the test's end closes. */
export async function roomThrough(t: Test, store: Store<Settings>, opts: NewRoom = {}): Promise<TestRoom> {
  const core = new Core(store, store.settings)
  t.teardown(() => store.close())
  const teamId = opts.teamId ?? uid('tm')
  const { room } = await core.rooms.create(teamId, { room_id: opts.roomId, template: opts.template ?? 'blank' }, 'test')
  return {
    core,
    teamId,
    roomId: room.room_id,
    as: (agent?: string, idempotencyKey?: string) => ({
      room: { teamId, roomId: room.room_id },
      agent,
      idempotencyKey,
    }),
  }
}

/** A raw Redis connection (closed when the test ends) and the room's key names, to look at what is stored. */
export function rawRoom(
  t: Test,
  backend: Backend,
  room: TestRoom,
): { raw: ReturnType<typeof rawClient>; keys: RoomKeys } {
  const raw = rawClient(backend)
  t.teardown(() => raw.disconnect())
  return { raw, keys: room.core.store.keys.room({ teamId: room.teamId, roomId: room.roomId }) }
}

/** Notices published on the room's channel from now on, through a real sharded subscription. */
export async function listen(t: Test, backend: Backend, room: TestRoom): Promise<Notice[]> {
  const sub = subscriberFor(backend)
  const got: Notice[] = []
  sub.on('smessageBuffer', (_channel: Buffer, message: Buffer) => {
    const n = decodeNotice(message)
    if (n) got.push(n)
  })
  await sub.ssubscribe(room.core.store.keys.room({ teamId: room.teamId, roomId: room.roomId }).channel)
  t.teardown(() => sub.disconnect())
  return got
}

/** Waits until `cond` holds or `ms` pass (the assertions after it say what was expected). */
export async function until(cond: () => boolean, ms = 3000): Promise<void> {
  await eventually(cond, ms)
}
