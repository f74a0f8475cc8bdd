// The layer rule (docs/architecture.md): the page's table is eslint.config.js LAYERS; lint
// refuses every import the table forbids, from any depth of a folder, and none it allows; and no
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

t.test('lint refuses exactly the imports the table forbids', async (t) => {
  const eslint = new ESLint()
  /** Which of `specs`, imported one a line by `file`, lint refuses (one lint run per file). */
  const refused = async (file: string, specs: string[]): Promise<boolean[]> => {
    const [r] = await eslint.lintText(specs.map((s) => `import '${s}'\n`).join(''), { filePath: file })
    const lines = new Set(r!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.line))
    return specs.map((_, i) => lines.has(i + 1))
  }
  for (const [layer, may] of Object.entries(LAYERS)) {
    for (const depth of [1, 2]) {
      const file = `src/${layer}/${'sub/'.repeat(depth - 1)}probe.ts`
      const up = '../'.repeat(depth)
      const targets = FOLDERS.filter((f) => f !== layer)
      const roots = ['main', 'node', 'config']
      const got = await refused(file, [
        ...targets.map((f) => `${up}${f}/x.js`),
        ...roots.map((r) => `${up}${r}.js`),
        './x.js',
      ])
      targets.forEach((target, i) => {
        const allowed = may.includes(target)
        t.equal(got[i], !allowed, `${file} -> src/${target}/: ${allowed ? 'allowed' : 'refused'}`)
      })
      roots.forEach((root, i) => t.ok(got[targets.length + i], `${file} -> src/${root}.ts: refused`))
      t.notOk(got.at(-1), `${file} -> its own folder: allowed`)
    }
  }
  t.same(await refused('src/core/probe.ts', ['ioredis']), [true], 'ioredis outside the store: refused')
  t.same(await refused('src/store/probe.ts', ['ioredis']), [false], 'ioredis in the store: allowed')
  t.same(await refused('src/node.ts', ['./http/x.js', './store/x.js']), [false, false], 'the root imports anything')
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
