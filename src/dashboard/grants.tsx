// Connected agents on the Keys page: the OAuth grants people of the team consented to (client,
// agent id, room, access, who connected it, last use), each revocable. Revoking one deletes its
// tokens and is announced like a key revocation: every node refuses them at once, and their open
// streams and parked waits end. Each revocation is in the audit trail.
import type { Audit } from '../auth/audit.js'
import type { GrantInfo, Grants } from '../auth/grants.js'
import { requireRole, roleMay, roleRefusal } from '../auth/permissions.js'
import type { User } from '../auth/accounts.js'
import { AppError } from '../shared/errors.js'
import { CONFIRM, Confirm } from './confirm.js'
import { Table, utc } from './layout.js'
import { actorOf, changePage, type Reply, type Request } from './page.js'
import type { Web } from './web.js'

export interface GrantsDeps {
  grants: Pick<Grants, 'list' | 'revoke' | 'get'>
  audit: Pick<Audit, 'record'>
}

const when = (iso: string | undefined) => (iso ? utc(iso, true) : '—')

/** Whether `user` may revoke a grant: their own, or anyone's with the role for revoking others' keys. */
const mayRevoke = (user: User, g: GrantInfo) => roleMay(user.role, 'keys.others') || g.user_id === user.id

export function ConnectedAgents(p: { grants: GrantInfo[]; people: Map<string, string>; viewer: User }) {
  return (
    <>
      <h2>Connected agents</h2>
      <p class="muted">
        Agents connected by signing in (OAuth): each reaches the room it was granted, as its agent id, and holds no key.
      </p>
      {p.grants.length === 0 ? (
        <p class="muted">No connected agents. Add the service by its URL in an agent and sign in when it asks.</p>
      ) : (
        <div class="scroll">
          <Table
            cols={['Agent', 'Client', 'Room', 'Access', 'Connected by', 'Last use', 'State']}
            rows={p.grants}
            rowKey={(g) => g.id}
            cells={(g) => [
              g.agent_id,
              <>
                {g.client_name} <span class="muted">→ {g.redirect_host}</span>
              </>,
              g.room_id ?? 'all rooms',
              g.access === 'read' ? 'read only' : 'read and write',
              p.people.get(g.user_id) ?? 'a deleted user',
              when(g.last_used_at),
              g.revoked_at ? (
                `revoked ${when(g.revoked_at)}`
              ) : !mayRevoke(p.viewer, g) ? (
                'live'
              ) : (
                <Confirm action="/team/grants/revoke" confirm={CONFIRM.revokeGrant(g.agent_id)}>
                  <input type="hidden" name="grant" value={g.id} />
                </Confirm>
              ),
            ]}
          />
        </div>
      )}
    </>
  )
}

export class GrantsPages<V extends { notice?: string; error?: string }> {
  constructor(
    private readonly deps: GrantsDeps,
    /** The Keys page's path and how it shows itself with a change's outcome. */
    private readonly path: string,
    private readonly show: (r: Request, extra: Partial<V>, status: number) => Promise<Reply>,
  ) {}

  register(web: Web): void {
    web.page(
      'POST',
      '/team/grants/revoke',
      true,
      (r) =>
        changePage(
          r,
          this.path,
          () => this.revoke(r),
          (extra, status) => this.show(r, extra, status),
        ),
      // A grant this team does not have needs no confirmation: the change refuses it.
      async (r) => {
        const g = await this.deps.grants.get(r.form.get('grant') ?? '')
        return g && g.team_id === r.viewer!.user.team
          ? { ...CONFIRM.revokeGrant(g.agent_id), back: this.path }
          : undefined
      },
    )
  }

  private async revoke(r: Request): Promise<Partial<V>> {
    const user = r.viewer!.user
    const id = r.form.get('grant') ?? ''
    requireRole(user.role, 'keys.own')
    const found = await this.deps.grants.get(id)
    if (!found || found.team_id !== user.team)
      throw new AppError('not_found', `No connected agent ${id} in your team.`, { field: 'grant' })
    if (!mayRevoke(user, found)) throw roleRefusal('keys.others', user.role)
    const g = (await this.deps.grants.revoke(user.team, id))!
    await this.deps.audit.record(
      user.team,
      actorOf(user),
      'revoked connected agent',
      `${g.id} (${g.client_name}, agent ${g.agent_id})`,
    )
    return {
      notice: `${g.agent_id} (${g.client_name}) is disconnected: its tokens stop working at once.`,
    } as Partial<V>
  }
}
