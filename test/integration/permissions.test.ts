// Roles and scopes as a table: every role of a person on the pages (the team, keys, connected
// agents and consent, webhooks, rooms and the room page's own forms), and every scope and access
// of a credential (team keys, room invite keys, connected agents) on the admin API, the room
// snapshot and over MCP, against the actions that tell them apart. Each cell
// is allowed, or refused with forbidden naming the role or the scope it needs. The expected
// tables are written out here, and checked against src/auth/permissions.ts too, so the code's
// table and this one cannot drift apart.
import t from 'tap'
import { PERMISSIONS, roleMay, ROLES, scopeMay, type Action, type Role } from '../../src/auth/permissions.js'
import { signedInOperator, userIdIn } from '../helpers/accounts.js'
import { Browser, keyIn, linkIn } from '../helpers/mail.js'
import { callTool, legacyClient } from '../helpers/mcp.js'
import { authorize, HandClient } from '../helpers/mcp-oauth.js'
import { uid } from '../helpers/shared.js'

/** Role × action: true when allowed. */
const ROLE_TABLE: Record<Action, readonly Role[]> = {
  'room.read': ['owner', 'admin', 'member', 'viewer'],
  'room.write': ['owner', 'admin', 'member'],
  'admin.read': ['owner', 'admin', 'member', 'viewer'],
  'keys.own': ['owner', 'admin', 'member'],
  'keys.admin': ['owner', 'admin'],
  'keys.others': ['owner', 'admin'],
  'members.manage': ['owner', 'admin'],
  'members.roles': ['owner'],
  'webhooks.manage': ['owner', 'admin'],
  'team.manage': ['owner'],
  'rooms.manage': ['owner', 'admin'],
}

type Cred =
  | 'admin'
  | 'admin read-only'
  | 'agent'
  | 'agent read-only'
  | 'room invite'
  | 'room invite read-only'
  | 'connected agent'
  | 'connected agent read-only'
/** Credential × action on the API and MCP: true when allowed. */
const SCOPE_TABLE: Record<string, readonly Cred[]> = {
  'GET /admin/me': ['admin', 'admin read-only'],
  'GET /admin/audit': ['admin', 'admin read-only'],
  'POST /admin/keys': ['admin'],
  'POST /admin/keys (admin scope)': ['admin'],
  "DELETE /admin/keys/:keyId (another person's key)": ['admin'],
  'POST /admin/rooms/:roomId/archive': ['admin'],
  'POST /admin/webhooks': ['admin'],
  'GET /room/:roomId (snapshot)': [
    'admin',
    'admin read-only',
    'agent',
    'agent read-only',
    'room invite',
    'room invite read-only',
  ],
  'MCP read_context (readOnlyHint)': [
    'admin',
    'admin read-only',
    'agent',
    'agent read-only',
    'room invite',
    'room invite read-only',
    'connected agent',
    'connected agent read-only',
  ],
  'MCP write_context': ['admin', 'agent', 'room invite', 'connected agent'],
}

/**
 * The credentials that are no credential of an action (401, not 403): a connected agent's access
 * token is bound to /mcp (its resource), so the REST API takes it for no key at all.
 */
const MCP_ONLY: readonly Cred[] = ['connected agent', 'connected agent read-only']

const REDIRECT = 'http://127.0.0.1:40444/callback'

t.test('the table in code is the table written here', async (t) => {
  for (const action of Object.keys(PERMISSIONS) as Action[])
    for (const role of ROLES) t.equal(roleMay(role, action), ROLE_TABLE[action].includes(role), `${role} × ${action}`)
  t.notOk(scopeMay({ scope: 'agent', access: 'write' }, 'admin.read'), 'the agent scope has no admin API')
  t.notOk(scopeMay({ scope: 'admin', access: 'read' }, 'keys.own'), 'a read-only admin key mints nothing')
  for (const action of ['members.manage', 'members.roles', 'team.manage'] as const)
    t.notOk(scopeMay({ scope: 'admin', access: 'write' }, action), `${action} is for people, never a key`)
})

t.test('roles on the pages and scopes on the API', async (t) => {
  const { inbox, n, b: owner, first, op } = await signedInOperator(t)
  const ownerKey = keyIn(first)!
  const site = n.node.baseUrl
  const teamId = (await n.node.accounts.session(owner.jar.get('ar_session')!))!.team
  const ownerId = userIdIn((await owner.get('/team')).body, op)!
  const roomId = uid('perm')
  t.equal((await n.call('/admin/rooms', { key: ownerKey, method: 'POST', json: { roomId } })).status, 201)
  const archived = uid('arch')
  t.equal((await n.call('/admin/rooms', { key: ownerKey, method: 'POST', json: { roomId: archived } })).status, 201)

  /** Invites a person, who signs in; the owner gives them `role`. */
  async function person(role: Role): Promise<{ b: Browser; id: string; email: string }> {
    const email = `${uid(role)}@example.com`
    t.equal((await owner.send('/team/invites', { email })).status, 200)
    const b = new Browser(n.base)
    t.equal((await b.follow(linkIn(await inbox.next(email)))).status, 303)
    const home = (await owner.get('/team')).body
    const id = userIdIn(home, email)
    t.ok(id, `${email} is listed`)
    if (role !== 'member') {
      const set = await owner.send('/team/members/role', { user: id!, role })
      t.equal(set.status, 200, `the owner makes them ${role}`)
      t.match(set.body, `${email} is now ${role}.`)
    }
    return { b, id: id!, email }
  }
  const people: Record<Role, { b: Browser; id: string; email: string }> = {
    owner: { b: owner, id: ownerId, email: op },
    admin: await person('admin'),
    member: await person('member'),
    viewer: await person('viewer'),
  }

  /** A key `by` mints on the keys page (the owner's, unless said otherwise). */
  const ownersKey = async (by: Browser = owner) => {
    const page = await by.send('/team/keys', { label: 'target', scope: 'agent' })
    t.equal(page.status, 200)
    return /Key (key_[A-Za-z0-9_-]+) is minted/.exec(page.body)![1]!
  }

  const oauthClient = await HandClient.register(site, 'Table Agent', REDIRECT)
  /** An agent `userId` connected (consented through the service), for `access`: its grant id. */
  const connected = async (userId: string, access: 'read' | 'write' = 'write') => {
    const url = oauthClient.authorizeUrl()
    const back = await authorize(n.node.oauth.server!, site, url, { userId, teamId, roomId, agentId: 'perm', access })
    const grants = (await n.node.grants.list(teamId)).filter((g) => g.user_id === userId && !g.revoked_at)
    return { code: back.searchParams.get('code')!, grant: grants.at(-1)!.id }
  }
  /** `role`'s browser opens an agent's authorization request and allows it on the consent page. */
  const consent = async (role: Role) => {
    const b = people[role].b
    const saved = b.base
    b.base = site
    try {
      const url = oauthClient.authorizeUrl()
      const toConsent = await b.get(url.pathname + url.search)
      const page = new URL(toConsent.location!, site).pathname
      const form = { team: teamId, room: roomId, agent: `by-${role}`, access: 'write', decision: 'allow' }
      return await b.post(page, form)
    } finally {
      b.base = saved
    }
  }

  /**
   * Each page action: what it posts (or opens), the action of the table it stands for, and the
   * status it answers when allowed (anything but 403 when unsaid).
   */
  const pageActions: {
    name: string
    action: Action
    post: (role: Role) => Promise<{ status: number; body: string }>
    allowed?: number
  }[] = [
    { name: 'open the team page', action: 'admin.read', post: (r) => people[r].b.get('/team'), allowed: 200 },
    { name: 'open the keys page', action: 'admin.read', post: (r) => people[r].b.get('/team/keys'), allowed: 200 },
    {
      name: 'open a room page',
      action: 'room.read',
      post: (r) => people[r].b.get(`/room?id=${roomId}`),
      allowed: 200,
    },
    {
      name: 'post in a room on its page',
      action: 'room.write',
      post: (r) => people[r].b.post('/room/events', { room: roomId, text: `from the ${r}` }),
      allowed: 303,
    },
    { name: 'connect an agent on the consent page', action: 'keys.own', post: consent, allowed: 303 },
    {
      name: 'revoke an agent someone else connected',
      action: 'keys.others',
      post: async (r) =>
        people[r].b.post('/team/grants/revoke', {
          grant: (await connected(r === 'owner' ? people.admin.id : ownerId)).grant,
          confirmed: 'yes',
        }),
    },
    {
      name: 'rename the team',
      action: 'team.manage',
      post: (r) => people[r].b.post('/team/rename', { name: `renamed by the ${r}` }),
    },
    {
      name: 'create a room',
      action: 'room.write',
      post: (r) => people[r].b.send('/rooms', { name: uid('r'), agents: 'a' }),
    },
    { name: 'mint an agent key', action: 'keys.own', post: (r) => people[r].b.send('/team/keys', { scope: 'agent' }) },
    {
      name: 'mint an admin key',
      action: 'keys.admin',
      post: (r) => people[r].b.send('/team/keys', { scope: 'admin' }),
    },
    {
      name: "revoke another person's key",
      action: 'keys.others',
      post: async (r) =>
        people[r].b.send('/team/keys/revoke', {
          key: await ownersKey(r === 'owner' ? people.admin.b : owner),
          confirmed: 'yes',
        }),
    },
    {
      name: 'invite a member',
      action: 'members.manage',
      post: (r) => people[r].b.send('/team/invites', { email: `${uid('x')}@example.com` }),
    },
    {
      name: "change a person's role",
      action: 'members.roles',
      post: (r) => people[r].b.send('/team/members/role', { user: people.member.id, role: 'member' }),
    },
    {
      name: 'archive a room',
      action: 'rooms.manage',
      post: (r) => people[r].b.send('/room/archive', { room: archived }),
    },
    {
      name: 'register a webhook',
      action: 'webhooks.manage',
      post: (r) => people[r].b.send('/team/webhooks', { url: 'http://example.com/hook' }),
    },
  ]
  for (const a of pageActions) {
    for (const role of ROLES) {
      const res = await a.post(role)
      if (ROLE_TABLE[a.action].includes(role)) {
        if (a.allowed !== undefined) t.equal(res.status, a.allowed, `${role} may ${a.name}`)
        else t.not(res.status, 403, `${role} may ${a.name}`)
      } else {
        t.equal(res.status, 403, `${role} may not ${a.name}`)
        t.match(res.body, new RegExp(`needs the role [a-z, ]*(${ROLE_TABLE[a.action].join('|')})`))
      }
    }
  }

  t.test('the rooms and room pages say what each role lets the person do there', async (t) => {
    const notes: Record<Role, { rooms: string; room: string }> = {
      owner: {
        rooms:
          'You are an owner: you can open every room of the team and the inbox, create rooms and ' +
          'act in them, give agents room invite keys, and archive, restore or delete rooms.',
        room:
          'You are an owner: you can read and search this room, act in it (post, answer, decide ' +
          'reviews, edit tasks and context, connect agents), and archive, restore or delete it.',
      },
      admin: {
        rooms:
          'You are an admin: you can open every room of the team and the inbox, create rooms and ' +
          'act in them, give agents room invite keys, and archive, restore or delete rooms.',
        room:
          'You are an admin: you can read and search this room, act in it (post, answer, decide ' +
          'reviews, edit tasks and context, connect agents), and archive, restore or delete it.',
      },
      member: {
        rooms:
          'You are a member: you can open every room of the team and the inbox, create rooms and ' +
          'act in them, and give agents room invite keys. Owners and admins can archive, restore or ' +
          'delete rooms.',
        room:
          'You are a member: you can read and search this room, and act in it (post, answer, decide ' +
          'reviews, edit tasks and context, connect agents). Owners and admins can archive, restore ' +
          'or delete it.',
      },
      viewer: {
        rooms:
          'You are a viewer: you can open every room of the team and the inbox. Owners, admins and ' +
          'members can create rooms and act in them, and give agents room invite keys; owners and ' +
          'admins can archive, restore or delete rooms.',
        room:
          'You are a viewer: you can read and search this room. Owners, admins and members can act ' +
          'in it (post, answer, decide reviews, edit tasks and context, connect agents); owners and ' +
          'admins can archive, restore or delete it.',
      },
    }
    for (const role of ROLES) {
      const rooms = (await people[role].b.get('/')).body
      t.match(rooms, `<p class="small muted role-note">${notes[role].rooms}`, `${role} on the rooms page`)
      t.match(rooms, '<a href="/team#roles">What each role may do</a>')
      const room = (await people[role].b.get(`/room?id=${roomId}`)).body
      t.match(room, `<p class="small muted role-note">${notes[role].room}`, `${role} on the room page`)
    }
    t.match((await owner.get('/team')).body, '<details class="small roles" id="roles">', 'the link leads to the table')
  })

  t.test('a member revokes only their own keys', async (t) => {
    const m = people.member.b
    const own = await m.send('/team/keys', { label: 'mine' })
    const ownId = /Key (key_[A-Za-z0-9_-]+) is minted/.exec(own.body)![1]!
    t.equal((await m.send('/team/keys/revoke', { key: ownId, confirmed: 'yes' })).status, 200, 'their own: revoked')
    const res = await m.send('/team/keys/revoke', { key: await ownersKey(), confirmed: 'yes' })
    t.equal(res.status, 403)
    t.match(res.body, /was minted by someone else; revoking another person.s key needs the role owner or admin/)
  })

  t.test('the last owner cannot leave, or stop being an owner', async (t) => {
    const demote = await owner.send('/team/members/role', {
      user: userIdIn((await owner.get('/team')).body, op)!,
      role: 'admin',
    })
    t.equal(demote.status, 409)
    t.match(demote.body, "is the team's last owner; make another person an owner first")
    const del = await owner.get('/account/delete')
    t.match(del.body, 'You are the last owner')
  })

  t.test('credentials: scope and access on the admin API and over MCP', async (t) => {
    const minted = async (json: unknown) => {
      const res = await n.call('/admin/keys', { key: ownerKey, method: 'POST', json })
      t.equal(res.status, 201)
      return ((await res.json()) as { key: string; scope: string; access: string }).key
    }
    const invite = async (json: unknown) => {
      const res = await n.call(`/admin/rooms/${roomId}/invite`, { key: ownerKey, method: 'POST', json })
      t.equal(res.status, 201)
      return ((await res.json()) as { key: string }).key
    }
    const grantToken = async (access: 'read' | 'write') => {
      const res = await oauthClient.redeem((await connected(ownerId, access)).code)
      t.equal(res.status, 200)
      return ((await res.json()) as { access_token: string }).access_token
    }
    const creds: Record<Cred, string> = {
      admin: ownerKey,
      'admin read-only': await minted({ scope: 'admin', access: 'read' }),
      agent: await minted({}),
      'agent read-only': await minted({ access: 'read' }),
      'room invite': await invite({}),
      'room invite read-only': await invite({ access: 'read' }),
      'connected agent': await grantToken('write'),
      'connected agent read-only': await grantToken('read'),
    }
    const toArchive = uid('arch')
    t.equal((await n.call('/admin/rooms', { key: ownerKey, method: 'POST', json: { roomId: toArchive } })).status, 201)
    const room = { room_id: roomId, agent_id: 'perm' }
    const calls: Record<
      string,
      (key: string) => Promise<{ ok: boolean; error?: { code?: string; message?: string } }>
    > = {
      'GET /admin/me': async (key) => http(await n.call('/admin/me', { key })),
      'GET /admin/audit': async (key) => http(await n.call('/admin/audit', { key })),
      'POST /admin/keys': async (key) => http(await n.call('/admin/keys', { key, method: 'POST', json: {} })),
      'POST /admin/keys (admin scope)': async (key) =>
        http(await n.call('/admin/keys', { key, method: 'POST', json: { scope: 'admin' } })),
      "DELETE /admin/keys/:keyId (another person's key)": async (key) => {
        const page = await people.admin.b.send('/team/keys', { label: 'theirs', scope: 'agent' })
        const keyId = /Key (key_[A-Za-z0-9_-]+) is minted/.exec(page.body)![1]!
        return http(await n.call(`/admin/keys/${keyId}`, { key, method: 'DELETE' }))
      },
      'POST /admin/rooms/:roomId/archive': async (key) =>
        http(await n.call(`/admin/rooms/${toArchive}/archive`, { key, method: 'POST' })),
      'POST /admin/webhooks': async (key) =>
        http(await n.call('/admin/webhooks', { key, method: 'POST', json: { url: 'http://example.com/x' } }), 400),
      'GET /room/:roomId (snapshot)': async (key) => http(await n.call(`/room/${roomId}`, { key })),
      'MCP read_context (readOnlyHint)': async (key) =>
        tool(
          await callTool(await legacyClient(t, n, key), 'read_context', { ...room, type: 'note', key: 'k' }),
          'not_found',
        ),
      'MCP write_context': async (key) =>
        tool(
          await callTool(await legacyClient(t, n, key), 'write_context', {
            ...room,
            type: 'note',
            key: uid('k'),
            body: 'x',
          }),
        ),
    }
    for (const [action, allowed] of Object.entries(SCOPE_TABLE)) {
      for (const cred of Object.keys(creds) as Cred[]) {
        const r = await calls[action]!(creds[cred])
        if (allowed.includes(cred)) t.ok(r.ok, `${cred} × ${action}: allowed`, { error: r.error })
        else if (MCP_ONLY.includes(cred) && !action.startsWith('MCP ')) {
          t.equal(r.error?.code, 'unauthorized', `${cred} × ${action}: no credential here`)
          t.match(r.error?.message, /an OAuth access token is a credential of \/mcp only/, 'says where it is one')
        } else {
          t.equal(r.error?.code, 'forbidden', `${cred} × ${action}: forbidden`)
          t.match(r.error?.message, /needs (a key with the admin scope|a team key|write access)/, 'names the need')
        }
      }
    }
  })
})

/** An HTTP answer as a cell: ok on 2xx (or the status that means "past the permission check"). */
async function http(res: Response, past?: number) {
  const body = (await res.json()) as { error?: { code?: string; message?: string } }
  return { ok: res.status < 300 || res.status === past, ...(body.error ? { error: body.error } : {}) }
}

/** A tool reply as a cell: ok unless refused (an error code other than `past` is a refusal). */
function tool(r: { isError?: boolean; body: { error?: { code?: string; message?: string } } }, past?: string) {
  return { ok: !r.isError || r.body.error?.code === past, ...(r.body.error ? { error: r.body.error } : {}) }
}
