// Which addresses a webhook may reach (src/webhooks/guard.ts), address by address, and the shape
// rules of a webhook URL. The integration tests (webhook-ssrf) drive the same checks through nodes.
import t from 'tap'
import { parseTargetUrl, refusalOf, resolveTarget, TargetError } from '../../src/webhooks/guard.js'
import { webhookSchemas } from '../../src/webhooks/registry.js'

t.test('private, loopback, link-local, multicast, metadata and reserved addresses are refused', async (t) => {
  const refused: [string, RegExp][] = [
    ['127.0.0.1', /loopback/],
    ['127.255.0.9', /loopback/],
    ['10.0.0.1', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /link-local .*metadata/],
    ['100.100.100.200', /carrier NAT/],
    ['0.0.0.0', /this network/],
    ['224.0.0.251', /multicast/],
    ['239.255.255.250', /multicast/],
    ['255.255.255.255', /reserved or broadcast/],
    ['192.0.2.10', /documentation/],
    ['198.18.0.1', /benchmarking/],
    ['::1', /^a loopback address$/],
    ['::', /unspecified/],
    ['::127.0.0.1', /IPv4-compatible/],
    ['::ffff:127.0.0.1', /loopback address \(as 127\.0\.0\.1\)/],
    ['::ffff:7f00:1', /loopback address \(as 127\.0\.0\.1\)/],
    ['::ffff:a9fe:a9fe', /link-local .*\(as 169\.254\.169\.254\)/],
    ['64:ff9b::a00:1', /private address \(as 10\.0\.0\.1\)/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['fc00::1', /unique local/],
    ['fd00:ec2::254', /unique local .*metadata/],
    ['ff02::1', /multicast/],
    ['2001:db8::1', /documentation/],
    ['2002:7f00:1::', /6to4/],
  ]
  for (const [address, why] of refused) t.match(refusalOf(address), why, `${address} is refused`)
})

t.test('every spelling of an IPv6 address that carries a forbidden IPv4 address is refused', async (t) => {
  const spellings: [string, RegExp][] = [
    // IPv4-mapped, ::ffff:0:0/96
    ['0:0:0:0:0:ffff:127.0.0.1', /loopback address \(as 127\.0\.0\.1\)/],
    ['0000:0000:0000:0000:0000:ffff:7f00:0001', /loopback address \(as 127\.0\.0\.1\)/],
    ['::FFFF:7F00:1', /loopback address \(as 127\.0\.0\.1\)/],
    ['::ffff:10.1.2.3', /private address \(as 10\.1\.2\.3\)/],
    // IPv4-translated, ::ffff:0:0:0/96
    ['::ffff:0:127.0.0.1', /loopback address \(as 127\.0\.0\.1\)/],
    ['::ffff:0:7f00:1', /loopback address \(as 127\.0\.0\.1\)/],
    ['::ffff:0:a9fe:a9fe', /link-local .*\(as 169\.254\.169\.254\)/],
    ['0:0:0:0:ffff:0:c0a8:101', /private address \(as 192\.168\.1\.1\)/],
    // NAT64 well-known prefix, 64:ff9b::/96
    ['64:ff9b::127.0.0.1', /loopback address \(as 127\.0\.0\.1\)/],
    ['64:ff9b::a9fe:a9fe', /link-local .*\(as 169\.254\.169\.254\)/],
    ['64:ff9b:1::8.8.8.8', /local NAT64/],
    // IPv4-compatible (deprecated), refused whole
    ['::8.8.8.8', /IPv4-compatible/],
    ['::7f00:1', /IPv4-compatible/],
    // ISATAP interface ids: the carried address and the prefix are both checked
    ['2606:4700::5efe:10.0.0.1', /private address \(as 10\.0\.0\.1\)/],
    ['2606:4700::200:5efe:7f00:1', /loopback address \(as 127\.0\.0\.1\)/],
    ['fe80::5efe:8.8.8.8', /link-local/],
    // Tunnels whose addresses only carry IPv4: 6to4 and Teredo, refused whole
    ['2002:a9fe:a9fe::1', /6to4/],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /IETF protocol/],
  ]
  for (const [address, why] of spellings) t.match(refusalOf(address), why, `${address} is refused`)
  for (const raw of ['https://[::ffff:0:127.0.0.1]/', 'https://[::ffff:0:a9fe:a9fe]/', 'https://[64:ff9b::7f00:1]/'])
    await t.rejects(resolveTarget(parseTargetUrl(raw)), TargetError, `${raw} cannot be registered`)
})

t.test('public addresses are allowed', async (t) => {
  for (const address of [
    '8.8.8.8',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '::ffff:0:8.8.8.8',
    '2606:4700::5efe:8.8.8.8',
  ]) {
    t.equal(refusalOf(address), undefined, `${address} is allowed`)
  }
})

t.test('the test-only loopback allowance lets loopback through and nothing else', async (t) => {
  for (const address of ['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1'])
    t.equal(refusalOf(address, true), undefined, `${address} is allowed`)
  for (const address of ['10.0.0.1', '169.254.169.254', '::', 'fe80::1', '192.168.0.1'])
    t.ok(refusalOf(address, true), `${address} is still refused`)
})

t.test('webhook URLs: https only, no credentials, no fragment, bounded', async (t) => {
  t.equal(parseTargetUrl('https://hooks.example.com:8443/in?x=1').href, 'https://hooks.example.com:8443/in?x=1')
  for (const scheme of ['HTTPS', 'Https', 'hTTpS']) {
    const url = `${scheme}://hooks.example.com/in`
    t.ok(
      webhookSchemas.create.safeParse({ url }).success,
      `the body schema takes ${scheme}:// (schemes are case-insensitive)`,
    )
    t.equal(parseTargetUrl(url).href, 'https://hooks.example.com/in', 'and it is kept lowercased')
  }
  t.notOk(webhookSchemas.create.safeParse({ url: 'HTTP://hooks.example.com/in' }).success, 'HTTP:// is still refused')
  const bad: [string, RegExp][] = [
    ['http://hooks.example.com/', /must be an https:\/\/ URL \(got http:\/\/\)/],
    ['ftp://hooks.example.com/', /must be an https:\/\/ URL/],
    ['hooks.example.com/in', /is not a URL/],
    ['https://u:p@hooks.example.com/', /credentials/],
    ['https://hooks.example.com/#x', /fragment/],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, /at most 2048 characters/],
  ]
  for (const [url, why] of bad) t.throws(() => parseTargetUrl(url), why, url.slice(0, 60))
})

t.test('resolution: every answer is checked, and all are connection targets, in order', async (t) => {
  const resolve = async (host: string) =>
    host === 'mixed.example'
      ? [
          { address: '93.184.216.34', family: 4 },
          { address: '10.0.0.1', family: 4 },
        ]
      : [
          { address: '2606:4700::6810:84e5', family: 6 },
          { address: '93.184.216.34', family: 4 },
        ]
  await t.rejects(
    resolveTarget(new URL('https://mixed.example/'), { resolve }),
    /mixed\.example resolves to 10\.0\.0\.1, which is a private address/,
  )
  const target = await resolveTarget(new URL('https://ok.example/in'), { resolve })
  t.match(target, { host: 'ok.example', port: 443 })
  t.same(target.addresses, [
    { address: '2606:4700::6810:84e5', family: 6 },
    { address: '93.184.216.34', family: 4 },
  ])
  const literal = await resolveTarget(new URL('https://[2606:4700::1111]:8443/'))
  t.match(literal, { host: '2606:4700::1111', port: 8443 })
  t.same(literal.addresses, [{ address: '2606:4700::1111', family: 6 }])
  await t.rejects(resolveTarget(new URL('https://[::1]/')), TargetError)
})
