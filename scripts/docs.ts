// Writes the generated parts of docs/ from the code's own tables: the settings (SETTINGS) in
// docs/configuration.md, the error codes (ERRORS) in docs/errors.md, the scripts' effects
// (EFFECT_WORDS and each script's Effects line) in docs/data-model.md. `npm run docs` rewrites
// them; a unit test fails when they differ. A part sits between `<!-- generated: <name> -->` and
// `<!-- generated: end -->`, on lines of its own (a table) or inline (a number in a sentence).
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { SETTINGS, defaultSettings, heldInMs } from '../src/config.js'
import { ERRORS } from '../src/shared/errors.js'
import { EFFECT_WORDS, type Effect } from '../src/store/effects.js'
import { loadScripts } from '../src/store/scripts.js'

const BEGIN = (name: string) => `<!-- generated: ${name} -->`
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

/** The words of the scripts' Effects lines, with what each covers and the scripts that declare it. */
export function effectsTable(): string {
  const scripts = loadScripts()
  const rows = (Object.entries(EFFECT_WORDS) as [Effect, (typeof EFFECT_WORDS)[Effect]][]).map(([word, e]) => {
    const by = scripts.filter((s) => s.effects.words.has(word)).map((s) => `\`${s.name}\``)
    const covers = e.writes.length > 0 ? e.writes.map((w) => `\`${w}\``).join(', ') : '(its own keys)'
    return `| \`${word}\` | ${e.kind} | ${e.content ? 'yes' : ''} | ${e.means}; ${covers} | ${by.join(', ')} |`
  })
  return [
    '| word | scripts | content | what it changes; the writes it covers | declared by |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n')
}

/** Every generated part of the docs: the file, the part's name (it may appear more than once), its text. */
export const GENERATED: readonly { path: string; name: string; text: () => string }[] = [
  { path: 'docs/configuration.md', name: 'begin', text: configurationTable },
  { path: 'docs/errors.md', name: 'begin', text: errorsTable },
  { path: 'docs/data-model.md', name: 'effects', text: effectsTable },
]

/** Each place of a doc's generated part `name`: the offsets of its text, and whether it is inline. */
function locate(doc: string, name: string): { from: number; to: number; inline: boolean }[] {
  const out = []
  for (let a = doc.indexOf(BEGIN(name)); a >= 0; a = doc.indexOf(BEGIN(name), a + 1)) {
    const from = a + BEGIN(name).length
    const to = doc.indexOf(END, from)
    if (to < 0) throw new Error(`generated part "${name}" has no end marker`)
    out.push({ from, to, inline: !doc.slice(from, to).includes('\n') })
  }
  if (out.length === 0) throw new Error(`doc has no generated part "${name}"`)
  return out
}

/** The text of each place of a doc's generated part `name`. */
export function generatedParts(doc: string, name: string): string[] {
  return locate(doc, name).map(({ from, to }) => doc.slice(from, to).trim())
}

/** `doc` with every place of its generated part `name` holding `text`. */
function rewrite(doc: string, name: string, text: string): string {
  let out = doc
  for (const { from, to, inline } of locate(doc, name).reverse())
    out = out.slice(0, from) + (inline ? text : `\n${text}\n`) + out.slice(to)
  return out
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const { path, name, text } of GENERATED) writeFileSync(path, rewrite(readFileSync(path, 'utf8'), name, text()))
}
