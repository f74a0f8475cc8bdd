// The HTTP edge: every request of the node, whatever mount serves it (the API, /mcp, the
// dashboard's pages), runs one ordered chain of steps, then failures are mapped once:
//
//   match → gate → log → limits → origin → authenticate → rateLimit → route ⇢ error mapping
//
// The route table is matched first, so each step reads the route and its mount's policy. A step
// is a function of the request's Flow; it returns nothing to go on at once, or a promise to go
// on when it settles; it ends the chain by answering (ex.responded) or by throwing, and the
// error mapping answers what it threw. The steps up to `limits` run in the request's first tick
// (uWebSockets.js delivers a body only to a reader registered then), so a step placed before it
// must not return a promise. Failures are answered by the mount's `render` (JSON by default).
// A request no route matches (404, 405) is answered in JSON, or, when it asks for HTML before
// JSON (a browser's Accept), by the browser policy (`browsers`: the dashboard's page, signed in
// or not); an API client (Accept: application/json, */*, or none) always gets the JSON error.
import type { Principal } from '../auth/principal.js'
import { AppError } from '../shared/errors.js'
import type { Lifecycle } from '../shared/lifecycle.js'
import type { Logger } from '../shared/logger.js'
import type { Metrics } from '../shared/metrics.js'
import { decodeUtf8, invalidUtf8Message, parseUrlEncoded } from '../shared/utf8.js'
import { parse } from '../shared/validate.js'
import { ClientAddress } from './client-address.js'
import { Refusal, sendError } from './errors.js'
import type { Exchange } from './exchange.js'
import { Router, type Credential, type Ctx, type Mount, type MountPolicy, type Mounted, type Route } from './router.js'

/** One request on its way through the chain; it is the Ctx the route's handler gets. */
export class Flow implements Ctx<any> {
  params: Record<string, string>
  body: unknown = undefined
  raw: Buffer | undefined = undefined
  principal: any = undefined
  query?: unknown
  private rid: string | undefined
  /** performance.now() when the request arrived. */
  readonly started = performance.now()
  /** When the authentication step finished (pages report it in Server-Timing). */
  authenticatedAt = 0
  /** The credential kind that named the principal. */
  credential: Credential<unknown> | undefined
  /** The body being read, from the limits step on. */
  bodyRead: Promise<Buffer> | undefined
  /** Ends the request's count in flight (the gate step's), once it is finished. */
  ended: (() => void) | undefined = undefined
  /** Records the request's route, status and time (the log step's), once it is finished. */
  recorded: ((flow: Flow) => void) | undefined = undefined
  /** What other steps run once it is finished; made on first use. */
  private afters: (() => void)[] | undefined

  constructor(
    readonly ex: Exchange,
    /** The matched route, or undefined for 404 and 405 (`allowed`). */
    readonly mounted: Mounted | undefined,
    readonly mount: MountPolicy<any>,
    params: Record<string, string> | undefined,
    readonly allowed: readonly string[] | undefined,
    /** A path parameter whose percent-escapes are not UTF-8 (Match): the limits step refuses it. */
    readonly undecodable?: string,
  ) {
    this.params = params ?? {}
  }

  get route(): Route<any> | undefined {
    return this.mounted?.route
  }

  /** The request id: the proxy's X-Request-Id when it is a plain token, else one of this node's (made on first use). */
  get id(): string {
    if (this.rid === undefined) {
      const given = this.ex.req.headers['x-request-id']
      this.rid = given !== undefined && REQUEST_ID.test(given) ? given : `${ID_BASE}-${(++idSeq).toString(36)}`
    }
    return this.rid
  }

  /**
   * Runs `fn` once the request is finished (answered, or its stream started), last added first:
   * before the log step's record and the gate's end, which come first in the chain.
   */
  after(fn: () => void): void {
    ;(this.afters ??= []).push(fn)
  }

  finish(): void {
    const afters = this.afters
    if (afters) for (let i = afters.length - 1; i >= 0; i--) afters[i]!()
    this.recorded?.(this)
    this.ended?.()
  }
}

/** A step of the chain: go on (return nothing), go on later (a promise), or end it (answer, or throw). */
export type Step = (flow: Flow) => void | Promise<void>

export type StepName = 'gate' | 'log' | 'limits' | 'origin' | 'authenticate' | 'rateLimit' | 'route'

/** What the edge's own steps use. */
export interface EdgeDeps {
  lifecycle: Pick<Lifecycle, 'begin' | 'accepting'>
  metrics: Pick<Metrics, 'requestCounts' | 'latency'>
  log: Pick<Logger, 'error' | 'debug' | 'isLevelEnabled'>
  /** The default body limit (LIMIT_HTTP_BODY_BYTES; a mount may set its own); trusted proxies (default none). */
  settings: { httpBodyBytes: number; trustedProxyHops?: number; trustedProxyCidrs?: readonly string[] }
}

/** The policy of requests no route matches (404, and 405 whichever mount has the path): JSON answers. */
const UNMATCHED: MountPolicy<Principal> = { name: 'unmatched' }

/** The method label of the request metrics: these as sent, any other as `other` (a client picks the method). */
const METHOD_LABELS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

const REQUEST_ID = /^[\w.:@/+=-]{1,128}$/
const ID_BASE = `${process.pid.toString(36)}${Date.now().toString(36)}`
let idSeq = 0

export class Edge {
  readonly router = new Router()
  /** The policy of unmatched requests that prefer HTML (browsers), once `browsers` set it. */
  private browserPolicy: MountPolicy<any> | undefined
  private readonly steps: { name: string; run: Step }[]
  private readonly clients: ClientAddress
  private readonly clientOf = (remote: string, forwardedFor: string | undefined) =>
    this.clients.of(remote, forwardedFor)

  constructor(private readonly deps: EdgeDeps) {
    const { trustedProxyHops: hops = 0, trustedProxyCidrs: cidrs = [] } = deps.settings
    this.clients = new ClientAddress({ hops, cidrs })
    this.steps = [
      { name: 'gate', run: (f) => this.gate(f) },
      { name: 'log', run: (f) => this.logStep(f) },
      { name: 'limits', run: (f) => this.limits(f) },
      { name: 'origin', run: origin },
      { name: 'authenticate', run: authenticate },
      { name: 'rateLimit', run: rateLimit },
      { name: 'route', run: route },
    ]
  }

  /** Adds a mount's routes to the one route table. */
  mount<W>(m: Mount<W>): this {
    this.router.mount(m)
    return this
  }

  /**
   * Answers the 404s and 405s of requests that prefer HTML with `policy`: its credentials are
   * read as on a route whose auth is 'optional' (a page greets a signed-in person), its `render`
   * answers the failure. Requests that do not prefer HTML keep the JSON error body.
   */
  browsers<W>(policy: MountPolicy<W>): this {
    this.browserPolicy = policy
    return this
  }

  /** Adds a step before or after one of the chain's (named `name`, so later steps can be placed by it). */
  use(name: string, run: Step, at: { before: StepName | string } | { after: StepName | string }): this {
    const anchor = 'before' in at ? at.before : at.after
    const i = this.steps.findIndex((s) => s.name === anchor)
    if (i < 0) throw new Error(`no step '${anchor}' in the chain (${this.steps.map((s) => s.name).join(', ')})`)
    this.steps.splice('before' in at ? i : i + 1, 0, { name, run })
    return this
  }

  /** The names of the chain's steps, in order. */
  get chain(): readonly string[] {
    return this.steps.map((s) => s.name)
  }

  /** Serves one request (the server's handler). */
  readonly handle = (ex: Exchange): void => {
    const { method, path } = ex.req
    // HEAD is answered like GET without a body (load balancers probe /health with it).
    const m = this.router.match(method === 'HEAD' ? 'GET' : method, path)
    const flow =
      m && 'mounted' in m
        ? new Flow(ex, m.mounted, m.mounted.mount, m.params, undefined, m.undecodable)
        : new Flow(ex, undefined, this.unmatchedPolicy(ex), undefined, m?.allowed)
    this.run(flow, 0)
  }

  private unmatchedPolicy(ex: Exchange): MountPolicy<any> {
    return this.browserPolicy && prefersHtml(ex.req.headers.accept) ? this.browserPolicy : UNMATCHED
  }

  private run(flow: Flow, from: number): void {
    try {
      for (let i = from; i < this.steps.length; i++) {
        if (flow.ex.responded) break
        const next = this.steps[i]!.run(flow)
        if (next) {
          next.then(
            () => this.run(flow, i + 1),
            (err: unknown) => this.fail(flow, err),
          )
          return
        }
      }
    } catch (err) {
      return this.fail(flow, err)
    }
    flow.finish()
  }

  /** The error mapping: the mount answers a failure; one not meant for a client is logged first. */
  private fail(flow: Flow, err: unknown): void {
    try {
      const known = err instanceof AppError || err instanceof Refusal
      if (!known && flow.ex.aborted) return
      if (!known) this.deps.log.error({ err, route: flow.route?.path, request_id: flow.id }, 'request failed')
      if (flow.mount.render) flow.mount.render(flow.ex, err, flow.principal)
      else renderJson(flow.ex, err)
    } finally {
      flow.finish()
    }
  }

  /** Counts the request in flight until it is finished; refuses it while the node drains. */
  private gate(flow: Flow): void {
    flow.ended = this.deps.lifecycle.begin()
    if (!this.deps.lifecycle.accepting)
      throw new AppError('unavailable', 'this node is shutting down; retry in a moment')
  }

  /** Sets how the request's client address is found; its route, status and time are recorded when it is finished. */
  private logStep(flow: Flow): void {
    const { req } = flow.ex
    if (req.clientBy) req.clientBy(this.clientOf)
    else req.client = this.clientOf(req.remote, req.headers['x-forwarded-for'])
    flow.recorded = this.record
  }

  private readonly record = (flow: Flow): void => {
    const { ex } = flow
    const label = flow.route?.path ?? (flow.allowed ? 'method_not_allowed' : 'not_found')
    const status = String(ex.status ?? 0)
    const seconds = (performance.now() - flow.started) / 1000
    const method = METHOD_LABELS.has(ex.req.method) ? ex.req.method : 'other'
    this.deps.metrics.requestCounts.add(label, method, status)
    this.deps.metrics.latency.observe({ route: label, method }, seconds)
    if (this.deps.log.isLevelEnabled('debug'))
      this.deps.log.debug(
        { request_id: flow.id, method: ex.req.method, route: label, status, ms: seconds * 1000 },
        'request',
      )
  }

  /** Starts reading the body within the mount's limit (in the first tick); a declared size over it is 413 now. */
  private limits(flow: Flow): void {
    const r = flow.route
    const { req } = flow.ex
    // Percent-escapes that are not UTF-8 would decode to U+FFFD, making different values one.
    if (flow.undecodable !== undefined)
      throw new AppError(
        'invalid_request',
        `${flow.undecodable}: its percent-escapes in the path are not UTF-8; send it encoded as UTF-8`,
        { field: flow.undecodable },
      )
    if (req.rawQuery.includes('%')) req.query = parseUrlEncoded(req.rawQuery, 'the query')
    const kind = r ? (r.bodyKind ?? (r.method === 'POST' ? 'json' : 'none')) : 'none'
    if (kind === 'none') return
    const limit = flow.mount.bodyBytes ?? this.deps.settings.httpBodyBytes
    const declared = flow.ex.declaredTooLarge(limit)
    if (declared) throw declared
    flow.bodyRead = flow.ex.readBody(limit)
    // A request refused by a later step drains its body unread: the rejection is seen only when awaited.
    flow.bodyRead.catch(() => undefined)
  }
}

/** The mount's Origin rule (the dashboard's same-origin forms, /mcp's allowed origins). */
function origin(flow: Flow): void {
  const r = flow.route
  const why = r && flow.mount.origin?.(flow.ex.req, r)
  if (why) throw why
}

/**
 * Asks the mount's credential kinds in order; the first that finds its credential verifies it.
 * A route that needs one and gets none (or one naming no one) answers the mount's `missing`.
 */
function authenticate(flow: Flow): void | Promise<void> {
  const r = flow.route
  if (r?.auth === 'none') return
  const req = flow.ex.req
  for (const c of flow.mount.credentials ?? []) {
    const presented = c.read(req)
    if (presented === undefined) continue
    flow.credential = c
    const who = c.verify(presented, req)
    if (who instanceof Promise) return who.then((w) => admitted(flow, r, w))
    return admitted(flow, r, who)
  }
  return admitted(flow, r, undefined)
}

/** `r` undefined: an unmatched request, whose credential is optional (its policy's, if any). */
function admitted(flow: Flow, r: Route<any> | undefined, who: unknown): void {
  flow.authenticatedAt = performance.now()
  if (who === undefined) {
    if (!r || r.auth === 'optional') return
    throw flow.mount.missing?.(flow.ex.req) ?? new AppError('unauthorized', 'this endpoint needs a credential')
  }
  if (r) flow.mount.permits?.(who, r)
  flow.principal = who
}

/** Charges the request to the mount's rate limit (principals of an uncharged credential kind go free). */
function rateLimit(flow: Flow): void | Promise<void> {
  if (flow.principal === undefined || flow.credential?.charged === false || !flow.mount.rateLimit) return
  return flow.mount.rateLimit(flow.principal, flow.ex) || undefined
}

/** Reads and validates the body and query the route declares, calls it, and sends what it returns. */
async function route(flow: Flow): Promise<void> {
  const r = flow.route
  const { ex } = flow
  if (!r) {
    const { method, path } = ex.req
    if (!flow.allowed) throw new AppError('not_found', `no endpoint ${path}; see GET /openapi.json`)
    ex.extraHeaders.Allow = flow.allowed.join(', ')
    throw new AppError('method_not_allowed', `${method} is not allowed on ${path}; allowed: ${ex.extraHeaders.Allow}`)
  }
  if (flow.bodyRead) {
    flow.raw = await flow.bodyRead
    if ((r.bodyKind ?? 'json') === 'json') {
      flow.body = parseJson(flow.raw)
      if (r.body) flow.body = parse(r.body, jsonObject(flow.body))
    }
  }
  if (r.query) flow.query = parse(r.query, Object.fromEntries(ex.req.query))
  const result = await r.handle(flow)
  if (result !== undefined) ex.json(r.status ?? 200, result)
  else if (!ex.responded && !ex.aborted) throw new Error(`route ${r.method} ${r.path} returned without responding`)
}

/** The API's answer to a failure: the error body of docs/errors.md, or a Refusal's own answer. */
export function renderJson(ex: Exchange, err: unknown): void {
  if (err instanceof Refusal) err.send(ex)
  else sendError(ex, err instanceof AppError ? err : new AppError('internal', 'internal error'))
}

/**
 * Whether an Accept header asks for HTML before JSON: text/html (or application/xhtml+xml) listed
 * with a quality above 0 and at least that of application/json when JSON is listed too. Wildcards
 * count for neither, so a bare wildcard and no header at all mean JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false
  let html = 0
  let json = 0
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase())
    const qParam = params.find((p) => p.startsWith('q='))
    const q = qParam === undefined ? 1 : Number(qParam.slice(2))
    if (!Number.isFinite(q)) continue
    if (type === 'text/html' || type === 'application/xhtml+xml') html = Math.max(html, q)
    else if (type === 'application/json') json = Math.max(json, q)
  }
  return html > 0 && html >= json
}

/** A body a route validates must be a JSON object (`null`, arrays and scalars are refused). */
function jsonObject(body: unknown): unknown {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body
  const got = body === null ? 'null' : Array.isArray(body) ? 'an array' : `a ${typeof body}`
  throw new AppError('invalid_request', `body: must be a JSON object, got ${got}`, { field: 'body' })
}

/** An empty body is `{}`; anything else must be JSON. */
function parseJson(raw: Buffer | undefined): unknown {
  if (!raw || raw.length === 0) return {}
  const decoded = decodeUtf8(raw)
  if ('invalidAt' in decoded)
    throw new AppError('invalid_request', invalidUtf8Message('body', decoded.invalidAt), { field: 'body' })
  try {
    return JSON.parse(decoded.text)
  } catch (err) {
    throw new AppError('invalid_request', `body: not valid JSON (${(err as Error).message})`, { field: 'body' })
  }
}
