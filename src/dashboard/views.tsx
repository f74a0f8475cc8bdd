// The pages of sign-in and accounts, as typed templates rendered on the server by
// preact-render-to-string: every value is escaped by the library, never by hand. No inline
// script or style (the CSP forbids both); forms post to the same origin.
import type { AuditEntry } from '../auth/audit.js'
import type { Invite, User, WaitlistEntry } from '../auth/accounts.js'
import { ROLES, roleMay, roleRefusal, type Action, type Role } from '../auth/permissions.js'
import { CONFIRM, Confirm } from './confirm.js'
import { FieldError, FormError, fieldAttrs, typed, type Kept } from './kept.js'
import { Copyable, Flash, Layout, Table, utc, type Viewer } from './layout.js'

export { page, type Viewer } from './layout.js'

export function SignInPage(props: { error?: string; email?: string; providers?: { id: string; label: string }[] }) {
  return (
    <Layout title="Sign in">
      <h1>Sign in</h1>
      <Flash error={props.error} />
      <form class="stack" method="post" action="/signin">
        <label>
          E-mail address
          <input type="email" name="email" autocomplete="email" required value={props.email ?? ''} />
        </label>
        <button type="submit">Send me a sign-in link</button>
      </form>
      {(props.providers ?? []).map((p) => (
        <p key={p.id}>
          <a href={`/auth/${p.id}`}>{`Sign in with ${p.label}`}</a>
        </p>
      ))}
      <p class="muted">
        Access is by invitation. No account yet? <a href="/waitlist">Join the waitlist</a>.
      </p>
    </Layout>
  )
}

export function CheckMailPage(props: { email: string }) {
  return (
    <Layout title="Check your mail">
      <h1>Check your mail</h1>
      <p class="notice" role="status">
        If <strong>{props.email}</strong> may sign in, a sign-in link is on its way to it. The link works once and for a
        short time.
      </p>
      <p class="muted">
        Nothing arrived? Check the spam folder, or <a href="/signin">ask again</a>. Not admitted yet?{' '}
        <a href="/waitlist">Join the waitlist</a>.
      </p>
    </Layout>
  )
}

export function ContinuePage(props: { token: string }) {
  return (
    <Layout title="Continue signing in">
      <h1>Continue signing in</h1>
      <p>Press Continue to sign in on this device.</p>
      <form class="stack" method="post" action="/signin/link">
        <input type="hidden" name="token" value={props.token} />
        <button type="submit">Continue</button>
      </form>
    </Layout>
  )
}

/** What each role may do, as the team page lists it: each row is an action of the one role table. */
const ROLE_ROWS: readonly [Action, string][] = [
  ['room.read', 'Read rooms: the room pages, search, the inbox'],
  ['room.write', 'Act in rooms: create rooms, post, answer, decide reviews, edit tasks and context'],
  ['keys.own', 'Mint agent keys and room invite keys, and revoke their own'],
  ['keys.admin', 'Mint keys of the admin scope (the HTTP admin API)'],
  ['keys.others', "Revoke other people's keys and connected agents"],
  ['webhooks.manage', 'Register, rotate, test, replay and delete webhooks'],
  ['members.manage', 'Invite people, revoke invites, remove members (not owners)'],
  ['members.roles', "Change people's roles, remove an owner"],
  ['rooms.manage', 'Archive, restore or delete rooms'],
  ['team.manage', 'Rename the team'],
]

/** The roles explained: what an owner, an admin, a member and a viewer may do; the viewer's column marked. */
export function RolesTable(props: { role: Role }) {
  return (
    <details class="small roles" id="roles">
      <summary>What each role may do (you are {props.role})</summary>
      <div class="scroll" role="region" aria-label="What each role may do (scrolls)" tabIndex={0}>
        <table class="roles">
          <caption class="visually-hidden">What each role may do</caption>
          <thead>
            <tr>
              <th scope="col">Action</th>
              {ROLES.map((r) => (
                <th scope="col" key={r} class={r === props.role ? 'you' : undefined}>
                  {r === props.role ? `${r} (you)` : r}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {ROLE_ROWS.map(([action, text]) => (
              <tr key={action}>
                <th scope="row">{text}</th>
                {ROLES.map((r) => (
                  <td key={r}>{roleMay(r, action) ? 'yes' : 'no'}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  )
}

/** Said where a control would be that the viewer's role may not use: which roles may, and theirs. */
export function NeedsRole(props: { action: Action; role: Role }) {
  const m = roleRefusal(props.action, props.role).message
  return <p class="muted small">{`${m.charAt(0).toUpperCase()}${m.slice(1)}.`}</p>
}

/**
 * Who did what in the audit trail, as a person reads it: a person by address (the entry keeps
 * `user:<id> <address>`), a credential by its kind and name ("key key_ab12").
 */
export function actorText(actor: string): string {
  const colon = actor.indexOf(':')
  const [kind, rest] = colon < 0 ? ['', actor] : [actor.slice(0, colon), actor.slice(colon + 1)]
  if (kind === 'user') return rest.slice(rest.indexOf(' ') + 1) || rest
  if (kind === 'key') return `key ${rest}`
  if (kind === 'invite') return `room invite key ${rest}`
  if (kind === 'grant') return `connected agent ${rest}`
  if (kind === 'client') return `agent client ${rest}`
  if (kind === 'address') return `address ${rest}`
  return actor
}

export function MessagePage(props: {
  title: string
  message: string
  viewer?: Viewer | undefined
  link?: { href: string; text: string }
  /** `done`: a confirmation (a notice), not a failure. */
  tone?: 'error' | 'done'
}) {
  return (
    <Layout title={props.title} viewer={props.viewer}>
      <h1>{props.title}</h1>
      {props.tone === 'done' ? (
        <p class="notice" role="status">
          {props.message}
        </p>
      ) : (
        <p class="error" role="alert">
          {props.message}
        </p>
      )}
      <p>
        <a href={props.link?.href ?? '/'}>{props.link?.text ?? 'Back'}</a>
      </p>
    </Layout>
  )
}

export function KeyOncePage(props: { viewer: Viewer; key: string; next?: string | undefined }) {
  return (
    <Layout title="Your team key" viewer={props.viewer}>
      <h1>Welcome. Here is your team key</h1>
      <p>
        Your team <strong>{props.viewer.teamName}</strong> is ready. This is its key for agents and the HTTP API. It is
        shown <strong>this once</strong>: copy it now and keep it secret. Later you see only its last four characters.
      </p>
      <Copyable id="team-key" label="Team key" text={props.key} wrap />
      {props.next ? (
        <p>
          <a href={props.next}>Continue connecting the agent</a> that sent you here.
        </p>
      ) : (
        <p>
          <a href="/">Continue to your rooms</a>: create a room there and copy each agent's configuration.
        </p>
      )}
    </Layout>
  )
}

export function HomePage(props: {
  viewer: Viewer
  members: User[]
  invites: Invite[]
  audit: AuditEntry[]
  notice?: string
  error?: string
  /** A refused rename: the form opens with the name sent and the message at its field. */
  renaming?: Kept
}) {
  const { user } = props.viewer
  const manager = roleMay(user.role, 'members.manage')
  const setsRoles = roleMay(user.role, 'members.roles')
  /** Whom the viewer may remove: not themselves; an owner only with the role that changes roles. */
  const removable = (m: User) => m.id !== user.id && (m.role !== 'owner' || setsRoles)
  return (
    <Layout title="Team" viewer={props.viewer} wide>
      <h1>Team {props.viewer.teamName}</h1>
      <Flash notice={props.notice} error={props.error} />
      {roleMay(user.role, 'team.manage') ? (
        <details class="small" open={props.renaming !== undefined}>
          <summary>Rename the team</summary>
          <form class="stack" method="post" action="/team/rename">
            <FormError kept={props.renaming} fields={['name']} />
            <label>
              New name of the team (up to 100 characters)
              <input
                type="text"
                name="name"
                required
                maxLength={100}
                value={typed(props.renaming, 'name', props.viewer.teamName)}
                autocomplete="off"
                {...fieldAttrs(props.renaming, 'name', 'rename-name')}
              />
            </label>
            <FieldError kept={props.renaming} name="name" id="rename-name" />
            <button type="submit">Rename the team</button>
          </form>
        </details>
      ) : (
        <NeedsRole action="team.manage" role={user.role} />
      )}
      <p>
        Signed in as <strong>{user.email}</strong>, {user.role} of team <strong>{props.viewer.teamName}</strong>.
      </p>
      <ul class="plain">
        <li>
          <a href="/team/keys">Keys</a>: team keys for agents and the HTTP API (mint, revoke), and every room's invite
          keys.
        </li>
        <li>
          <a href="/team/webhooks">Webhooks</a>: signed HTTPS deliveries of every room event, their health, tests and
          replays.
        </li>
      </ul>
      <h2>Members</h2>
      <Table
        cols={manager ? ['Address', 'Role', 'Last sign-in', 'Action'] : ['Address', 'Role', 'Last sign-in']}
        rows={props.members}
        rowKey={(m) => m.id}
        cells={(m) => [
          m.email,
          setsRoles ? (
            <form class="inline" method="post" action="/team/members/role">
              <input type="hidden" name="user" value={m.id} />
              <select name="role" aria-label={`Role of ${m.email}`}>
                {ROLES.map((r) => (
                  <option value={r} selected={r === m.role}>
                    {r}
                  </option>
                ))}
              </select>{' '}
              <button class="link" type="submit">{`Set role of ${m.email}`}</button>
            </form>
          ) : (
            m.role
          ),
          utc(m.lastSignInAt, true),
          ...(manager
            ? [
                removable(m) ? (
                  <Confirm action="/team/members/remove" confirm={CONFIRM.removeMember(m.email, props.viewer.teamName)}>
                    <input type="hidden" name="user" value={m.id} />
                  </Confirm>
                ) : null,
              ]
            : []),
        ]}
      />
      <RolesTable role={user.role} />
      {manager ? null : <NeedsRole action="members.manage" role={user.role} />}
      {manager ? (
        <>
          <h2>Invite a member</h2>
          <form class="stack" method="post" action="/team/invites">
            <label>
              E-mail address to invite
              <input type="email" name="email" required />
            </label>
            <button type="submit">Send invite</button>
          </form>
          <h2>Invites</h2>
          {props.invites.length === 0 ? (
            <p class="muted">No invites yet.</p>
          ) : (
            <Table
              cols={['Address', 'State', 'Expires', 'Action']}
              rows={props.invites}
              rowKey={(i) => i.id}
              cells={(i) => [
                i.email,
                i.state,
                utc(i.expiresAt, true),
                i.state === 'pending' ? (
                  <Confirm action="/team/invites/revoke" confirm={CONFIRM.revokeMemberInvite(i.email)}>
                    <input type="hidden" name="invite" value={i.id} />
                  </Confirm>
                ) : null,
              ]}
            />
          )}
        </>
      ) : null}
      <h2>Audit trail</h2>
      {props.audit.length === 0 ? (
        <p class="muted">Nothing recorded yet.</p>
      ) : (
        <Table
          cols={['When', 'Who', 'What']}
          rows={props.audit}
          rowKey={(a) => a.id}
          cells={(a) => [utc(a.at), actorText(a.actor), a.target ? `${a.action} ${a.target}` : a.action]}
        />
      )}
      <h2>Account</h2>
      <p>
        <a href="/account/delete">Delete my account</a>
      </p>
    </Layout>
  )
}

export function DeletePage(props: { viewer: Viewer; last: boolean; others: number; owners: number; error?: string }) {
  const { user } = props.viewer
  return (
    <Layout title="Delete account" viewer={props.viewer}>
      <h1>Delete your account</h1>
      <Flash error={props.error} />
      {user.role === 'owner' && !props.last && props.owners <= 1 ? (
        <p class="error" role="alert">
          {`You are the last owner and your team has ${props.others} other member(s). Make one of them an owner, ` +
            `or remove them, first.`}
        </p>
      ) : (
        <>
          <p>This removes, at once and for good:</p>
          <ul class="plain">
            <li>your account ({user.email}), its sign-in identities and every session;</li>
            {props.last ? (
              <>
                <li>
                  team <strong>{props.viewer.teamName}</strong>: every team key and room invite key (agents using them
                  get 401 on every node within a second, and their open streams close);
                </li>
                <li>every room of the team with its plan, context, events, presence, locks and vars;</li>
                <li>every webhook and pending delivery, every invite, and the audit trail.</li>
              </>
            ) : (
              <>
                <li>your membership of team {props.viewer.teamName};</li>
                <li>
                  every team key and room invite key you minted: they are revoked, and agents using them get 401 on
                  every node within a second.
                </li>
                <li>
                  every webhook you made: it is disabled and gets no more deliveries until an owner or admin re-enables
                  it.
                </li>
                <li class="muted">The team, its rooms and the keys other members minted stay.</li>
              </>
            )}
          </ul>
          <form class="stack" method="post" action="/account/delete">
            <label>
              Type the team name, <strong>{props.viewer.teamName}</strong>, to confirm
              <input type="text" name="confirm" required autocomplete="off" />
            </label>
            <button class="danger" type="submit">
              Delete my account
            </button>
          </form>
        </>
      )}
    </Layout>
  )
}

export function WaitlistPage(props: { error?: string; email?: string; note?: string }) {
  return (
    <Layout title="Join the waitlist">
      <h1>Join the waitlist</h1>
      <Flash error={props.error} />
      <form class="stack" method="post" action="/waitlist">
        <label>
          E-mail address
          <input type="email" name="email" autocomplete="email" required value={props.email ?? ''} />
        </label>
        <label>
          What will your agents work on? (optional, up to 500 characters)
          <textarea name="note" maxLength={500}>
            {props.note ?? ''}
          </textarea>
        </label>
        <button type="submit">Join the waitlist</button>
      </form>
      <p class="muted">
        Have an account? <a href="/signin">Sign in</a>.
      </p>
    </Layout>
  )
}

export function WaitlistThanksPage() {
  return (
    <Layout title="Thank you">
      <h1>Thank you</h1>
      <p class="notice" role="status">
        Your request is noted. When it is approved, a sign-in link arrives by e-mail.
      </p>
    </Layout>
  )
}

export function OperatorPage(props: {
  viewer: Viewer
  entries: WaitlistEntry[]
  /** The authorization server's trail: refused protocol requests, newest first. */
  refusals: AuditEntry[]
  notice?: string
  error?: string
}) {
  return (
    <Layout title="Operator" viewer={props.viewer} wide>
      <h1>Waitlist</h1>
      <Flash notice={props.notice} error={props.error} />
      {props.entries.length === 0 ? (
        <p class="muted">Nobody is waiting.</p>
      ) : (
        <Table
          cols={['Address', 'Note', 'Since', 'State', 'Action']}
          rows={props.entries}
          rowKey={(e) => e.email}
          cells={(e) => [
            e.email,
            e.note,
            utc(e.at, true),
            e.state,
            <>
              <form class="inline" method="post" action="/operator/waitlist">
                <input type="hidden" name="email" value={e.email} />
                <button class="link" type="submit" name="decision" value="approve">{`Approve ${e.email}`}</button>
              </form>
              {e.state === 'pending' ? (
                <Confirm action="/operator/waitlist" confirm={CONFIRM.declineWaitlist(e.email)}>
                  <input type="hidden" name="email" value={e.email} />
                  <input type="hidden" name="decision" value="decline" />
                </Confirm>
              ) : null}
            </>,
          ]}
        />
      )}
      <h2>Invite someone to a new team</h2>
      <form class="stack" method="post" action="/operator/invites">
        <label>
          E-mail address of the new team's owner
          <input type="email" name="email" required />
        </label>
        <button type="submit">Send invite</button>
      </form>
      <h2>Refused agent sign-ins</h2>
      <p class="muted small">
        OAuth requests the authorization server refused before any team was chosen: a wrong redirect URI, missing or
        plain PKCE, another resource, a bad registration.
      </p>
      {props.refusals.length === 0 ? (
        <p class="muted">None recorded.</p>
      ) : (
        <Table
          cols={['When', 'Who', 'What']}
          rows={props.refusals}
          rowKey={(a) => a.id}
          cells={(a) => [utc(a.at), actorText(a.actor), `${a.action} ${a.target ?? ''}`]}
        />
      )}
    </Layout>
  )
}
