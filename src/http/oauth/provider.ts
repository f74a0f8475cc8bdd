// The OAuth 2.1 authorization server's protocol engine: oidc-provider, configured for MCP clients
// (docs/accounts.md "Agents sign in with OAuth"). Authorization code with PKCE S256 only, public
// clients only (no client secrets), Dynamic Client Registration and Client ID Metadata Documents,
// every token bound to this server's /mcp (RFC 8707), opaque short-lived access tokens, rotating
// refresh tokens, revocation. Its records go to Redis through the store (adapter below), so any
// node answers any step of a flow another node began.
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import Provider, { errors, type Adapter, type AdapterPayload } from 'oidc-provider'
import type { OAuthRecords } from '../../store/oauth.js'
import type { Fetched } from '../../webhooks/fetch.js'

/** How long each kind of record lives, in seconds. */
export const OAUTH_TTL = {
  /** Access tokens: short; a client refreshes. */
  AccessToken: 900,
  AuthorizationCode: 60,
  /** Refresh tokens rotate on every use; an unused one lapses after this long. */
  RefreshToken: 30 * 86_400,
  /** A grant outlives its refresh tokens; revoking it on the Keys page ends everything issued under it. */
  Grant: 365 * 86_400,
  /** From the client's authorization request to the person's answer on the consent page. */
  Interaction: 600,
  Session: 14 * 86_400,
} as const

/** The one scope: MCP access as the person's consent sets it (room, agent id, read or write). */
export const MCP_SCOPE = 'mcp'

/** Paths of the protocol endpoints (all under /oauth/, served by the 'oauth' mount). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  end_session: '/oauth/logout',
  introspection: '/oauth/introspect',
  pushed_authorization_request: '/oauth/par',
  device_authorization: '/oauth/device',
  code_verification: '/oauth/device/verify',
  backchannel_authentication: '/oauth/backchannel',
  challenge: '/oauth/challenge',
} as const

/** The consent page of an interaction (the dashboard serves it). */
export const consentPath = (uid: string) => `/oauth/consent/${encodeURIComponent(uid)}`

/**
 * The store's records as the library's adapter: one instance per record kind. `revoked` is told
 * (and awaited, so the request answers after it) whenever the library revokes a grant as a whole,
 * and whenever a code or refresh token is redeemed twice at the same moment (on two nodes): the
 * library sees both as unused, the store lets one consume it, and the other is refused with
 * invalid_grant after its grant is revoked, as for a redemption that comes later.
 */
export function adapterClass(records: OAuthRecords, revoked: ProviderSetup['revoked']): new (name: string) => Adapter {
  return class RedisAdapter implements Adapter {
    constructor(private readonly name: string) {}
    upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined) {
      return records.upsert(this.name, id, payload, expiresIn)
    }
    find(id: string) {
      return records.find(this.name, id)
    }
    async findByUserCode() {
      return undefined
    }
    findByUid(uid: string) {
      return records.findSessionByUid(uid)
    }
    async consume(id: string) {
      if (await records.consume(this.name, id)) return
      const grantId = (await records.find(this.name, id))?.grantId
      const what = this.name === 'RefreshToken' ? 'refresh token' : 'authorization code'
      if (typeof grantId === 'string') {
        await records.revokeByGrant(grantId)
        await revoked(grantId, `its ${what} was redeemed twice`)
      }
      throw new errors.InvalidGrant(`${what} already consumed`)
    }
    async destroy(id: string) {
      await records.destroy(this.name, id)
      if (this.name === 'Grant') await revoked(id)
    }
    revokeByGrantId(grantId: string) {
      return records.revokeByGrant(grantId)
    }
  }
}

/** Whether a redirect URI may be registered: https, a private-use scheme (cursor://), or http on loopback. */
export function redirectRefusal(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return 'must be a string'
  let u: URL
  try {
    u = new URL(uri)
  } catch {
    return 'is not a URL'
  }
  if (u.hash !== '') return 'must not have a #fragment'
  if (u.protocol === 'http:' && !LOOPBACK_HOSTS.has(u.hostname))
    return 'uses plain http on a host that is not loopback (use https, or http://127.0.0.1 / localhost / [::1])'
  if (u.protocol === 'javascript:' || u.protocol === 'data:' || u.protocol === 'file:')
    return `must not use the ${u.protocol} scheme`
  return undefined
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

export interface ProviderSetup {
  issuer: string
  /** This server's MCP endpoint: the one resource tokens are issued for. */
  resource: string
  records: OAuthRecords
  /** Fetches a Client ID Metadata Document under the SSRF rules. */
  fetchDocument(url: string): Promise<Fetched>
  /**
   * Ends the service's grant `grantId` (adapterClass says when). With `why` it is audited too; the
   * library's own revocations are audited from its grant.revoked event, which knows the cause.
   */
  revoked(grantId: string, why?: string): Promise<void>
}

/** The secrets every node shares: the cookie signing key and the token signing key (id tokens). */
async function secrets(records: OAuthRecords): Promise<{ cookieKey: string; jwk: Record<string, unknown> }> {
  const cookieKey = await records.secret('cookie', () => randomBytes(32).toString('base64url'))
  const jwk = await records.secret('jwk', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    return JSON.stringify({ ...privateKey.export({ format: 'jwk' }), use: 'sig', alg: 'ES256' })
  })
  return { cookieKey, jwk: JSON.parse(jwk) as Record<string, unknown> }
}

export async function createProvider(setup: ProviderSetup): Promise<Provider> {
  const { cookieKey, jwk } = await secrets(setup.records)
  const resourceInfo = {
    scope: MCP_SCOPE,
    audience: setup.resource,
    accessTokenTTL: OAUTH_TTL.AccessToken,
    accessTokenFormat: 'opaque',
  }
  const provider = new Provider(setup.issuer, {
    adapter: adapterClass(setup.records, setup.revoked),
    clients: [],
    jwks: { keys: [jwk] },
    cookies: { keys: [cookieKey], short: { sameSite: 'lax' }, long: { sameSite: 'lax' } },
    routes: OAUTH_ROUTES,
    scopes: [MCP_SCOPE, 'offline_access'],
    responseTypes: ['code'],
    pkce: { required: () => true },
    clientDefaults: {
      application_type: 'native',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    clientAuthMethods: ['none'],
    ttl: OAUTH_TTL,
    rotateRefreshToken: true,
    // A revoked token (RFC 7009) ends its whole grant: the library deletes every token issued
    // under it either way, and the connected agent must not stay listed as live without them.
    revokeGrantPolicy: () => true,
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    // Every authorization asks the person again: each connection is its own agent and room choice.
    loadExistingGrant: async (ctx: { oidc: { result?: { consent?: { grantId?: string } } } }) => {
      const id = ctx.oidc.result?.consent?.grantId
      return id ? provider.Grant.find(id) : undefined
    },
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => consentPath(interaction.uid) },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => setup.resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (indicator !== setup.resource)
            throw new errors.InvalidTarget(`this server issues tokens for ${setup.resource} only`)
          return resourceInfo
        },
      },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        allowClient: async (_ctx: unknown, client: { redirectUris: string[] }) =>
          client.redirectUris.every((u) => redirectRefusal(u) === undefined),
      },
    },
    fetch: async (url: string | URL) => {
      const got = await setup.fetchDocument(String(url))
      return new Response(got.status === 204 || got.status === 304 ? null : new Uint8Array(got.body), {
        status: got.status,
        headers: got.headers,
      })
    },
  })
  provider.proxy = true
  return provider
}
