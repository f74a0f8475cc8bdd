// Requests no route matches on a real node: a browser (Accept naming text/html first) gets a page
// in the dashboard's layout, signed in or not, with a way home; an API client (Accept JSON, a
// bare wildcard, or none) gets the JSON error body exactly as the API documents it. And the
// favicon every page links, which /favicon.ico leads to.
import t from 'tap'
import { prefersHtml } from '../../src/http/edge.js'
import { signedInOperator } from '../helpers/accounts.js'

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8'

t.test('which Accept headers prefer HTML', async (t) => {
  t.ok(prefersHtml(BROWSER_ACCEPT), "a browser's navigation")
  t.ok(prefersHtml('text/html'))
  t.ok(prefersHtml('application/json;q=0.5, text/html'))
  t.notOk(prefersHtml(undefined), 'none')
  t.notOk(prefersHtml(''), 'empty')
  t.notOk(prefersHtml('*/*'), 'a bare wildcard (curl, fetch)')
  t.notOk(prefersHtml('application/json'))
  t.notOk(prefersHtml('application/json, text/html;q=0.9'), 'JSON preferred')
  t.notOk(prefersHtml('text/html;q=0'), 'HTML refused')
  t.notOk(prefersHtml('text/html;q=abc'), 'a quality that is no number counts for nothing')
})

t.test('404 and 405, for browsers and for API clients', async (t) => {
  const { n, b, op } = await signedInOperator(t)
  const get = (path: string, headers: Record<string, string>, method = 'GET') =>
    fetch(new URL(path, n.base), { method, headers, redirect: 'manual' })

  t.test('signed out: a page with the way to sign in', async (t) => {
    const res = await get('/nope', { Accept: BROWSER_ACCEPT })
    t.equal(res.status, 404)
    t.match(res.headers.get('content-type'), /^text\/html/)
    t.match(res.headers.get('content-security-policy'), /default-src/, "the pages' security headers")
    const body = await res.text()
    t.match(body, /^<!doctype html>/)
    t.match(body, '<title>Page not found · agentrooms</title>')
    t.match(body, 'There is no page at /nope.')
    t.match(body, '<a href="/signin">Sign in</a>')
    t.notMatch(body, 'Sign out', 'nobody is signed in')
    t.notMatch(body, 'openapi', 'no API words for a person')
  })

  t.test('signed in: the same layout with the navigation and the way home', async (t) => {
    const res = await get('/rooms/nope/deeper', { Accept: BROWSER_ACCEPT, Cookie: b.cookie! })
    t.equal(res.status, 404)
    const body = await res.text()
    t.match(body, 'There is no page at /rooms/nope/deeper.')
    t.match(body, '<a href="/">Back to your rooms</a>')
    t.match(body, `<span class="muted">${op}</span>`, 'the navigation names the person')
    t.match(body, 'Sign out')
  })

  t.test('405: a form address opened as a page says so, with Allow', async (t) => {
    const res = await get('/team/keys/revoke', { Accept: BROWSER_ACCEPT, Cookie: b.cookie! })
    t.equal(res.status, 405)
    t.equal(res.headers.get('allow'), 'POST')
    const body = await res.text()
    t.match(body, '<title>Not a page to open · agentrooms</title>')
    t.match(body, '/team/keys/revoke takes a form sent from a page; it is not a page to open.')
    t.match(body, '<a href="/">Back to your rooms</a>')
  })

  t.test('HEAD from a browser: the status without a body', async (t) => {
    const res = await get('/nope', { Accept: BROWSER_ACCEPT }, 'HEAD')
    t.equal(res.status, 404)
    t.equal(await res.text(), '')
  })

  t.test('API clients keep the JSON error body', async (t) => {
    const clients: Record<string, string>[] = [
      {},
      { Accept: 'application/json' },
      { Accept: '*/*' },
      { Accept: 'application/xml,*/*;q=0.8' },
    ]
    for (const headers of clients) {
      const res = await get('/nope', { ...headers, Cookie: b.cookie! })
      t.equal(res.status, 404, JSON.stringify(headers))
      t.match(res.headers.get('content-type'), /^application\/json/)
      const body = (await res.json()) as { error: Record<string, unknown> }
      t.same(Object.keys(body), ['error'])
      t.same(Object.keys(body.error).sort(), ['code', 'hint', 'message'])
      t.match(body.error, { code: 'not_found', message: 'no endpoint /nope; see GET /openapi.json', hint: String })
    }
    const wrong = await get('/rooms', { Accept: 'application/json' }, 'DELETE')
    t.equal(wrong.status, 405)
    t.match(wrong.headers.get('allow'), /POST/)
    t.match(await wrong.json(), { error: { code: 'method_not_allowed', message: /DELETE is not allowed on \/rooms/ } })
  })
})

t.test('the favicon: linked from every page, cached as an asset, and at /favicon.ico', async (t) => {
  const { n, b } = await signedInOperator(t)
  const signedOut = await (await fetch(new URL('/signin', n.base))).text()
  const home = await b.get('/')
  const icon = /<link rel="icon" href="(\/assets\/favicon\.[0-9a-f]{12}\.svg)" type="image\/svg\+xml"\/>/
  const path = icon.exec(signedOut)?.[1]
  t.ok(path, 'the sign-in page links it')
  t.equal(icon.exec(home.body)?.[1], path, 'and so does a signed-in page, the same icon')
  const res = await fetch(new URL(path!, n.base))
  t.equal(res.status, 200)
  t.equal(res.headers.get('content-type'), 'image/svg+xml')
  t.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable')
  t.match(await res.text(), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
  const ico = await fetch(new URL('/favicon.ico', n.base), { redirect: 'manual' })
  t.equal(ico.status, 302, '/favicon.ico answers (no 404)')
  t.equal(ico.headers.get('location'), path, 'with the icon')
  t.equal(ico.headers.get('cache-control'), 'public, max-age=86400')
  t.equal((await fetch(new URL('/favicon.ico', n.base))).status, 200, 'which a client following it gets')
})
