// Serves the conformance fixture server (fixture.ts) through the node's own request path: the
// HTTP edge (src/http/edge.ts) and the /mcp mount (src/http/mcp.ts in front of
// src/mcp/pipeline.ts) with the fixture as its MCP host. Requests without an Authorization
// header act as a team key of team `conformance` (the conformance CLI cannot send one). Settings come from the
// environment like the service's (REDIS_URL: keys and rate limits of requests that do send a
// key; HOST, PORT — port 0 picks a free one). Prints `URL http://HOST:PORT/mcp` once listening;
// stops on SIGTERM / SIGINT.
import { Keyring } from '../../src/auth/keyring.js'
import { RateLimiter } from '../../src/auth/ratelimit.js'
import { loadSettings } from '../../src/config.js'
import { Edge } from '../../src/http/edge.js'
import { listen } from '../../src/http/exchange.js'
import { Lifecycle } from '../../src/shared/lifecycle.js'
import { Metrics } from '../../src/shared/metrics.js'
import { createLogger } from '../../src/shared/logger.js'
import { mcpMount } from '../../src/http/mcp.js'
import { SseSessions } from '../../src/http/sse-session.js'
import { Store } from '../../src/store/store.js'
import { FixtureHost } from './fixture.js'

const ANONYMOUS_TEAM = 'conformance'

async function main(): Promise<void> {
  const settings = loadSettings()
  const log = createLogger(settings.logLevel)
  const store = new Store(settings)
  const deps = {
    settings,
    keyring: new Keyring(store),
    rateLimiter: new RateLimiter(store, settings),
    metrics: new Metrics(false),
    log,
    lifecycle: new Lifecycle(),
  }
  const sse = new SseSessions(deps)
  const host = new FixtureHost()
  await host.start()
  const edge = new Edge(deps).mount(
    mcpMount({ ...deps, sse }, host, {
      keyless: { kind: 'team', teamId: ANONYMOUS_TEAM, keyId: 'anonymous', scope: 'admin', access: 'write' },
    }),
  )
  const server = await listen(settings.host, settings.port, edge.handle, settings.httpHeaderBytes)
  process.stdout.write(`URL http://${settings.host}:${server.port}/mcp\n`)
  const stop = async () => {
    server.close()
    await host.stop().catch(() => undefined)
    await store.close().catch(() => undefined)
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop())
  process.on('SIGINT', () => void stop())
}

main().catch((err: unknown) => {
  process.stderr.write(`fixture server: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exit(1)
})
