// Who may do what: the one table of people's roles and credentials' scopes against actions. The
// admin API, the MCP runner and the dashboard's pages ask here, and so do the account scripts
// that check a role atomically (they are handed rolesFor(action)). Every refusal is `forbidden`
// and names the role, scope or access the action needs and what the caller has.
import { AppError } from '../shared/errors.js'
import type { Access, Principal, Scope } from './principal.js'

/** People's roles in their team, most powerful first. */
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const
export type Role = (typeof ROLES)[number]

/** What a person or a credential does. */
export type Action =
  /** Open a room: MCP tools that only read, the stream, the snapshot, search. */
  | 'room.read'
  /** MCP tools that write (not annotated readOnlyHint), creating rooms. */
  | 'room.write'
  /** Read the admin API: the team, rooms and stats, key listings, the audit trail, webhooks. */
  | 'admin.read'
  /** Mint a key or room invite key of one's own with the agent scope; revoke one's own. */
  | 'keys.own'
  /** Mint a key with the admin scope. */
  | 'keys.admin'
  /** Revoke keys and room invite keys others minted. */
  | 'keys.others'
  /** Invite people, revoke invites, remove members (not owners). */
  | 'members.manage'
  /** Change people's roles, remove an owner. */
  | 'members.roles'
  /** Register, change, rotate, test, replay, re-enable or delete webhooks. */
  | 'webhooks.manage'
  /** Rename or delete the team. */
  | 'team.manage'
  /** Archive, restore or delete a room. */
  | 'rooms.manage'

interface Rule {
  /** The roles of people who may. */
  roles: readonly Role[]
  /** The scopes of credentials that may (none: no credential may, only people). */
  scopes: readonly Scope[]
  /** The access a credential needs. */
  access: Access
  /** How a refusal names the action. */
  what: string
}

/** The table. A test walks it on the API and on the pages (test/integration/permissions.test.ts). */
export const PERMISSIONS: Readonly<Record<Action, Rule>> = {
  'room.read': {
    roles: ['owner', 'admin', 'member', 'viewer'],
    scopes: ['admin', 'agent'],
    access: 'read',
    what: 'reading a room',
  },
  'room.write': {
    roles: ['owner', 'admin', 'member'],
    scopes: ['admin', 'agent'],
    access: 'write',
    what: 'writing to a room',
  },
  'admin.read': {
    roles: ['owner', 'admin', 'member', 'viewer'],
    scopes: ['admin'],
    access: 'read',
    what: 'the admin API',
  },
  'keys.own': {
    roles: ['owner', 'admin', 'member'],
    scopes: ['admin'],
    access: 'write',
    what: 'minting or revoking keys',
  },
  'keys.admin': { roles: ['owner', 'admin'], scopes: ['admin'], access: 'write', what: 'a key with the admin scope' },
  'keys.others': {
    roles: ['owner', 'admin'],
    scopes: ['admin'],
    access: 'write',
    what: "revoking another person's key",
  },
  'members.manage': {
    roles: ['owner', 'admin'],
    scopes: [],
    access: 'write',
    what: 'inviting or removing members',
  },
  'members.roles': { roles: ['owner'], scopes: [], access: 'write', what: "changing people's roles" },
  'webhooks.manage': {
    roles: ['owner', 'admin'],
    scopes: ['admin'],
    access: 'write',
    what: 'changing webhooks',
  },
  'team.manage': { roles: ['owner'], scopes: [], access: 'write', what: 'renaming or deleting the team' },
  'rooms.manage': {
    roles: ['owner', 'admin'],
    scopes: ['admin'],
    access: 'write',
    what: 'archiving, restoring or deleting a room',
  },
}

const or = (xs: readonly string[]) =>
  xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]!}`

/** The roles that may do `action` (the account scripts get this list, so they check the same table). */
export const rolesFor = (action: Action): readonly Role[] => PERMISSIONS[action].roles

/** Whether a person of `role` may do `action`. */
export const roleMay = (role: Role, action: Action): boolean => PERMISSIONS[action].roles.includes(role)

/** The refusal of `action` to a person of `role` (or of an unknown role): names the roles it needs. */
export function roleRefusal(action: Action, role?: Role, why?: string): AppError {
  const rule = PERMISSIONS[action]
  const start = why ? `${why}; ` : ''
  return new AppError(
    'forbidden',
    `${start}${rule.what} needs the role ${or(rule.roles)}${role ? `; you are ${role}` : ''}`,
    { needs: { roles: [...rule.roles] }, ...(role ? { role } : {}) },
  )
}

/** Throws forbidden, naming the roles `action` needs, unless a person of `role` may do it. */
export function requireRole(role: Role, action: Action): void {
  if (!roleMay(role, action)) throw roleRefusal(action, role)
}

/** Whether a credential of this scope and access may do `action`. */
export function scopeMay(p: Pick<Principal, 'scope' | 'access'>, action: Action): boolean {
  const rule = PERMISSIONS[action]
  return rule.scopes.includes(p.scope) && (rule.access === 'read' || p.access === 'write')
}

/** Throws forbidden, naming the scope or access `action` needs, unless the credential may do it. */
export function requireScope(p: Principal, action: Action): void {
  if (scopeMay(p, action)) return
  const rule = PERMISSIONS[action]
  const kind = p.kind === 'team' ? 'this key' : p.kind === 'grant' ? 'this connected agent' : 'this room invite key'
  if (rule.scopes.length === 0)
    throw new AppError(
      'forbidden',
      `${rule.what} is for people: sign in to the dashboard with the role ${or(rule.roles)}`,
      {
        needs: { roles: [...rule.roles] },
      },
    )
  if (!rule.scopes.includes(p.scope))
    throw new AppError(
      'forbidden',
      `${rule.what} needs a key with the ${or(rule.scopes)} scope; ${kind} has the ${p.scope} scope`,
      { needs: { scopes: [...rule.scopes] }, scope: p.scope },
    )
  throw new AppError('forbidden', `${rule.what} needs write access; ${kind} is read-only`, {
    needs: { access: rule.access },
    access: p.access,
  })
}
