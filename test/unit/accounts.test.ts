// Pieces of the accounts surface that need no Redis: the session cookie's name and attributes,
// the same-origin check, the mail fallback's rule, and the settings that guard them.
import t from 'tap'
import { Mailer } from '../../src/auth/mailer.js'
import { defaultSettings, loadSettings } from '../../src/config.js'
import { Origin } from '../../src/dashboard/security.js'
import { createLogger } from '../../src/shared/logger.js'

const req = (headers: Record<string, string>) => ({
  method: 'POST',
  path: '/signin',
  query: new URLSearchParams(),
  headers,
  remote: '127.0.0.1',
  rawQuery: '',
  client: '127.0.0.1',
})

t.test('https: a __Host- cookie marked Secure; plain-HTTP localhost: no prefix, not Secure', async (t) => {
  const https = new Origin('https://rooms.example.com', 8080, true)
  t.equal(https.cookieName, '__Host-ar_session')
  t.equal(
    https.sessionCookie('x'.repeat(32), 60),
    `__Host-ar_session=${'x'.repeat(32)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=60; Secure`,
  )
  t.notMatch(https.sessionCookie('x', 1), /Domain=/, 'no Domain (a __Host- rule)')
  const local = new Origin('http://localhost:8080', 8080, false)
  t.equal(local.cookieName, 'ar_session')
  t.notMatch(local.sessionCookie('x', 60), /Secure/)
  t.equal(local.sessionToken(req({ cookie: 'a=b; ar_session=tok; c=d' })), 'tok')
})

t.test('CSRF: Sec-Fetch-Site same-origin, else an exact Origin; neither is refused', async (t) => {
  const o = new Origin('https://rooms.example.com', 8080, true)
  t.equal(o.crossSite(req({ 'sec-fetch-site': 'same-origin' })), undefined)
  t.match(
    o.crossSite(req({ 'sec-fetch-site': 'cross-site', origin: 'https://rooms.example.com' })),
    /another site/,
    'Sec-Fetch-Site decides when sent',
  )
  t.match(o.crossSite(req({ 'sec-fetch-site': 'same-site' })), /another site/, 'a sibling subdomain is another origin')
  t.equal(o.crossSite(req({ origin: 'https://rooms.example.com' })), undefined, 'an older browser: Origin')
  t.match(o.crossSite(req({ origin: 'https://rooms.example.com.evil.test' })), /another origin/)
  t.match(o.crossSite(req({})), /neither/)
  const dev = new Origin('http://localhost:8080', 8080, false)
  t.equal(
    dev.crossSite(req({ origin: 'http://127.0.0.1:8080' })),
    undefined,
    'development: the loopback forms of the port',
  )
  t.match(dev.crossSite(req({ origin: 'http://127.0.0.1:9090' })), /another origin/)
})

t.test('without SMTP_URL mails go to the log only in development; elsewhere the node refuses to start', async (t) => {
  const log = createLogger('silent')
  t.ok(new Mailer(defaultSettings(), log).toLog, 'PUBLIC_URL unset: development')
  t.ok(new Mailer(defaultSettings({ publicUrl: 'http://localhost:8080' }), log).toLog)
  t.throws(() => new Mailer(defaultSettings({ publicUrl: 'https://rooms.example.com' }), log), /SMTP_URL is not set/)
  t.notOk(
    new Mailer(defaultSettings({ publicUrl: 'https://rooms.example.com', smtpUrl: 'smtp://127.0.0.1:2525' }), log)
      .toLog,
  )
})

t.test(
  'settings: PUBLIC_URL is https except on localhost; ADMIN_EMAILS is a list of addresses; OAuth needs its secrets',
  async (t) => {
    t.throws(() => loadSettings({ PUBLIC_URL: 'http://rooms.example.com' }), /PUBLIC_URL: must be an https URL/)
    t.equal(loadSettings({ PUBLIC_URL: 'http://localhost:8080' }).publicUrl, 'http://localhost:8080')
    t.same(loadSettings({ ADMIN_EMAILS: ' Ops@Example.com, b@example.com ' }).adminEmails, [
      'ops@example.com',
      'b@example.com',
    ])
    t.throws(
      () => loadSettings({ ADMIN_EMAILS: 'not-an-address' }),
      /ADMIN_EMAILS: must be comma-separated e-mail addresses/,
    )
    t.throws(
      () => loadSettings({ OIDC_ISSUER: 'https://id.example.com' }),
      /OIDC_ISSUER needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET/,
    )
    t.throws(() => loadSettings({ GITHUB_CLIENT_ID: 'x' }), /GITHUB_CLIENT_ID needs GITHUB_CLIENT_SECRET/)
  },
)
