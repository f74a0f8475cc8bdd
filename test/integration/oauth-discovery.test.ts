// The authorization server's discovery on a real node: the 401 of /mcp names the protected
// resource metadata (RFC 9728), which names the server, whose metadata (RFC 8414) says what it
// supports; Dynamic Client Registration (RFC 7591) registers public clients only and refuses a
// plain-http redirect that is not loopback.
import t from 'tap'
import { startNode } from '../helpers/node.js'

t.test('discovery and registration', async (t) => {
  const n = await startNode(t, 'standalone')
  const base = n.base.replace('127.0.0.1', 'localhost')
  const issuer = n.node.baseUrl

  t.test('a 401 from /mcp names the protected resource metadata', async (t) => {
    const r = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    t.equal(r.status, 401)
    t.equal(
      r.headers.get('www-authenticate'),
      `Bearer resource_metadata="${issuer}/.well-known/oauth-protected-resource/mcp", scope="mcp"`,
    )
    const bad = await n.call('/mcp', { method: 'POST', headers: { Authorization: 'Bearer notatoken' }, body: '{}' })
    t.equal(bad.status, 401)
    t.match(bad.headers.get('www-authenticate') ?? '', /error="invalid_token"/, 'a presented token is named invalid')
    const key = await n.call('/mcp', { method: 'POST', key: 'ar_team_x.short', body: '{}' })
    t.equal(key.status, 401, 'a malformed key is still refused as a key')
    t.match(await key.text(), /not a valid key/)
  })

  t.test('protected resource metadata, both forms', async (t) => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const r = await fetch(base + path)
      t.equal(r.status, 200, path)
      const doc = (await r.json()) as Record<string, unknown>
      t.equal(doc.resource, `${issuer}/mcp`)
      t.same(doc.authorization_servers, [issuer])
      t.same(doc.scopes_supported, ['mcp'])
    }
  })

  t.test('authorization server metadata (RFC 8414)', async (t) => {
    const r = await fetch(`${base}/.well-known/oauth-authorization-server`)
    t.equal(r.status, 200)
    const m = (await r.json()) as Record<string, unknown>
    t.equal(m.issuer, issuer)
    t.equal(m.authorization_endpoint, `${issuer}/oauth/authorize`)
    t.equal(m.token_endpoint, `${issuer}/oauth/token`)
    t.equal(m.registration_endpoint, `${issuer}/oauth/register`)
    t.equal(m.revocation_endpoint, `${issuer}/oauth/revoke`)
    t.same(m.code_challenge_methods_supported, ['S256'])
    t.same(m.response_types_supported, ['code'])
    t.equal(m.authorization_response_iss_parameter_supported, true)
    t.equal(m.client_id_metadata_document_supported, true)
    t.same(m.token_endpoint_auth_methods_supported, ['none'])
  })

  t.test('dynamic client registration', async (t) => {
    const reg = (body: unknown) =>
      fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      })
    const ok = await reg({ client_name: 'Test Agent', redirect_uris: ['http://127.0.0.1:33418/callback'] })
    t.equal(ok.status, 201)
    const client = (await ok.json()) as Record<string, unknown>
    t.type(client.client_id, 'string')
    t.equal(client.client_secret, undefined, 'a public client: no secret')
    t.equal(client.token_endpoint_auth_method, 'none')

    const plain = await reg({ client_name: 'x', redirect_uris: ['http://evil.example/cb'] })
    t.equal(plain.status, 400)
    t.match(await plain.json(), { error: 'invalid_redirect_uri', error_description: /redirect_uris\[0\].*loopback/ })
    const secret = await reg({
      redirect_uris: ['https://a.example/cb'],
      token_endpoint_auth_method: 'client_secret_basic',
    })
    t.equal(secret.status, 400, 'a confidential client is refused')
    t.match(await secret.json(), { error: 'invalid_client_metadata' })
  })
})
