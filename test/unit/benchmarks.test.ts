// BENCHMARKS.md and `npm run bench` (bench/standard.ts) name the same standard set, every
// benchmark a row names exists, and every row has its five cells filled in (the figure, and the
// machine and date it was taken on, are what make it comparable).
import { existsSync, readFileSync } from 'node:fs'
import t from 'tap'

const doc = readFileSync('BENCHMARKS.md', 'utf8')
const section = doc.slice(doc.indexOf('## Current figures'))
const rows = section
  .split('\n')
  .filter((l) => l.startsWith('| ') && !l.startsWith('| command') && !l.startsWith('|---'))
  .map((l) =>
    l
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim()),
  )
const benchFiles = (s: string) => [...s.matchAll(/\b(bench\/[\w-]+\.ts|test\/[\w/-]+\.test\.ts)\b/g)].map((m) => m[1]!)

t.test('every row: a command that exists, a figure, a machine and a date', async (t) => {
  t.ok(rows.length >= 5, `${rows.length} rows`)
  for (const [command = '', figure = '', , machine = '', date = ''] of rows) {
    const files = benchFiles(command)
    t.ok(files.length > 0 && files.every((f) => existsSync(f)), `${command}: names a file that exists`)
    t.ok(figure.length > 0, `${command}: a figure`)
    t.ok(machine.length > 0, `${command}: a machine`)
    t.match(date, /^\d{4}-\d{2}-\d{2}/, `${command}: a date`)
  }
})

t.test('the rows marked standard are what npm run bench runs', async (t) => {
  const marked = new Set(rows.filter(([c = '']) => c.includes('*standard')).flatMap(([c = '']) => benchFiles(c)))
  const run = new Set(benchFiles(readFileSync('bench/standard.ts', 'utf8').split('\nconst { values }')[0]!))
  t.same([...marked].sort(), [...run].sort())
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }
  t.equal(pkg.scripts.bench, 'tsx bench/standard.ts', 'npm run bench runs bench/standard.ts')
})
