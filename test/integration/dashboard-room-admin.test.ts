// Archiving and deleting a room on the dashboard: an owner archives it in one step (the room page
// says what that means; the rooms page lists it under "Archived"), a form of the room is refused
// while it is archived, naming the room's state, with what was typed kept; restoring makes it
// writable; deleting takes the confirmation step, which counts what goes, then the room is gone.
// A member sees no controls and is told which role may; posting anyway is refused naming it.
import t from 'tap'
import { signedInOperator } from '../helpers/accounts.js'
import { Browser, linkIn } from '../helpers/mail.js'
import { uid } from '../helpers/shared.js'
import { TEMPLATES } from '../../src/core/templates.js'

const webApp = TEMPLATES.find((x) => x.id === 'web-app')!

t.test('archive, restore and delete a room on the dashboard', async (t) => {
  const { inbox, n, b } = await signedInOperator(t)
  const teamId = (await n.node.accounts.session(b.jar.get('ar_session')))!.team
  const roomId = uid('ar')
  await n.node.core.rooms.create(teamId, { room_id: roomId, template: 'web-app' }, 'planner')
  const room = `/room?id=${roomId}`

  t.test('the owner archives the room in one step; the pages say what it means', async (t) => {
    const page = (await b.get(room)).body
    t.match(page, '<h2 id="manage-h">Archive or delete this room</h2>')
    t.match(page, '<button type="submit">Archive this room</button>')
    const archived = await b.send('/room/archive', { room: roomId })
    t.equal(archived.posted.status, 303, 'Post/Redirect/Get')
    t.equal(archived.posted.location, `/room?id=${roomId}#manage-h`)
    t.match(archived.body, /<p class="notice archived" role="status"><strong>Archived<\/strong>/)
    t.match(archived.body, "this room is read-only. Agents' writes are refused")
    t.match(archived.body, '<button type="submit">Restore this room</button>')
    const rooms = (await b.get('/')).body
    const under = rooms.slice(rooms.indexOf('<h2 id="archived">Archived</h2>'))
    t.ok(rooms.includes('<h2 id="archived">Archived</h2>'), 'the rooms page has an Archived list')
    t.match(under, `href="/room?id=${roomId}"`, 'the room is listed under it')
    t.notMatch(rooms.slice(0, rooms.indexOf('<h2 id="archived">')), `href="/room?id=${roomId}"`, 'not above it')
  })

  t.test("a room's form is refused while it is archived, naming its state, with the text kept", async (t) => {
    const res = await b.post('/room/events', { room: roomId, type: 'message', text: 'kept words' })
    t.equal(res.status, 409)
    t.match(res.body, `Room ${roomId} is archived, so it is read-only`)
    t.match(res.body, 'kept words', 'what was typed is kept')
    t.equal((await n.node.core.events.read({ room: { teamId, roomId } }, {})).events.length, 0, 'nothing posted')
  })

  t.test('restored, the room takes writes again', async (t) => {
    const restored = await b.send('/room/restore', { room: roomId })
    t.equal(restored.posted.status, 303)
    t.match(restored.body, '<button type="submit">Archive this room</button>')
    t.notMatch(restored.body, 'class="notice archived"')
    t.equal((await b.post('/room/events', { room: roomId, type: 'message', text: 'hello' })).status, 303)
  })

  t.test('a member sees no controls, and posting anyway is refused naming the role', async (t) => {
    const email = `${uid('m')}@example.com`
    await b.send('/team/invites', { email })
    const m = new Browser(n.base)
    t.equal((await m.follow(linkIn(await inbox.next(email)))).status, 303)
    const page = (await m.get(room)).body
    t.notMatch(page, 'Archive this room')
    t.match(page, 'Archiving, restoring or deleting a room needs the role owner or admin; you are member.')
    for (const path of ['/room/archive', '/room/delete']) {
      const res = await m.post(path, { room: roomId, confirmed: 'yes' })
      t.equal(res.status, 403, `${path}: 403`)
      t.match(res.body, 'needs the role owner or admin; you are member')
    }
    t.notOk((await n.node.core.rooms.info({ room: { teamId, roomId } })).room.archived_at, 'nothing changed')
  })

  t.test('deleting asks first, counting what goes; then the room is gone', async (t) => {
    const asked = await b.post('/room/delete', { room: roomId })
    t.equal(asked.status, 200, 'the confirmation page')
    t.match(asked.body, `<h1>Delete room ${roomId}?</h1>`)
    t.match(asked.body, `${webApp.tasks.length} task(s), 1 event(s), ${webApp.context.length} context entries`)
    t.match(asked.body, /— \d+ stored key\(s\) in all/)
    t.match(asked.body, `<a href="/room?id=${roomId}">Cancel: keep it and go back</a>`)
    t.ok(await n.node.core.rooms.exists({ teamId, roomId }), 'nothing deleted yet')
    const deleted = await b.send('/room/delete', { room: roomId, confirmed: 'yes' })
    t.equal(deleted.posted.status, 303)
    t.match(deleted.posted.location, /^\/\?done=/)
    t.match(deleted.body, `Room ${roomId} is deleted: ${webApp.tasks.length} task(s), 1 event(s)`)
    t.notOk(await n.node.core.rooms.exists({ teamId, roomId }), 'the room is gone')
    t.notMatch(deleted.body, `href="/room?id=${roomId}"`, 'and no longer listed')
    t.equal((await b.get(room)).status, 404)
    const team = (await b.get('/team')).body
    t.match(team, `deleted room ${roomId} (${webApp.tasks.length} tasks, 1 events`, 'audited with what went')
  })
})
