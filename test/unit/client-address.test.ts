// The client address behind trusted proxies (src/http/client-address.ts): hop counts, trusted
// ranges, what a client writes into X-Forwarded-For itself, and the IPv6 /64 buckets.
import t from 'tap'
import { loadSettings } from '../../src/config.js'
import { ClientAddress, cidrProblem, clientBucket } from '../../src/http/client-address.js'

t.test('by hop count', async (t) => {
  const none = new ClientAddress({ hops: 0, cidrs: [] })
  t.equal(none.of('203.0.113.9', '198.51.100.1'), '203.0.113.9', 'no trust: the socket address, whatever is sent')
  const one = new ClientAddress({ hops: 1, cidrs: [] })
  t.equal(one.of('10.0.0.2', '198.51.100.1'), '198.51.100.1', 'one proxy: the entry it appended')
  t.equal(one.of('10.0.0.2', '6.6.6.6, 198.51.100.1'), '198.51.100.1', "the client's own entries are not believed")
  t.equal(one.of('10.0.0.2', undefined), '10.0.0.2', 'no header: the proxy itself')
  const two = new ClientAddress({ hops: 2, cidrs: [] })
  t.equal(two.of('10.0.0.3', '6.6.6.6, 198.51.100.1, 10.0.0.2'), '198.51.100.1', 'two proxies')
  t.equal(one.of('10.0.0.2', 'unknown'), '10.0.0.2', 'an entry that is no address: the peer')
  t.equal(one.of('::ffff:10.0.0.2', '[2001:db8::1]:4711'), '2001:db8:0:0:0:0:0:1', 'brackets and ports dropped')
})

t.test('by trusted ranges', async (t) => {
  const c = new ClientAddress({ hops: 0, cidrs: ['10.0.0.0/8', 'fd00::/8', '192.0.2.7'] })
  t.equal(c.of('203.0.113.9', '198.51.100.1'), '203.0.113.9', 'an untrusted peer is the client, whatever it sends')
  t.equal(c.of('10.1.2.3', '198.51.100.1'), '198.51.100.1', 'a trusted peer: the entry it appended')
  t.equal(
    c.of('10.1.2.3', '6.6.6.6, 198.51.100.1, 192.0.2.7, 10.9.9.9'),
    '198.51.100.1',
    'trusted hops skipped from the right; the first untrusted one is the client',
  )
  t.equal(c.of('fd00::5', '10.0.0.1'), '10.0.0.1', 'all trusted: the left-most')
  t.equal(c.of('::ffff:10.0.0.1', '198.51.100.1'), '198.51.100.1', 'an IPv4-mapped peer is its IPv4 address')
})

t.test('buckets: IPv4 itself, IPv6 by /64', async (t) => {
  t.equal(clientBucket('198.51.100.1'), '198.51.100.1')
  t.equal(clientBucket('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64')
  t.equal(clientBucket('2001:db8:1:2:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64', 'one /64, one bucket')
  t.not(clientBucket('2001:db8:1:3::1'), clientBucket('2001:db8:1:2::1'), 'another /64, another bucket')
  t.equal(clientBucket('::1'), '0:0:0:0::/64')
})

t.test('ranges are checked when the settings load', async (t) => {
  for (const bad of ['10.0.0.0/33', 'fd00::/129', 'nope', '10.0.0.0/8/1', '10.0.0.0/x']) t.ok(cidrProblem(bad), bad)
  for (const good of ['10.0.0.0/8', '192.0.2.7', 'fd00::/8', '::1']) t.equal(cidrProblem(good), undefined, good)
  t.throws(() => loadSettings({ TRUSTED_PROXY_CIDRS: '10.0.0.0/8,10.0.0.0/40' }), /TRUSTED_PROXY_CIDRS.*0 to 32/s)
  t.same(loadSettings({ TRUSTED_PROXY_CIDRS: ' 10.0.0.0/8 , fd00::/8' }).trustedProxyCidrs, ['10.0.0.0/8', 'fd00::/8'])
  t.throws(() => loadSettings({ TRUSTED_PROXY_HOPS: '11' }), /TRUSTED_PROXY_HOPS/)
})
