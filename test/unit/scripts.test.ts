// The Lua scripts as files: names, includes, key counts, and the key order shared with keys.ts.
import t from 'tap'
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ACCOUNT_KEYS, ROOM_KEYS } from '../../src/store/keys.js'
import { LUA_DIR, loadScripts } from '../../src/store/scripts.js'

function scratch(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'ar-lua-'))
  mkdirSync(join(dir, 'includes'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

t.test('includes are expanded once each, in dependency order', async (t) => {
  const dir = scratch({
    'includes/a.lua': '--- @include "includes/b"\nlocal function a() return b() end\n',
    'includes/b.lua': 'local function b() return 1 end\n',
    'doIt-1.lua': '--- @include "includes/a"\n--- @include "includes/b"\nreturn a()\n',
  })
  const [s] = loadScripts(dir)
  t.equal(s!.name, 'doIt')
  t.equal(s!.numberOfKeys, 1)
  t.equal(s!.source.match(/local function b/g)!.length, 1)
  t.ok(s!.source.indexOf('function b') < s!.source.indexOf('function a'))
})

t.test('a missing include is refused with its name', async (t) => {
  const dir = scratch({ 'doIt-1.lua': '--- @include "includes/nope"\n' })
  t.throws(() => loadScripts(dir), /missing include "includes\/nope"/)
})

t.test('a circular include is refused with its path', async (t) => {
  const dir = scratch({
    'includes/a.lua': '--- @include "includes/b"\n',
    'includes/b.lua': '--- @include "includes/a"\n',
    'doIt-1.lua': '--- @include "includes/a"\n',
  })
  t.throws(() => loadScripts(dir), /circular include includes\/a -> includes\/b -> includes\/a/)
})

t.test('a script that calls appendEvent is flagged appendsEvent; including the helper is not enough', async (t) => {
  const dir = scratch({
    'includes/events.lua': 'local function appendEvent(R, ev) return 1 end\n',
    'postIt-1.lua': '--- @include "includes/events"\nreturn appendEvent(R, {})\n',
    'readIt-1.lua': '--- @include "includes/events"\nreturn 1\n',
  })
  t.same(
    loadScripts(dir).map((s) => [s.name, s.appendsEvent]),
    [
      ['postIt', true],
      ['readIt', false],
    ],
  )
  t.same(
    loadScripts()
      .filter((s) => s.appendsEvent)
      .map((s) => s.name)
      .sort(),
    ['leaveRoom', 'postEvent', 'updateTask'],
    'the scripts of lua/ that append an event',
  )
})

t.test('a badly named script is refused', async (t) => {
  t.throws(() => loadScripts(scratch({ 'do_it.lua': 'return 1' })), /verbNoun-<numKeys>\.lua/)
})

t.test('every script uses only the keys it declares, and room scripts take the fixed room keys', async (t) => {
  const scripts = loadScripts()
  t.ok(scripts.length > 5)
  for (const s of scripts) {
    const used = [...s.source.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1]))
    const max = Math.max(0, ...used)
    t.ok(max <= s.numberOfKeys, `${s.name} uses KEYS[${max}] and declares ${s.numberOfKeys}`)
    t.notMatch(s.source, /redis\.call\(\s*'(KEYS|SCAN|EVAL|FLUSH)/i, `${s.name} calls no keyspace-wide command`)
    if (/openRoom\(/.test(s.source) || /roomKeys\(\)/.test(s.source)) {
      t.ok(s.numberOfKeys >= ROOM_KEYS.length, `${s.name} takes the ${ROOM_KEYS.length} fixed room keys`)
    }
  }
})

t.test('lua/includes/acctKeys.lua names the keys in the order of ACCOUNT_KEYS, and account scripts take all of them', async (t) => {
  const src = readFileSync(join(LUA_DIR, 'includes', 'acctKeys.lua'), 'utf8')
  const order = [...src.matchAll(/(\w+) = KEYS\[(\d+)\]/g)].map((m) => ({ name: m[1], index: Number(m[2]) }))
  t.same(
    order.map((o) => o.name),
    [...ACCOUNT_KEYS],
  )
  t.same(
    order.map((o) => o.index),
    ACCOUNT_KEYS.map((_, i) => i + 1),
  )
  for (const s of loadScripts()) {
    if (/acctKeys\(\)/.test(s.source)) t.equal(s.numberOfKeys, ACCOUNT_KEYS.length, `${s.name} takes the ${ACCOUNT_KEYS.length} account keys`)
  }
})

t.test('lua/includes/roomKeys.lua names the keys in the order of ROOM_KEYS', async (t) => {
  const src = readFileSync(join(LUA_DIR, 'includes', 'roomKeys.lua'), 'utf8')
  const order = [...src.matchAll(/(\w+) = KEYS\[(\d+)\]/g)].map((m) => ({ name: m[1], index: Number(m[2]) }))
  t.same(
    order.map((o) => o.name),
    [...ROOM_KEYS],
  )
  t.same(
    order.map((o) => o.index),
    ROOM_KEYS.map((_, i) => i + 1),
  )
})

t.test('every script opens with a contract comment naming its KEYS and ARGV', async (t) => {
  for (const file of loadScripts().map((s) => s.name)) {
    const path = join(LUA_DIR, `${file}-${loadScripts().find((s) => s.name === file)!.numberOfKeys}.lua`)
    const head = readFileSync(path, 'utf8').slice(0, 2000)
    t.match(head, /^--\[\[/, `${file} starts with a comment block`)
    t.match(head, /KEYS\[1/, `${file} documents KEYS`)
    t.match(head, /Returns/, `${file} documents its reply`)
  }
})
