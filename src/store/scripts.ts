// Loads lua/<verbNoun>-<numKeys>.lua, expands `--- @include "includes/<name>"` lines (each helper
// once, in dependency order). The store sends them as EVALSHA and falls back to EVAL on NOSCRIPT
// (src/store/evalsha.ts): a failover or restart empties the script cache, so a one-time SCRIPT
// LOAD is never relied on.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

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

export interface Script {
  readonly name: string
  readonly numberOfKeys: number
  readonly source: string
  /**
   * The script may append an event to its room's stream (it calls appendEvent of
   * includes/events.lua): the store tells its event listeners after each success.
   */
  readonly appendsEvent: boolean
}

/** Whether a script's expanded source calls appendEvent beyond the included definition. */
export function callsAppendEvent(source: string): boolean {
  return /\bappendEvent\(/.test(source.replace('local function appendEvent(', ''))
}

const FILE = /^([a-z][A-Za-z]*)-(\d+)\.lua$/
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

/** Reads every script of `dir`. Throws on a bad file name, a missing or a circular include. */
export function loadScripts(dir: string = LUA_DIR): Script[] {
  const scripts: Script[] = []
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.lua')) continue
    const m = FILE.exec(file)
    if (!m) throw new Error(`lua/${file}: script names must look like verbNoun-<numKeys>.lua`)
    const source = expand(dir, readFileSync(join(dir, file), 'utf8'), file, new Set(), [])
    scripts.push({ name: m[1]!, numberOfKeys: Number(m[2]), source, appendsEvent: callsAppendEvent(source) })
  }
  return scripts
}
