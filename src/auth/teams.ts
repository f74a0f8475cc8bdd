// Teams and their credentials: team keys and room invite keys. Secrets are minted here, returned
// once, and stored only as SHA-256 hashes under the team's hash tag (src/store/keys.ts team()).
// Every revocation goes through here (the admin API, the dashboard, a team's deletion), and here
// it is announced to every node (AnnounceRevocation), so no surface can revoke without it.
import { z } from 'zod'
import { AppError } from '../shared/errors.js'
import { agentId as agentIdField, label, roomId as roomIdField, teamId as teamIdField } from '../shared/fields.js'
import { newId } from '../shared/ids.js'
import { iso } from '../shared/time.js'
import { parse } from '../shared/validate.js'
import { purgeTeam } from '../store/purge.js'
import type { StoredCredential } from '../store/records.js'
import type { Store } from '../store/store.js'
import type { WaitBudget } from '../shared/wait-budget.js'
import { decode, encode } from '../shared/msgpack.js'
import { broadcastRevocation, type AnnounceRevocation } from './keyring.js'
import { roleRefusal } from './permissions.js'
import type { Access, Scope } from './principal.js'
import { mintKey } from './secrets.js'

/** Id of the team created at first start. */
export const DEFAULT_TEAM_ID = 'default'
/** Live team keys a team may hold, and live invites a room may have. */
export const KEYS_PER_TEAM = 50
export const INVITES_PER_ROOM = 100

export interface Team {
  teamId: string
  name: string
  createdAt: string
}

export interface KeyInfo {
  keyId: string
  hint: string
  label?: string
  scope: Scope
  access: Access
  /** User id of the person who minted it (absent: nobody; see StoredCredential.created_by). */
  createdBy?: string
  createdAt: string
  revokedAt?: string
}

export interface InviteInfo {
  tokenId: string
  roomId: string
  hint: string
  label?: string
  access: Access
  /** The agent id the key is bound to (absent: its calls name their agent). */
  agentId?: string
  /** User id of the person who minted it (absent: nobody). */
  createdBy?: string
  createdAt: string
  revokedAt?: string
}

const access = z
  .enum(['read', 'write'])
  .default('write')
  .describe('read: only tools annotated readOnlyHint, and HTTP reads; write (the default): every call its scope allows')

export const teamSchemas = {
  createTeam: z.strictObject({ teamId: teamIdField.optional(), name: label(100) }),
  renameTeam: z.strictObject({ name: label(100) }),
  mint: z.strictObject({
    label: label(100).optional(),
    scope: z
      .enum(['agent', 'admin'])
      .default('agent')
      .describe('agent (the default): rooms, stream, snapshot, search; admin: also the admin API (/admin)'),
    access,
  }),
  invite: z.strictObject({
    label: label(100).optional(),
    access,
    agentId: agentIdField
      .optional()
      .describe('The agent the key is bound to: its calls act as this agent_id and may not name another'),
  }),
}

const pack = (v: unknown) => Buffer.from(encode(v))

function keyInfo(r: StoredCredential): KeyInfo {
  const k: KeyInfo = {
    keyId: r.id,
    hint: r.hint,
    scope: r.scope ?? (r.created_by ? 'agent' : 'admin'),
    access: r.access ?? 'write',
    createdAt: iso(r.created_at),
  }
  if (r.label) k.label = r.label
  if (r.created_by) k.createdBy = r.created_by
  if (r.revoked_at) k.revokedAt = iso(r.revoked_at)
  return k
}

function inviteInfo(r: StoredCredential): InviteInfo {
  const i: InviteInfo = {
    tokenId: r.id,
    roomId: r.room_id ?? '',
    hint: r.hint,
    access: r.access ?? 'write',
    createdAt: iso(r.created_at),
  }
  if (r.agent_id) i.agentId = r.agent_id
  if (r.label) i.label = r.label
  if (r.created_by) i.createdBy = r.created_by
  if (r.revoked_at) i.revokedAt = iso(r.revoked_at)
  return i
}

/** A webhook disabled because the person whose it was left the team. */
export interface DisabledWebhook {
  webhookId: string
  url: string
  /** Its disabled_reason. */
  reason: string
}

/** A key someone else minted, refused to a person who may revoke only their own: names the role it needs. */
const othersKey = (err: unknown): never => {
  if (err instanceof AppError && err.code === 'forbidden') throw roleRefusal('keys.others', undefined, err.message)
  throw err
}

/** How long revoked keys and invites stay listed by default (REVOKED_KEY_RETENTION_S). */
export const REVOKED_RETENTION_MS = 30 * 86_400_000

/**
 * Who mints a key or invite: a person (the dashboard) or a team key (the admin API; the new key
 * is then the person's who minted that key, if any). Operator tools pass none. A person removed
 * from the team loses every key they minted (Teams.revokeMemberKeys).
 */
export type Minter = { user: string } | { key: string }

const minterArg = (by?: Minter) => (by === undefined ? '' : 'user' in by ? `u:${by.user}` : `k:${by.key}`)

/** Lua packs an empty list as a map. */
const listOf = <T>(v: T[] | Record<string, never>): T[] => (Array.isArray(v) ? v : [])

/** A page of a team's keys: oldest first, `next` = the keyId to pass as `after` for the next page. */
export interface KeyPage {
  keys: KeyInfo[]
  next?: string
}

export class Teams {
  /**
   * `announce` tells every node about a revoked key: a node passes its keyring's (which also drops
   * the key on this node at once); the default publishes the notice only (operator tools).
   */
  constructor(
    private readonly store: Store,
    private readonly retentionMs = REVOKED_RETENTION_MS,
    private readonly announce: AnnounceRevocation = broadcastRevocation(store),
  ) {}

  /** Whether a record is listed: live, or revoked within the retention. */
  private listed(r: StoredCredential): boolean {
    return r.revoked_at === undefined || r.revoked_at >= Date.now() - this.retentionMs
  }

  /**
   * Creates a team and its first key. `created` is false (and no key) when the team exists: at
   * first start several nodes may race to create the default team; exactly one wins.
   */
  async create(input: unknown): Promise<{ created: boolean; team: Team; key?: string; keyId?: string }> {
    const v = parse(teamSchemas.createTeam, input)
    const teamId = v.teamId ?? newId('tm', 10, '-')
    const k = this.store.keys.team(teamId)
    const minted = mintKey('team', teamId)
    const keyId = newId('key')
    const r = await this.store.run(
      'createTeam',
      [k.team, k.keys, k.secrets],
      [teamId, v.name, pack({ id: keyId, hash: minted.hash, hint: minted.hint, label: 'first key', scope: 'admin' })],
    )
    await this.store.auth.register(teamId)
    const t = r.team
    const team = { teamId: t.id, name: t.name, createdAt: iso(t.created_at) }
    return r.created ? { created: true, team, key: minted.key, keyId } : { created: false, team }
  }

  /**
   * Renames a team (a name as at creation: up to 100 characters, not blank, stored trimmed).
   * Returns the name it had; a team that does not exist is not_found.
   */
  async rename(teamId: string, input: unknown): Promise<{ from: string; to: string }> {
    const v = parse(teamSchemas.renameTeam, input)
    const r = await this.store.run('renameTeam', [this.store.keys.team(teamId).team], [v.name])
    if (!r.renamed) throw new AppError('not_found', `team ${teamId} does not exist`, { field: 'teamId' })
    return { from: r.from ?? teamId, to: v.name }
  }

  /** The default team, created with its first key when it does not exist yet. */
  async bootstrap(): Promise<{ created: boolean; team: Team; key?: string; keyId?: string }> {
    return this.create({ teamId: DEFAULT_TEAM_ID, name: 'Default team' })
  }

  /** `budget` (here and below): the calling request's time waiting for Redis (src/shared/wait-budget.ts). */
  async get(teamId: string, budget?: WaitBudget): Promise<Team | undefined> {
    const h = await this.store.reads(budget).auth.record(teamId)
    if (!h.id) return undefined
    return { teamId: h.id, name: h.name ?? h.id, createdAt: iso(h.created_at) }
  }

  async list(): Promise<Team[]> {
    const ids = await this.store.auth.ids()
    const teams = await Promise.all(ids.sort().map((id) => this.get(id)))
    return teams.filter((t): t is Team => t !== undefined)
  }

  /** Mints an extra team key; the full secret is in the result only. */
  async mintTeamKey(
    teamId: string,
    input: unknown,
    by?: Minter,
    budget?: WaitBudget,
  ): Promise<{ key: string; info: KeyInfo }> {
    const v = parse(teamSchemas.mint, input)
    const k = this.store.keys.team(teamId)
    const minted = mintKey('team', teamId)
    const rec = {
      id: newId('key'),
      hash: minted.hash,
      hint: minted.hint,
      label: v.label,
      scope: v.scope,
      access: v.access,
    }
    const r = await this.store.run(
      'mintKey',
      [k.team, k.keys, k.secrets, k.keys],
      ['k', pack([rec]), KEYS_PER_TEAM, this.retentionMs, minterArg(by)],
      budget,
    )
    return { key: minted.key, info: keyInfo(r.records[0]!) }
  }

  /** The team's keys (revoked ones within the retention), oldest first. */
  async listKeys(teamId: string, budget?: WaitBudget): Promise<KeyInfo[]> {
    const raw = await this.store.reads(budget).auth.credentials(teamId, 'keys')
    return raw
      .map((b) => decode(b) as StoredCredential)
      .filter((r) => this.listed(r))
      .map(keyInfo)
      .sort(byCreation)
  }

  /** One page of listKeys: at most `limit` keys after the key `after` (a keyId). */
  async pageKeys(
    teamId: string,
    page: { limit: number; after?: string | undefined },
    budget?: WaitBudget,
  ): Promise<KeyPage> {
    const all = await this.listKeys(teamId, budget)
    let start = 0
    if (page.after !== undefined) {
      const at = all.findIndex((k) => k.keyId === page.after)
      if (at < 0)
        throw new AppError(
          'invalid_request',
          `after: no key ${page.after} in this team's list (revoked past the retention, or never one of its keys)`,
          { field: 'after' },
        )
      start = at + 1
    }
    const keys = all.slice(start, start + page.limit)
    return start + page.limit < all.length ? { keys, next: keys.at(-1)!.keyId } : { keys }
  }

  /**
   * Revokes a team key, on every node within a second. `onlyOf`: a user id; the key must be one
   * that person minted (a member revoking their own), else forbidden and nothing changes.
   */
  async revokeKey(teamId: string, keyId: string, onlyOf?: string, budget?: WaitBudget): Promise<{ info: KeyInfo }> {
    const k = this.store.keys.team(teamId)
    const r = await this.store
      .run('revokeKey', [k.team, k.keys, k.secrets], ['k', keyId, '', this.retentionMs, onlyOf ?? ''], budget)
      .catch(othersKey)
    await this.announce(r.hash)
    return { info: keyInfo(r.record) }
  }

  /**
   * Revokes every live team key and room invite key a person minted, when they leave the team
   * (removed by the owner, or deleting their account): in one script (revokeMemberKeys-5.lua),
   * each announced like any revocation, so their open streams and parked waits end on every node.
   * The team's last live key goes too: the owner mints another on the dashboard. The caller
   * records each revocation in the audit trail. Keys minted before the minter was recorded name
   * nobody and stay (docs/accounts.md). `only: 'admin'`: only their team keys with the admin scope,
   * when their role is lowered to member (who may hold none). `disableWebhooks`: the reason kept
   * by each of their webhooks, disabled in the same script (theirs: registered by them, with a key
   * they minted, or re-enabled by them; docs/webhooks.md); omitted, their webhooks stay.
   */
  async revokeMemberKeys(
    teamId: string,
    userId: string,
    only: 'admin' | '' = '',
    disableWebhooks = '',
  ): Promise<{ keys: KeyInfo[]; invites: InviteInfo[]; webhooks: DisabledWebhook[] }> {
    const k = this.store.keys.team(teamId)
    const r = await this.store.run(
      'revokeMemberKeys',
      [k.team, k.keys, k.invites, k.secrets, this.store.keys.webhooks(teamId).hooks],
      [userId, this.retentionMs, only, disableWebhooks],
    )
    await Promise.all(listOf(r.hashes).map((h) => this.announce(h)))
    return {
      keys: listOf(r.keys).map(keyInfo),
      invites: listOf(r.invites).map(inviteInfo),
      webhooks: listOf(r.webhooks).map((w) => ({ webhookId: w.id, url: w.url, reason: w.disabled_reason })),
    }
  }

  /** Mints a room invite key for one room of the team; the room must exist. */
  async mintInvite(
    teamId: string,
    roomId: string,
    input: unknown,
    by?: Minter,
    budget?: WaitBudget,
  ): Promise<{ key: string; info: InviteInfo }> {
    return (await this.mintInvites(teamId, roomId, [input], by, budget))[0]!
  }

  /**
   * Mints one room invite key per input (each `{label?}`), all or none: when they would not all
   * fit under the room's limit, or any input is bad, none is minted (one script), so a caller
   * that fails never leaves keys behind that nobody was shown.
   */
  async mintInvites(
    teamId: string,
    roomId: string,
    inputs: unknown[],
    by?: Minter,
    budget?: WaitBudget,
  ): Promise<{ key: string; info: InviteInfo }[]> {
    const asked = inputs.map((input) => parse(teamSchemas.invite, input))
    parse(z.object({ roomId: roomIdField }), { roomId })
    if (asked.length === 0) return []
    const k = this.store.keys.team(teamId)
    const minted = asked.map(({ label, access, agentId }) => {
      const m = mintKey('room', teamId)
      const rec = {
        id: newId('inv'),
        hash: m.hash,
        hint: m.hint,
        label,
        room_id: roomId,
        scope: 'agent',
        access,
        agent_id: agentId,
      }
      return { key: m.key, rec }
    })
    const r = await this.store.run(
      'mintKey',
      [k.team, k.invites, k.secrets, k.keys],
      ['i', pack(minted.map((m) => m.rec)), INVITES_PER_ROOM, this.retentionMs, minterArg(by)],
      budget,
    )
    return minted.map((m, i) => ({ key: m.key, info: inviteInfo(r.records[i]!) }))
  }

  /**
   * A room's invite keys (revoked ones within the retention), oldest first; without `roomId`, every
   * room's, by room.
   */
  async listInvites(teamId: string, roomId?: string, budget?: WaitBudget): Promise<InviteInfo[]> {
    const raw = await this.store.reads(budget).auth.credentials(teamId, 'invites')
    const all = raw
      .map((b) => decode(b) as StoredCredential)
      .filter((r) => (roomId === undefined || r.room_id === roomId) && this.listed(r))
      .map(inviteInfo)
      .sort(byCreation)
    return roomId === undefined ? all.sort((a, b) => (a.roomId < b.roomId ? -1 : a.roomId > b.roomId ? 1 : 0)) : all
  }

  /** Revokes a room invite key, on every node within a second; `onlyOf` as in revokeKey. */
  async revokeInvite(
    teamId: string,
    roomId: string,
    tokenId: string,
    onlyOf?: string,
    budget?: WaitBudget,
  ): Promise<{ info: InviteInfo }> {
    const k = this.store.keys.team(teamId)
    const r = await this.store
      .run('revokeKey', [k.team, k.invites, k.secrets], ['i', tokenId, roomId, this.retentionMs, onlyOf ?? ''], budget)
      .catch(othersKey)
    await this.announce(r.hash)
    return { info: inviteInfo(r.record) }
  }

  /**
   * The team's side of deleting a room, in one script (lua/dropRoom-5.lua): the room leaves the
   * team's index, every room invite key of it is deleted, each live one announced like any
   * revocation (open streams and parked waits end on every node), and the webhooks forget it.
   * Returns the token ids of the invite keys deleted, and how many of them were live.
   */
  async dropRoom(teamId: string, roomId: string): Promise<{ invites: string[]; live: number }> {
    const k = this.store.keys.team(teamId)
    const w = this.store.keys.webhooks(teamId)
    const r = await this.store.run('dropRoom', [k.invites, k.secrets, k.rooms, w.positions, w.hinted], [roomId])
    const hashes = listOf(r.hashes)
    await Promise.all(hashes.map((h) => this.announce(h)))
    return { invites: listOf(r.invites), live: hashes.length }
  }

  /**
   * The end of a team, when its last member (the owner) deletes the account: every team key and
   * room invite key is revoked at once and announced like any revocation, then every key of the
   * team, its rooms, webhooks and pending deliveries is removed (src/store/purge.ts). What a
   * search engine keeps outside Redis (Meilisearch documents) is removed before any of this, by
   * the caller (SearchEngine.dropTeam), so that an unreachable search index stops the deletion
   * before anything changed.
   */
  async deleteTeam(teamId: string): Promise<{ revoked: number; rooms: number }> {
    const k = this.store.keys.team(teamId)
    const r = await this.store.run('revokeTeam', [k.team, k.keys, k.invites, k.secrets], [])
    const hashes = r.hashes
    await Promise.all(hashes.map((h) => this.announce(h)))
    const { rooms } = await purgeTeam(this.store, teamId)
    return { revoked: hashes.length, rooms }
  }

  /** The team's id check used by operator tools. */
  async requireTeam(teamId: string, budget?: WaitBudget): Promise<Team> {
    const t = await this.get(teamId, budget)
    if (!t) throw new AppError('not_found', `team ${teamId} does not exist`, { field: 'teamId' })
    return t
  }
}

/** Oldest first; ids break ties (two keys minted in the same ms), so pages are stable. */
const byCreation = (
  a: { createdAt: string; keyId?: string; tokenId?: string },
  b: { createdAt: string; keyId?: string; tokenId?: string },
) => {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1
  const [x, y] = [a.keyId ?? a.tokenId ?? '', b.keyId ?? b.tokenId ?? '']
  return x < y ? -1 : x > y ? 1 : 0
}
