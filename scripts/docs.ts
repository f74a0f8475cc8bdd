// Writes the generated tables of docs/configuration.md and docs/errors.md from the code's own
// tables (SETTINGS, ERRORS). `npm run docs` rewrites them; a unit test fails when they differ.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { SETTINGS, defaultSettings, heldInMs } from '../src/config.js'
import { ERRORS } from '../src/shared/errors.js'

const BEGIN = '<!-- generated: begin -->'
const END = '<!-- generated: end -->'

export function configurationTable(): string {
  const defaults = defaultSettings() as Record<string, unknown>
  const rows = Object.entries(SETTINGS).map(([name, row]) => {
    // The default as an operator writes it: seconds for a duration the code holds in ms.
    const held = defaults[name]
    const d = heldInMs(row)
      ? Array.isArray(held)
        ? held.map((ms: number) => ms / 1000)
        : (held as number) / 1000
      : held
    const shown =
      d === undefined || (d instanceof Map && d.size === 0) || (Array.isArray(d) && d.length === 0)
        ? '(unset)'
        : `\`${String(d)}\``
    return `| \`${row.env}\` | ${shown} | ${row.unit} | ${row.doc} |`
  })
  return ['| variable | default | unit | meaning |', '|---|---|---|---|', ...rows].join('\n')
}

export function errorsTable(): string {
  const rows = Object.entries(ERRORS).map(([code, e]) => `| \`${code}\` | ${e.status} | ${e.hint} |`)
  return ['| code | HTTP status | what to do |', '|---|---|---|', ...rows].join('\n')
}

/** The text between the generated markers of a doc. */
export function generatedPart(doc: string): string {
  const a = doc.indexOf(BEGIN)
  const b = doc.indexOf(END)
  if (a < 0 || b < 0) throw new Error('doc has no generated markers')
  return doc.slice(a + BEGIN.length, b).trim()
}

function rewrite(path: string, table: string): void {
  const doc = readFileSync(path, 'utf8')
  const a = doc.indexOf(BEGIN)
  const b = doc.indexOf(END)
  writeFileSync(path, `${doc.slice(0, a + BEGIN.length)}\n${table}\n${doc.slice(b)}`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  rewrite('docs/configuration.md', configurationTable())
  rewrite('docs/errors.md', errorsTable())
}
