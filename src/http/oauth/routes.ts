// The mounts of the authorization server: the discovery documents under /.well-known/ (the
// reserved 'well-known' mount) and the protocol endpoints under /oauth/, all public (a client
// authenticates to them by the protocol itself: PKCE, codes, refresh tokens), answered in the
// protocol's own error shape. The consent page under /oauth/consent/ is the dashboard's.
import type { GrantPrincipal, Principal } from '../../auth/principal.js'
import { AppError } from '../../shared/errors.js'
import { Refusal } from '../errors.js'
import type { Credential, Mount, Route } from '../router.js'
import { WELL_KNOWN } from '../router.js'
import type { OAuthServer } from './server.js'

/** The authorization server once the node listens (its public URL is known then). */
export interface OAuthHolder {
  server: OAuthServer | undefined
}

/** Body limit of the protocol endpoints (a registration or a token request). */
const OAUTH_BODY_BYTES = 16 * 1024

/** The discovery documents: protected resource metadata (RFC 9728) and the server's metadata (RFC 8414). */
export function wellKnownMount(oauth: OAuthServer): Mount<never> {
  const resource = async () => oauth.resourceMetadata()
  const serverMetadata: Route<never>['handle'] = async ({ ex }) => {
    await oauth.forward(ex, undefined, '/.well-known/openid-configuration')
    return undefined
  }
  return {
    name: WELL_KNOWN.name,
    routes: [
      {
        method: 'GET',
        path: '/.well-known/oauth-protected-resource',
        auth: 'none',
        summary: 'RFC 9728',
        handle: resource,
      },
      {
        method: 'GET',
        path: '/.well-known/oauth-protected-resource/mcp',
        auth: 'none',
        summary: 'RFC 9728 (path form)',
        handle: resource,
      },
      {
        method: 'GET',
        path: '/.well-known/oauth-authorization-server',
        auth: 'none',
        summary: 'RFC 8414',
        handle: serverMetadata,
      },
      {
        method: 'GET',
        path: '/.well-known/openid-configuration',
        auth: 'none',
        summary: 'OpenID Connect Discovery',
        handle: serverMetadata,
      },
    ],
  }
}

/** The protocol endpoints, forwarded to the library as they came. */
export function oauthMount(oauth: OAuthServer): Mount<never> {
  const forward: Route<never>['handle'] = async ({ ex, raw }) => {
    await oauth.forward(ex, raw)
    return undefined
  }
  const get = (path: string, summary: string): Route<never> => ({
    method: 'GET',
    path,
    auth: 'none',
    summary,
    handle: forward,
  })
  const post = (path: string, summary: string): Route<never> => ({
    method: 'POST',
    path,
    auth: 'none',
    bodyKind: 'raw',
    summary,
    handle: forward,
  })
  return {
    name: 'oauth',
    bodyBytes: OAUTH_BODY_BYTES,
    render: (ex, err) => {
      if (err instanceof Refusal) return err.send(ex)
      const e = err instanceof AppError ? err : new AppError('internal', 'internal error')
      const error = e.code === 'internal' || e.code === 'unavailable' ? 'temporarily_unavailable' : 'invalid_request'
      ex.json(ERROR_STATUS[error], { error, error_description: e.message })
    },
    routes: [
      get('/oauth/authorize', 'Authorization endpoint (code + PKCE S256)'),
      post('/oauth/authorize', 'Authorization endpoint (form post)'),
      get('/oauth/authorize/:uid', 'Resumes an authorization after consent'),
      post('/oauth/token', 'Token endpoint (authorization_code, refresh_token)'),
      post('/oauth/register', 'Dynamic Client Registration (RFC 7591)'),
      post('/oauth/revoke', 'Token revocation (RFC 7009)'),
      get('/oauth/jwks', 'The signing keys'),
    ],
  }
}

const ERROR_STATUS = { invalid_request: 400, temporarily_unavailable: 503 } as const

/** An OAuth access token in `Authorization: Bearer` (a token has no ".", every key has one). */
export function tokenCredential(holder: OAuthHolder): Credential<Principal> {
  return {
    kind: 'oauth',
    read: (req) => {
      const header = req.headers.authorization
      // A key (it has a ".") is the key credential's: said before any pattern runs, as most calls carry one.
      if (header === undefined || header.includes('.')) return undefined
      const m = /^Bearer\s+([A-Za-z0-9_~+/-]+=*)\s*$/i.exec(header)
      return m ? m[1] : undefined
    },
    verify: (token): Promise<GrantPrincipal> => {
      const server = holder.server
      if (!server) throw new AppError('unavailable', 'this node is starting; retry in a moment')
      return server.verify(token)
    },
  }
}
