// Removes every key of a team and of its rooms, and the team's entries in the shared indexes
// (account deletion: "nothing of the team is left behind", docs/accounts.md). Runs after the
// team's credentials are revoked (lua/revokeTeam-4.lua), when nothing can write to the team any
// more, so it need not be atomic: each room goes in one DEL on its own slot.
import { ROOM_KEYS, type Keys, type RoomRef } from './keys.js'
import type { RedisClient, Store } from './store.js'

/** Every key of a room: its fixed keys, its lock keys, its reservations, its search manifest and vectors. */
async function roomKeysOf(store: Store, ref: RoomRef): Promise<string[]> {
  const k = store.keys.room(ref)
  const locks = await store.client.hkeys(k.locks)
  const fixed = ROOM_KEYS.filter((n) => n !== 'channel').map((n) => k[n])
  return [...fixed, ...locks.map((name) => store.keys.lock(ref, name)), ...store.keys.roomStore(ref)]
}

/** A room's entries in the search and vector indexers' shared state, when the room is deleted. */
export async function forgetRoomIndexes(client: RedisClient, keys: Keys, ref: RoomRef): Promise<void> {
  const member = `${ref.teamId}/${ref.roomId}`
  for (const shared of [keys.search(), keys.vectorIndex()]) {
    for (const set of [shared.dirty, shared.leases, shared.rooms]) await client.zrem(set, member)
    await client.hdel(keys.leaseTokens(shared.leases), member)
  }
}

export async function purgeTeam(store: Store, teamId: string): Promise<{ rooms: number }> {
  const keys = store.keys
  const t = keys.team(teamId)
  const roomIds = await store.client.zrange(t.rooms, 0, -1)
  for (const roomId of roomIds) {
    const ref = { teamId, roomId }
    await store.client.del(...(await roomKeysOf(store, ref)))
    await forgetRoomIndexes(store.client, keys, ref)
  }
  const hooks = keys.webhooks(teamId)
  await store.client.del(...Object.values(t), ...Object.values(hooks), keys.leaseTokens(hooks.leased))
  await store.client.srem(keys.teams(), teamId)
  await store.client.zrem(keys.webhookTeams(), teamId)
  await store.client.hdel(keys.leaseTokens(keys.webhookTeams()), teamId)
  await store.client.zrem(keys.webhookRegistrations(), teamId)
  return { rooms: roomIds.length }
}
