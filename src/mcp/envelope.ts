// The per-request `_meta` envelope of protocol revision 2026-07-28 (SEP-2575; clientInfo optional
// since spec PR #3002): whether a message claims it, and its validation with the reference
// schema's messages and issue order (reference: validateEnvelopeMeta of the 2.x codec).
import {
  isObject,
  LOG_LEVELS,
  META,
  type Envelope,
  type Implementation,
  type JsonObject,
  type LogLevel,
} from './wire.js'

/** One problem in an envelope: which key (dotted path inside _meta) and what is wrong. */
export interface EnvelopeIssue {
  key: string
  problem: string
}

export function metaOf(params: unknown): JsonObject | undefined {
  return isObject(params) && isObject(params._meta) ? params._meta : undefined
}
/** A message claims the modern envelope iff params._meta carries the protocol-version key. */
export function hasEnvelopeClaim(params: unknown): boolean {
  const meta = metaOf(params)
  return meta !== undefined && META.protocolVersion in meta
}
export function claimedVersion(params: unknown): string | undefined {
  const v = metaOf(params)?.[META.protocolVersion]
  return typeof v === 'string' ? v : undefined
}

function kindOf(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  return typeof v
}
function expected(type: string, v: unknown): string {
  return `Invalid input: expected ${type}, received ${kindOf(v)}`
}
type Check = (v: unknown, key: string, issues: EnvelopeIssue[]) => void
const str: Check = (v, key, issues) => {
  if (typeof v !== 'string') issues.push({ key, problem: expected('string', v) })
}
const bool: Check = (v, key, issues) => {
  if (typeof v !== 'boolean') issues.push({ key, problem: expected('boolean', v) })
}
const obj: Check = (v, key, issues) => {
  if (!isObject(v)) issues.push({ key, problem: expected('object', v) })
}
/** An object whose listed members are optional and checked; other members pass. */
function shape(members: Record<string, Check>, required: readonly string[] = []): Check {
  return (v, key, issues) => {
    if (!isObject(v)) return void issues.push({ key, problem: expected('object', v) })
    for (const [name, check] of Object.entries(members)) {
      if (v[name] !== undefined) check(v[name], `${key}.${name}`, issues)
      else if (required.includes(name)) issues.push({ key: `${key}.${name}`, problem: expected('string', undefined) })
    }
  }
}
const recordOfObjects: Check = (v, key, issues) => {
  if (!isObject(v)) return void issues.push({ key, problem: expected('object', v) })
  for (const [name, member] of Object.entries(v)) obj(member, `${key}.${name}`, issues)
}
const icons: Check = (v, key, issues) => {
  if (!Array.isArray(v)) return void issues.push({ key, problem: expected('array', v) })
  v.forEach((icon, i) => shape({ src: str, mimeType: str }, ['src'])(icon, `${key}.${i}`, issues))
}
// Members in the reference schema's order, so the first issue reported is the same one.
const implementation = shape({ name: str, title: str, icons, version: str, websiteUrl: str, description: str }, [
  'name',
  'version',
])
const clientCapabilities = shape({
  experimental: recordOfObjects,
  sampling: shape({ context: obj, tools: obj }),
  elicitation: shape({ form: shape({ applyDefaults: bool }), url: obj }),
  roots: shape({ listChanged: bool }),
  extensions: recordOfObjects,
})
const ENVELOPE_CHECKS: Record<string, Check> = {
  progressToken: (v, key, issues) => {
    if (typeof v !== 'string' && !Number.isSafeInteger(v))
      issues.push({ key, problem: expected('string or integer', v) })
  },
  [META.protocolVersion]: str,
  [META.clientInfo]: implementation,
  [META.clientCapabilities]: clientCapabilities,
  [META.logLevel]: (v, key, issues) => {
    if (!LOG_LEVELS.includes(v as LogLevel))
      issues.push({ key, problem: `Invalid option: expected one of ${LOG_LEVELS.map((l) => `"${l}"`).join('|')}` })
  },
}
const REQUIRED_ENVELOPE_KEYS = [META.protocolVersion, META.clientCapabilities]

/**
 * Validates params._meta as a 2026-07-28 envelope: missing required keys first, then bad values
 * of present keys, in a stable order; [] when valid. Other `_meta` keys pass (the envelope is
 * loose). Reference: validateEnvelopeMeta (the 2026 codec's RequestMetaEnvelopeSchema).
 */
export function validateEnvelope(meta: JsonObject): EnvelopeIssue[] {
  const issues: EnvelopeIssue[] = REQUIRED_ENVELOPE_KEYS.filter((k) => meta[k] === undefined).map((key) => ({
    key,
    problem: 'missing',
  }))
  for (const [key, check] of Object.entries(ENVELOPE_CHECKS)) if (meta[key] !== undefined) check(meta[key], key, issues)
  return issues
}

export function envelopeOf(meta: JsonObject): Envelope {
  return {
    protocolVersion: meta[META.protocolVersion] as string,
    clientCapabilities: meta[META.clientCapabilities] as JsonObject,
    ...(meta[META.clientInfo] !== undefined && { clientInfo: meta[META.clientInfo] as Implementation }),
    ...(meta[META.logLevel] !== undefined && { logLevel: meta[META.logLevel] as LogLevel }),
  }
}
