// GET /openapi.json is a valid OpenAPI 3.1 document that lists every route the node serves, and
// its request schemas are the ones the endpoints apply: a body or query the document refuses is
// refused by the endpoint (400), and one it accepts is never refused as malformed. Also GET
// /metrics: request counts by route, and the other metric families.
import t from 'tap'
import fc from 'fast-check'
import { validate } from '@readme/openapi-parser'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { pinFuzzSeed } from '../helpers/fuzz.js'
import { newTeam, startNode } from '../helpers/node.js'
import { BACKENDS } from '../helpers/shared.js'

pinFuzzSeed(t)

interface Operation {
  parameters?: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[]
  requestBody?: { content: { 'application/json': { schema: Record<string, unknown> } } }
  responses: Record<string, unknown>
  security?: unknown[]
}
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>> }

const ajv = new Ajv2020({ strict: false, allErrors: false })

/** Values that hit the edges of the admin schemas: ids, templates, blanks, wrong types. */
const fieldValue = fc.oneof(
  fc.constantFrom(
    'blank',
    'web-app',
    'incident',
    'payments',
    'a',
    '',
    ' ',
    '  x  ',
    '-x',
    'a'.repeat(64),
    'a'.repeat(65),
    'x'.repeat(101),
    '../etc',
    'é',
    '\u0000',
  ),
  fc.string({ maxLength: 120 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
)

/** Bodies made of the schema's own fields (and a stranger), plus any JSON at all. */
function bodies(schema: Record<string, unknown>) {
  const names = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {})
  const fields = fc.dictionary(fc.constantFrom(...names, 'extra'), fieldValue, { maxKeys: names.length + 1 })
  return fc.oneof({ arbitrary: fields, weight: 4 }, { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 })
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const n = await startNode(t, backend, {
      rateLimitPerMin: 1_000_000,
      rateLimitPerCredentialPerMin: 500_000,
      roomsPerTeam: 100_000,
    })
    const team = await newTeam(n)
    await n.node.core.rooms.create(team.teamId, { room_id: 'documented' }, 'test')
    const res = await n.call('/openapi.json')
    t.equal(res.status, 200)
    t.match(res.headers.get('content-type'), /^application\/json/)
    const doc = (await res.json()) as Doc

    t.test('a valid OpenAPI 3.1 document', async (t) => {
      t.equal(doc.openapi, '3.1.0')
      const result = await validate(structuredClone(doc) as never)
      t.ok(
        result.valid,
        `@readme/openapi-parser validates it${result.valid ? '' : `: ${JSON.stringify(result.errors)}`}`,
      )
      t.same(result.warnings, [], 'without warnings')
    })

    t.test('it lists every route of the node, and only those', async (t) => {
      const served = n.node.router.list().map((r) => `${r.method} ${r.path.replace(/:([A-Za-z]+)/g, '{$1}')}`)
      const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      )
      t.same(documented.sort(), [...served].sort())
      for (const r of n.node.router.list()) {
        const op = doc.paths[r.path.replace(/:([A-Za-z]+)/g, '{$1}')]![r.method.toLowerCase()]!
        t.equal(
          op.security !== undefined && op.security.length === 0,
          r.auth === 'none',
          `${r.method} ${r.path}: security matches auth ${r.auth}`,
        )
        t.ok(
          op.responses[String(r.status ?? 200)],
          `${r.method} ${r.path}: documents its success status ${r.status ?? 200}`,
        )
        if (r.auth !== 'none')
          t.ok(op.responses['401'] && op.responses['429'], `${r.method} ${r.path}: documents 401 and 429`)
        const pathParams = [...r.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1])
        t.same(
          op.parameters?.filter((p) => p.in === 'path').map((p) => p.name) ?? [],
          pathParams,
          `${r.method} ${r.path}: path parameters`,
        )
      }
    })

    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const schema = op.requestBody?.content['application/json'].schema
        if (!schema) continue
        t.test(`${method.toUpperCase()} ${path}: the endpoint accepts exactly the documented body`, async (t) => {
          const check = ajv.compile(schema)
          const url = path.replace('{roomId}', 'documented').replace(/\{[A-Za-z]+\}/g, 'x1')
          let refusedByDoc = 0
          await fc.assert(
            fc.asyncProperty(bodies(schema), async (body) => {
              const r = await n.call(url, { method: method.toUpperCase(), key: team.key, json: body })
              const got = (await r.json()) as { error?: { code: string } }
              const docOk = check(body)
              if (!docOk) refusedByDoc++
              // A body the document refuses is refused as invalid; one it accepts may still meet a
              // state rule (409: a taken roomId, a count limit) but is never called malformed.
              if (!docOk) return r.status === 400 && got.error?.code === 'invalid_request'
              return r.status !== 400 && r.status < 500
            }),
            { numRuns: 100 },
          )
          t.ok(refusedByDoc > 10, `the run included bodies the document refuses (${refusedByDoc})`)
        })
      }
    }

    t.test('GET /admin/rooms: the endpoint accepts exactly the documented query', async (t) => {
      const params = doc.paths['/admin/rooms']!.get!.parameters!.filter((p) => p.in === 'query')
      t.same(params.map((p) => p.name).sort(), ['after', 'limit'])
      const checks = Object.fromEntries(params.map((p) => [p.name, ajv.compile(p.schema)]))
      const value = fc.oneof(
        fc.constantFrom('1', '0', '500', '501', '-1', '2.5', 'abc', '', 'documented', 'a'.repeat(65), '1e2'),
        fc.string({ maxLength: 10 }),
      )
      await fc.assert(
        fc.asyncProperty(fc.record({ limit: value, after: value }, { requiredKeys: [] }), async (q) => {
          const r = await n.call(`/admin/rooms?${new URLSearchParams(q)}`, { key: team.key })
          const body = (await r.json()) as { error?: { details?: { field?: string } } }
          // Query values arrive as strings; the document's numbers are what they coerce to.
          const docOk = Object.entries(q).every(([k, v]) => {
            const num = v.trim() === '' ? NaN : Number(v)
            return checks[k]!(k === 'limit' ? num : v)
          })
          // A well-formed `after` that names no room of the team's list is refused as documented
          // (400 naming after: list again from the first page); the team's one room is 'documented'.
          if (docOk && q.after !== undefined && q.after !== 'documented')
            return r.status === 400 && body.error?.details?.field === 'after'
          return docOk ? r.status === 200 : r.status === 400
        }),
        { numRuns: 100 },
      )
    })

    t.test('GET /metrics counts requests by route and has every metric family', async (t) => {
      for (let i = 0; i < 3; i++) await (await n.call('/admin/me', { key: team.key })).arrayBuffer()
      await (await n.call('/admin/me')).arrayBuffer()
      await (await n.call('/no/such/route')).arrayBuffer()
      const m = await n.call('/metrics')
      t.equal(m.status, 200)
      t.match(m.headers.get('content-type'), /^text\/plain/)
      const text = await m.text()
      const count = (labels: string) =>
        Number(new RegExp(`^agentrooms_http_requests_total\\{${labels}\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0)
      t.ok(count('route="/admin/me",method="GET",status="200"') >= 3, 'successful calls by route, method and status')
      t.equal(count('route="/admin/me",method="GET",status="401"'), 1, 'refused calls by status')
      t.equal(
        count('route="not_found",method="GET",status="404"'),
        1,
        'unknown paths share one label, not one per path',
      )
      for (const odd of ['FOOBAR', 'BREW', 'PROPFIND']) await (await n.call('/admin/me', { method: odd })).arrayBuffer()
      const after = await (await n.call('/metrics')).text()
      const methods = new Set(
        [...after.matchAll(/^agentrooms_http_requests_total\{[^}]*method="([^"]+)"/gm)].map((x) => x[1]),
      )
      t.notOk(methods.has('FOOBAR') || methods.has('BREW') || methods.has('PROPFIND'), 'no label per method sent')
      t.ok(methods.has('other'), 'methods outside the usual ones count as other')
      for (const name of [
        'agentrooms_http_requests_total',
        'agentrooms_http_request_duration_seconds',
        'agentrooms_sse_connections',
        'agentrooms_parked_waiters',
        'agentrooms_mcp_tool_calls_total',
        'agentrooms_redis_errors_total',
        'agentrooms_rate_limited_total',
      ]) {
        t.match(text, new RegExp(`^# TYPE ${name} `, 'm'), `${name} is exported`)
      }
    })
  })
}
