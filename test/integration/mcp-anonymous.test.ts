// The test-only keyless mode of /mcp (NodeOptions.mcpAnonymousTeam, used by the conformance run
// in test/conformance): a request without Authorization acts as a team key of that team, but only
// when it names a loopback Host (a DNS-rebound page names its own host); a request with a key is
// authenticated as always; without the option nothing changes.
import t, { type Test } from 'tap'
import { request } from 'node:http'
import { createLogger } from '../../src/shared/logger.js'
import { ServiceNode } from '../../src/node.js'
import { BACKENDS, settingsFor, uid, type Backend } from '../helpers/shared.js'

async function startAnonymous(t: Test, backend: Backend, teamId?: string): Promise<number> {
  const node = new ServiceNode(settingsFor(backend, { port: 0, host: '127.0.0.1' }), {
    log: createLogger('silent'),
    defaultMetrics: false,
    hubProbeMs: 200,
    ...(teamId !== undefined && { mcpAnonymousTeam: teamId }),
  })
  const port = await node.start()
  t.teardown(() => node.stop(2000))
  return port
}

/** A raw POST /mcp with chosen Host / Origin / Authorization headers (fetch() cannot set Host). */
function post(
  port: number,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const payload = JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          'Content-Length': Buffer.byteLength(payload),
          ...headers,
        },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => (text += d))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> }))
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}

const LIST = { jsonrpc: '2.0', id: 7, method: 'tools/list' }
const CALL = (room_id: string) => ({
  jsonrpc: '2.0',
  id: 8,
  method: 'tools/call',
  params: { name: 'heartbeat', arguments: { room_id, agent_id: 'anon' } },
})

for (const backend of BACKENDS) {
  t.test(`keyless /mcp in the test-only anonymous mode (${backend})`, async (t) => {
    const teamId = uid('tm')
    const port = await startAnonymous(t, backend, teamId)

    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const r = await post(port, LIST, { Host: host })
      t.equal(r.status, 200, `Host ${host}: served without a key`)
      t.ok(
        Array.isArray((r.json.result as { tools?: unknown[] } | undefined)?.tools),
        `Host ${host}: tools/list answered`,
      )
    }

    const created = await post(
      port,
      {
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'create_room_from_template', arguments: { template: 'blank' } },
      },
      { Host: `127.0.0.1:${port}` },
    )
    const text = (created.json.result as { content: { text: string }[] }).content[0]!.text
    const roomId = (JSON.parse(text) as { room: { room_id: string } }).room.room_id
    const hb = await post(port, CALL(roomId), { Host: `127.0.0.1:${port}` })
    t.notOk((hb.json.result as { isError?: boolean }).isError, 'the anonymous principal reaches the rooms of its team')

    const rebound = await post(port, LIST, { Host: 'evil.example.com', Origin: 'http://evil.example.com' })
    t.equal(rebound.status, 403, 'a foreign Host with a matching Origin (DNS rebinding) → 403')
    t.match(rebound.json, { id: null, error: { code: -32000, message: /loopback Host/ } })
    const foreignHost = await post(port, LIST, { Host: 'evil.example.com' })
    t.equal(foreignHost.status, 403, 'a foreign Host without Origin → 403')

    const badKey = await post(port, LIST, { Host: 'evil.example.com', Authorization: 'Bearer not-a-key' })
    t.equal(badKey.status, 401, 'a request with a key is authenticated as always (a wrong key → 401)')
  })

  t.test(`without the option a keyless request is 401 (${backend})`, async (t) => {
    const port = await startAnonymous(t, backend)
    const r = await post(port, LIST, { Host: `127.0.0.1:${port}` })
    t.equal(r.status, 401)
  })
}
