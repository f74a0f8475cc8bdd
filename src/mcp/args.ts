// Tool arguments derived from the core schemas they feed, instead of restated. A tool takes the
// core operation's fields in their light form: the type (string, integer, number, boolean, enum,
// array, object, any JSON) and whether it may be left out, without limits, patterns, defaults
// or transforms, which the core checks with the node's settings when the tool runs. The light form
// is what the runner checks first (an unknown argument named, a wrong type) and what tools/list
// shows, so the listing stays short. A field the core renames or drops fails at
// load (coreArgs names it), and so does a required core field the tool does not take; a tool that
// takes nothing names its core schema all the same (coreArgs(schema, {})), so a field the core
// adds reaches it, or fails at load when required.
import { z } from 'zod'
import type { CoreSettings } from '../core/settings.js'
import { invalid } from '../shared/errors.js'

/** The names of the settings that are numbers (never undefined). */
type NumericSetting = { [K in keyof CoreSettings]-?: CoreSettings[K] extends number ? K : never }[keyof CoreSettings]

/**
 * The settings the core schema factories read: limits, numbers all (the compiler holds this list
 * to numeric settings). A unit test holds it to what the factories read.
 */
export const FACTORY_LIMITS: readonly NumericSetting[] = [
  'tasksPerRoom',
  'taskNotesBytes',
  'dependenciesPerTask',
  'contextBodyBytes',
  'contextPerRoom',
  'eventTextBytes',
  'eventDataBytes',
  'lockTtlMaxMs',
  'reservationTtlMaxMs',
  'varValueBytes',
]

/**
 * What the core schema factories (planSchemas(settings), ...) are built with here. Only their
 * field names and types are used, never a limit, so each limit they read reads as the largest
 * safe integer. Any other setting throws, naming it: a factory that came to read a flag, a text or
 * an optional setting would otherwise shape its schema by a number, silently. (The settings
 * themselves belong to the composition root, which nothing below it imports.)
 */
export const CORE_SETTINGS: CoreSettings = new Proxy({} as CoreSettings, {
  get(_target, key) {
    if (typeof key !== 'string') return undefined // inspection (Symbol.toPrimitive, ...), not a setting
    if ((FACTORY_LIMITS as readonly string[]).includes(key)) return Number.MAX_SAFE_INTEGER
    throw new Error(
      `CORE_SETTINGS: a core schema factory read the setting ${key}; only the numeric limits of ` +
        `FACTORY_LIMITS (src/mcp/args.ts) have a stand-in`,
    )
  },
})

type Def = {
  type: string
  innerType?: z.ZodType
  element?: z.ZodType
  shape?: z.ZodRawShape
  entries?: Record<string, string>
  values?: unknown[]
  in?: z.ZodType
  options?: z.ZodType[]
}

/** The light form of a core field (see the header); throws on a zod type it does not know. */
export function lighten(field: z.ZodType): z.ZodType {
  const def = (field as unknown as { _zod: { def: Def } })._zod.def
  switch (def.type) {
    case 'string':
      return z.string()
    case 'number':
      return (field as z.ZodNumber).isInt ? z.number().int() : z.number()
    case 'boolean':
      return z.boolean()
    case 'enum':
      return z.enum(Object.values(def.entries!) as [string, ...string[]])
    case 'literal':
      return z.literal(def.values as [string])
    case 'array':
      return z.array(lighten(def.element!))
    case 'object':
      return z.object(Object.fromEntries(Object.entries(def.shape!).map(([k, v]) => [k, lighten(v as z.ZodType)])))
    case 'optional':
    case 'default':
      return lighten(def.innerType!).optional()
    case 'pipe':
      return lighten(def.in!)
    // Any JSON (z.json() is a lazy union); the core checks it is JSON and its size. Listed as
    // anything, where the recursive schema would list a $defs block.
    case 'lazy':
    case 'unknown':
      return z.unknown()
    default:
      throw new Error(`lighten: a core field of zod type ${def.type} has no light form`)
  }
}

const derived = new WeakSet<z.ZodType>()
const derivedSets = new WeakSet<object>()

/** Whether a tool argument was derived from a core field (the drift test lists the others). */
export function isDerived(arg: z.ZodType): boolean {
  return derived.has(arg)
}

/** Whether a tool's arguments are one coreArgs() result (how the drift test knows an empty set was derived). */
export function isDerivedSet(args: object): boolean {
  return derivedSets.has(args)
}

/**
 * One field of a core schema in its light form; throws when the schema has no such field.
 * `optional`: the tool may leave out a field the core requires (a tool over two operations).
 */
export function coreField(
  schema: z.ZodObject,
  name: string,
  description?: string,
  opts: { optional?: boolean } = {},
): z.ZodType {
  const field = schema.shape[name] as z.ZodType | undefined
  if (field === undefined)
    throw new Error(`coreArgs: the core schema has no field ${name} (known: ${Object.keys(schema.shape).join(', ')})`)
  let arg = lighten(field)
  if (opts.optional) arg = arg.optional()
  if (description !== undefined) arg = arg.describe(description)
  derived.add(arg)
  return arg
}

/**
 * Tool arguments from a core schema: `fields` names the core fields the tool takes, in the order
 * tools/list shows them, each with its description for a model (undefined: none). Every required
 * field of the schema must be among them.
 */
export function coreArgs<K extends string>(
  schema: z.ZodObject,
  fields: Record<K, string | undefined>,
): Record<K, z.ZodType> {
  for (const [name, field] of Object.entries(schema.shape)) {
    if (!(name in fields) && !(field as z.ZodType).safeParse(undefined).success)
      throw new Error(`coreArgs: the tool must take the required core field ${name}`)
  }
  const args = Object.fromEntries(
    Object.entries<string | undefined>(fields).map(([name, text]) => [name, coreField(schema, name, text)]),
  ) as Record<K, z.ZodType>
  derivedSets.add(args)
  return args
}

/**
 * A free-form JSON field of the core (event `data`) as a tool takes it: listed as JSON text, since
 * an open object is what OpenAI's strict mode cannot express (and falls back from); any JSON value
 * is taken as it is too, and fromJsonText turns text back into JSON before the core sees it.
 */
export function coreJsonText(schema: z.ZodObject, name: string, description: string): z.ZodType {
  const field = schema.shape[name] as z.ZodType | undefined
  if (field === undefined) throw new Error(`coreArgs: the core schema has no field ${name}`)
  const type = (lighten(field) as unknown as { _zod: { def: Def } })._zod.def
  const inner = type.type === 'optional' ? (type.innerType as unknown as { _zod: { def: Def } })._zod.def : type
  if (inner.type !== 'unknown') throw new Error(`coreJsonText: the core field ${name} is not free-form JSON`)
  const arg = z.unknown().optional().meta({ type: 'string', description })
  derived.add(arg)
  return arg
}

/** The JSON a coreJsonText argument carries: text parsed (naming `field` when it is not JSON), else as given. */
export function fromJsonText(value: unknown, field: string): unknown {
  if (typeof value !== 'string') return value
  try {
    return JSON.parse(value) as unknown
  } catch {
    throw invalid(`${field}: must be JSON (an object, or its JSON text such as {"pr": 12})`, { field })
  }
}
