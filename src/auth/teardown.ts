// The end of a team, when its last member (the owner) deletes the account: every team key and
// room invite key is revoked at once through the ordinary revocation path (so every node drops
// it within 1 s and whatever closes a revoked key's streams closes these too), then every key of
// the team, its rooms, webhooks and pending deliveries is removed (src/store/purge.ts). What a
// search engine keeps outside Redis (Meilisearch documents) is removed before any of this, by the
// caller (SearchEngine.dropTeam), so that an unreachable search index stops the deletion before
// anything changed.
import { purgeTeam } from '../store/purge.js'
import type { Store } from '../store/store.js'
import type { Keyring } from './keyring.js'

export async function deleteTeam(store: Store, keyring: Pick<Keyring, 'publishRevocation'>, teamId: string): Promise<{ revoked: number; rooms: number }> {
  const k = store.keys.team(teamId)
  const r = await store.run('revokeTeam', [k.team, k.keys, k.invites, k.secrets], [])
  const hashes = Array.isArray(r.hashes) ? (r.hashes as string[]) : []
  await Promise.all(hashes.map((h) => keyring.publishRevocation(h)))
  const { rooms } = await purgeTeam(store, teamId)
  return { revoked: hashes.length, rooms }
}
