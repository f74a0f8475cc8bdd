// Every package the code loads is one package.json declares: what src/ and bin/ load (the running
// service) among dependencies, what tests, benchmarks and scripts load among any of them. An
// undeclared one works only while some other package happens to bring it along (as ioredis may
// bring cluster-key-slot). Imports, dynamic imports, require,
// require.resolve and createRequire(...)('name') all count.
import { readFileSync, readdirSync } from 'node:fs'
import { isBuiltin } from 'node:module'
import { join } from 'node:path'
import t from 'tap'

interface Pkg {
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
}
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as Pkg
const runtime = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})])
const any = new Set([...runtime, ...Object.keys(pkg.devDependencies ?? {})])

const LOADS = [
  /\bfrom\s+['"]([^'"]+)['"]/g,
  /^\s*import\s+['"]([^'"]+)['"]/gm,
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\brequire(?:\.resolve)?\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\bcreateRequire\([^)]*\)\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
]

/** A bare specifier: a package name (npm's characters), maybe a path inside it. */
const SPECIFIER = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/[\w./-]*)?$/i

/** The packages `source` loads, by name (`@scope/name/sub.js` is `@scope/name`). */
export function packagesLoaded(source: string): Set<string> {
  const names = new Set<string>()
  for (const re of LOADS) {
    for (const m of source.matchAll(re)) {
      const spec = m[1]!
      if (!SPECIFIER.test(spec) || isBuiltin(spec)) continue // relative, absolute, or words in a string
      const parts = spec.split('/')
      names.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!)
    }
  }
  return names
}

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|mts|js|mjs)$/.test(f) && !f.endsWith('.d.ts') && !f.split('/').includes('node_modules'))
    .map((f) => join(dir, f))
    .filter((f) => f !== 'test/unit/dependencies.test.ts') // its own samples
}

t.test('the scan sees every way of loading a package', async (t) => {
  const src = [
    "import t from 'tap'",
    "import type { X } from '@scope/pkg/sub.js'",
    "import 'side-effect'",
    "const m = await import('dyn')",
    "require('cjs'); require.resolve('res/package.json')",
    "const slot = createRequire(import.meta.url)('hidden') as (k: string) => number",
    "import { join } from 'node:path'; import fs from 'fs'; import x from './local.js'",
    "t.match(line, 'from 'two words', 'not a package')",
  ].join('\n')
  t.same([...packagesLoaded(src)].sort(), ['@scope/pkg', 'cjs', 'dyn', 'hidden', 'res', 'side-effect', 'tap'])
})

t.test('src/ and bin/ load only dependencies', async (t) => {
  for (const f of [...sources('src'), ...sources('bin')]) {
    for (const name of packagesLoaded(readFileSync(f, 'utf8')))
      t.ok(runtime.has(name), `${f} loads ${name}, which must be in dependencies`)
  }
})

t.test('tests, benchmarks and scripts load only declared packages', async (t) => {
  for (const f of [...sources('test'), ...sources('bench'), ...sources('scripts')]) {
    for (const name of packagesLoaded(readFileSync(f, 'utf8')))
      t.ok(any.has(name), `${f} loads ${name}, which package.json must declare`)
  }
})
