// The portable form of a listed JSON Schema: the one form that OpenAI's strict mode, the AI SDK,
// LangChain's adapters and Gemini's function declarations all take as it is. In it every object
// lists all its properties in `required` and closes with `additionalProperties: false`; a
// property that may be left out is nullable instead (`"type": ["string", "null"]`, an enum with
// null), and the service reads null as absent (src/core/validate.ts nullsAsAbsent). Every
// property has a type, and no object is without properties. test/unit/mcp-portable.test.ts runs
// the real converters over tools/list and holds it to that.

type Node = Record<string, unknown>

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v)

/** `node` made to accept null as well (a property the caller may leave out). */
function nullable(node: Node, where: string): void {
  const type = node.type
  if (typeof type === 'string') node.type = [type, 'null']
  else if (!Array.isArray(type)) throw new Error(`portable: ${where} has no type`)
  else if (!type.includes('null')) node.type = [...(type as string[]), 'null']
  if (Array.isArray(node.enum) && !node.enum.includes(null)) node.enum = [...(node.enum as unknown[]), null]
}

/**
 * Rewrites a JSON Schema (as z.toJSONSchema makes it from a tool's arguments) into the portable
 * form, in place. Throws, naming the place, on a property without a type or an object without
 * properties: those are refused by some client and must not reach a listing.
 */
export function portable(node: Node, where = 'input'): Node {
  if (node.type === undefined && node.anyOf === undefined) throw new Error(`portable: ${where} has no type`)
  const types = Array.isArray(node.type) ? node.type : [node.type]
  if (types.includes('object')) {
    const props = node.properties
    if (!isNode(props) || Object.keys(props).length === 0)
      throw new Error(`portable: ${where} is an object without properties`)
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : [])
    for (const [k, v] of Object.entries(props)) {
      if (!isNode(v)) throw new Error(`portable: ${where}.${k} is not a schema`)
      portable(v, `${where}.${k}`)
      if (!required.has(k)) nullable(v, `${where}.${k}`)
    }
    node.required = Object.keys(props)
    node.additionalProperties = false
  }
  if (isNode(node.items)) portable(node.items, `${where}[]`)
  if (Array.isArray(node.anyOf)) node.anyOf.forEach((v, i) => isNode(v) && portable(v, `${where}|${i}`))
  return node
}
