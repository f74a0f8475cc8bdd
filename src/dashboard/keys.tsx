// The team's keys page (/team/keys): team keys (mint with the secret shown once and a copy
// button, label, hint, revoke), the room invite keys of every room (hint, label, revoke), and the
// connected agents (OAuth grants, grants.tsx).
// Revocation goes through the same path as the API's (Teams announces it: every node refuses the
// key within a second); each change is in the audit trail.
import type { Accounts } from '../auth/accounts.js'
import type { Audit } from '../auth/audit.js'
import { requireRole, roleMay, rolesFor } from '../auth/permissions.js'
import type { GrantInfo } from '../auth/grants.js'
import type { InviteInfo, KeyInfo, Teams } from '../auth/teams.js'
import { CONFIRM, Confirm } from './confirm.js'
import { ConnectedAgents, GrantsPages, type GrantsDeps } from './grants.js'
import { Copyable, Flash, Layout, Table, utc, type Viewer } from './layout.js'
import { actorOf, changePage, done, html, type Reply, type Request } from './page.js'
import type { Web } from './web.js'

export interface KeysDeps {
  teams: Pick<Teams, 'mintTeamKey' | 'listKeys' | 'revokeKey' | 'listInvites' | 'revokeInvite'>
  audit: Pick<Audit, 'record'>
  accounts: Pick<Accounts, 'emails'>
  grants: GrantsDeps['grants']
}

interface View {
  viewer: Viewer
  keys: KeyInfo[]
  invites: InviteInfo[]
  /** Connected agents (OAuth grants), newest first. */
  grants: GrantInfo[]
  /** E-mail address of each person who minted a listed key (user id -> address), where the account remains. */
  minters: Map<string, string>
  minted?: { key: string; info: KeyInfo }
  notice?: string
  error?: string
}

const day = (iso: string | undefined) => (iso ? utc(iso, true) : '')

/**
 * Who minted a key: their address, "a deleted user" once the account is gone, or "—" for nobody
 * (the team's first key, operator tools).
 */
const mintedBy = (createdBy: string | undefined, minters: Map<string, string>) =>
  createdBy ? (minters.get(createdBy) ?? 'a deleted user') : '—'

/** What a key or invite reaches, as the table shows it. */
const reach = (scope: string, access: string) => (access === 'read' ? `${scope}, read-only` : scope)

export function KeysPage(p: View) {
  const live = p.keys.filter((k) => !k.revokedAt).length
  const { user } = p.viewer
  /** Whether the viewer may revoke a key or invite: their own, or anyone's with the role for it. */
  const mayRevoke = (createdBy: string | undefined) => roleMay(user.role, 'keys.others') || createdBy === user.id
  const mayMint = roleMay(user.role, 'keys.own')
  return (
    <Layout title="Keys" viewer={p.viewer} wide>
      <h1>Keys of {p.viewer.teamName}</h1>
      <Flash notice={p.notice} error={p.error} />
      {p.minted ? (
        <div class="notice" role="status">
          <p>
            <strong>Key {p.minted.info.keyId} is minted. Copy it now: it is shown this once.</strong>
          </p>
          <Copyable id="minted-key" label="The new team key" text={p.minted.key} wrap />
        </div>
      ) : null}
      <h2>Team keys</h2>
      <p class="muted">
        A team key with the <strong>agent</strong> scope reaches every room of the team (MCP, stream, snapshot); one
        with the <strong>admin</strong> scope also the HTTP admin API. Configure agents with agent keys, or better with
        a room invite key: an agent never needs the admin scope. A read-only key may call only the tools that read.
      </p>
      <div class="scroll">
        <Table
          cols={['Key', 'Label', 'Scope', 'Minted by', 'Created', 'State']}
          rows={p.keys}
          rowKey={(k) => k.keyId}
          cells={(k) => [
            <>
              {k.keyId} <span class="muted">…{k.hint}</span>
            </>,
            k.label ?? '',
            reach(k.scope, k.access),
            mintedBy(k.createdBy, p.minters),
            day(k.createdAt),
            k.revokedAt ? (
              `revoked ${day(k.revokedAt)}`
            ) : !mayRevoke(k.createdBy) ? (
              <span class="muted">live</span>
            ) : live > 1 ? (
              <Confirm action="/team/keys/revoke" confirm={CONFIRM.revokeKey(k.keyId)}>
                <input type="hidden" name="key" value={k.keyId} />
              </Confirm>
            ) : (
              <span class="muted">live (the last live key cannot be revoked)</span>
            ),
          ]}
        />
      </div>
      {mayMint ? (
        <form class="stack" method="post" action="/team/keys">
          <label>
            Label of a new key (optional, up to 100 characters)
            <input type="text" name="label" maxLength={100} />
          </label>
          <label>
            Scope
            <select name="scope">
              <option value="agent">agent: rooms, stream, snapshot (for agents)</option>
              {roleMay(user.role, 'keys.admin') ? (
                <option value="admin">admin: also the HTTP admin API (not for agents)</option>
              ) : null}
            </select>
          </label>
          <label>
            Access
            <select name="access">
              <option value="write">read and write</option>
              <option value="read">read-only: only the tools that read</option>
            </select>
          </label>
          <button type="submit">Mint a team key</button>
        </form>
      ) : (
        <p class="muted">{`Minting keys needs the role ${rolesFor('keys.own').join(', ')}; you are ${user.role}.`}</p>
      )}
      <h2>Room invite keys</h2>
      {p.invites.length === 0 ? (
        <p class="muted">No room invite keys. Creating a room on the rooms page mints one per agent.</p>
      ) : (
        <div class="scroll">
          <Table
            cols={['Room', 'Key', 'Label', 'Access', 'Minted by', 'Created', 'State']}
            rows={p.invites}
            rowKey={(i) => i.tokenId}
            cells={(i) => [
              i.roomId,
              <>
                {i.tokenId} <span class="muted">…{i.hint}</span>
              </>,
              i.label ?? '',
              i.access === 'read' ? 'read-only' : 'read and write',
              mintedBy(i.createdBy, p.minters),
              day(i.createdAt),
              i.revokedAt ? (
                `revoked ${day(i.revokedAt)}`
              ) : !mayRevoke(i.createdBy) ? (
                <span class="muted">live</span>
              ) : (
                <Confirm action="/team/invite-keys/revoke" confirm={CONFIRM.revokeInvite(i.tokenId, i.roomId)}>
                  <input type="hidden" name="room" value={i.roomId} />
                  <input type="hidden" name="token" value={i.tokenId} />
                </Confirm>
              ),
            ]}
          />
        </div>
      )}
      <ConnectedAgents grants={p.grants} people={p.minters} viewer={user} />
    </Layout>
  )
}

const PATH = '/team/keys'

export class KeysPages {
  constructor(private readonly deps: KeysDeps) {}

  register(web: Web): void {
    web.page('GET', '/team/keys', true, (r) => this.show(r))
    web.page('POST', '/team/keys', true, (r) => this.change(r, () => this.mint(r)))
    const back = PATH
    web.page(
      'POST',
      '/team/keys/revoke',
      true,
      (r) => this.change(r, () => this.revoke(r)),
      (r) => ({ ...CONFIRM.revokeKey(r.form.get('key') ?? ''), back }),
    )
    web.page(
      'POST',
      '/team/invite-keys/revoke',
      true,
      (r) => this.change(r, () => this.revokeInvite(r)),
      (r) => ({ ...CONFIRM.revokeInvite(r.form.get('token') ?? '', r.form.get('room') ?? ''), back }),
    )
    new GrantsPages<View>(this.deps, PATH, (r, extra, status) => this.show(r, extra, status)).register(web)
  }

  private async show(r: Request, extra: Partial<View> = {}, status = 200): Promise<Reply> {
    const team = r.viewer!.user.team
    // Every room's invite keys in one read (it was one read a room, and only of the first 500 rooms).
    const [keys, invites, grants] = await Promise.all([
      this.deps.teams.listKeys(team),
      this.deps.teams.listInvites(team),
      this.deps.grants.list(team),
    ])
    const minters = await this.deps.accounts.emails([
      ...[...keys, ...invites].flatMap((k) => (k.createdBy ? [k.createdBy] : [])),
      ...grants.map((g) => g.user_id),
    ])
    return html(
      KeysPage({ viewer: r.viewer!, keys, invites, grants, minters, ...done<View>(r, PATH), ...extra }),
      status,
    )
  }

  /** Runs a change; a refused one shows the page with the error, changing nothing. */
  private change(r: Request, run: () => Promise<Partial<View>>): Promise<Reply> {
    return changePage(r, PATH, run, (extra, status) => this.show(r, extra, status))
  }

  private async mint(r: Request): Promise<Partial<View>> {
    const user = r.viewer!.user
    const label = (r.form.get('label') ?? '').trim()
    const scope = r.form.get('scope') ?? 'agent'
    requireRole(user.role, scope === 'admin' ? 'keys.admin' : 'keys.own')
    const input = { scope, access: r.form.get('access') ?? 'write', ...(label === '' ? {} : { label }) }
    const minted = await this.deps.teams.mintTeamKey(user.team, input, { user: user.id })
    await this.deps.audit.record(user.team, actorOf(user), 'minted key', minted.info.keyId)
    return { minted }
  }

  /** Whose keys the viewer may revoke: anyone's with the role for it (undefined), else only their own. */
  private onlyOf(r: Request): string | undefined {
    const user = r.viewer!.user
    requireRole(user.role, 'keys.own')
    return roleMay(user.role, 'keys.others') ? undefined : user.id
  }

  private async revoke(r: Request): Promise<Partial<View>> {
    const user = r.viewer!.user
    const { info } = await this.deps.teams.revokeKey(user.team, r.form.get('key') ?? '', this.onlyOf(r))
    await this.deps.audit.record(user.team, actorOf(user), 'revoked key', info.keyId)
    return { notice: `Key ${info.keyId} is revoked: every node refuses it within a second.` }
  }

  private async revokeInvite(r: Request): Promise<Partial<View>> {
    const user = r.viewer!.user
    const room = r.form.get('room') ?? ''
    const { info } = await this.deps.teams.revokeInvite(user.team, room, r.form.get('token') ?? '', this.onlyOf(r))
    await this.deps.audit.record(
      user.team,
      actorOf(user),
      'revoked room invite',
      `${info.tokenId} (room ${info.roomId})`,
    )
    return { notice: `Room invite key ${info.tokenId} of room ${info.roomId} is revoked.` }
  }
}
