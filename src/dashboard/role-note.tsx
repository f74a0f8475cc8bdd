// What the signed-in person's role lets them do on a page, in one or two sentences built from the
// one role table (src/auth/permissions.ts), as the team page's table explains the roles: what they
// can do here, then which roles can do the rest. Each page names the actions that matter on it.
import { ROLES, roleMay, rolesFor, type Action, type Role } from '../auth/permissions.js'

/** A page's actions, each with what it lets a person do there. */
export type RoleRows = readonly (readonly [Action, string])[]

/** The rooms page: the team's rooms as a whole. */
export const ROOMS_ROLE_ROWS: RoleRows = [
  ['room.read', 'open every room of the team and the inbox'],
  ['room.write', 'create rooms and act in them'],
  ['keys.own', 'give agents room invite keys'],
  ['rooms.manage', 'archive, restore or delete rooms'],
]

/** The room page: this one room. */
export const ROOM_ROLE_ROWS: RoleRows = [
  ['room.read', 'read and search this room'],
  ['room.write', 'act in it (post, answer, decide reviews, edit tasks and context, connect agents)'],
  ['rooms.manage', 'archive, restore or delete it'],
]

const PLURAL: Record<Role, string> = { owner: 'owners', admin: 'admins', member: 'members', viewer: 'viewers' }
const ARTICLE: Record<Role, string> = { owner: 'an owner', admin: 'an admin', member: 'a member', viewer: 'a viewer' }

const and = (xs: readonly string[]) =>
  xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]!}`
/** What one can do, each item a phrase that may hold "and" itself: the last after a comma. */
const items = (xs: readonly string[]) =>
  xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')}, and ${xs[xs.length - 1]!}`

/** The note as text: "You are a member: you can …. Owners and admins can …." */
export function roleNote(role: Role, rows: RoleRows): string {
  const mine = rows.filter(([a]) => roleMay(role, a)).map(([, text]) => text)
  // The rest, grouped by the roles that may: one clause per group, in the table's order.
  const groups = new Map<string, string[]>()
  for (const [action, text] of rows) {
    if (roleMay(role, action)) continue
    const who = and(ROLES.filter((r) => rolesFor(action).includes(r)).map((r) => PLURAL[r]))
    groups.set(who, [...(groups.get(who) ?? []), text])
  }
  const first = mine.length > 0 ? `You are ${ARTICLE[role]}: you can ${items(mine)}.` : `You are ${ARTICLE[role]}.`
  if (groups.size === 0) return first
  const rest = [...groups].map(([who, texts]) => `${who} can ${items(texts)}`).join('; ')
  return `${first} ${rest.charAt(0).toUpperCase()}${rest.slice(1)}.`
}

/** The note on a page, with a link to the team page's table of every role. */
export function RoleNote(props: { role: Role; rows: RoleRows }) {
  return (
    <p class="small muted role-note">
      {roleNote(props.role, props.rows)} <a href="/team#roles">What each role may do</a>
    </p>
  )
}
