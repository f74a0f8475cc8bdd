// The sign-in pages' per-client limit behind a proxy (TRUSTED_PROXY_HOPS=1, as with the shipped
// nginx): each client has its own bucket, an entry a client adds to X-Forwarded-For itself changes
// nothing, and IPv6 clients count by /64.
import t from 'tap'
import { testPrefix } from '../helpers/accounts.js'
import { startSmtp } from '../helpers/mail.js'
import { startNode } from '../helpers/node.js'

t.test('per-client sign-in limits behind one trusted proxy', async (t) => {
  const inbox = await startSmtp(t)
  const n = await startNode(t, 'standalone', {
    keyPrefix: testPrefix(),
    smtpUrl: inbox.url,
    trustedProxyHops: 1,
    signInRatePerIp: 3,
    signInRatePerAddress: 100,
  })
  const origin = n.base.replace('127.0.0.1', 'localhost')
  let seq = 0
  /** A sign-in request as the proxy forwards it: `forwarded` is the X-Forwarded-For it sends. */
  const signIn = async (forwarded: string) => {
    const res = await fetch(`${n.base}/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'Sec-Fetch-Site': 'same-origin',
        Origin: origin,
        'X-Forwarded-For': forwarded,
      },
      body: `email=someone${++seq}%40example.com`,
    })
    return { status: res.status, body: await res.text() }
  }

  for (let i = 0; i < 3; i++) t.equal((await signIn('198.51.100.1')).status, 200, `client A, request ${i + 1}`)
  const refused = await signIn('198.51.100.1')
  t.equal(refused.status, 429, 'client A is over its limit')
  t.match(refused.body, 'Too many sign-in requests for your network address')
  t.equal((await signIn('6.6.6.6, 198.51.100.1')).status, 429, 'an entry client A writes itself does not help')
  t.equal((await signIn('198.51.100.2')).status, 200, 'client B behind the same proxy has its own budget')

  for (let i = 0; i < 3; i++) t.equal((await signIn('2001:db8:5:6::1')).status, 200, `IPv6 client, request ${i + 1}`)
  t.equal((await signIn('2001:db8:5:6::2')).status, 429, 'another address of the same /64 shares the bucket')
  t.equal((await signIn('2001:db8:5:7::1')).status, 200, 'another /64 does not')
})
