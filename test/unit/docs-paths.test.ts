// Every repository path the docs name exists. A path is a backquoted token with a folder or a
// known file extension, or the target of a relative link. It resolves from the repository's root,
// from src/, lua/ or lua/includes/ (the docs write `core/plan.ts` and `includes/notify.lua` for
// short), from the page's own folder, or, for a name without its folder (`exchange.ts` in the row
// of `src/http/`), from a folder named in the same paragraph or table row (or one above it), else
// anywhere on the page. A build output (`dist/src/cli/main.js`) resolves to its source. Placeholders
// (`src/X/`, `<name>`, `*`) and commands are not paths; NOT_IN_REPO lists the few names of files
// that live elsewhere.
import t from 'tap'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, posix } from 'node:path'

const EXT = /\.(ts|tsx|js|mjs|cjs|lua|md|json|ya?ml|sh|css|conf|png|html)$/
const ROOTS = ['', 'src', 'lua', 'lua/includes']

/** Names the docs use for what is not in the repository, each with where it lives. */
const NOT_IN_REPO: Record<string, string> = {
  '.cursor/mcp.json': "Cursor's settings, in the user's project",
  '.vscode/mcp.json': "VS Code's settings, in the user's project",
  '.claude/settings.json': "Claude Code's settings (its hooks), in the user's project",
  'settings.json': "Claude Code's settings file, as the docs name it for short",
  '.codex/hooks.json': "Codex's hooks, in the user's project",
  '.cursor/hooks.json': "Cursor's hooks, in the user's project",
  'dist-bench/': 'the compiled benches, made by bench/ab.ts',
  'dist/assets/': "the dashboard's built stylesheet and script, made by npm run build",
  'appendonlydir/': "Redis's append-only files, in its data directory",
  'uWebSockets.js': 'an npm package',
  'src/api/': "the example project of the file reservations' docs (docs/agents.md, docs/mcp.md)",
}

/** Whether `p` is named by NOT_IN_REPO, itself or under a folder it lists. */
const notInRepo = (p: string) =>
  p in NOT_IN_REPO || Object.keys(NOT_IN_REPO).some((k) => k.endsWith('/') && p.startsWith(k))

/** Where a path resolves, or undefined: a build output counts when its source exists. */
function resolves(candidates: string[]): boolean {
  return candidates.some((c) => {
    const source = c.match(/^dist\/(src\/.+)\.js$/)
    return existsSync(c) || (source && ['.ts', '.tsx'].some((x) => existsSync(source[1] + x)))
  })
}

/** A folder and every folder above it, up to the first below the root. */
function withParents(dir: string): string[] {
  const out: string[] = []
  for (let d = dir; d && d !== '.'; d = dirname(d)) out.push(d)
  return out
}

/** The existing folders that `named` names or implies, under each root. */
function foldersOf(named: [string, boolean][]): string[] {
  return named
    .filter(([p, link]) => !link && p.includes('/'))
    .flatMap(([p]) => withParents(p.endsWith('/') ? p.slice(0, -1) : dirname(p)))
    .flatMap((d) => ROOTS.map((r) => join(r, d)))
    .filter((d) => existsSync(d))
}

/** The blocks of a page: paragraphs, list items and table rows, outside fenced code. */
export function blocks(text: string): string[] {
  const out: string[] = []
  let cur: string[] = []
  let fence = false
  const flush = () => {
    if (cur.length) out.push(cur.join('\n'))
    cur = []
  }
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) {
      fence = !fence
      flush()
      continue
    }
    if (fence) continue
    if (!line.trim() || line.startsWith('#')) flush()
    else if (line.startsWith('|') || /^\s*([-*]|\d+\.) /.test(line)) {
      flush()
      cur.push(line)
      if (line.startsWith('|')) flush()
    } else cur.push(line)
  }
  flush()
  return out
}

/** The paths a block names, in order: [token, isLink]. */
export function pathsOf(block: string): [string, boolean][] {
  const out: [string, boolean][] = []
  for (const m of block.matchAll(/`([^`\s]+)`|\]\(([^)#\s]*)(?:#[^)]*)?\)/g)) {
    if (m[2] !== undefined) {
      if (m[2] && !/^[a-z]+:/.test(m[2])) out.push([m[2], true])
      continue
    }
    const p = m[1]!.replace(/:\d+(-\d+)?$/, '')
    // A pattern's folder (`test/integration/` of `test/integration/dashboard-*.test.ts`) is a path.
    if (p.includes('*') && /^[\w.-]+(\/[\w.-]+)*\/[^/]*$/.test(p)) out.push([dirname(p) + '/', false])
    if (!EXT.test(p) && !(p.endsWith('/') && p.length > 1)) continue
    if (/[*<>{}$…|=?,;()[\]@'"]|^[a-z]+:|^\/|^\.\.\.|^-|^~/.test(p)) continue // patterns, URLs, flags
    if (p.split('/').some((s) => /^[A-Z]$/.test(s))) continue // src/X/: a placeholder
    if (/(^|\/)verbNoun\b/.test(p)) continue // lua/verbNoun.lua: how a script is named
    out.push([p, false])
  }
  return out
}

/** The docs pages checked: every Markdown file in docs/ and the top-level README and BENCHMARKS. */
function pages(): string[] {
  const docs = (readdirSync('docs', { recursive: true }) as string[])
    .filter((f) => f.endsWith('.md'))
    .map((f) => posix.join('docs', f.split('\\').join('/')))
  return ['README.md', 'BENCHMARKS.md', ...docs]
}

t.test('the path finder sees paths, folders and links, and skips placeholders', async (t) => {
  t.same(pathsOf('see `src/http/exchange.ts:12`, `web.ts`, `client/`, [x](mcp.md#a) and `src/X/`'), [
    ['src/http/exchange.ts', false],
    ['web.ts', false],
    ['client/', false],
    ['mcp.md', true],
  ])
  t.same(pathsOf('`lua/<verbNoun>-<numKeys>.lua`, `*.ts`, `npm run docs`, `https://x.test/a.md`, `/mcp`'), [])
  t.same(pathsOf('`test/unit/search-*.test.ts`'), [['test/unit/', false]])
  t.same(pathsOf('`lua/verbNoun.lua`, `verbNoun-<numKeys>.lua`'), [])
  t.same(blocks('a `x/`\nb\n\n| `y/` |\n| `z` |\n- item\n  more\n```\n`no.ts`\n```\n'), [
    'a `x/`\nb',
    '| `y/` |',
    '| `z` |',
    '- item\n  more',
  ])
})

t.test('every path that docs/architecture.md, docs/*.md, README.md and BENCHMARKS.md name exists', async (t) => {
  t.ok(pages().includes('docs/architecture.md'))
  for (const page of pages()) {
    const missing: string[] = []
    const all = blocks(readFileSync(page, 'utf8')).map(pathsOf)
    const onPage = foldersOf(all.flat())
    for (const named of all) {
      const folders = [...foldersOf(named), ...onPage]
      for (const [p, link] of named) {
        if (!link && notInRepo(p)) continue
        const candidates = link
          ? [join(dirname(page), p)]
          : [...ROOTS.map((r) => join(r, p)), join(dirname(page), p), ...folders.map((d) => join(d, p))]
        if (!resolves(candidates)) missing.push(p)
      }
    }
    t.same(missing, [], `${page}: every path it names exists`)
  }
})
