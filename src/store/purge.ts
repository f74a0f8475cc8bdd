// Removes every key of a team and of its rooms, and the team's entries in the shared indexes
// (account deletion: "nothing of the team is left behind", docs/accounts.md). Runs after the
// team's credentials are revoked (lua/revokeTeam-4.lua), when nothing can write to the team any
// more, so it need not be atomic: each room goes in one DEL on its own slot.
import { Cluster } from 'ioredis'
import { ROOM_KEYS, type Keys, type RoomRef } from './keys.js'
import type { RedisClient, Store } from './store.js'

/** Every key of a room: its fixed keys, its lock keys, its reservations, its search manifest and vectors. */
async function roomKeysOf(store: Store, ref: RoomRef): Promise<string[]> {
  const k = store.keys.room(ref)
  const locks = await store.client.hkeys(k.locks)
  const fixed = ROOM_KEYS.filter((n) => n !== 'channel').map((n) => k[n])
  return [...fixed, ...locks.map((name) => store.keys.lock(ref, name)), ...store.keys.roomStore(ref)]
}

/**
 * The rate windows of the team's credentials (keys, invites, grants, people; keys.credentialRate),
 * which no record lists: found by name on every master (a team is deleted rarely).
 */
async function dropCredentialRates(store: Store, teamId: string): Promise<void> {
  const pattern = `${store.keys.credentialRate(teamId, '')}*`
  const client = store.client
  const masters = client instanceof Cluster ? client.nodes('master') : [client]
  for (const node of masters) {
    let cursor = '0'
    do {
      const [next, found] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000)
      cursor = next
      // One DEL per key: on Cluster each is sent to the node that owns it.
      for (const key of found) await client.del(key)
    } while (cursor !== '0')
  }
}

/** The rate window of one credential of a team (`user:<id>` when a person is deleted). */
export async function dropCredentialRate(store: Store, teamId: string, credential: string): Promise<void> {
  await store.client.del(store.keys.credentialRate(teamId, credential))
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
  await dropCredentialRates(store, teamId)
  await store.client.srem(keys.teams(), teamId)
  await store.client.zrem(keys.webhookTeams(), teamId)
  await store.client.hdel(keys.leaseTokens(keys.webhookTeams()), teamId)
  await store.client.zrem(keys.webhookRegistrations(), teamId)
  return { rooms: roomIds.length }
}
