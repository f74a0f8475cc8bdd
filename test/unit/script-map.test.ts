// The typed script map (src/store/script-map) against the scripts of lua/: every script has one
// entry, in the map of its kind (room, account, keyed), with the keys the loader counts, the
// arguments its header declares (ARGV lines) and the reply its header states (the fields of its
// Returns clause, which are optional, and whether rows follow). The map is read with the
// TypeScript compiler, so what is checked is the types callers compile against.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { ACCOUNT_KEYS, ROOM_KEYS } from '../../src/store/keys.js'
import { LUA_DIR, headerOf as headerText, loadScripts, type Script } from '../../src/store/scripts.js'

type Kind = 'room' | 'account' | 'keyed'

/** What a header or an entry says of a script. */
interface Contract {
  /** Every key (KEYS[1..]). */
  keys: number
  /** Arguments after the ones every script of its kind takes (room: ARGV[7..]). */
  args: number
  /** The position (0-based, after the common ones) from which any number of arguments follow. */
  restFrom?: number | undefined
  /** Reply field -> optional. */
  fields: Map<string, boolean>
  rows: boolean
}

const COMMON_ARGS: Record<Kind, number> = { room: 6, account: 0, keyed: 0 }

// ---------------------------------------------------------------- the Lua headers

function headerOf(file: string): string {
  const h = headerText(readFileSync(join(LUA_DIR, file), 'utf8'))
  if (h === undefined) throw new Error(`${file}: no header comment`)
  return h
}

/** Top-level `{...}` groups of a Returns clause joined by "or", and the text after them. */
function replyGroups(text: string): { groups: string[]; after: string } {
  const groups: string[] = []
  let i = 0
  for (;;) {
    const open = text.indexOf('{', i)
    if (open < 0) break
    if (groups.length > 0 && !/^\s*(\([^)]*\))?\s*,?\s*or\s*$/.test(text.slice(i, open))) break
    let depth = 0
    let j = open
    for (; j < text.length; j++) {
      if ('{[('.includes(text[j]!)) depth++
      else if ('}])'.includes(text[j]!) && --depth === 0) break
    }
    groups.push(text.slice(open + 1, j))
    i = j + 1
  }
  return { groups, after: text.slice(i) }
}

/** Splits at commas outside brackets. */
function topLevel(s: string): string[] {
  const parts: string[] = []
  let depth = 0
  let cur = ''
  for (const c of s) {
    if ('{[('.includes(c)) depth++
    if ('}])'.includes(c)) depth--
    if (c === ',' && depth === 0) {
      parts.push(cur.trim())
      cur = ''
    } else cur += c
  }
  if (cur.trim() !== '') parts.push(cur.trim())
  return parts
}

/** The indices a header declares of KEYS or ARGV: 1..n when contiguous, and where a variadic tail starts. */
function declared(header: string, what: 'KEYS' | 'ARGV'): { n: number; restFrom?: number } | string {
  const fixed = new Set<number>()
  let restFrom: number | undefined
  // KEYS may be listed in one line ("KEYS[1]  vec, KEYS[2] log"); ARGV never are.
  const lead = what === 'KEYS' ? '(?:^[ \\t]*|[ \\t]{2,}|, )' : '(?:^[ \\t]*|[ \\t]{2,})'
  // A fixed set the store knows: KEYS[room] and KEYS[room+n] (the room's keys, then its own), or
  // KEYS[accounts]; as the indices they stand for.
  const sets: Record<string, number> = { room: ROOM_KEYS.length, accounts: ACCOUNT_KEYS.length }
  const index = `(?:(\\d+)|(room|accounts)(?:\\+(\\d+))?)`
  for (const m of header.matchAll(new RegExp(`${lead}${what}\\[${index}(?:(\\.\\.)(\\d*))?\\](?=[ \\t]|$)`, 'gm'))) {
    if (m[2] !== undefined) {
      const n = sets[m[2]]!
      if (m[3] !== undefined) fixed.add(n + Number(m[3]))
      else for (let i = 1; i <= n; i++) fixed.add(i)
      continue
    }
    const from = Number(m[1])
    if (m[4] && m[5] === '') restFrom = from
    else for (let i = from; i <= (m[5] ? Number(m[5]) : from); i++) fixed.add(i)
  }
  const n = fixed.size
  for (let i = 1; i <= n; i++)
    if (!fixed.has(i)) return `${what}[${i}] is not declared (${what} ${[...fixed].join(', ')})`
  if (restFrom !== undefined && restFrom !== n + 1) return `${what}[${restFrom}..] does not follow ${what}[${n}]`
  return restFrom === undefined ? { n } : { n, restFrom }
}

/**
 * What a header declares: KEYS and ARGV lines (a declaration starts a line or follows two spaces,
 * so "up to ARGV[7] events" in prose is not one), and the Returns clause. A field is optional when
 * marked `name?` or missing from one of the alternatives ("{a, b} or {c}"); a part of a group that
 * is not `name`, `name?`, `name = ...` or `name (...)` continues the prose of the one before.
 */
export function parseHeader(header: string, kind: Kind): Contract | string {
  const keys = declared(header, 'KEYS')
  const argv = declared(header, 'ARGV')
  if (typeof keys === 'string') return keys
  if (typeof argv === 'string') return argv
  if (keys.restFrom !== undefined) return 'a variadic KEYS list: scripts declare their key count'
  const { n, restFrom } = argv
  const common = COMMON_ARGS[kind]
  if (kind === 'room' && n < 6) return 'a room script declares ARGV[1..6], the common room arguments'
  const at = header.search(/\bReturns\b/)
  if (at < 0) return 'no Returns clause'
  const clause = header.slice(at + 'Returns'.length).split(/\n[ \t]*\n|\n[ \t]*(?:Publishes|Effects)\b/)[0]!
  const { groups, after } = replyGroups(clause)
  if (groups.length === 0) return 'the Returns clause has no {...}'
  const alternatives = groups.map((g) => {
    const names = new Map<string, boolean>()
    for (const part of topLevel(g)) {
      const f = /^([a-z_][a-z0-9_]*)(\?)?(?=\s*(=|\(|$))/.exec(part)
      if (f) names.set(f[1]!, f[2] === '?')
    }
    return names
  })
  return {
    keys: keys.n,
    args: n - common,
    restFrom: restFrom === undefined ? undefined : restFrom - 1 - common,
    fields: merge(alternatives),
    rows: /^\s*(\([^)]*\))?\s*and\b[^;.]*\brows?\b/.test(after),
  }
}

/** Field -> optional over alternatives: optional in one, or missing from one. */
function merge(alternatives: Map<string, boolean>[]): Map<string, boolean> {
  const out = new Map<string, boolean>()
  for (const alt of alternatives)
    for (const [name, optional] of alt) out.set(name, (out.get(name) ?? false) || optional)
  for (const name of out.keys()) if (alternatives.some((alt) => !alt.has(name))) out.set(name, true)
  return out
}

// ---------------------------------------------------------------- the TypeScript map

const MAP_DIR = join(import.meta.dirname, '..', '..', 'src', 'store', 'script-map')
const MAPS: Record<Kind, { file: string; name: string }> = {
  room: { file: 'room.ts', name: 'RoomScripts' },
  account: { file: 'accounts.ts', name: 'AccountScripts' },
  keyed: { file: 'keyed.ts', name: 'KeyedScripts' },
}

interface Entry extends Omit<Contract, 'keys'> {
  kind: Kind
  /** Keys after the ones every script of its kind takes (room: KEYS[18..]). */
  keys: number
}

/** Every entry of the three maps, read from their types. */
export function readMap(): Map<string, Entry> {
  const files = Object.values(MAPS).map((m) => join(MAP_DIR, m.file))
  // Each map's own imports are left unresolved: only the shape of its entries is read.
  const program = ts.createProgram(files, {
    noResolve: true,
    noLib: true,
    strict: true,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    types: [],
  })
  const checker = program.getTypeChecker()
  const out = new Map<string, Entry>()
  for (const [kind, m] of Object.entries(MAPS) as [Kind, (typeof MAPS)[Kind]][]) {
    const sf = program.getSourceFile(join(MAP_DIR, m.file))!
    const decl = sf.statements.find(
      (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === m.name,
    )
    if (!decl) throw new Error(`${m.file}: no interface ${m.name}`)
    for (const p of checker.getPropertiesOfType(checker.getTypeAtLocation(decl))) {
      const entry = checker.getTypeOfSymbolAtLocation(p, decl)
      const part = (name: string) => {
        const s = entry.getProperty(name)
        return s ? checker.getTypeOfSymbolAtLocation(s, decl) : undefined
      }
      const args = tupleOf(checker, part('args')!)
      const keys = part('keys')
      const reply = part('reply')!
      const members = reply.isUnion() ? reply.types : [reply]
      const alternatives = members.map(
        (mt) =>
          new Map(checker.getPropertiesOfType(mt).map((s) => [s.name, (s.flags & ts.SymbolFlags.Optional) !== 0])),
      )
      out.set(p.name, {
        kind,
        args: args.fixed,
        restFrom: args.restFrom,
        keys: keys ? tupleOf(checker, keys).fixed : 0,
        fields: merge(alternatives),
        rows: part('rows') !== undefined,
      })
    }
  }
  return out
}

function tupleOf(checker: ts.TypeChecker, type: ts.Type): { fixed: number; restFrom?: number } {
  if (!checker.isTupleType(type)) throw new Error(`not a tuple: ${checker.typeToString(type)}`)
  const flags = (type as ts.TupleTypeReference).target.elementFlags
  const rest = flags.findIndex((f) => (f & ts.ElementFlags.Rest) !== 0)
  return rest < 0 ? { fixed: flags.length } : { fixed: rest, restFrom: rest }
}

// ---------------------------------------------------------------- the comparison

/** What disagrees between a script, its header and its entry (empty: nothing). */
export function disagreements(
  script: Pick<Script, 'name' | 'kind' | 'numberOfKeys'>,
  header: string,
  entry: Entry | undefined,
): string[] {
  if (!entry) return ['no entry in the script map']
  const out: string[] = []
  const fixedKeys = entry.kind === 'room' ? ROOM_KEYS.length : entry.kind === 'account' ? ACCOUNT_KEYS.length : 0
  if (fixedKeys + entry.keys !== script.numberOfKeys)
    out.push(`keys: the loader counts ${script.numberOfKeys}, the ${entry.kind} map ${fixedKeys} + ${entry.keys}`)
  if (entry.kind !== script.kind) out.push(`in the ${entry.kind} map, but the loader reads a ${script.kind} script`)
  const h = parseHeader(header, entry.kind)
  if (typeof h === 'string') return [...out, `header: ${h}`]
  if (h.keys !== script.numberOfKeys)
    out.push(`keys: the header declares ${h.keys}, the loader counts ${script.numberOfKeys}`)
  if (h.args !== entry.args || h.restFrom !== entry.restFrom)
    out.push(
      `args: the header declares ${h.args}${h.restFrom === undefined ? '' : ' and more'}, the map ` +
        `${entry.args}${entry.restFrom === undefined ? '' : ' and more'}`,
    )
  for (const [name, optional] of h.fields) {
    if (!entry.fields.has(name)) out.push(`reply: ${name} is in the header, not in the map`)
    else if (entry.fields.get(name) !== optional)
      out.push(
        `reply: ${name} is ${optional ? '' : 'not '}optional in the header, ` +
          `${entry.fields.get(name) ? '' : 'not '}in the map`,
      )
  }
  for (const name of entry.fields.keys())
    if (!h.fields.has(name)) out.push(`reply: ${name} is in the map, not in the header`)
  if (h.rows !== entry.rows)
    out.push(
      `rows: the header ${h.rows ? 'says' : 'does not say'} rows follow, the map ${entry.rows ? 'does' : 'does not'}`,
    )
  return out
}

const scripts = loadScripts()
const map = readMap()
const fileOf = (s: Script) => s.file

t.test('every script of lua/ has an entry that agrees with its header', async (t) => {
  t.ok(scripts.length > 70)
  for (const s of scripts) t.same(disagreements(s, headerOf(fileOf(s)), map.get(s.name)), [], s.name)
  const names = new Set(scripts.map((s) => s.name))
  t.same(
    [...map.keys()].filter((n) => !names.has(n)),
    [],
    'no entry without a script',
  )
})

t.test('the check fails when a header and its entry disagree', async (t) => {
  const s = scripts.find((x) => x.name === 'claimTeams')!
  const entry = map.get('claimTeams')!
  const header = headerOf(fileOf(s))
  t.same(disagreements(s, header, entry), [])
  t.match(
    disagreements(s, header.replace('ARGV[2]  lease (ms)', 'ARGV[2]  lease (ms)\n  ARGV[3]  a new argument'), entry),
    [/args: the header declares 3, the map 2/],
  )
  t.match(disagreements(s, header.replace(', now}', ', now, extra}'), entry), [
    /reply: extra is in the header, not in the map/,
  ])
  t.match(disagreements(s, header.replace('{teams = ', '{teams? = '), entry), [
    /reply: teams is optional in the header, not in the map/,
  ])
  t.match(disagreements(s, header.replace('now}.', 'now} and rows [team id, ...].'), entry), [
    /rows: the header says rows follow/,
  ])
  t.match(disagreements({ ...s, numberOfKeys: 3 }, header, entry), [/keys: the loader counts 3/])
  t.match(disagreements(s, header, undefined), ['no entry in the script map'])
  t.match(
    disagreements(s, header.replace('  ARGV[1]  most teams', '  KEYS[3]  another key\n  ARGV[1]  most teams'), entry),
    [/keys: the header declares 3, the loader counts 2/],
  )
  t.match(disagreements(s, header, { ...entry, fields: new Map([...entry.fields, ['lease', false]]) }), [
    /reply: lease is in the map, not in the header/,
  ])
  const room = scripts.find((x) => x.name === 'postEvent')!
  t.match(disagreements(room, headerOf(fileOf(room)).replace('ARGV[1..6]', 'ARGV[1..5]'), map.get('postEvent')), [
    /header: ARGV\[6\] is not declared/,
  ])
})

t.test('headers: alternatives make fields optional; prose inside braces is not a field', async (t) => {
  const h = parseHeader(
    '  KEYS[1]  a, KEYS[2] b\n  ARGV[1]  x\n  ARGV[2..] pairs\n\n  Returns {a = 1, b?, c (see below), in the ' +
      'order asked} or {a, d}; not_found.\n',
    'keyed',
  ) as Contract
  t.equal(h.keys, 2)
  t.equal(h.args, 1)
  t.equal(h.restFrom, 1)
  t.same(
    [...h.fields],
    [
      ['a', false],
      ['b', true],
      ['c', true],
      ['d', true],
    ],
  )
  t.equal(h.rows, false)
})
