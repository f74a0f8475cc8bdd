// A Core on a shared test backend, and a fresh room of a fresh team for each test.
import type { Test } from 'tap'
import type { Settings } from '../../src/config.js'
import { Core, type Caller } from '../../src/core/index.js'
import { storeFor, uid, type Backend } from './shared.js'

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

/** A new room (template `template`) in a new team on `backend`. */
export async function newRoom(t: Test, backend: Backend, opts: { template?: string; settings?: Partial<Settings> } = {}): Promise<TestRoom> {
  const store = storeFor(backend, opts.settings ?? {})
  const core = new Core(store, store.settings)
  t.teardown(() => store.close())
  const teamId = uid('tm')
  const { room } = await core.rooms.create(teamId, { template: opts.template ?? 'blank' }, 'test')
  return {
    core,
    teamId,
    roomId: room.room_id,
    as: (agent?: string, idempotencyKey?: string) => ({ room: { teamId, roomId: room.room_id }, agent, idempotencyKey }),
  }
}
