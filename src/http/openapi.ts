// The OpenAPI 3.1 document (GET /openapi.json), generated from the route table and the same zod
// schemas that validate requests, so the document cannot drift from what the service accepts.
import { z } from 'zod'
import { ERRORS } from '../shared/errors.js'
import type { Route } from './router.js'

const errorBody = z.object({
  error: z.object({
    code: z.enum(Object.keys(ERRORS) as [string, ...string[]]),
    message: z.string(),
    hint: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
})

function schemaOf(s: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>
  delete json.$schema
  return json
}

type Node = Record<string, unknown>
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * A request body's schema as the service reads it: null for an optional property means absent
 * (src/shared/validate.ts), so each property outside `required` also admits null, at any depth of
 * declared properties (free-form JSON, which declares none, is left as it is).
 */
function nullsAsAbsent(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(nullsAsAbsent)
  if (!isNode(node)) return
  const props = node.properties
  if (isNode(props)) {
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : [])
    for (const [k, v] of Object.entries(props)) {
      nullsAsAbsent(v)
      if (!required.has(k) && isNode(v)) props[k] = admitNull(v)
    }
  }
  for (const k of ['items', 'anyOf', 'oneOf', 'allOf', 'additionalProperties', 'prefixItems'])
    if (k in node) nullsAsAbsent(node[k])
}

function admitNull(v: Node): Node {
  if (typeof v.type === 'string' && !Array.isArray(v.enum) && !('const' in v)) return { ...v, type: [v.type, 'null'] }
  if (Array.isArray(v.type) && !Array.isArray(v.enum) && !('const' in v))
    return v.type.includes('null') ? v : { ...v, type: [...(v.type as string[]), 'null'] }
  return { anyOf: [v, { type: 'null' }] }
}

/** The schema of a request body: schemaOf, with null admitted where it means absent. */
function bodySchemaOf(s: z.ZodType): Record<string, unknown> {
  const json = schemaOf(s)
  nullsAsAbsent(json)
  return json
}

/** The query parameters of a route's query schema (a zod object of optional fields). */
function queryParameters(s: z.ZodType): Record<string, unknown>[] {
  const json = schemaOf(s) as { properties?: Record<string, Record<string, unknown>>; required?: string[] }
  return Object.entries(json.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    schema,
  }))
}

export function openApiDocument(routes: readonly Route[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z]+)/g, '{$1}')
    const params: Record<string, unknown>[] = [...r.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }))
    if (r.query) params.push(...queryParameters(r.query))
    const responses: Record<string, unknown> = {
      [String(r.status ?? 200)]: {
        description: 'Success',
        ...(r.response ? { content: { 'application/json': { schema: schemaOf(r.response) } } } : {}),
      },
    }
    const errors = new Set<number>([400, 500])
    if (r.auth !== 'none') [401, 403, 404, 429].forEach((s) => errors.add(s))
    if (r.bodyKind !== 'none' && (r.body || r.method === 'POST')) errors.add(413)
    for (const s of r.errors ?? []) errors.add(s)
    for (const s of [...errors].sort()) {
      responses[String(s)] = {
        description: 'Error',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      }
    }
    paths[path] ??= {}
    paths[path][r.method.toLowerCase()] = {
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      tags: [r.tag ?? 'ops'],
      ...(params.length ? { parameters: params } : {}),
      ...(r.auth === 'none' ? { security: [] } : {}),
      ...(r.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: bodySchemaOf(r.body) } } } }
        : {}),
      responses,
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'agentrooms',
      version,
      description:
        'Shared rooms where AI coding agents coordinate through structured state. MCP tools are served at POST /mcp.',
    },
    security: [{ bearer: [] }],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'A team key (ar_team_…) or a room invite key (ar_room_…)',
        },
      },
      schemas: { Error: schemaOf(errorBody) },
    },
    paths,
  }
}
