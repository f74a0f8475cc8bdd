// One service node: the uWebSockets.js app with every route, over one Redis (standalone or
// Cluster), with its realtime hub. Stateless: any number of nodes serve the same Redis.
import { Accounts } from './auth/accounts.js'
import { Audit } from './auth/audit.js'
import { Grants } from './auth/grants.js'
import { Keyring } from './auth/keyring.js'
import { OpenCaps } from './auth/open-caps.js'
import { Mailer } from './auth/mailer.js'
import type { Principal } from './auth/principal.js'
import { RateLimiter } from './auth/ratelimit.js'
import { ActionLimiter } from './auth/action-limit.js'
import { SignInLimiter } from './auth/signin-limit.js'
import { Teams } from './auth/teams.js'
import type { Settings } from './config.js'
import { Core } from './core/index.js'
import { adminRoutes } from './http/routes/admin.js'
import { keyPolicy } from './http/credentials.js'
import { Edge } from './http/edge.js'
import { assertNativeHttp, listen, type HttpServer } from './http/exchange.js'
import { Lifecycle } from './shared/lifecycle.js'
import { Metrics } from './shared/metrics.js'
import { opsRoutes } from './http/routes/ops.js'
import { hookRoutes } from './http/routes/hooks.js'
import { reservationRoutes } from './http/routes/reservations.js'
import { roomRoutes } from './http/routes/room.js'
import { searchRoutes } from './http/routes/search.js'
import { webhookRoutes } from './http/routes/webhooks.js'
import { SseSessions } from './http/sse-session.js'
import { Origin } from './dashboard/security.js'
import { Pages } from './dashboard/pages.js'
import { Web } from './dashboard/web.js'
import { AccountPages } from './dashboard/account-pages.js'
import { ConsentPages } from './dashboard/consent.js'
import { createLogger, type Logger } from './shared/logger.js'
import { Feeds } from './realtime/feed.js'
import { Hub } from './realtime/hub.js'
import { Wake } from './realtime/wake.js'
import { Store } from './store/store.js'
import { mcpMount } from './http/mcp.js'
import { oauthMount, wellKnownMount, type OAuthHolder } from './http/oauth/routes.js'
import { OAuthServer } from './http/oauth/server.js'
import { McpHost } from './mcp/host.js'
import { checkRedis } from './ops/redis-check.js'
import { settingsWarnings } from './ops/start-warnings.js'
import { createSearchEngine, type SearchEngine } from './search/index.js'
import type { Resolver } from './webhooks/guard.js'
import { Webhooks } from './webhooks/index.js'
import { fetchGuarded } from './webhooks/fetch.js'
import { readFileSync } from 'node:fs'

export { VERSION } from './shared/version.js'

export interface NodeOptions {
  log?: Logger
  /** Default metrics (process, GC) are off in tests that start many nodes in one process. */
  defaultMetrics?: boolean
  hubProbeMs?: number
  /**
   * TEST ONLY (the MCP conformance run, test/conformance): /mcp requests without an Authorization
   * header act as a team key of this team. Never set from settings or the environment.
   */
  mcpAnonymousTeam?: string
  /** TEST ONLY: the DNS resolver of webhook targets (DNS rebinding tests). */
  webhookResolver?: Resolver
}

/** The largest Client ID Metadata Document fetched (bytes). */
const CIMD_MAX_BYTES = 5 * 1024

function mcpOptions(opts: NodeOptions): { keyless?: Principal } {
  return opts.mcpAnonymousTeam === undefined
    ? {}
    : { keyless: { kind: 'team', teamId: opts.mcpAnonymousTeam, keyId: 'anonymous', scope: 'admin', access: 'write' } }
}

export class ServiceNode {
  readonly lifecycle = new Lifecycle()
  /** The node's one HTTP edge: the route table and the chain every request runs. */
  readonly edge: Edge
  /** The node's SSE sessions: every event stream it serves (room streams, the live view, MCP replies). */
  readonly sse: SseSessions
  readonly metrics: Metrics
  readonly log: Logger
  readonly store: Store
  readonly core: Core
  readonly teams: Teams
  readonly keyring: Keyring
  /** What each tenant holds open on this node (streams, parked waits), under OPEN_PER_CREDENTIAL and OPEN_PER_TEAM. */
  readonly openCaps: OpenCaps
  /** Connected agents: OAuth grants a person consented to on the dashboard. */
  readonly grants: Grants
  /** The OAuth authorization server, once the node listens (undefined on a plain-http public URL). */
  readonly oauth: OAuthHolder = { server: undefined }
  readonly rateLimiter: RateLimiter
  readonly hub: Hub
  readonly feeds: Feeds
  readonly mcp: McpHost
  /** Search over tasks, context and events: the Redis engine, or Meilisearch when MEILI_URL is set. */
  readonly search: SearchEngine
  readonly webhooks: Webhooks
  readonly accounts: Accounts
  readonly audit: Audit
  readonly mailer: Mailer
  /** The base URL of links in mails and of the first-start sign-in link. */
  baseUrl = ''
  private server: HttpServer | undefined
  private readonly webhookResolver: Resolver | undefined
  port = 0

  constructor(
    readonly settings: Settings,
    opts: NodeOptions = {},
  ) {
    this.log = opts.log ?? createLogger(settings.logLevel)
    this.metrics = new Metrics(opts.defaultMetrics ?? true)
    this.store = new Store(settings)
    // Counted, not logged: StoreHealth logs each change of state once (reconnect attempts would
    // log a line each).
    this.store.onConnectionError(() => this.metrics.redisErrors.inc({ kind: 'connection' }))
    this.core = new Core(this.store, settings)
    this.keyring = new Keyring(this.store)
    this.teams = new Teams(this.store, settings.revokedKeyRetentionMs, (hash) => this.keyring.publishRevocation(hash))
    this.rateLimiter = new RateLimiter(this.store, settings, this.log)
    this.hub = new Hub(this.store, { probeIntervalMs: opts.hubProbeMs, log: this.log })
    this.feeds = new Feeds(this.hub, this.store)
    this.grants = new Grants(this.store, (tag) => this.keyring.publishRevocation(tag))
    this.hub.onControl((n) => {
      if (n.k !== 'revoked' || typeof n.hash !== 'string') return
      this.oauth.server?.forget(n.hash)
      this.keyring.forget(n.hash)
    })
    this.hub.onResync(() => {
      this.oauth.server?.resync()
      this.keyring.resync()
    })
    this.webhooks = new Webhooks(this.store, settings, { log: this.log, resolve: opts.webhookResolver })
    this.store.onCommitted((c) => this.webhooks.committed(c))
    this.hub.onControl((n) => {
      if (n.k === 'webhooks' && typeof n.team === 'string') this.webhooks.hinter.forget(n.team)
    })
    this.hub.onResync(() => this.webhooks.hinter.clear())
    this.accounts = new Accounts(this.store, settings)
    this.audit = new Audit(this.store)
    this.mailer = new Mailer(settings, this.log)
    this.search = createSearchEngine(this.store, this.hub, settings, this.log)
    // Each route group and the MCP host get what they declare they use (their *Deps types).
    this.openCaps = new OpenCaps(settings)
    const { core, teams, audit, keyring, feeds, lifecycle, metrics, search, openCaps } = this
    this.mcp = new McpHost({ core, search, feeds, hub: this.hub, keyring, lifecycle, metrics, openCaps, log: this.log })
    this.edge = new Edge({ lifecycle, metrics, log: this.log, settings })
    this.sse = new SseSessions({ lifecycle, metrics, settings })
    const { sse } = this
    const keys = { keyring, rateLimiter: this.rateLimiter, metrics }
    const router = this.edge.router
    this.edge.mount({
      name: 'api',
      documented: true,
      ...keyPolicy(keys),
      routes: [
        ...opsRoutes({ health: this.store.health, lifecycle, metrics, router, metricsToken: settings.metricsToken }),
        ...adminRoutes({ core, accounts: this.accounts, teams, audit, rateLimiter: this.rateLimiter, search }),
        ...webhookRoutes({ webhooks: this.webhooks, audit, accounts: this.accounts }),
        ...roomRoutes({ core, feeds, keyring, sse, openCaps }),
        ...searchRoutes({ search }),
        ...reservationRoutes({ core }),
        ...hookRoutes({ core, wake: new Wake({ core, hub: this.hub }), keyring, lifecycle, openCaps }),
      ],
    })
    this.edge.mount(mcpMount({ ...keys, settings, sse }, this.mcp, { ...mcpOptions(opts), oauth: this.oauth }))
    this.webhookResolver = opts.webhookResolver
  }

  /** The routes of the documented API (docs/http-api.md, /openapi.json). */
  get router(): Pick<Edge['router'], 'list'> {
    return this.edge.router
  }

  /** Connects, starts the hub, and listens. Resolves with the port actually bound. */
  async start(): Promise<number> {
    assertNativeHttp(this.settings.httpHeaderBytes)
    for (const w of settingsWarnings(this.settings, process.env)) this.log.warn(w.obj, w.msg)
    await checkRedis(this.store.client, this.log)
    this.store.health.start(this.log)
    await this.hub.start()
    await this.search.start()
    await this.mcp.start()
    this.server = await listen(this.settings.host, this.settings.port, this.edge.handle, this.settings.httpHeaderBytes)
    this.port = this.server.port
    this.baseUrl = (this.settings.publicUrl ?? `http://localhost:${this.port}`).replace(/\/+$/, '')
    await this.startOAuth()
    const origin = new Origin(this.baseUrl, this.port, this.settings.publicUrl !== undefined)
    const actions = new ActionLimiter(this.store, this.settings, this.rateLimiter)
    const web = new Web({ accounts: this.accounts, teams: this.teams, actions }, origin)
    new AccountPages(
      {
        settings: this.settings,
        signInLimiter: new SignInLimiter(this.store),
        accounts: this.accounts,
        teams: this.teams,
        audit: this.audit,
        mailer: this.mailer,
        search: this.search,
        log: this.log,
      },
      origin,
    ).register(web)
    new Pages(
      {
        core: this.core,
        teams: this.teams,
        audit: this.audit,
        log: this.log,
        search: this.search,
        live: {
          rooms: this.core.rooms,
          roomPage: this.core.roomPage,
          feeds: this.feeds,
          hub: this.hub,
          sse: this.sse,
          openCaps: this.openCaps,
          stillSignedIn: (token) => this.accounts.stillSignedIn(token),
        },
        keys: { teams: this.teams, audit: this.audit, accounts: this.accounts, grants: this.grants },
        webhooks: { webhooks: this.webhooks, audit: this.audit, accounts: this.accounts },
      },
      this.baseUrl,
    ).register(web)
    if (this.oauth.server)
      new ConsentPages({ oauth: this.oauth.server, origin, core: this.core, audit: this.audit }).register(web)
    this.edge.mount(web.mount()).browsers(web.browsers())
    if (this.mailer.toLog)
      this.log.warn(
        'SMTP_URL is not set: sign-in and invite mails are written to this log instead of sent (development only)',
      )
    this.webhooks.start()
    this.log.info({ port: this.port, redis: this.store.mode, node: process.versions.node }, 'listening')
    return this.port
  }

  /**
   * The authorization server for agents (docs/accounts.md): served when the public URL is https,
   * or plain http on a loopback host (development); Client ID Metadata Documents are fetched
   * under the webhooks' SSRF rules.
   */
  private async startOAuth(): Promise<void> {
    const url = new URL(this.baseUrl)
    if (url.protocol !== 'https:' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) {
      this.log.warn(
        { public_url: this.baseUrl },
        'PUBLIC_URL is plain http on a host that is not loopback: agents cannot sign in with OAuth (keys only)',
      )
      return
    }
    const caFile = this.settings.webhookTestLoopbackCa
    const ca = caFile === undefined ? undefined : readFileSync(caFile)
    this.oauth.server = await OAuthServer.start(this.baseUrl, {
      store: this.store,
      grants: this.grants,
      keyring: this.keyring,
      audit: this.audit,
      log: this.log,
      registrations: { limiter: new SignInLimiter(this.store), perHour: this.settings.oauthRegistrationsPerIp },
      fetchDocument: (u) =>
        fetchGuarded(u, { timeoutMs: 5000, maxBytes: CIMD_MAX_BYTES, resolve: this.webhookResolver, ca }),
    })
    this.edge.mount(wellKnownMount(this.oauth.server))
    this.edge.mount(oauthMount(this.oauth.server))
  }

  /**
   * Graceful stop: stop accepting connections, end streams and long-polls cleanly, wait for the
   * requests in flight, then close Redis. Resolves within the shutdown grace period.
   */
  async stop(graceMs = this.settings.shutdownGraceMs): Promise<{ clean: boolean }> {
    this.server?.close()
    this.server = undefined
    // Webhook attempts in flight get the same grace; any left are taken over after their lease.
    const webhooksStopped = this.webhooks.stop(Math.max(0, graceMs - 500)).catch(() => undefined)
    const result = await this.lifecycle.drain(Math.max(0, graceMs - 500))
    this.feeds.close()
    await this.mcp.stop().catch(() => undefined)
    await this.oauth.server?.close().catch(() => undefined)
    await webhooksStopped
    await this.search.stop().catch(() => undefined)
    await this.hub.stop().catch(() => undefined)
    this.mailer.close()
    await this.store.close().catch(() => undefined)
    return result
  }
}
