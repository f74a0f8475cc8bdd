// Loads the scripts of lua/ and expands `--- @include "includes/<name>"` lines (each helper once,
// in dependency order). The store sends them as EVALSHA and falls back to EVAL on NOSCRIPT
// (src/store/evalsha.ts): a failover or restart empties the script cache, so a one-time SCRIPT
// LOAD is never relied on.
//
// Names (docs/data-model.md#scripts): a script that takes a fixed key set the store knows is
// named `verbNoun.lua`, and its header says which set: `KEYS[room]` (the room's keys, ROOM_KEYS,
// then any keys of its own, `KEYS[room+1]`, ...) or `KEYS[accounts]` (ACCOUNT_KEYS). Adding a
// key to either set renames no script. Any other script lists its keys and is named
// `verbNoun-<numKeys>.lua`, a count that only changes with the script itself.
//
// Effects (src/store/effects.ts): the header's `Effects` line says what the script may change.
// The loader keeps them on the Script, and gives a room script's Lua what notices need to know
// of them (effectsPrelude) before its source.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { effectsPrelude, parseEffects, type Effects } from './effects.js'
import { ACCOUNT_KEYS, ROOM_KEYS } from './keys.js'

/** The repository's lua/ folder, found from src/store (tsx) or dist/src/store (built). */
export const LUA_DIR = ((): string => {
  const here = dirname(fileURLToPath(import.meta.url))
  for (const up of [
    ['..', '..'],
    ['..', '..', '..'],
  ]) {
    const dir = join(here, ...up, 'lua')
    if (existsSync(join(dir, 'includes'))) return dir
  }
  throw new Error(`lua/ not found above ${here}`)
})()

/** Which keys a script takes: the room's (Store.room), the accounts directory's (Store.account), or its own. */
export type ScriptKind = 'room' | 'account' | 'keyed'

export interface Script {
  readonly name: string
  /** Its file in lua/. */
  readonly file: string
  readonly kind: ScriptKind
  readonly numberOfKeys: number
  /** What runs: the includes expanded, after the effects prelude of a room script. */
  readonly source: string
  /** What it may change, from its header's Effects line: the store tells its committed listeners. */
  readonly effects: Effects
}

const FILE = /^([a-z][A-Za-z]*)(?:-(\d+))?\.lua$/
const INCLUDE = /^--- @include "([A-Za-z0-9_/]+)"\s*$/gm

/** Expands includes depth-first; each helper appears once, before its first user. */
function expand(dir: string, source: string, origin: string, seen: Set<string>, stack: string[]): string {
  return source.replace(INCLUDE, (_line, path: string) => {
    if (stack.includes(path)) throw new Error(`${origin}: circular include ${[...stack, path].join(' -> ')}`)
    if (seen.has(path)) return ''
    let text: string
    try {
      text = readFileSync(join(dir, `${path}.lua`), 'utf8')
    } catch {
      throw new Error(`${origin}: missing include "${path}" (looked for ${path}.lua in ${dir})`)
    }
    const body = expand(dir, text, `${path}.lua`, seen, [...stack, path])
    seen.add(path)
    return body
  })
}

/** The first comment block of a script's file, where its contract is stated. */
export function headerOf(text: string): string | undefined {
  return /^--\[\[\n([\s\S]*?)\n\]\]/.exec(text)?.[1]
}

/**
 * The kind and key count of a script, from its file name and its header's KEYS lines. Throws
 * when they disagree with the naming rule (see the top of this file).
 */
export function keysOf(file: string, count: string | undefined, header: string): Pick<Script, 'kind' | 'numberOfKeys'> {
  const room = /^[ \t]*KEYS\[room\]/m.test(header)
  const accounts = /^[ \t]*KEYS\[accounts\]/m.test(header)
  const own = [...header.matchAll(/^[ \t]*KEYS\[room\+(\d+)\]/gm)].map((m) => Number(m[1]))
  if (room || accounts) {
    if (count !== undefined)
      throw new Error(`lua/${file}: takes the ${room ? 'room' : 'accounts'} keys, so its name has no key count`)
    if (room && accounts) throw new Error(`lua/${file}: declares both KEYS[room] and KEYS[accounts]`)
    if (accounts && own.length > 0) throw new Error(`lua/${file}: KEYS[room+n] without KEYS[room]`)
    own.forEach((n, i) => {
      if (n !== i + 1) throw new Error(`lua/${file}: KEYS[room+${n}] where KEYS[room+${i + 1}] comes next`)
    })
    return room
      ? { kind: 'room', numberOfKeys: ROOM_KEYS.length + own.length }
      : { kind: 'account', numberOfKeys: ACCOUNT_KEYS.length }
  }
  if (own.length > 0) throw new Error(`lua/${file}: KEYS[room+n] without KEYS[room]`)
  if (count === undefined)
    throw new Error(
      `lua/${file}: a script named without a key count takes the room's keys or the accounts directory ` +
        '(KEYS[room] or KEYS[accounts] in its header); any other is named verbNoun-<numKeys>.lua',
    )
  return { kind: 'keyed', numberOfKeys: Number(count) }
}

/** Reads every script of `dir`. Throws on a bad file name or header, a missing or a circular include. */
export function loadScripts(dir: string = LUA_DIR): Script[] {
  const scripts: Script[] = []
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.lua')) continue
    const m = FILE.exec(file)
    if (!m) throw new Error(`lua/${file}: script names must look like verbNoun.lua or verbNoun-<numKeys>.lua`)
    const text = readFileSync(join(dir, file), 'utf8')
    const header = headerOf(text)
    if (header === undefined) throw new Error(`lua/${file}: no contract comment (--[[ ... ]]) at the top`)
    const keys = keysOf(file, m[2], header)
    const effects = parseEffects(file, keys.kind, header)
    const body = expand(dir, text, file, new Set(), [])
    const source = keys.kind === 'room' ? effectsPrelude(effects) + body : body
    scripts.push({ name: m[1]!, file, ...keys, source, effects })
  }
  return scripts
}
