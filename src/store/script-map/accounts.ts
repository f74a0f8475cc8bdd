// The account scripts (Store.account): each takes the accounts directory as its keys
// (KEYS[accounts] in its header: ACCOUNT_KEYS, lua/includes/acctKeys.lua); here its arguments
// (ARGV[1..]) and reply. Checked against each script's header by test/unit/script-map.test.ts.
import type { StoredInvite, StoredUser, StoredWaitlistEntry } from '../records.js'

/** What every sign-in script takes after its own head: the new session, and who a new person would be. */
export type SessionArgs = [
  sessionHash: string,
  idleMs: number,
  maxMs: number,
  operator: '0' | '1',
  newUserId: string,
  newTeamId: string,
  name: string,
  previousSession: string,
]

type SignedIn = { user: StoredUser; new_user: boolean; created_team: boolean }

export interface AccountScripts {
  consumeToken: { args: [tokenHash: string, ...session: SessionArgs]; reply: SignedIn }
  createInvite: {
    args: [invite: Buffer, tokenHash: string, ttlMs: number, by: string, limit: number, roles: string]
    reply: { invite: StoredInvite }
  }
  decideWaitlist: {
    args: [email: string, decision: 'approve' | 'decline', tokenHash: string, ttlMs: number]
    reply: { entry: StoredWaitlistEntry & { decided_at: number } }
  }
  deleteUser: {
    args: [userId: string, remover: string, removeRoles: string, removeOwnerRoles: string]
    reply: { user: StoredUser; last: boolean }
  }
  endSession: { args: [sessionHash: string]; reply: { ended: boolean } }
  joinWaitlist: { args: [email: string, note: string, limit: number]; reply: { ok: true } }
  readSession: {
    args: [sessionHash: string, idleMs: number, moveEveryMs: number]
    reply: { user?: StoredUser; session?: { created_at: number; abs: number } }
  }
  readTeamPeople: { args: [teamId: string]; reply: { members: StoredUser[]; invites: StoredInvite[] } }
  requestSignIn: {
    args: [email: string, operator: '0' | '1', tokenHash: string, ttlMs: number]
    reply: { issued: boolean }
  }
  revokeInvite: { args: [inviteId: string, teamId: string]; reply: { invite: StoredInvite } }
  setRole: { args: [userId: string, role: string, by: string, roles: string]; reply: { user: StoredUser } }
  signInIdentity: {
    args: [ident: string, email: string, ...rest: [...SessionArgs, trustedForEmail: '0' | '1']]
    reply: SignedIn & { linked: boolean }
  }
}
