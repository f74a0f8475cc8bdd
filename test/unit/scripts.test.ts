// The Lua scripts as files: names, includes, key counts, and the key order shared with keys.ts.
import t from 'tap'
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ACCOUNT_KEYS, ROOM_KEYS } from '../../src/store/keys.js'
import { LUA_DIR, loadScripts } from '../../src/store/scripts.js'

/** A header declaring `keys` and `effects` (for scratch scripts). */
const head = (keys = 'KEYS[1]  a key', effects = 'none') =>
  `--[[\n  ${keys}\n  Returns {}.\n  Effects  ${effects}\n]]\n`

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
    'doIt-1.lua': head() + '--- @include "includes/a"\n--- @include "includes/b"\nreturn a()\n',
  })
  const [s] = loadScripts(dir)
  t.equal(s!.name, 'doIt')
  t.equal(s!.numberOfKeys, 1)
  t.equal(s!.source.match(/local function b/g)!.length, 1)
  t.ok(s!.source.indexOf('function b') < s!.source.indexOf('function a'))
})

t.test('a missing include is refused with its name', async (t) => {
  const dir = scratch({ 'doIt-1.lua': head() + '--- @include "includes/nope"\n' })
  t.throws(() => loadScripts(dir), /missing include "includes\/nope"/)
})

t.test('a circular include is refused with its path', async (t) => {
  const dir = scratch({
    'includes/a.lua': '--- @include "includes/b"\n',
    'includes/b.lua': '--- @include "includes/a"\n',
    'doIt-1.lua': head() + '--- @include "includes/a"\n',
  })
  t.throws(() => loadScripts(dir), /circular include includes\/a -> includes\/b -> includes\/a/)
})

t.test("the Effects line: the loader keeps its words, and tells a room script's Lua what it changes", async (t) => {
  const one = (keys: string, effects: string) => loadScripts(scratch({ 'doIt.lua': head(keys, effects) }))[0]!
  const post = one('KEYS[room]   r', 'tasks, events')
  t.same([...post.effects.words], ['tasks', 'events'])
  t.equal(post.effects.content, true)
  t.match(
    post.source,
    /^local CHANGES_CONTENT = true\nlocal REFUSED_WHEN_ARCHIVED = true\n--\[\[/,
    'the prelude comes before the source',
  )
  const beat = one('KEYS[room]   r', 'presence')
  t.equal(beat.effects.content, false)
  t.match(beat.source, /^local CHANGES_CONTENT = false\nlocal REFUSED_WHEN_ARCHIVED = false\n/, 'allowed archived')
  t.match(one('KEYS[room]   r', 'none').source, /^local CHANGES_CONTENT = false\nlocal REFUSED_WHEN_ARCHIVED = false\n/)
  const read = one('KEYS[room]   r', 'none')
  t.same([...read.effects.words], [])
  t.equal(one('KEYS[accounts]  a', 'sessions').source.startsWith('--[['), true, 'only room scripts get the prelude')
  t.throws(() => one('KEYS[room]   r', 'tasks, gossip'), /Effects: unknown word "gossip"/)
  t.throws(() => one('KEYS[room]   r', 'sessions'), /"sessions" is a word of account scripts, not room ones/)
  t.throws(() => loadScripts(scratch({ 'doIt-1.lua': '--[[\n  KEYS[1]  k\n]]\n' })), /needs one Effects line/)
})

t.test('a badly named script is refused', async (t) => {
  t.throws(() => loadScripts(scratch({ 'do_it.lua': 'return 1' })), /verbNoun\.lua or verbNoun-<numKeys>\.lua/)
})

t.test('names: a script of a fixed key set has no count in its name, any other has one', async (t) => {
  const room = (keys: string) => head(keys) + 'return 1\n'
  const one = (files: Record<string, string>) => loadScripts(scratch(files))[0]!
  t.match(one({ 'readIt.lua': room('KEYS[room]   the room') }), { kind: 'room', numberOfKeys: ROOM_KEYS.length })
  t.match(one({ 'readIt.lua': room('KEYS[room]   the room\n  KEYS[room+1] its own\n  KEYS[room+2] another') }), {
    kind: 'room',
    numberOfKeys: ROOM_KEYS.length + 2,
  })
  t.match(one({ 'readIt.lua': room('KEYS[accounts]  the directory') }), {
    kind: 'account',
    numberOfKeys: ACCOUNT_KEYS.length,
  })
  t.match(one({ 'readIt-2.lua': room('KEYS[1]  a\n  KEYS[2]  b') }), { kind: 'keyed', numberOfKeys: 2 })
  t.throws(() => one({ 'readIt-17.lua': room('KEYS[room]   the room') }), /takes the room keys, so its name has no/)
  t.throws(() => one({ 'readIt.lua': room('KEYS[1]  a') }), /named without a key count takes the room's keys/)
  t.throws(() => one({ 'readIt.lua': room('KEYS[room]   r\n  KEYS[room+2] b') }), /KEYS\[room\+1\] comes next/)
  t.throws(() => one({ 'readIt-1.lua': room('KEYS[room+1] b') }), /KEYS\[room\+n\] without KEYS\[room\]/)
  t.throws(() => one({ 'readIt-1.lua': 'return 1\n' }), /no contract comment/)
})

t.test('every script uses only the keys it declares, and takes the key set of its kind', async (t) => {
  const scripts = loadScripts()
  t.ok(scripts.length > 5)
  for (const s of scripts) {
    const used = [
      ...[...s.source.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1])),
      ...[...s.source.matchAll(/KEYS\[ROOM_KEY_COUNT \+ (\d+)\]/g)].map((m) => ROOM_KEYS.length + Number(m[1])),
    ]
    const max = Math.max(0, ...used)
    t.ok(max <= s.numberOfKeys, `${s.name} uses KEYS[${max}] and declares ${s.numberOfKeys}`)
    t.notMatch(s.source, /redis\.call\(\s*'(KEYS|SCAN|EVAL|FLUSH)/i, `${s.name} calls no keyspace-wide command`)
    t.equal(/openRoom\(|roomKeys\(\)/.test(s.source), s.kind === 'room', `${s.name}: a room script takes the room keys`)
    t.equal(/acctKeys\(\)/.test(s.source), s.kind === 'account', `${s.name}: an account script takes the directory`)
    if (s.kind !== 'room') t.notMatch(s.source, /ROOM_KEY_COUNT \+/, `${s.name}: no room keys, no KEYS[room+n]`)
  }
})

t.test('lua/includes/acctKeys.lua names the keys in the order of ACCOUNT_KEYS', async (t) => {
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
})

t.test('lua/includes/roomKeys.lua names the keys in the order of ROOM_KEYS, and counts them', async (t) => {
  const src = readFileSync(join(LUA_DIR, 'includes', 'roomKeys.lua'), 'utf8')
  t.match(
    src,
    new RegExp(`^local ROOM_KEY_COUNT = ${ROOM_KEYS.length}$`, 'm'),
    'ROOM_KEY_COUNT is the count of ROOM_KEYS',
  )
  t.equal(ROOM_KEYS.at(-1), 'channel', 'the channel is last: scripts expire KEYS[1..ROOM_KEY_COUNT - 1]')
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
  for (const s of loadScripts()) {
    const head = readFileSync(join(LUA_DIR, s.file), 'utf8').slice(0, 2000)
    t.match(head, /^--\[\[/, `${s.name} starts with a comment block`)
    t.match(head, /KEYS\[(1|room|accounts)/, `${s.name} documents KEYS`)
    t.match(head, /Returns/, `${s.name} documents its reply`)
  }
})

// Lua's unpack() fails past about 8,000 values ("too many results to unpack"). Every unpack() of
// a list in lua/ either goes through includes/inSlices (1,000 at a time) or spreads a list that a
// limit keeps well below that; each such place is listed here with its bound, and an entry that
// no longer matches a line fails, so the list stays true.
const BOUNDED: Record<string, string> = {
  "includes/task.lua: for _, raw in ipairs(redis.call('HMGET', R.k.tasks, unpack(ids))) do":
    'ids: one slice of 1,000 of the board (claimableTasks)',
  "deleteContext.lua: redis.call('HDEL', R.k.ctxv, unpack(fields))":
    'versions of one entry: CONTEXT_HISTORY, at most 100',
  "readSnapshot.lua: local raws = redis.call('HMGET', R.k.tasks, unpack(cardIds))":
    'the cards shown: 5 columns of the page size',
  'readSnapshot.lua: if #open > 0 then card.blocked_by = { unpack(open, 1, math.min(ids, #open)) } end':
    'at most ARGV[15] ids a card',
  "includes/rateWindow.lua: if #stale > 0 then redis.call('HDEL', key, unpack(stale)) end":
    'buckets of one period: about 61 (the key expires after it)',
  "readNeeds.lua: for _, raw in ipairs(redis.call('HMGET', key, unpack(ids))) do":
    'the latest reviews requested (NEEDS_REVIEWS, 200) or tasks in progress (LIMIT 0, NEEDS_TASKS, 200)',
  "readGraph.lua: for i, raw in ipairs(redis.call('HMGET', R.k.tasks, unpack(ids))) do":
    'open tasks: LIMIT 0, ARGV[7], GRAPH_TASKS (50)',
  "readGraph.lua: for _, raw in ipairs(redis.call('HMGET', R.k.tasks, unpack(ids))) do":
    'tasks done: LIMIT 0, ACTIVITY_DONE, 200',
  "roomAnalytics.lua: local counts = redis.call('HMGET', R.k.meta, unpack(fields))": 'days: at most 30',
  "claimDeliveries-7.lua: redis.call('HDEL', KEYS[3], unpack(due))": 'CLEAR_BATCH, 1,000',
  "claimDeliveries-7.lua: redis.call('ZREM', KEYS[4], unpack(due))": 'CLEAR_BATCH, 1,000',
  "claimDeliveries-7.lua: redis.call('HDEL', KEYS[3], unpack(leased))": 'CLEAR_BATCH, 1,000',
  "includes/finish.lua: redis.call('HDEL', R.k.idem, unpack(old))": 'LIMIT 0, 50',
  "includes/finish.lua: redis.call('ZREM', R.k.idemt, unpack(old))": 'LIMIT 0, 50',
  "includes/lease.lua: redis.call('ZREM', L.ends, unpack(members))": 'callers pass one member or CLEAR_BATCH (1,000)',
  "includes/lease.lua: redis.call('HDEL', L.tokens, unpack(members))": 'callers pass one member or CLEAR_BATCH (1,000)',
  "includes/events.lua: if #old > 0 then redis.call('HDEL', R.k.meta, unpack(old)) end":
    "day counters: pruned on each day's first event, a few at a time",
  "includes/board.lua: local scores = redis.call('ZMSCORE', R.k.board, unpack(slots))":
    "one task's dependencies: LIMIT_DEPENDENCIES_PER_TASK, at most 1,000",
  "includes/task.lua: redis.call('ZADD', R.k.deps, unpack(args))": 'new dependencies of one task: 2 x at most 1,000',
  'includes/inSlices.lua: local reply = redis.call(cmd, key, unpack(list, i, math.min(i + 999, #list)))':
    'the slicing itself',
  "saveSearchManifest-1.lua: redis.call('HSET', KEYS[1], unpack(flat))": 'flushed at 1,000 values',
  "saveSearchManifest-1.lua: if #flat > 0 then redis.call('HSET', KEYS[1], unpack(flat)) end":
    'the rest, under 1,000 values',
  "saveSearchManifest-1.lua: redis.call('HDEL', KEYS[1], unpack(del, i, math.min(i + 499, #del)))": 'slices of 500',
  'searchVectors-3.lua: for i, k in ipairs(redis.call(unpack(args))) do': 'a fixed command of at most 10 words',
}

t.test('every unpack() of a list is sliced or bounded by a stated limit', async (t) => {
  const found = new Set<string>()
  const unbounded: string[] = []
  for (const file of readdirSync(LUA_DIR, { recursive: true }) as string[]) {
    if (!file.endsWith('.lua')) continue
    for (const line of readFileSync(join(LUA_DIR, file), 'utf8').split('\n')) {
      if (line.trimStart().startsWith('--') || !/(^|[^.\w])unpack\(/.test(line)) continue
      const entry = `${file}: ${line.trim()}`
      if (entry in BOUNDED) found.add(entry)
      else unbounded.push(entry)
    }
  }
  t.same(unbounded, [], 'use includes/inSlices, or add the line to BOUNDED with the limit that bounds it')
  t.same(
    Object.keys(BOUNDED).filter((e) => !found.has(e)),
    [],
    'no stale entry',
  )
})
