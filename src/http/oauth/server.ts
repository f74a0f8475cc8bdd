// The authorization server and protected resource of every node (docs/accounts.md "Agents sign
// in with OAuth"). The protocol endpoints (/oauth/authorize, token, register, revoke and the
// discovery documents) are oidc-provider's, reached through a private HTTP server on a Unix
// socket that only this process can open: the edge forwards those requests to it as they came,
// with the scheme of the public URL. What the service adds is its own: the protected-resource
// metadata, the consent (a dashboard page; consent() and deny() below), and the access token as a
// credential of /mcp (verify()).
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, request, Agent, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type Provider from 'oidc-provider'
import type { Audit } from '../../auth/audit.js'
import { grantRevocationTag, Grants, type GrantInfo } from '../../auth/grants.js'
import type { Keyring } from '../../auth/keyring.js'
import type { GrantAccess, GrantPrincipal } from '../../auth/principal.js'
import type { SignInLimiter } from '../../auth/signin-limit.js'
import { AppError } from '../../shared/errors.js'
import type { Logger } from '../../shared/logger.js'
import type { Store } from '../../store/store.js'
import type { Fetched } from '../../webhooks/fetch.js'
import { clientBucket } from '../client-address.js'
import type { Exchange } from '../exchange.js'
import { createProvider, MCP_SCOPE, OAUTH_TTL, redirectRefusal } from './provider.js'

/** How long a verified access token is trusted without asking Redis again (revocation drops it at once). */
export const TOKEN_CACHE_MS = 1000
const CACHE_MAX = 10_000

export interface OAuthDeps {
  store: Pick<Store, 'oauth'>
  grants: Pick<Grants, 'principal' | 'touch' | 'create' | 'revoke' | 'get'>
  keyring: Pick<Keyring, 'adopt'>
  audit: Pick<Audit, 'record' | 'recordServer'>
  fetchDocument(url: string): Promise<Fetched>
  log: Pick<Logger, 'info' | 'warn'>
  /**
   * The per-client limit of Dynamic Client Registration: each registration is a record stored for
   * anyone who asks, so a client address (an IPv6 one by its /64) may make `perHour` of them.
   */
  registrations: { limiter: Pick<SignInLimiter, 'check'>; perHour: number }
}

/** What the consent page shows about a pending authorization. */
export interface PendingAuthorization {
  uid: string
  clientId: string
  clientName: string
  /** The host the browser will be sent back to. */
  redirectHost: string
  redirectUri: string
}

/** What the person chose on the consent page. */
export interface Consent {
  userId: string
  teamId: string
  roomId: string | undefined
  agentId: string
  access: GrantAccess
}

interface Cached {
  principal: GrantPrincipal
  until: number
}

const unauthorized = (why: string) => new AppError('unauthorized', why)

export class OAuthServer {
  /** This server's MCP endpoint, the resource every token is bound to. */
  readonly resource: string
  /** The protected resource metadata of /mcp (RFC 9728), as the 401 of /mcp names it. */
  readonly resourceMetadataUrl: string
  private readonly cache = new Map<string, Cached>()
  private readonly byGrant = new Map<string, Set<string>>()
  /** Tokens for another resource recorded in a trail, until when they are not recorded again (ms). */
  private readonly foreign = new Map<string, number>()

  private constructor(
    readonly issuer: string,
    private readonly provider: Provider,
    private readonly deps: OAuthDeps,
    private readonly server: Server,
    private readonly socketDir: string,
    private readonly agent: Agent,
  ) {
    this.resource = `${issuer}/mcp`
    this.resourceMetadataUrl = `${issuer}/.well-known/oauth-protected-resource/mcp`
  }

  /** Starts the server for the public URL `issuer` (no trailing slash). */
  static async start(issuer: string, deps: OAuthDeps): Promise<OAuthServer> {
    const provider = await createProvider({
      issuer,
      resource: `${issuer}/mcp`,
      records: deps.store.oauth,
      fetchDocument: deps.fetchDocument,
      revoked: (grantId, why) => endGrant(deps, grantId, why),
    })
    // The library revoked a whole grant (RFC 7009, a code or refresh token used again): the
    // adapter has ended it already (revoked() above); the team's trail gets the cause.
    provider.on('grant.revoked', (ctx: RevokedContext, grantId: string) => {
      void auditEnded(deps, grantId, causeOf(ctx)).catch(() => undefined)
    })
    // A refused protocol request is logged with its RFC error and recorded in the authorization
    // server's trail: it happens before any team is named. A server error is logged only (a bug).
    for (const [event, action] of REFUSALS)
      provider.on(event, (ctx: RefusedContext, err: RefusalError) => {
        const clientId = ctx.oidc?.client?.clientId ?? paramOf(ctx, 'client_id')
        const detail = err.error_detail !== undefined ? ` (${err.error_detail})` : ''
        const why = `${err.error ?? 'server_error'}: ${err.error_description ?? err.message ?? ''}${detail}`
        deps.log.info({ event, error: err.error ?? 'server_error', client_id: clientId }, `oauth refused: ${why}`)
        if (action !== undefined) refusedRequest(deps, clientId, ctx.ip, action, why)
      })
    const socketDir = mkdtempSync(join(tmpdir(), 'agentrooms-oauth-'))
    const server = createServer(provider.callback())
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(join(socketDir, 'provider.sock'), () => resolve())
    })
    const agent = new Agent({ keepAlive: true, maxSockets: 64 })
    return new OAuthServer(issuer, provider, deps, server, socketDir, agent)
  }

  async close(): Promise<void> {
    this.agent.destroy()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
    this.server.closeAllConnections()
    rmSync(this.socketDir, { recursive: true, force: true })
  }

  /** The protected resource metadata (RFC 9728) of /mcp. */
  resourceMetadata(): Record<string, unknown> {
    return {
      resource: this.resource,
      authorization_servers: [this.issuer],
      scopes_supported: [MCP_SCOPE],
      bearer_methods_supported: ['header'],
      resource_name: 'agentrooms',
      resource_documentation: `${this.issuer}/docs`,
    }
  }

  /** The WWW-Authenticate challenge of a 401 from /mcp (RFC 9728 §5.1, RFC 6750 §3). */
  challenge(tokenPresented: boolean): string {
    const err = tokenPresented ? ', error="invalid_token"' : ''
    return `Bearer resource_metadata="${this.resourceMetadataUrl}", scope="${MCP_SCOPE}"${err}`
  }

  /**
   * Forwards a protocol request (its path, query, headers and `raw` body) to the library and sends
   * its answer. Registrations are checked first: a redirect URI over plain http must be loopback.
   */
  async forward(ex: Exchange, raw: Buffer | undefined, sent = ex.req.path): Promise<void> {
    // As the router matched it ("/oauth/register/" and "//oauth/register" are the register route):
    // the checks below and the library see the same path.
    const path = sent.length > 1 ? '/' + sent.split('/').filter(Boolean).join('/') : sent
    if (path === '/oauth/register' && ex.req.method === 'POST') {
      const { limiter, perHour } = this.deps.registrations
      try {
        await limiter.check('registration', clientBucket(ex.req.client), perHour)
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'rate_limited') throw err
        const retry = String(err.details?.retry_after_s ?? 60)
        return ex.json(
          429,
          { error: 'temporarily_unavailable', error_description: err.message },
          { 'Retry-After': retry },
        )
      }
      const checked = checkRegistration(raw)
      if (typeof checked === 'string') {
        refusedRequest(
          this.deps,
          undefined,
          ex.req.client,
          'refused client registration',
          `invalid_redirect_uri: ${checked}`,
        )
        return ex.json(400, { error: 'invalid_redirect_uri', error_description: checked })
      }
      raw = checked
    }
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(ex.req.headers)) if (!HOP_BY_HOP.has(k)) headers[k] = v
    headers['x-forwarded-proto'] = new URL(this.issuer).protocol.slice(0, -1)
    headers['x-forwarded-host'] = new URL(this.issuer).host
    // The client as the trusted proxies say (src/http/client-address.ts), never a header it sent.
    headers['x-forwarded-for'] = ex.req.client
    if (raw) headers['content-length'] = String(raw.length)
    const query = ex.req.query.toString()
    const answer = await new Promise<{ status: number; headers: Record<string, string | string[]>; body: Buffer }>(
      (resolve, reject) => {
        const req = request(
          {
            socketPath: join(this.socketDir, 'provider.sock'),
            agent: this.agent,
            method: ex.req.method === 'HEAD' ? 'GET' : ex.req.method,
            path: query ? `${path}?${query}` : path,
            headers,
          },
          (res) => {
            const chunks: Buffer[] = []
            res.on('data', (c: Buffer) => chunks.push(c))
            res.on('end', () => {
              const out: Record<string, string | string[]> = {}
              for (const [k, v] of Object.entries(res.headers))
                if (v !== undefined && !HOP_BY_HOP.has(k) && k !== 'content-length') out[k] = v
              resolve({ status: res.statusCode ?? 500, headers: out, body: Buffer.concat(chunks) })
            })
            res.on('error', reject)
          },
        )
        req.on('error', reject)
        req.end(raw)
      },
    )
    ex.send(answer.status, answer.body, answer.headers)
  }

  /**
   * Who an access token acts as. Throws unauthorized for a token that is unknown, expired,
   * revoked, or issued for another resource.
   */
  async verify(token: string): Promise<GrantPrincipal> {
    const now = Date.now()
    const hit = this.cache.get(token)
    if (hit && hit.until > now) {
      this.deps.grants.touch(hit.principal)
      return hit.principal
    }
    const at = await this.provider.AccessToken.find(token)
    if (!at || at.isExpired || !at.grantId)
      throw unauthorized('unknown, expired or revoked access token; refresh it, or connect again')
    const aud = Array.isArray(at.aud) ? at.aud : [at.aud]
    if (!aud.includes(this.resource)) {
      this.auditForeign(token, at.grantId, at.clientId, aud)
      throw unauthorized(`this access token is not for ${this.resource}`)
    }
    const principal = await this.deps.grants.principal(at.grantId)
    if (!principal) throw unauthorized('the connection this token belongs to was revoked; connect again')
    if (this.cache.size >= CACHE_MAX) this.forgetToken(this.cache.keys().next().value!)
    this.cache.set(token, { principal, until: now + TOKEN_CACHE_MS })
    let tokens = this.byGrant.get(principal.grantId)
    if (!tokens) this.byGrant.set(principal.grantId, (tokens = new Set()))
    tokens.add(token)
    this.deps.keyring.adopt(
      principal,
      principal.teamId,
      grantRevocationTag(principal.grantId),
      async () => (await this.deps.grants.principal(principal.grantId)) !== undefined,
    )
    this.deps.grants.touch(principal)
    return principal
  }

  /**
   * Records a token issued for another resource in the trail of the team its grant names, once
   * per token and minute on this node: a client that retries it does not flood the trail.
   */
  private auditForeign(token: string, grantId: string, clientId: string | undefined, aud: unknown[]): void {
    const now = Date.now()
    if ((this.foreign.get(token) ?? 0) > now) return
    if (this.foreign.size >= CACHE_MAX) this.foreign.clear()
    this.foreign.set(token, now + 60_000)
    const teamId = Grants.teamOf(grantId)
    if (teamId === undefined) return
    const target = `${grantId}: a token issued for ${aud.map(String).join(', ') || 'no resource'}, not ${this.resource}`
    this.deps.audit
      .record(teamId, `client:${clientId ?? 'unknown'}`, 'refused access token', target)
      .catch((err: unknown) => this.deps.log.warn({ err, grant: grantId }, 'could not audit a refused access token'))
  }

  /** A revocation notice (any node revoked a grant): its tokens are looked up again, and refused. */
  forget(tag: string): void {
    if (!tag.startsWith('grant:')) return
    const grantId = tag.slice('grant:'.length)
    for (const t of this.byGrant.get(grantId) ?? []) this.cache.delete(t)
    this.byGrant.delete(grantId)
  }

  /** After a missed notice may have happened: every cached token is looked up again. */
  resync(): void {
    this.cache.clear()
    this.byGrant.clear()
  }

  private forgetToken(token: string): void {
    const c = this.cache.get(token)
    this.cache.delete(token)
    if (c) this.byGrant.get(c.principal.grantId)?.delete(token)
  }

  /** The authorization waiting for consent under `uid`, or undefined (expired, finished, unknown). */
  async pending(uid: string): Promise<PendingAuthorization | undefined> {
    const interaction = await this.provider.Interaction.find(uid)
    if (!interaction || interaction.result !== undefined) return undefined
    const clientId = String(interaction.params.client_id ?? '')
    const client = await this.provider.Client.find(clientId)
    if (!client) return undefined
    const redirectUri = String(interaction.params.redirect_uri ?? client.redirectUris[0] ?? '')
    let redirectHost = redirectUri
    try {
      const u = new URL(redirectUri)
      redirectHost = u.host || `${u.protocol}//`
    } catch {
      // shown as given
    }
    return { uid, clientId, clientName: client.clientName ?? clientId, redirectHost, redirectUri }
  }

  /**
   * Finishes an authorization with the person's consent: the grant is made (its tokens reach
   * `consent`'s room as its agent, with its access), and the browser goes back to the library,
   * which sends the code to the client. Returns where the browser goes and the grant's record.
   */
  async consent(uid: string, consent: Consent): Promise<{ returnTo: string; grant: GrantInfo }> {
    const interaction = await this.provider.Interaction.find(uid)
    const pending = interaction && (await this.pending(uid))
    if (!interaction || !pending) throw gone()
    const grant = new this.provider.Grant({
      jti: Grants.newId(consent.teamId),
      accountId: consent.userId,
      clientId: pending.clientId,
    })
    grant.addResourceScope(this.resource, MCP_SCOPE)
    // The scopes the client asked for that this server knows are granted as asked (the resource
    // scope above is what the access token carries).
    const asked = String(interaction.params.scope ?? '')
      .split(' ')
      .filter((x) => x === MCP_SCOPE || x === 'offline_access')
    if (asked.length > 0) grant.addOIDCScope(asked.join(' '))
    const grantId = await grant.save(OAUTH_TTL.Grant)
    const info = await this.deps.grants.create({
      id: grantId,
      team_id: consent.teamId,
      user_id: consent.userId,
      client_id: pending.clientId,
      client_name: pending.clientName,
      redirect_host: pending.redirectHost,
      ...(consent.roomId === undefined ? {} : { room_id: consent.roomId }),
      agent_id: consent.agentId,
      access: consent.access,
    })
    interaction.result = { login: { accountId: consent.userId }, consent: { grantId } }
    await interaction.save(Math.max(1, interaction.exp - Math.floor(Date.now() / 1000)))
    return { returnTo: interaction.returnTo, grant: info }
  }

  /** Finishes an authorization with a refusal: the client gets access_denied. Returns where the browser goes. */
  async deny(uid: string): Promise<string> {
    const interaction = await this.provider.Interaction.find(uid)
    if (!interaction || interaction.result !== undefined) throw gone()
    interaction.result = { error: 'access_denied', error_description: 'the person declined the connection' }
    await interaction.save(Math.max(1, interaction.exp - Math.floor(Date.now() / 1000)))
    return interaction.returnTo
  }
}

/**
 * Ends a grant the authorization server revoked (its record marked, its tokens deleted, the
 * revocation announced to every node), audited when `why` is given.
 */
async function endGrant(deps: OAuthDeps, grantId: string, why: string | undefined): Promise<void> {
  const teamId = Grants.teamOf(grantId)
  if (teamId === undefined) return
  const g = await deps.grants.revoke(teamId, grantId)
  if (g && why !== undefined) await recordEnded(deps, g, why)
}

async function auditEnded(deps: OAuthDeps, grantId: string, why: string): Promise<void> {
  const teamId = Grants.teamOf(grantId)
  const g = teamId === undefined ? undefined : await deps.grants.get(grantId)
  if (g) await recordEnded(deps, g, why)
}

const recordEnded = (deps: OAuthDeps, g: GrantInfo, why: string) =>
  deps.audit.record(
    g.team_id,
    `client:${g.client_id}`,
    'revoked connected agent',
    `${g.id} (${g.client_name}, agent ${g.agent_id}): ${why}`,
  )

interface RevokedContext {
  oidc?: { route?: string; params?: { grant_type?: unknown } }
}

/** Why the library revoked a grant, from the request that made it. */
function causeOf(ctx: RevokedContext): string {
  if (ctx.oidc?.route === 'revocation') return 'its client revoked a token (RFC 7009)'
  const grantType = ctx.oidc?.params?.grant_type
  if (grantType === 'authorization_code') return 'its authorization code was redeemed again'
  if (grantType === 'refresh_token') return 'a rotated refresh token was used again'
  return 'the authorization server revoked it'
}

const gone = () =>
  new AppError('not_found', 'This sign-in request has expired or was already answered; start again from the agent.')

/** The library's events of a refused request, and the action recorded in the authorization server's trail. */
const REFUSALS = [
  ['authorization.error', 'refused authorization request'],
  ['grant.error', 'refused token request'],
  ['registration_create.error', 'refused client registration'],
  ['revocation.error', 'refused revocation request'],
  ['server_error', undefined],
] as const

interface RefusedContext {
  ip?: string
  oidc?: { client?: { clientId?: string }; params?: Record<string, unknown> }
}

interface RefusalError {
  error?: string
  error_description?: string
  /** The library's reason (which check failed), never a secret: kept for the trail, not sent. */
  error_detail?: string
  message?: string
}

function paramOf(ctx: RefusedContext, name: string): string | undefined {
  const v = ctx.oidc?.params?.[name]
  return typeof v === 'string' && v !== '' ? v.slice(0, 200) : undefined
}

/**
 * Records a refused protocol request in the authorization server's trail: by its client (or, for
 * a request that names none, its address), with the RFC error and its description.
 */
function refusedRequest(
  deps: OAuthDeps,
  clientId: string | undefined,
  ip: string | undefined,
  action: string,
  why: string,
): void {
  const actor = clientId !== undefined ? `client:${clientId}` : `address:${ip ?? 'unknown'}`
  const target = clientId !== undefined && ip !== undefined ? `${why} (from ${ip})` : why
  deps.audit
    .recordServer(actor, action, target.slice(0, 500))
    .catch((err: unknown) => deps.log.warn({ err, action }, 'could not record a refused OAuth request'))
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer'])

/**
 * A registration request as the library gets it, or why it is refused first (a redirect URI's
 * rule). A client that names no token_endpoint_auth_method registers as a public client ("none"):
 * the library would otherwise issue a secret that no endpoint here accepts.
 */
function checkRegistration(raw: Buffer | undefined): Buffer | undefined | string {
  let body: unknown
  try {
    body = JSON.parse(raw?.toString('utf8') ?? '')
  } catch {
    return raw // the library answers invalid JSON itself
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return raw
  const b = body as { redirect_uris?: unknown; token_endpoint_auth_method?: unknown }
  if (Array.isArray(b.redirect_uris))
    for (const [i, u] of b.redirect_uris.entries()) {
      const why = redirectRefusal(u)
      if (why) return `redirect_uris[${i}] ${why}`
    }
  if (b.token_endpoint_auth_method !== undefined) return raw
  return Buffer.from(JSON.stringify({ ...b, token_endpoint_auth_method: 'none' }))
}
