// The room page's live stream on two nodes sharing one Redis: same origin, authenticated by the
// session cookie (no key); an agent's change on the other node arrives as a frame; a dropped
// connection resumed with Last-Event-ID gets every later event once and nothing twice; the page
// links the fingerprinted script that follows it.
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { SESSION_CHECK_MS } from '../../src/dashboard/live.js'
import { testPrefix } from '../helpers/accounts.js'
import { Browser, keyIn, linkIn, startSmtp } from '../helpers/mail.js'
import { callTool, legacyClient } from '../helpers/mcp.js'
import { startNode } from '../helpers/node.js'
import { uid } from '../helpers/shared.js'

interface Frame {
  id?: string
  event?: string
  data?: string
}

/** Reads SSE frames from a streamed response (into `out`) until `until` says stop or `ms` pass. */
async function frames(res: Response, until: (f: Frame[]) => boolean, ms = 5000, out: Frame[] = []): Promise<Frame[]> {
  const reader = res.body!.getReader()
  const dec = new TextDecoder()
  let buf = ''
  const deadline = Date.now() + ms
  while (!until(out) && Date.now() < deadline) {
    const r = await Promise.race([
      reader.read(),
      new Promise<{ done: true; value: undefined }>((ok) =>
        setTimeout(() => ok({ done: true, value: undefined }), Math.max(1, deadline - Date.now())),
      ),
    ])
    if (r.done) break
    buf += dec.decode(r.value, { stream: true })
    let end
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, end)
      buf = buf.slice(end + 2)
      const f: Frame = {}
      for (const line of block.split('\n')) {
        const m = /^(id|event|data): (.*)$/.exec(line)
        if (m) f[m[1] as keyof Frame] = m[2]
      }
      if (f.event || f.id) out.push(f)
    }
  }
  await reader.cancel().catch(() => undefined)
  return out
}

t.test('standalone, two nodes', async (t) => {
  const inbox = await startSmtp(t)
  const prefix = testPrefix()
  const op = `${uid('op')}@example.com`
  const a = await startNode(t, 'standalone', { keyPrefix: prefix, smtpUrl: inbox.url, adminEmails: [op] })
  const other = await startNode(t, 'standalone', { keyPrefix: prefix, smtpUrl: inbox.url, adminEmails: [op] })
  const b = new Browser(a.base)
  await b.post('/signin', { email: op })
  const teamKey = keyIn(await b.follow(linkIn(await inbox.next(op))))!
  t.equal((await b.send('/rooms', { name: 'live', agents: 'dev', template: 'web-app' })).status, 200)
  const agent = await legacyClient(t, other, teamKey)
  const post = async (text: string) => {
    const r = await callTool(agent, 'post_event', { room_id: 'live', agent_id: 'dev', type: 'message', text })
    return (r.body.event as { id: string }).id
  }
  const open = (headers: Record<string, string> = {}, query = '') =>
    fetch(`${a.base}/live?id=live${query}`, { headers: { Cookie: b.cookie!, ...headers } })

  t.test('the room page links the fingerprinted script and says where to follow', async (t) => {
    const page = await b.get('/room?id=live')
    const src = /<script src="(\/assets\/live\.[0-9a-f]{12}\.js)" defer><\/script>/.exec(page.body)?.[1]
    t.ok(src, 'a fingerprinted script, no inline script')
    t.match(page.body, 'data-live="/live?id=live"')
    const js = await fetch(a.base + src!)
    t.equal(js.status, 200)
    t.match(js.headers.get('content-type') ?? '', 'text/javascript')
    const body = Buffer.from(await js.arrayBuffer())
    t.ok(gzipSync(body).length < 60 * 1024, `the script is under 60 kB compressed (${gzipSync(body).length} B)`)
    t.notMatch(body.toString(), /ar_(team|room)_/, 'no key in the script')
  })

  t.test('events and other changes made on the other node arrive; no key needed, the session is enough', async (t) => {
    const res = await open()
    t.equal(res.status, 200)
    t.match(res.headers.get('content-type') ?? '', 'text/event-stream')
    const got = frames(
      res,
      (f) =>
        f.some((x) => x.event === 'room-event') &&
        f.some((x) => x.event === 'changed' && x.data?.includes('"plan"')) &&
        f.some((x) => x.event === 'changed' && x.data?.includes('"html"')),
    )
    await new Promise((ok) => setTimeout(ok, 200))
    const id = await post('hello <b>you</b>')
    await callTool(agent, 'update_task', {
      room_id: 'live',
      agent_id: 'dev',
      task_id: 't1',
      status: 'in_progress',
      assignee: 'dev',
    })
    const f = await got
    const ev = f.find((x) => x.event === 'room-event')
    t.equal(ev?.id, id, 'the event, with its id')
    const data = JSON.parse(ev!.data!) as { parts: string[]; item: string }
    t.same(data.parts, ['events'], 'naming the parts of the page it changes (the head follows rendered)')
    t.match(data.item, /^<li id="event-[\d-]+" data-event=[^>]+>.*hello &lt;b>you&lt;\/b>/s, 'its item, as text')
    t.notMatch(data.item, '<b>', 'no markup of the agent')
    const changed = f
      .filter((x) => x.event === 'changed')
      .map(
        (x) => JSON.parse(x.data!) as { parts: string[]; html?: Record<string, string>; v?: Record<string, unknown[]> },
      )
    // Each part it changes is named to fetch, or patched (`v`, by data-part: what needs you is needs-<room>).
    const moved = (c: (typeof changed)[number], p: string) =>
      c.parts.includes(p) || Object.keys(c.v ?? {}).some((k) => k === p || k.startsWith(`${p}-`))
    t.ok(
      changed.some((c) => ['plan', 'graph', 'needs'].every((p) => moved(c, p)) && !c.parts.includes('events')),
      `a task change is announced with the parts it changes (${JSON.stringify(changed)})`,
    )
    // (The stream's first frame gives the version now of every part: the page joined.)
    const patched = changed.find((c) => c.v?.['plan']?.[2])?.v?.['plan']
    t.match(patched, [String, String, Array], 'the board as a patch from the version before')
    const head = changed.find((c) => c.html?.head)
    t.match(head?.html?.head, /^<p class="muted" data-part="head">.* 1 events posted/, 'the head, rendered')
    t.match(head?.html?.['events-count'], '(1 posted)', "the feed heading's count")
    t.notOk(head?.parts.includes('head'), 'and not to fetch')
  })

  t.test('resuming after a dropped connection: every later event once, none twice', async (t) => {
    const first = await post('one')
    const second = await post('two')
    const third = await post('three')
    const res = await open({ 'Last-Event-ID': first })
    const f = (await frames(res, (x) => x.filter((y) => y.event === 'room-event').length >= 2, 3000)).filter(
      (x) => x.event === 'room-event',
    )
    t.same(
      f.map((x) => x.id),
      [second, third],
      'exactly the events after the last one seen',
    )
    const fromQuery = (
      await frames(await open({}, `&lastEventId=${second}`), (x) => x.some((y) => y.event === 'room-event'), 3000)
    ).filter((x) => x.event === 'room-event')
    t.same(
      fromQuery.map((x) => x.id),
      [third],
      "the first connection resumes from the page's last event (?lastEventId)",
    )
  })

  t.test('a page that joins after a change it does not show gets that part at its version now', async (t) => {
    /** The versions of the parts a page shows, as its script sends them (`?v=`). */
    const held = (html: string) =>
      [...html.matchAll(/ data-v="([^"]+)" data-part="([^"]+)"/g)].map((m) => `${m[2]}:${m[1]}`).join(',')
    const versionIn = (html: string, part: string) =>
      new RegExp(` data-v="([^"]+)" data-part="${part}"`).exec(html)?.[1]
    const claim = async (task: string) => {
      const r = await callTool(agent, 'update_task', {
        room_id: 'live',
        agent_id: 'dev',
        task_id: task,
        status: 'in_progress',
        assignee: 'dev',
        force: true,
      })
      t.notOk(r.isError, `${task} claimed`)
    }
    /** The plan's entry of the `changed` frames of a stream, by `v`. */
    const planOf = (f: Frame[]) =>
      f
        .filter((x) => x.event === 'changed')
        .map((x) => (JSON.parse(x.data!) as { v?: Record<string, [string, string, unknown[]?]> }).v?.['plan'])
        .filter((v) => v !== undefined)

    // Nobody follows the room: the page is rendered, the plan changes, then the page joins.
    const page = await b.get('/room?id=live')
    const before = versionIn(page.body, 'plan')!
    t.ok(before, 'the page shows the plan at a version')
    await claim('t3')
    await new Promise((ok) => setTimeout(ok, 300))
    const first = await open({}, `&v=${encodeURIComponent(held(page.body))}`)
    const f1 = await frames(first, (f) => planOf(f).length > 0, 3000)
    const [from, to] = planOf(f1)[0] ?? []
    t.not(to, before, 'the plan at its version now')
    t.equal(from, before, "as a patch from the page's own")

    // Another page of the same person follows the room already: a page rendered before a change and
    // joining after it is told the part's version now.
    const following = await open({}, `&v=${encodeURIComponent(held((await b.get('/room?id=live')).body))}`)
    const followed: Frame[] = []
    let stop = false
    const watching = frames(following, () => stop, 10_000, followed)
    await new Promise((ok) => setTimeout(ok, 400))
    const late = await b.get('/room?id=live')
    const shown = versionIn(late.body, 'plan')
    await claim('t4')
    // The change's frame reaches the page that follows; the late page joins after it.
    const moved = () => planOf(followed).find(([, to]) => to !== shown)?.[1]
    for (let i = 0; i < 100 && !moved(); i++) await new Promise((ok) => setTimeout(ok, 50))
    const now = moved()
    t.ok(now, 'the plan changed for the page that was following')
    const second = await open({}, `&v=${encodeURIComponent(held(late.body))}`)
    const f2 = await frames(second, (f) => planOf(f).length > 0, 3000)
    stop = true
    await watching
    t.same(planOf(f2)[0], [now, now], 'the late page is told the version now, which it fetches')
    const part = await b.get('/room/part?id=live&part=plan')
    t.equal(versionIn(part.body, 'plan'), now, 'and fetching it gives that version')
  })

  t.test("refused: signed out, bad ids, another team's room", async (t) => {
    const out = await fetch(`${a.base}/live?id=live`, { redirect: 'manual' })
    t.equal(out.status, 303, 'signed out: no stream')
    t.equal((await open({ 'Last-Event-ID': 'nope' })).status, 400)
    const bad = await open({}, '&v=plan')
    t.equal(bad.status, 400, 'versions not as <part>:<version>')
    t.match(await bad.text(), 'v: &quot;plan&quot; is not &lt;part>:&lt;version>')
    const many = await open({}, `&v=${Array.from({ length: 17 }, (_, i) => `p${i}:x`).join(',')}`)
    t.equal(many.status, 400)
    t.match(await many.text(), 'v: 17 parts; the limit is 16')
    t.equal((await fetch(`${a.base}/live?id=..`, { headers: { Cookie: b.cookie! } })).status, 400)
    t.equal((await fetch(`${a.base}/live?id=not-mine`, { headers: { Cookie: b.cookie! } })).status, 404)
  })

  t.test('an open stream ends with signed-out once its session ends (here: sign-out from another tab)', async (t) => {
    const res = await open()
    t.equal(res.status, 200)
    const got = frames(res, (f) => f.some((x) => x.event === 'signed-out'), SESSION_CHECK_MS * 3)
    const cookie = b.cookie!
    await b.post('/signout', {})
    const f = await got
    t.ok(
      f.some((x) => x.event === 'signed-out'),
      'the stream says so and ends',
    )
    t.equal(
      (await fetch(`${a.base}/live?id=live`, { headers: { Cookie: cookie }, redirect: 'manual' })).status,
      303,
      'and the cookie opens no new one',
    )
  })
})
