// The layer rule (docs/architecture.md): the page's table is eslint.config.js LAYERS; lint
// refuses every import the table forbids, from any depth of a folder and in any form (static,
// export from, dynamic import(), a type's import()), and none it allows; and no
// files of src import each other at run time, directly or in a ring.
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { ESLint } from 'eslint'
import t from 'tap'
import { LAYERS } from '../../eslint.config.js'

const ROOT_FOLDERS = ['config', 'ops']
const FOLDERS = [...Object.keys(LAYERS), ...ROOT_FOLDERS]

t.test('docs/architecture.md shows the table lint enforces', async (t) => {
  const md = readFileSync('docs/architecture.md', 'utf8')
  const start = md.indexOf('| folder | may import |')
  t.ok(start >= 0, 'the page has the table')
  const table = md.slice(start, md.indexOf('\n\n', start))
  const rows = new Map<string, string[]>()
  for (const m of table.matchAll(/^\| `src\/([a-z]+)\/` \| (.+) \|$/gm)) {
    rows.set(
      m[1]!,
      [...m[2]!.matchAll(/`src\/([a-z]+)\/`/g)].map((x) => x[1]!),
    )
  }
  t.same([...rows.keys()].sort(), Object.keys(LAYERS).sort(), 'one row per layer')
  for (const [layer, may] of Object.entries(LAYERS)) t.same(rows.get(layer), may, `src/${layer}/`)
  t.same(
    readdirSync('src', { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort(),
    [...FOLDERS].sort(),
    'every folder of src is a layer of the table or part of the composition root',
  )
})

/** How a probe names a module: each form lint must check. */
const FORMS: Record<string, (spec: string) => string> = {
  import: (s) => `import '${s}'`,
  'export from': (s) => `export * from '${s}'`,
  'dynamic import()': (s) => `void import('${s}')`,
  "a type's import()": (s) => `export type T = import('${s}').X`,
}

t.test('lint refuses exactly the imports the table forbids, at every depth and in every form', async (t) => {
  const eslint = new ESLint()
  /** Which of `lines` (one import each) lint refuses in `file` (one lint run per file). */
  const refused = async (file: string, lines: string[]): Promise<boolean[]> => {
    const [r] = await eslint.lintText(lines.map((l) => `${l}\n`).join(''), { filePath: file })
    const layered = r!.messages.filter((m) => m.ruleId === 'layers/one-way' || m.ruleId === 'no-restricted-imports')
    const at = new Set(layered.map((m) => m.line))
    return lines.map((_, i) => at.has(i + 1))
  }
  for (const [layer, may] of Object.entries(LAYERS)) {
    for (const depth of [1, 2, 3, 4]) {
      const file = `src/${layer}/${'sub/'.repeat(depth - 1)}probe.ts`
      const up = '../'.repeat(depth)
      const targets = FOLDERS.filter((f) => f !== layer)
      const roots = ['main', 'node', 'config']
      for (const [form, line] of Object.entries(FORMS)) {
        // Every form at depths 1 and 3; the plain import at every depth.
        if (form !== 'import' && depth !== 1 && depth !== 3) continue
        const got = await refused(file, [
          ...targets.map((f) => line(`${up}${f}/x.js`)),
          ...roots.map((r) => line(`${up}${r}.js`)),
          line('./x.js'),
          line(`${up}${layer}/x.js`),
        ])
        targets.forEach((target, i) => {
          const allowed = may.includes(target)
          t.equal(got[i], !allowed, `${file} ${form} -> src/${target}/: ${allowed ? 'allowed' : 'refused'}`)
        })
        roots.forEach((root, i) => t.ok(got[targets.length + i], `${file} ${form} -> src/${root}.ts: refused`))
        t.notOk(got.at(-2), `${file} ${form} -> its own folder: allowed`)
        t.notOk(got.at(-1), `${file} ${form} -> its own folder from the top: allowed`)
      }
    }
  }
  t.same(
    await refused('src/core/probe.ts', ["const m = '../store/x.js'", 'void import(m)']),
    [false, true],
    'an import() of a computed name: refused (its layer cannot be checked)',
  )
  t.same(await refused('src/core/probe.ts', ["import 'ioredis'"]), [true], 'ioredis outside the store: refused')
  t.same(await refused('src/core/a/b/probe.ts', ["void import('ioredis')"]), [true], 'also by import(), deep')
  t.same(await refused('src/store/probe.ts', ["import 'ioredis'"]), [false], 'ioredis in the store: allowed')
  t.same(await refused('src/config/probe.ts', ["import 'ioredis'"]), [true], 'ioredis in the settings: refused')
  t.same(
    await refused('src/node.ts', ["import './http/x.js'", "import './store/x.js'"]),
    [false, false],
    'the root imports anything',
  )
  t.same(await refused('src/ops/a/probe.ts', ["import '../../http/x.js'"]), [false], 'so do the operator tools')
})

/** The files of src that `file` imports at run time (type-only imports left out). */
function runtimeImports(file: string, text: string): string[] {
  const out: string[] = []
  for (const m of text.matchAll(
    /^(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s+'(\.[^']+)'|^import\s+'(\.[^']+)'/gms,
  )) {
    const names = m[2]?.trim() ?? ''
    const typeOnly =
      m[1] !== undefined ||
      (/^\{[^}]*\}$/s.test(names) &&
        names
          .slice(1, -1)
          .split(',')
          .filter((n) => n.trim())
          .every((n) => n.trim().startsWith('type ')))
    if (typeOnly) continue
    const base = normalize(join(dirname(file), (m[3] ?? m[4])!)).replace(/\.js$/, '')
    out.push(base)
  }
  return out
}

t.test('no runtime import cycle in src', async (t) => {
  const files = readdirSync('src', { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f))
    .map((f) => join('src', f))
  const byBase = new Map(files.map((f) => [f.replace(/\.tsx?$/, ''), f]))
  const edges = new Map(
    files.map((f) => [
      f,
      runtimeImports(f, readFileSync(f, 'utf8')).flatMap((b) => byBase.get(b) ?? byBase.get(`${b}/index`) ?? []),
    ]),
  )
  t.ok(
    [...edges.values()].some((e) => e.length > 0),
    'the scan sees imports',
  )
  // Depth-first search; a file met again while still on the path closes a ring.
  const state = new Map<string, 'open' | 'done'>()
  const rings: string[] = []
  const visit = (f: string, path: string[]): void => {
    state.set(f, 'open')
    for (const g of edges.get(f) ?? []) {
      if (state.get(g) === 'open') rings.push([...path.slice(path.indexOf(g)), f, g].join(' -> '))
      else if (!state.has(g)) visit(g, [...path, f])
    }
    state.set(f, 'done')
  }
  for (const f of files) if (!state.has(f)) visit(f, [])
  t.same(rings, [], 'no file reaches itself through runtime imports')
})
