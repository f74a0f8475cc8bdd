// Connected agents: what a person granted an OAuth client on the dashboard's consent page (the
// team, one room or all of them, the agent id, read-only or read and write). A grant is the
// credential of every access and refresh token issued under it; revoking it deletes them all and
// is announced like a key revocation, so open streams and parked waits of its tokens end on
// every node. A grant's id starts with its team id ("<team>.<random>"): a token names its grant,
// and so the team whose record to read, without another lookup.
import { randomBytes } from 'node:crypto'
import type { Store } from '../store/store.js'
import type { AnnounceRevocation } from './keyring.js'
import type { GrantAccess, GrantPrincipal } from './principal.js'

/** A connected agent as the Keys page lists it. */
export interface GrantInfo {
  id: string
  team_id: string
  /** The person who consented. */
  user_id: string
  client_id: string
  client_name: string
  /** The host the client's redirect went to (what the person was shown). */
  redirect_host: string
  /** The one room, or undefined for every room of the team. */
  room_id?: string
  agent_id: string
  access: GrantAccess
  created_at: string
  /** When its tokens were last used (to the minute). */
  last_used_at?: string
  revoked_at?: string
}

/** How often a grant's last use is written (per node): a listing shows it to the minute. */
const TOUCH_EVERY_MS = 60_000

/** The revocation notice of a grant (the keyring's control message carries it as a hash). */
export const grantRevocationTag = (grantId: string) => `grant:${grantId}`

export class Grants {
  private readonly touched = new Map<string, number>()

  constructor(
    private readonly store: Store,
    private readonly announce: AnnounceRevocation,
  ) {}

  /** A new grant id for `teamId`. */
  static newId(teamId: string): string {
    return `${teamId}.${randomBytes(12).toString('base64url')}`
  }

  /** The team a grant id belongs to, or undefined for an id not made by newId. */
  static teamOf(grantId: string): string | undefined {
    const dot = grantId.lastIndexOf('.')
    return dot > 0 ? grantId.slice(0, dot) : undefined
  }

  async create(info: Omit<GrantInfo, 'created_at'>): Promise<GrantInfo> {
    const record: GrantInfo = { ...info, created_at: new Date().toISOString() }
    await this.store.oauth.putGrant(info.team_id, info.id, JSON.stringify(record))
    return record
  }

  async get(grantId: string): Promise<GrantInfo | undefined> {
    const teamId = Grants.teamOf(grantId)
    if (teamId === undefined) return undefined
    const raw = await this.store.oauth.grant(teamId, grantId)
    return raw === undefined ? undefined : (JSON.parse(raw) as GrantInfo)
  }

  /** The team's connected agents, newest first, revoked ones included. */
  async list(teamId: string): Promise<GrantInfo[]> {
    const [records, uses] = await Promise.all([this.store.oauth.grants(teamId), this.store.oauth.grantUses(teamId)])
    const all = records.map((r) => {
      const g = JSON.parse(r) as GrantInfo
      const used = uses[g.id]
      return used === undefined ? g : { ...g, last_used_at: new Date(Number(used)).toISOString() }
    })
    return all.sort((a, b) => b.created_at.localeCompare(a.created_at))
  }

  /** Who a live grant's tokens act as, or undefined when it is revoked or gone. */
  async principal(grantId: string): Promise<GrantPrincipal | undefined> {
    const g = await this.get(grantId)
    if (!g || g.revoked_at !== undefined) return undefined
    return {
      kind: 'grant',
      teamId: g.team_id,
      roomId: g.room_id,
      grantId: g.id,
      agentId: g.agent_id,
      access: g.access,
      scope: 'agent',
      by: g.user_id,
      label: g.client_name,
    }
  }

  /**
   * Revokes a grant: marks it, deletes its codes and tokens, and announces it. Returns the
   * record, or undefined when the team has no such grant; revoking twice changes nothing more.
   */
  async revoke(teamId: string, grantId: string): Promise<GrantInfo | undefined> {
    if (Grants.teamOf(grantId) !== teamId) return undefined
    const g = await this.get(grantId)
    if (!g) return undefined
    if (g.revoked_at === undefined) {
      g.revoked_at = new Date().toISOString()
      await this.store.oauth.putGrant(teamId, grantId, JSON.stringify(g))
    }
    await this.store.oauth.revokeByGrant(grantId)
    await this.store.oauth.destroy('Grant', grantId)
    await this.announce(grantRevocationTag(grantId))
    return g
  }

  /** Records a use of the grant, at most once a minute per node; never fails the call it came with. */
  touch(p: GrantPrincipal): void {
    const now = Date.now()
    const last = this.touched.get(p.grantId)
    if (last !== undefined && last + TOUCH_EVERY_MS > now) return
    if (this.touched.size > 10_000) this.touched.clear()
    this.touched.set(p.grantId, now)
    this.store.oauth.touchGrant(p.teamId, p.grantId, now).catch(() => undefined)
  }
}
