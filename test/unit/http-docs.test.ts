// docs/http-api.md documents exactly the routes a node serves, each with the auth it really
// needs. The route table comes from a ServiceNode built as src/main.ts builds it, never started:
// its Redis client points at a closed port and is disconnected at the end.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { defaultSettings } from '../../src/config.js'
import type { Route } from '../../src/http/router.js'
import { createLogger } from '../../src/shared/logger.js'
import { ServiceNode } from '../../src/node.js'

const AUTH_TEXT: Record<Route['auth'], string> = {
  none: 'none',
  optional: 'none, or a key',
  team: 'team key with the admin scope',
  any: "team key or the room's invite key",
}

const node = new ServiceNode(defaultSettings({ redisUrl: 'redis://127.0.0.1:1' }), {
  log: createLogger('silent'),
  defaultMetrics: false,
})
node.store.client.disconnect()
const routes = node.router.list()

/** Each "### `METHOD /path`" section of the page and the text of its **Auth:** line. */
function documented(md: string): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>()
  const sections = md.split(/^### /m).slice(1)
  for (const s of sections) {
    const head = /^`([A-Z]+ \/[^`]*)`/.exec(s)
    if (!head) continue
    out.set(head[1]!, /^\*\*Auth:\*\* (.+)$/m.exec(s)?.[1]?.trim())
  }
  return out
}

const docs = documented(readFileSync('docs/http-api.md', 'utf8'))
t.ok(routes.length > 0, 'the node has routes')

for (const r of routes) {
  const name = `${r.method} ${r.path}`
  t.ok(docs.has(name), `${name} is documented in docs/http-api.md`)
  // A parenthesis after the auth may say how it is checked.
  t.equal(
    docs.get(name)?.replace(/\s*\(.*\)$/, ''),
    AUTH_TEXT[r.auth],
    `${name}: the documented auth is what the route needs`,
  )
}

const served = new Set(routes.map((r) => `${r.method} ${r.path}`))
for (const name of docs.keys()) t.ok(served.has(name), `docs/http-api.md documents ${name}, which the node serves`)
