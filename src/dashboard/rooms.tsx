// The rooms page (the signed-in home, `/`): the team's rooms at a glance, the form that creates a
// room, and, once created, each agent's MCP client configuration — the same snippets the CLI
// prints (src/shared/snippets.ts), so both say the same thing. Rendered on the server; every value is
// escaped by preact-render-to-string.
import { hookConfigs, MAX_BLOCKS_DEFAULT } from '../shared/hook-configs.js'
import type { AgentAccess, Snippets } from '../shared/snippets.js'
import { SNIPPET_TITLES, agentBrief, oauthSnippetsFor, snippetsFor } from '../shared/snippets.js'
import type { RoomSummary } from '../core/rooms.js'
import type { Template } from '../core/templates.js'
import { ROOM_NAME_MAX } from '../shared/fields.js'
import { FieldError, FormError, KeptInput, keptOf, typed, type Kept } from './kept.js'
import { Ago, Copyable, Flash, Layout, Table, Tabs, type Viewer } from './layout.js'
import { ROOMS_ROLE_ROWS, RoleNote } from './role-note.js'

/** The create form's fields that show their refusal at the field; any other shows at the top. */
const CREATE_FIELDS = ['name', 'template', 'agents'] as const

export interface RoomRow {
  room: RoomSummary
  online: string[]
  open: number
  inProgress: number
}

/** A placeholder where the team key goes: the dashboard never holds or shows the team key. */
export const TEAM_KEY_PLACEHOLDER = 'YOUR_TEAM_KEY'

export function roomHref(roomId: string): string {
  return `/room?id=${encodeURIComponent(roomId)}`
}

export function RoomsPage(props: {
  viewer: Viewer
  rooms: RoomRow[]
  next: { id: string; at: number } | undefined
  after: string | undefined
  templates: readonly Template[]
  /** The create form as it was sent, when it was refused. */
  kept?: Kept | undefined
  /** What a change that redirected here did (a room deleted). */
  notice?: string | undefined
}) {
  const kept = keptOf(props.kept, 'create')
  const active = props.rooms.filter((r) => !r.room.archived_at)
  const archived = props.rooms.filter((r) => r.room.archived_at)
  return (
    <Layout title="Rooms" viewer={props.viewer} wide>
      <h1>Rooms of {props.viewer.teamName}</h1>
      <Flash notice={props.notice} />
      <RoleNote role={props.viewer.user.role} rows={ROOMS_ROLE_ROWS} />
      {active.length === 0 ? (
        <p class="muted">
          {archived.length === 0
            ? 'No rooms yet. Create the first one below; then give each agent its configuration.'
            : 'No active rooms on this page: every one is archived (below).'}
        </p>
      ) : (
        <RoomsTable rows={active} />
      )}
      {archived.length > 0 ? (
        <>
          <h2 id="archived">Archived</h2>
          <p class="small muted">
            Read-only: agents' writes are refused; open one to read it, restore it or delete it.
          </p>
          <RoomsTable rows={archived} archived />
        </>
      ) : null}
      {props.next || props.after ? (
        <nav class="pager small" aria-label="Pages of rooms">
          <span class="muted">
            Pages go in the order the rooms were created; each page lists its rooms most recently active first.
          </span>{' '}
          {props.after ? <a href="/">First rooms</a> : null}
          {props.next ? (
            <a href={`/?after=${encodeURIComponent(props.next.id)}&at=${props.next.at}`}>Next rooms</a>
          ) : null}
        </nav>
      ) : null}
      <h2 id="create">Create a room</h2>
      <form class="stack" method="post" action="/rooms">
        <FormError kept={kept} fields={CREATE_FIELDS} />
        <KeptInput
          kept={kept}
          name="name"
          id="create-name"
          maxLength={ROOM_NAME_MAX}
          label={`Name (up to ${ROOM_NAME_MAX} characters; the room id is made from it)`}
        />
        <label>
          Template
          <select
            name="template"
            aria-describedby={kept?.field === 'template' ? 'create-template-error templates' : 'templates'}
            {...(kept?.field === 'template' ? { 'aria-invalid': true, autoFocus: true } : {})}
          >
            {props.templates.map((t) => (
              <option key={t.id} value={t.id} selected={typed(kept, 'template', 'blank') === t.id}>
                {t.title}
              </option>
            ))}
          </select>
        </label>
        <ul class="plain small muted" id="templates">
          {props.templates.map((t) => (
            <li key={t.id}>
              <strong>{t.title}</strong>: {t.description}
            </li>
          ))}
        </ul>
        <FieldError kept={kept} name="template" id="create-template" />
        <KeptInput
          kept={kept}
          name="agents"
          id="create-agents"
          label="Agent ids, separated by commas (e.g. planner, backend, frontend)"
        />
        <label class="check">
          <input type="checkbox" name="invite" value="1" checked={kept ? typed(kept, 'invite') === '1' : true} />
          Give each agent a room invite key of its own (reaches this room only; shown once)
        </label>
        <button type="submit">Create room</button>
      </form>
    </Layout>
  )
}

/** A table of rooms: the active ones, or the archived ones (with when they were archived). */
function RoomsTable(props: { rows: RoomRow[]; archived?: boolean }) {
  return (
    <div class="scroll">
      <Table
        cols={['Room', props.archived ? 'Archived' : 'Last activity', 'Online agents', 'To do', 'In progress']}
        rows={props.rows}
        rowKey={(r) => r.room.room_id}
        cells={(r) => {
          const when = props.archived ? r.room.archived_at! : r.room.last_active_at
          return [
            <>
              <a href={roomHref(r.room.room_id)}>{r.room.name}</a>
              <br />
              <span class="muted small">
                {r.room.room_id} · {r.room.template}
              </span>
            </>,
            <Ago at={when} />,
            r.online.length === 0 ? <span class="muted">none</span> : r.online.join(', '),
            r.open,
            r.inProgress,
          ]
        }}
      />
    </div>
  )
}

export interface AgentSetup {
  access: AgentAccess
  /** True when the key in access is a fresh room invite key (shown this once). */
  invite: boolean
}

const SNIPPET_ORDER: (keyof Snippets)[] = ['claude_code', 'cursor', 'vscode', 'codex']
const TAB_TITLES: Record<keyof Snippets, string> = {
  claude_code: 'Claude Code',
  cursor: 'Cursor',
  vscode: 'VS Code',
  codex: 'Codex',
  generic: 'Other clients',
}
/** How long the printed Stop hooks wait for news before they let the agent stop (seconds). */
export const HOOK_WAIT_S = 300

/** The service's base URL, from an agent's MCP endpoint. */
const baseOf = (mcpUrl: string) => mcpUrl.replace(/\/mcp$/, '')

/** An agent's Stop-hook configurations, one tab per client, as `agentrooms hook config` prints them. */
function HookTabs(props: { access: AgentAccess; i: number }) {
  const { access: a, i } = props
  const configs = hookConfigs({
    command: ['npx', 'agentrooms'],
    base: baseOf(a.url),
    room: a.roomId,
    agent: a.agentId,
    waitS: HOOK_WAIT_S,
    mentions: false,
    maxBlocks: MAX_BLOCKS_DEFAULT,
  })
  return (
    <>
      <h3 id={`hooks-${i}`}>Wake it when it stops (optional)</h3>
      <p class="muted small">
        A Stop hook keeps the agent going when something new arrives for it within {HOOK_WAIT_S / 60} minutes: its
        unread events, tasks unblocked or assigned to it, reviews decided. The HTTP hook needs only{' '}
        <code>AGENTROOMS_KEY</code> set to the agent's key in its environment; the command hooks run the agentrooms CLI
        (<code>npx agentrooms</code> inside a clone of the service, or{' '}
        <code>node &lt;clone&gt;/bin/agentrooms.mjs</code>).
      </p>
      <Tabs
        id={`hook-${i}`}
        label={`Stop hook for ${a.agentId}`}
        panels={configs.map((c, j) => ({
          title: c.title.replace(/ hook.*$/, ''),
          body: <Copyable id={`hook-${i}-${j}`} label={`${c.title}: ${c.file}`} text={c.text} />,
        }))}
      />
    </>
  )
}

export function CreatedPage(props: { viewer: Viewer; room: RoomSummary; agents: AgentSetup[]; added?: boolean }) {
  const invites = props.agents.some((a) => a.invite)
  const title = props.added ? `Agents for room ${props.room.name}` : `Room ${props.room.name} is ready`
  return (
    <Layout title={props.added ? title : `Room ${props.room.name} created`} viewer={props.viewer} wide>
      <h1>{title}</h1>
      <p class="notice" role="status">
        {props.added ? (
          <>
            {`Configuration for ${props.agents.map((a) => a.access.agentId).join(', ')} in room `}
            <code>{props.room.room_id}</code>.
          </>
        ) : (
          <>
            Room <code>{props.room.room_id}</code> was created from the {props.room.template} template.
          </>
        )}{' '}
        {invites ? (
          <strong>Each agent's room invite key is shown on this page only: copy the configuration now.</strong>
        ) : (
          <>
            Replace <code>{TEAM_KEY_PLACEHOLDER}</code> with a team key of the agent scope (mint one on the Keys page;
            never an admin key): the dashboard never shows it.
          </>
        )}
      </p>
      <p>
        <a href={roomHref(props.room.room_id)}>Open the room</a>
      </p>
      {props.agents.map((a, i) => {
        const snippets = snippetsFor(a.access)
        return (
          <section class="agent" key={a.access.agentId} aria-labelledby={`agent-${i}`}>
            <h2 id={`agent-${i}`}>Agent {a.access.agentId}</h2>
            <Copyable id={`brief-${i}`} label="The sentence to give the agent" text={agentBrief(a.access)} wrap />
            <Tabs
              id={`mcp-${i}`}
              label={`MCP client configuration for ${a.access.agentId}`}
              panels={SNIPPET_ORDER.map((k) => ({
                title: TAB_TITLES[k],
                body: <Copyable id={`${k}-${i}`} label={SNIPPET_TITLES[k]} text={snippets[k]} />,
              }))}
            />
            <HookTabs access={a.access} i={i} />
          </section>
        )
      })}
      {props.agents[0] ? <SignInSnippets url={props.agents[0].access.url} roomId={props.room.room_id} /> : null}
    </Layout>
  )
}

/** The configuration without a secret: the client signs in and the person consents, choosing the room there. */
function SignInSnippets(props: { url: string; roomId: string }) {
  const snippets = oauthSnippetsFor(props.url)
  return (
    <section class="agent" aria-labelledby="sign-in">
      <h2 id="sign-in">Or connect by signing in (no secret)</h2>
      <p class="muted">
        The agent's client opens a browser on this site; sign in, then choose room <code>{props.roomId}</code>, the
        agent id and the access. The connection is listed on the Keys page, where you can revoke it.
      </p>
      <Tabs
        id="oauth"
        label="MCP client configuration, signing in"
        panels={SNIPPET_ORDER.map((k) => ({
          title: TAB_TITLES[k],
          body: <Copyable id={`oauth-${k}`} label={`${SNIPPET_TITLES[k]}, signing in`} text={snippets[k]} />,
        }))}
      />
    </section>
  )
}
