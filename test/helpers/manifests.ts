// Static checks of the deployment files (docker-compose.yml, k8s/): render kustomize overlays with
// `kubectl kustomize`, validate every Kubernetes object against the schemas of kubernetes-models
// (the API's OpenAPI definitions) and refuse fields those schemas do not know, which the schemas
// alone let through (a misspelt `readinesProbe` would otherwise be silently ignored by a cluster).
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { parseAllDocuments } from 'yaml'
import { SETTINGS } from '../../src/config.js'

const run = promisify(execFile)

export type K8sObject = {
  apiVersion: string
  kind: string
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> }
  [k: string]: any
}

/** The environment names of every setting of src/config.ts. */
export const SETTING_ENVS: ReadonlySet<string> = new Set(Object.values(SETTINGS).map((r) => r.env))

/** Every YAML document of `text`, parsed; throws on a syntax error with its position. */
export function parseYamlDocs(text: string, origin: string): unknown[] {
  return parseAllDocuments(text).map((d, i) => {
    if (d.errors.length > 0) throw new Error(`${origin} document ${i + 1}: ${d.errors.map((e) => e.message).join('; ')}`)
    return d.toJS() as unknown
  })
}

/** `kubectl kustomize dir`, parsed into objects. kubectl ships on this project's machines. */
export async function kustomize(dir: string): Promise<K8sObject[]> {
  let stdout: string
  try {
    ;({ stdout } = await run('kubectl', ['kustomize', dir], { maxBuffer: 16 * 1024 * 1024 }))
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string }
    if (e.code === 'ENOENT') throw new Error('kubectl is not on the PATH: it renders the kustomize overlays (install kubectl, or kustomize and alias it)')
    throw new Error(`kubectl kustomize ${dir}: ${e.stderr ?? e.message}`)
  }
  return parseYamlDocs(stdout, dir).filter((o): o is K8sObject => o !== null) as K8sObject[]
}

/**
 * Runs a generated validator on a proxy of `obj` and records which properties it reads: a field
 * the validator never looks at is one the schema does not define. Free-form maps (labels,
 * annotations, ConfigMap data) are read key by key, so their keys count as known.
 */
function unknownFields(validate: (this: unknown) => void, obj: unknown): { unknown: string[]; error?: string } {
  const seen = new WeakMap<object, Set<PropertyKey>>()
  const wrap = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v
    const keys = new Set<PropertyKey>()
    seen.set(v, keys)
    return new Proxy(v, {
      get(t, k, r) {
        keys.add(k)
        return wrap(Reflect.get(t, k, r))
      },
      has(t, k) {
        keys.add(k)
        return Reflect.has(t, k)
      },
      ownKeys(t) {
        for (const k of Reflect.ownKeys(t)) keys.add(k)
        return Reflect.ownKeys(t)
      },
    })
  }
  let error: string | undefined
  try {
    validate.call(wrap(obj))
  } catch (err) {
    error = err instanceof Error ? err.message : String(err)
  }
  const unknown: string[] = []
  const walk = (v: unknown, path: string) => {
    if (v === null || typeof v !== 'object') return
    const keys = seen.get(v)
    for (const [k, child] of Object.entries(v)) {
      if (!Array.isArray(v) && keys && !keys.has(k)) unknown.push(`${path}.${k}`)
      walk(child, Array.isArray(v) ? `${path}[${k}]` : `${path}.${k}`)
    }
  }
  walk(obj, '')
  return error === undefined ? { unknown } : { unknown, error }
}

/** Schema problems of one object: validation errors and unknown fields; empty when it is valid. */
export async function k8sProblems(obj: K8sObject): Promise<string[]> {
  const where = `${obj.kind}/${obj.metadata?.name}`
  let mod: Record<string, { prototype: { validate(this: unknown): void } }>
  try {
    mod = (await import(`kubernetes-models/${obj.apiVersion}/${obj.kind}`)) as typeof mod
  } catch {
    return [`${where}: no schema for apiVersion ${obj.apiVersion} kind ${obj.kind}`]
  }
  const model = mod[obj.kind]
  if (!model) return [`${where}: no model ${obj.kind} in kubernetes-models/${obj.apiVersion}`]
  // kustomize wraps long base64 Secret values over lines; the API server's decoder skips the line
  // breaks, the schema's "byte" format does not.
  const data = obj.kind === 'Secret' && obj.data ? Object.fromEntries(Object.entries(obj.data as Record<string, string>).map(([k, v]) => [k, v.replace(/\s+/g, '')])) : undefined
  const r = unknownFields(model.prototype.validate, data ? { ...obj, data } : obj)
  return [...(r.error ? [`${where}: ${r.error}`] : []), ...r.unknown.map((f) => `${where}: unknown field ${f}`)]
}

/** Whether `labels` carry every pair of `selector`. */
export function matches(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  return Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v)
}
