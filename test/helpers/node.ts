// Service nodes for HTTP and MCP tests: real uWebSockets.js servers on free ports, in this
// process, over the shared Redis of a backend; and a team of the test's own with its key.
import type { Test } from 'tap'
import type { Settings } from '../../src/config.js'
import { ServiceNode, type NodeOptions } from '../../src/node.js'
import { createLogger } from '../../src/shared/logger.js'
import { settingsFor, uid, type Backend } from './shared.js'

export interface TestNode {
  node: ServiceNode
  base: string
  /** fetch() against this node with an optional Bearer key. */
  call(path: string, init?: RequestInit & { key?: string; json?: unknown }): Promise<Response>
}

/**
 * Starts a node on `backend` (port 0, quiet logs, fast hub probes); stopped when the test ends.
 * `options` adds node options (test seams such as webhookResolver).
 */
export async function startNode(
  t: Test,
  backend: Backend,
  overrides: Partial<Settings> = {},
  options: Partial<NodeOptions> = {},
): Promise<TestNode> {
  const node = new ServiceNode(settingsFor(backend, { port: 0, host: '127.0.0.1', ...overrides }), {
    log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    defaultMetrics: false,
    hubProbeMs: 200,
    ...options,
  })
  const port = await node.start()
  t.teardown(() => node.stop(2000))
  const base = `http://127.0.0.1:${port}`
  return {
    node,
    base,
    call(path, init = {}) {
      const headers = new Headers(init.headers)
      if (init.key) headers.set('Authorization', `Bearer ${init.key}`)
      let body = init.body
      if (init.json !== undefined) {
        headers.set('Content-Type', 'application/json')
        body = JSON.stringify(init.json)
      }
      return fetch(base + path, { ...init, headers, body })
    },
  }
}

/** A new team with its first key, created through `node`'s store. */
export async function newTeam(n: TestNode): Promise<{ teamId: string; key: string }> {
  const r = await n.node.teams.create({ name: 'test team', teamId: uid('tm') })
  return { teamId: r.team.teamId, key: r.key! }
}
