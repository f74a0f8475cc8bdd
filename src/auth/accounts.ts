// People, their teams and how they get in (docs/accounts.md): the waitlist, invites, single-use
// link tokens and browser sessions. Everything lives in the accounts directory (one hash tag,
// src/store/keys.ts accounts()); every change is one script (lua/, the scripts whose header takes
// KEYS[accounts]). Secrets (link and session tokens) are minted here, handed out once and stored
// only as SHA-256 hashes.
import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import { newId } from '../shared/ids.js'
import { iso } from '../shared/time.js'
import { parse } from '../shared/validate.js'
import type { StoredInvite, StoredUser, StoredWaitlistEntry } from '../store/records.js'
import type { SessionArgs } from '../store/script-map/index.js'
import { dropCredentialRate } from '../store/purge.js'
import type { Store } from '../store/store.js'
import { decode, encode } from '../shared/msgpack.js'
import { rolesFor, type Role } from './permissions.js'
import { hashKey } from './secrets.js'
import type { WaitBudget } from '../shared/wait-budget.js'

export type { Role } from './permissions.js'

export interface User {
  id: string
  email: string
  name: string
  team: string
  role: Role
  createdAt: string
  lastSignInAt?: string
}

export interface Invite {
  id: string
  email: string
  team: string
  role: Role
  newTeam: boolean
  by: string
  state: 'pending' | 'accepted' | 'revoked' | 'expired'
  createdAt: string
  expiresAt: string
}

export interface WaitlistEntry {
  email: string
  note: string
  at: string
  state: 'pending' | 'approved' | 'declined'
  decidedAt?: string
}

/** A link or session secret: 32 base64url characters (192 random bits). */
export function newSecret(): { secret: string; hash: string } {
  const secret = randomBytes(24).toString('base64url')
  return { secret, hash: hashKey(secret) }
}

/** Only the shape of a secret is accepted before hashing, so junk never reaches Redis. */
/** How long a printed first-owner link works (at first start of a development node, or `team owner-link`). */
export const OWNER_LINK_TTL_MS = 60 * 60_000

export const SECRET_SHAPE = /^[A-Za-z0-9_-]{32}$/

export const email = z
  .string()
  .trim()
  .max(254, 'must be at most 254 characters')
  .regex(
    /^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$|^[^\s@<>",;]+@localhost$/,
    'must be an e-mail address like name@example.com',
  )
  .transform((v) => v.toLowerCase())

export const accountSchemas = {
  signIn: z.object({ email }),
  waitlist: z.object({ email, note: z.string().max(500, 'must be at most 500 characters').default('') }),
  invite: z.object({ email }),
}

function toUser(u: StoredUser): User {
  const out: User = { id: u.id, email: u.email, name: u.name, team: u.team, role: u.role, createdAt: iso(u.created_at) }
  if (u.last_sign_in_at) out.lastSignInAt = iso(u.last_sign_in_at)
  return out
}

function toInvite(i: StoredInvite, now = Date.now()): Invite {
  const state = i.state === 'pending' && i.expires_at <= now ? 'expired' : i.state
  return {
    id: i.id,
    email: i.email,
    team: i.team,
    role: i.role,
    newTeam: i.new_team,
    by: i.by,
    state,
    createdAt: iso(i.created_at),
    expiresAt: iso(i.expires_at),
  }
}

const pack = (v: unknown) => Buffer.from(encode(v))

/** The result of following a link: the person, their new session token, and whether a team must be created. */
export interface SignedIn {
  user: User
  session: string
  newUser: boolean
  createdTeam: boolean
}

/** The settings accounts read (src/config.ts has them all, with their environment names). */
export interface AccountSettings {
  /** Operators (ADMIN_EMAILS), lower case; the first owns the default team. */
  adminEmails: readonly string[]
  sessionIdleMs: number
  sessionMaxMs: number
  signInLinkTtlMs: number
  inviteTtlMs: number
  limitPendingInvites: number
  limitWaitlist: number
  /** Providers ("github", "oidc") whose verified e-mail address may link an account (AUTH_LINK_BY_EMAIL). */
  authLinkByEmail: readonly string[]
}

export class Accounts {
  constructor(
    private readonly store: Store,
    private readonly settings: AccountSettings,
  ) {}

  isOperator(address: string): boolean {
    return this.settings.adminEmails.includes(address.toLowerCase())
  }

  /**
   * A sign-in link token for `address` when it may sign in (an account, an approved waitlist
   * entry, an operator); undefined otherwise. The caller answers alike in both cases.
   */
  async requestSignIn(address: string): Promise<string | undefined> {
    const t = newSecret()
    const r = await this.store.account('requestSignIn', [
      address,
      this.isOperator(address) ? '1' : '0',
      t.hash,
      this.settings.signInLinkTtlMs,
    ])
    return r.issued ? t.secret : undefined
  }

  /** Consumes a link token and opens a session; ends `previousSession` (rotation). */
  async consume(token: string, previousSession?: string): Promise<SignedIn> {
    const hash = SECRET_SHAPE.test(token) ? hashKey(token) : 'malformed'
    const address = await this.tokenEmail(hash)
    return this.openSession(address ?? '', '', previousSession, (session) =>
      this.store.account('consumeToken', [hash, ...session]),
    )
  }

  /**
   * Runs a sign-in script (`open`) with what every one takes after its own head: the new session's
   * hash, its lifetimes, whether the address is an operator's, ids for a new person and team, a
   * display name, the session to end.
   */
  private async openSession(
    address: string,
    name: string,
    previousSession: string | undefined,
    open: (session: SessionArgs) => Promise<{ user: StoredUser; new_user: boolean; created_team: boolean }>,
  ): Promise<SignedIn> {
    const s = newSecret()
    const prev = previousSession && SECRET_SHAPE.test(previousSession) ? hashKey(previousSession) : ''
    const r = await open([
      s.hash,
      this.settings.sessionIdleMs,
      this.settings.sessionMaxMs,
      address && this.isOperator(address) ? '1' : '0',
      newId('usr'),
      newId('tm', 10, '-'),
      (name || address.split('@')[0] || 'user').slice(0, 100),
      prev,
    ])
    return { user: toUser(r.user), session: s.secret, newUser: r.new_user, createdTeam: r.created_team }
  }

  /** The address a live token was issued for (to tell operators apart before consuming). */
  private async tokenEmail(hash: string): Promise<string | undefined> {
    const raw = await this.store.auth.linkToken(hash)
    if (!raw) return undefined
    return (decode(raw) as { email?: string }).email
  }

  /**
   * Signs in with a provider identity (`ident` = "<provider>:<subject>"); `verifiedEmail` is the
   * provider's verified address or undefined. A new identity links to the person signed in on the
   * browser (`previousSession`), else through that address when the provider is trusted for it.
   */
  async signInIdentity(
    ident: string,
    verifiedEmail: string | undefined,
    name: string,
    previousSession?: string,
  ): Promise<SignedIn> {
    const address = verifiedEmail?.toLowerCase() ?? ''
    const provider = ident.slice(0, ident.indexOf(':'))
    const trusted = this.settings.authLinkByEmail.includes(provider) ? '1' : '0'
    return this.openSession(address, name, previousSession, (session) =>
      this.store.account('signInIdentity', [ident, address, ...session, trusted]),
    )
  }

  /** Whether a link token is live (the "Continue" page shows a clear error for a dead one). */
  async tokenLive(token: string): Promise<boolean> {
    if (!SECRET_SHAPE.test(token)) return false
    const raw = await this.store.auth.linkToken(hashKey(token))
    if (!raw) return false
    return (decode(raw) as { exp: number }).exp > Date.now()
  }

  /** The person behind a session token, or undefined when it is not live. */
  async session(token: string | undefined): Promise<User | undefined> {
    if (!token || !SECRET_SHAPE.test(token)) return undefined
    const r = await this.store.account('readSession', [hashKey(token), this.settings.sessionIdleMs, 60_000])
    return r.user ? toUser(r.user) : undefined
  }

  /**
   * The person behind a session token if it is still live, without moving its idle deadline: for
   * long-lived requests (the dashboard's live stream) that check again while the page stays open.
   */
  async stillSignedIn(token: string | undefined): Promise<User | undefined> {
    if (!token || !SECRET_SHAPE.test(token)) return undefined
    const r = await this.store.account('readSession', [
      hashKey(token),
      this.settings.sessionIdleMs,
      Number.MAX_SAFE_INTEGER,
    ])
    return r.user ? toUser(r.user) : undefined
  }

  async endSession(token: string | undefined): Promise<boolean> {
    if (!token || !SECRET_SHAPE.test(token)) return false
    const r = await this.store.account('endSession', [hashKey(token)])
    return r.ended
  }

  async joinWaitlist(input: unknown): Promise<void> {
    const v = parse(accountSchemas.waitlist, input)
    await this.store.account('joinWaitlist', [v.email, v.note.trim(), this.settings.limitWaitlist])
  }

  async waitlist(): Promise<WaitlistEntry[]> {
    const raw = await this.store.auth.waitlist()
    return raw
      .map((b) => decode(b) as StoredWaitlistEntry)
      .map((e) => {
        const out: WaitlistEntry = { email: e.email, note: e.note, at: iso(e.at), state: e.state }
        if (e.decided_at) out.decidedAt = iso(e.decided_at)
        return out
      })
      .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
  }

  /** Approves (returns the sign-in link token to mail) or declines a waitlist entry. */
  async decideWaitlist(
    address: string,
    decision: 'approve' | 'decline',
  ): Promise<{ entry: WaitlistEntry; token?: string }> {
    const v = parse(accountSchemas.signIn, { email: address })
    const t = newSecret()
    const r = await this.store.account('decideWaitlist', [v.email, decision, t.hash, this.settings.signInLinkTtlMs])
    const e = r.entry
    const entry: WaitlistEntry = {
      email: e.email,
      note: e.note,
      at: iso(e.at),
      state: e.state,
      decidedAt: iso(e.decided_at),
    }
    return decision === 'approve' ? { entry, token: t.secret } : { entry }
  }

  /**
   * An invite with its link token (shown or mailed once). `by` is the inviting owner's user id,
   * or undefined for an operator; `team` undefined with an operator means a new team.
   */
  async invite(
    input: unknown,
    opts: { by?: User; team?: string; role?: Role; ttlMs?: number },
  ): Promise<{ invite: Invite; token: string }> {
    const v = parse(accountSchemas.invite, input)
    const t = newSecret()
    const newTeam = opts.by === undefined && opts.team === undefined
    const rec = {
      id: newId('minv'),
      email: v.email,
      team: opts.by?.team ?? opts.team ?? newId('tm', 10, '-'),
      role: opts.by ? 'member' : (opts.role ?? 'owner'),
      new_team: newTeam,
      by: opts.by ? opts.by.id : 'operator',
    }
    const r = await this.store.account('createInvite', [
      pack(rec),
      t.hash,
      opts.ttlMs ?? this.settings.inviteTtlMs,
      opts.by?.id ?? '',
      this.settings.limitPendingInvites,
      rolesFor('members.manage').join(','),
    ])
    return { invite: toInvite(r.invite), token: t.secret }
  }

  /**
   * The first start's invite: the default team's owner (the first ADMIN_EMAILS address, or
   * owner@localhost) joins `team` as its owner through a one-time link, valid as long as an invite.
   */
  /**
   * An invite of the team's first owner (the first ADMIN_EMAILS address, or owner@localhost), whose
   * link works once within OWNER_LINK_TTL_MS: it is printed, never mailed.
   */
  async inviteFirstOwner(team: string): Promise<{ invite: Invite; email: string; token: string }> {
    const email = this.settings.adminEmails[0] ?? 'owner@localhost'
    const r = await this.invite({ email }, { team, role: 'owner', ttlMs: OWNER_LINK_TTL_MS })
    return { ...r, email }
  }

  async revokeInvite(inviteId: string, team: string | undefined): Promise<Invite> {
    const r = await this.store.account('revokeInvite', [inviteId, team ?? ''])
    return toInvite(r.invite)
  }

  /**
   * The e-mail address of each of these people (user ids) that still has an account, in one read
   * (a listing names who minted each key by it); `budget`: the calling request's time waiting for
   * Redis (src/shared/wait-budget.ts).
   */
  async emails(ids: Iterable<string>, budget?: WaitBudget): Promise<Map<string, string>> {
    const unique = [...new Set(ids)]
    const rows = await this.store.reads(budget).auth.users(unique)
    const out = new Map<string, string>()
    rows.forEach((raw, i) => {
      if (raw) out.set(unique[i]!, (decode(raw) as StoredUser).email)
    })
    return out
  }

  async people(team: string): Promise<{ members: User[]; invites: Invite[] }> {
    const r = await this.store.account('readTeamPeople', [team])
    const members = r.members.map(toUser).sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1))
    const invites = r.invites.map((i) => toInvite(i)).sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1))
    return { members, invites }
  }

  /**
   * Deletes a person (`remover`: the owner removing a member; undefined: themselves). `last` is
   * true when nobody of the team remains: the caller then removes the team (Teams.deleteTeam).
   */
  async deleteUser(userId: string, remover?: User): Promise<{ user: User; last: boolean }> {
    const r = await this.store.account('deleteUser', [
      userId,
      remover?.id ?? '',
      rolesFor('members.manage').join(','),
      rolesFor('members.roles').join(','),
    ])
    const user = toUser(r.user)
    // The person's own rate window (their dashboard actions) names them: it goes with them.
    await dropCredentialRate(this.store, user.team, `user:${user.id}`)
    return { user, last: r.last }
  }

  /** Changes a person's role (`by`: who changes it, of the same team); the team keeps an owner. */
  async setRole(userId: string, role: string, by: User): Promise<User> {
    const r = await this.store.account('setRole', [userId, role, by.id, rolesFor('members.roles').join(',')])
    return toUser(r.user)
  }
}
