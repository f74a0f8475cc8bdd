// Lines of at most 120 characters where ESLint's max-len does not look: the Lua scripts, shell
// scripts, the CI entry point, the Dockerfile, Compose, Kubernetes and other config files, and the
// prose of the Markdown docs (table rows and fenced blocks may be longer: neither can be wrapped).
// bench/HISTORY.md is exempt: it is the dated notebook of earlier runs, kept verbatim. Generated
// files (package-lock.json, types/, the conformance suite's installed dependencies) are not checked.
import t from 'tap'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

const MAX = 120
const SKIP_DIRS = new Set(['node_modules', 'dist', 'dist-bench', '.tap', 'data', 'types', '.git', 'deps'])
const CODE = /\.(lua|sh|ya?ml|json|conf)$/
const CONFIG_FILES = ['.ci/run', 'Dockerfile', '.taprc', '.gitignore', '.dockerignore', '.prettierignore']
const SKIP_FILES = new Set(['package-lock.json', 'bench/HISTORY.md'])

/** The lines over MAX characters of a file's text, as "line: length"; `markdown`: prose only. */
export function longLines(text: string, markdown: boolean): string[] {
  const out: string[] = []
  let fence = false
  text.split('\n').forEach((line, i) => {
    if (markdown && line.trimStart().startsWith('```')) fence = !fence
    if (markdown && (fence || line.trimStart().startsWith('|'))) return
    if (line.length > MAX) out.push(`${i + 1}: ${line.length}`)
  })
  return out
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = dir === '.' ? name : join(dir, name)
    if (statSync(path).isDirectory()) {
      if (!SKIP_DIRS.has(name)) walk(path, out)
    } else out.push(path.split('\\').join('/'))
  }
  return out
}

t.test('the checker counts characters and leaves tables and code blocks of Markdown alone', async (t) => {
  const long = 'x'.repeat(MAX + 1)
  t.same(longLines(`ok\n${long}\n${'y'.repeat(MAX)}`, false), [`2: ${MAX + 1}`])
  t.same(longLines(`| ${long} |\n\`\`\`\n${long}\n\`\`\`\n${long}`, true), [`5: ${MAX + 1}`])
})

t.test(`no line over ${MAX} characters outside what ESLint checks`, async (t) => {
  const files = walk('.').filter(
    (f) => !SKIP_FILES.has(f) && (CODE.test(f) || f.endsWith('.md') || CONFIG_FILES.includes(f)),
  )
  t.ok(files.filter((f) => f.startsWith('lua/')).length > 10, 'the Lua scripts are in')
  t.ok(files.includes('docs/architecture.md') && files.includes('.ci/run'), 'the docs and the CI script are in')
  for (const f of CONFIG_FILES) t.ok(existsSync(f), `${f} exists`)
  const found: Record<string, string[]> = {}
  for (const f of files) {
    const long = longLines(readFileSync(f, 'utf8'), f.endsWith('.md'))
    if (long.length) found[f] = long
  }
  t.same(found, {}, 'every line fits (file: "line: length")')
})
