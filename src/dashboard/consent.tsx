// The consent page of the OAuth authorization server (/oauth/consent/<uid>; docs/accounts.md
// "Agents sign in with OAuth"): the signed-in person sees which client asks and where the browser
// goes back to, and picks the team, the room (one, or all of the team's), the agent id (new, or
// one seen in the team's rooms) and the access (read-only, or read and write). Allowing makes the
// grant and sends the browser back to the authorization server, which sends the client its code;
// declining sends the client access_denied. Every answer, and every refused one, is audited.
import type { Audit } from '../auth/audit.js'
import { requireRole } from '../auth/permissions.js'
import type { GrantAccess } from '../auth/principal.js'
import type { Core } from '../core/index.js'
import { agentId as agentIdField, roomId as roomIdField } from '../shared/fields.js'
import type { OAuthServer, PendingAuthorization } from '../http/oauth/server.js'
import { AppError } from '../shared/errors.js'
import { Flash, Layout, type Viewer } from './layout.js'
import { actorOf, html, refusal, see, type Reply, type Request } from './page.js'
import { PAGE_HEADERS, returnPath, type Origin } from './security.js'
import type { Web } from './web.js'

export interface ConsentDeps {
  oauth: Pick<OAuthServer, 'pending' | 'consent' | 'deny'>
  origin: Pick<Origin, 'returnCookie'>
  core: { rooms: Pick<Core['rooms'], 'page' | 'info'>; presence: Pick<Core['presence'], 'list'> }
  audit: Pick<Audit, 'record'>
}

/** Rooms offered on the page (the newest); a room beyond them is typed in as its id. */
const ROOMS_OFFERED = 100
/** Rooms whose agents are offered as known agent ids. */
const AGENT_ROOMS = 20

const PREFIX = '/oauth/consent/'

interface View {
  viewer: Viewer
  pending: PendingAuthorization
  rooms: string[]
  agents: string[]
  error?: string
  /** What the person had chosen, shown again with a refusal. */
  chosen?: { room: string; agent: string; access: GrantAccess }
}

/** A suggested agent id for a new connection: the client's name, made an id. */
function suggestedAgent(clientName: string): string {
  const slug = clientName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40)
  return slug || 'agent'
}

export function ConsentPage(p: View) {
  const chosen = p.chosen ?? { room: '*', agent: suggestedAgent(p.pending.clientName), access: 'write' }
  const action = `${PREFIX}${encodeURIComponent(p.pending.uid)}`
  return (
    <Layout title="Connect an agent" viewer={p.viewer}>
      <h1>Connect an agent</h1>
      <Flash error={p.error} />
      <p>
        <strong>{p.pending.clientName}</strong> asks to act in the rooms of <strong>{p.viewer.teamName}</strong>. After
        you answer, your browser goes back to <strong>{p.pending.redirectHost}</strong>.
      </p>
      <p class="muted">
        The name is the client's own; trust the return address. Only allow a connection you started yourself.
      </p>
      <form class="stack" method="post" action={action}>
        <label>
          Team
          <select name="team">
            <option value={p.viewer.user.team} selected>
              {p.viewer.teamName}
            </option>
          </select>
        </label>
        <label>
          Room
          <select name="room">
            <option value="*" selected={chosen.room === '*'}>
              All rooms of the team
            </option>
            {p.rooms.map((r) => (
              <option value={r} key={r} selected={chosen.room === r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <label>
          Agent id (a new one, or one already in the rooms)
          <input type="text" name="agent" required maxLength={128} value={chosen.agent} list="known-agents" />
        </label>
        <datalist id="known-agents">
          {p.agents.map((a) => (
            <option value={a} key={a} />
          ))}
        </datalist>
        <fieldset>
          <legend>Access</legend>
          <label class="check">
            <input type="radio" name="access" value="write" checked={chosen.access === 'write'} /> Read and write
          </label>
          <label class="check">
            <input type="radio" name="access" value="read" checked={chosen.access === 'read'} /> Read only (tools that
            change nothing)
          </label>
        </fieldset>
        <div class="row">
          <button type="submit" name="decision" value="allow">
            Allow
          </button>
          <button type="submit" name="decision" value="deny" class="secondary">
            Decline
          </button>
        </div>
      </form>
    </Layout>
  )
}

export function SignInFirstPage() {
  return (
    <Layout title="Sign in to connect an agent">
      <h1>Sign in to connect an agent</h1>
      <p>
        An agent asks to be connected to your team. <a href="/signin">Sign in</a> in this browser within ten minutes:
        you come back to this request afterwards, by e-mail link or by your sign-in provider.
      </p>
    </Layout>
  )
}

export class ConsentPages {
  constructor(private readonly deps: ConsentDeps) {}

  register(web: Web): void {
    web.page('GET', `${PREFIX}:uid`, false, (r) => this.show(r))
    web.page('POST', `${PREFIX}:uid`, true, (r) => this.answer(r))
    // The edge refuses a consent POST from another origin before any page runs; when it carried
    // a live session, that person's team trail records it like any other refused answer.
    web.onCrossSite(PREFIX, async (path, why, viewer) => {
      if (!viewer) return
      const target = `consent ${path.slice(PREFIX.length)}: a POST from another origin (${why})`
      await this.deps.audit.record(viewer.user.team, actorOf(viewer.user), 'refused agent connection', target)
    })
  }

  private uidOf(r: Request): string {
    const raw = r.ex.req.path.slice(PREFIX.length)
    try {
      return decodeURIComponent(raw)
    } catch {
      throw new AppError('invalid_request', 'This sign-in request address is malformed; start again from the agent.')
    }
  }

  /**
   * The authorization this page answers. It must have been started in this browser: the
   * authorization server set its interaction cookie (for this page's path) when it sent the
   * browser here, so a consent link sent to someone else finds nothing to answer.
   */
  private async pendingOf(r: Request): Promise<PendingAuthorization> {
    const uid = this.uidOf(r)
    const started = cookie(r.ex.req.headers.cookie, '_interaction') === uid
    const pending = started ? await this.deps.oauth.pending(uid) : undefined
    if (!pending)
      throw new AppError('not_found', 'This sign-in request has expired or was answered; start again from the agent.')
    return pending
  }

  private async show(r: Request, extra: Partial<View> = {}, status = 200): Promise<Reply> {
    if (!r.viewer) {
      // The next sign-in in this browser comes back here (only a consent path is ever kept).
      const back = returnPath(r.ex.req.path)
      return html(SignInFirstPage(), 200, back ? { 'Set-Cookie': this.deps.origin.returnCookie(back) } : {})
    }
    const pending = await this.pendingOf(r)
    const team = r.viewer.user.team
    const { rooms } = await this.deps.core.rooms.page(team, undefined, ROOMS_OFFERED)
    const ids = rooms.map((x) => x.room_id)
    const seen = await Promise.all(
      ids.slice(0, AGENT_ROOMS).map((roomId) =>
        this.deps.core.presence
          .list({ room: { teamId: team, roomId } }, { include_offline: true })
          .then((p) => [...p.online, ...(p.offline ?? [])].map((e) => e.agent_id))
          .catch(() => [] as string[]),
      ),
    )
    const agents = [...new Set(seen.flat())].filter((a) => !a.startsWith('human:')).sort()
    return html(ConsentPage({ viewer: r.viewer, pending, rooms: ids, agents, ...extra }), status, {
      'Content-Security-Policy': cspFor(pending.redirectUri),
    })
  }

  private async answer(r: Request): Promise<Reply> {
    const user = r.viewer!.user
    const pending = await this.pendingOf(r)
    const who = `${pending.clientName} (${pending.clientId}) returning to ${pending.redirectHost}`
    if (r.form.get('decision') === 'deny') {
      const to = await this.deps.oauth.deny(pending.uid)
      await this.deps.audit.record(user.team, actorOf(user), 'declined agent connection', who)
      return see(to, { 'Content-Security-Policy': cspFor(pending.redirectUri) })
    }
    requireRole(user.role, 'keys.own')
    const room = r.form.get('room') ?? ''
    const agent = (r.form.get('agent') ?? '').trim()
    const access = r.form.get('access') ?? ''
    try {
      const consent = this.validate(user.team, r.form.get('team') ?? '', room, agent, access)
      if (consent.roomId !== undefined) await this.requireRoom(user.team, consent.roomId)
      const { returnTo, grant } = await this.deps.oauth.consent(pending.uid, { userId: user.id, ...consent })
      await this.deps.audit.record(
        user.team,
        actorOf(user),
        'connected agent',
        `${grant.id}: ${who}, ${consent.roomId === undefined ? 'all rooms' : `room ${consent.roomId}`}, ` +
          `agent ${consent.agentId}, ${consent.access === 'read' ? 'read-only' : 'read and write'}`,
      )
      return see(returnTo, { 'Content-Security-Policy': cspFor(pending.redirectUri) })
    } catch (err) {
      const refused = refusal(err)
      if (!refused) throw err
      await this.deps.audit.record(user.team, actorOf(user), 'refused agent connection', `${who}: ${refused.message}`)
      const chosen = { room, agent, access: access === 'read' ? ('read' as const) : ('write' as const) }
      return this.show(r, { error: refused.message, chosen }, refused.status)
    }
  }

  private validate(team: string, teamField: string, room: string, agent: string, access: string) {
    if (teamField !== team)
      throw new AppError('forbidden', 'Team: you can connect agents only to your own team.', { field: 'team' })
    let roomId: string | undefined
    if (room !== '*') {
      const v = roomIdField.safeParse(room)
      if (!v.success) throw new AppError('invalid_request', `Room: ${v.error.issues[0]!.message}`, { field: 'room' })
      roomId = v.data
    }
    const a = agentIdField.safeParse(agent)
    if (!a.success) throw new AppError('invalid_request', `Agent id: ${a.error.issues[0]!.message}`, { field: 'agent' })
    if (a.data.startsWith('human:'))
      throw new AppError('invalid_request', 'Agent id: "human:" ids are kept for people signed in on this site', {
        field: 'agent',
      })
    if (access !== 'read' && access !== 'write')
      throw new AppError('invalid_request', 'Access: choose read only, or read and write', { field: 'access' })
    return { teamId: team, roomId, agentId: a.data, access: access as GrantAccess }
  }

  /** A room of the person's team; another team's room, or none, is "not found" alike. */
  private async requireRoom(teamId: string, roomId: string): Promise<void> {
    try {
      await this.deps.core.rooms.info({ room: { teamId, roomId } })
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found')
        throw new AppError('not_found', `Room: no room ${roomId} in your team`, { field: 'room' })
      throw err
    }
  }
}

function cookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=')
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim()
  }
  return undefined
}

/**
 * The pages' policy with the client's redirect allowed as a form target: browsers apply
 * form-action to the redirects that follow a form's submission, and the answer ends with one to
 * the client.
 */
function cspFor(redirectUri: string): string {
  let target = ''
  try {
    const u = new URL(redirectUri)
    target = u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : u.protocol
  } catch {
    // no valid redirect: the page's own policy
  }
  const base = PAGE_HEADERS['Content-Security-Policy']!
  return target === '' ? base : base.replace("form-action 'self'", `form-action 'self' ${target}`)
}
