// Every script's Effects line (src/store/effects.ts) against its Lua: the redis calls the script
// can reach (test/helpers/lua-writes.ts) name the keys it may write, and the words those writes
// fall under (EffectWord.writes) must be exactly the words its header declares. So a script that
// writes a task without declaring `tasks` fails, and so does one declaring `tasks` that never
// writes one. A room or account script is checked word by word; a script with keys of its own
// (keyed) is checked for writing at all: it declares `none` exactly when it writes nothing.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { EFFECT_WORDS, parseEffects, type Effect } from '../../src/store/effects.js'
import { ACCOUNT_KEYS, ROOM_KEYS } from '../../src/store/keys.js'
import { LUA_DIR, headerOf, loadScripts, type Script } from '../../src/store/scripts.js'
import { redisCalls, type RedisCallSite } from '../helpers/lua-writes.js'

const WRITES = new Set(
  (
    'HSET HSETNX HMSET HDEL HINCRBY HINCRBYFLOAT ZADD ZREM ZINCRBY ZREMRANGEBYSCORE ZREMRANGEBYRANK ' +
    'ZREMRANGEBYLEX ZPOPMIN ZPOPMAX XADD XDEL XTRIM SET SETNX PSETEX DEL UNLINK INCR INCRBY SADD SREM VADD VREM'
  ).split(' '),
)
/** Commands that change no data: TTLs, publishing, the clock. */
const NEUTRAL = new Set(['PEXPIRE', 'EXPIRE', 'PERSIST', 'SPUBLISH', 'PUBLISH', 'TIME'])
const READS = new Set(
  (
    'HGET HGETALL HLEN HMGET HVALS HEXISTS HKEYS HSTRLEN ZCOUNT ZCARD ZSCORE ZMSCORE ZRANGE ZRANGEBYSCORE ' +
    'ZRANGEBYLEX ZREVRANGE ZREVRANGEBYSCORE ZLEXCOUNT XRANGE XREVRANGE XLEN EXISTS GET PTTL VCARD VSIM'
  ).split(' '),
)

/** Room keys whose writes are the bookkeeping of other effects: counters, idempotency, the channel. */
const BOOKKEEPING: ReadonlySet<string> = new Set(['meta', 'idem', 'idemt', 'channel'])

/**
 * Helpers whose writes are no effect, with why: what they write says nothing new to anyone. An
 * entry no script reaches fails, so the list stays true.
 */
const HOUSEKEEPING: Record<string, string> = {
  planIndexes:
    "builds the board and dependency indexes from the tasks, for a room without them: no task's data changes",
  pruneAccounts: 'drops link tokens and sessions past their expiry, which no read returns any more',
  liveReservations: 'drops file reservations past their expiry, which no read returns any more',
}

/**
 * Calls the analysis cannot resolve, with what they are. "<script>: <COMMAND> <key>"; an entry
 * that no longer matches a call fails.
 */
const RESOLVED_BY_HAND: Record<string, string> = {
  'createRoom: DEL ?': 'the leftover keys of an expired room (KEYS[1..ROOM_KEY_COUNT - 1]): part of `room`',
  'deleteRoom: DEL ?': 'every key of the room (KEYS[i], and lock keys named from the meta key): `gone`',
  'searchVectors-3: ? ?': 'redis.call(unpack(args)): a VSIM query, a read',
}

interface Found {
  words: Set<Effect>
  /** Writes no word covers: a key outside the rules, or an unclassified command. */
  stray: string[]
  /** Writes to the script's own keys (KEYS[room+n], KEYS[n]) or to keys it computes. */
  own: number
}

const keyNames = (s: Script) => (s.kind === 'room' ? ROOM_KEYS : s.kind === 'account' ? ACCOUNT_KEYS : [])

/** The words whose rules cover a write, for a script of `kind`. */
function wordsOf(kind: Script['kind'], call: RedisCallSite): Effect[] {
  return (Object.keys(EFFECT_WORDS) as Effect[]).filter((w) => {
    const word = EFFECT_WORDS[w]
    return (
      word.kind === kind &&
      word.writes.some(
        (rule) =>
          rule === call.key ||
          rule === `${call.key}:${call.command}` ||
          (call.field !== undefined && rule === `${call.key}@${call.field}`),
      )
    )
  })
}

const reachedHousekeeping = new Set<string>()
const usedByHand = new Set<string>()

/** What a script's Lua can change, in the words of EFFECT_WORDS. */
function found(s: Script, calls = redisCalls(s.source, keyNames(s))): Found {
  const out: Found = { words: new Set(), stray: [], own: 0 }
  for (const c of calls) {
    const label = `${s.file.replace(/\.lua$/, '')}: ${c.command} ${c.key}`
    if (label in RESOLVED_BY_HAND) {
      usedByHand.add(label)
      if (s.name === 'createRoom') out.words.add('room')
      if (s.name === 'deleteRoom') out.words.add('gone')
      continue
    }
    if (NEUTRAL.has(c.command) || READS.has(c.command)) continue
    if (!WRITES.has(c.command)) {
      out.stray.push(`${c.command} ${c.key}: a command the effects test does not classify (READS, WRITES, NEUTRAL)`)
      continue
    }
    const chore = c.via.find((f) => f in HOUSEKEEPING)
    if (chore) {
      reachedHousekeeping.add(chore)
      continue
    }
    if (s.kind === 'keyed' || c.key.startsWith('KEYS[')) {
      out.own++
      continue
    }
    const words = wordsOf(s.kind, c)
    if (words.length > 0) for (const w of words) out.words.add(w)
    else if (!(s.kind === 'room' && BOOKKEEPING.has(c.key)))
      out.stray.push(`${c.command} ${c.key}${c.field ? ` (${c.field})` : ''}: no Effects word covers it`)
  }
  return out
}

/** What disagrees between a script's header and its Lua (empty: nothing). */
function disagreements(s: Script, f: Found): string[] {
  const declared = [...s.effects.words]
  const out = [...f.stray]
  if (s.kind === 'keyed') {
    if (f.own > 0 && declared.length === 0) out.push('writes keys, and its Effects say none')
    if (f.own === 0 && declared.length > 0) out.push(`writes no key, and its Effects say ${declared.join(', ')}`)
    return out
  }
  for (const w of f.words) if (!s.effects.words.has(w)) out.push(`writes ${w}, and its Effects do not say so`)
  for (const w of declared) if (!f.words.has(w)) out.push(`its Effects say ${w}, and it never writes one`)
  if (f.own > 0 && declared.length === 0) out.push('writes keys of its own, and its Effects say none')
  return out
}

const scripts = loadScripts()

t.test("every script's Effects line says what its Lua can write, no more and no less", async (t) => {
  t.ok(scripts.length > 70)
  for (const s of scripts) t.same(disagreements(s, found(s)), [], s.file)
  t.same(
    Object.keys(HOUSEKEEPING).filter((h) => !reachedHousekeeping.has(h)),
    [],
    'every housekeeping helper is reached',
  )
  t.same(
    Object.keys(RESOLVED_BY_HAND).filter((e) => !usedByHand.has(e)),
    [],
    'no stale entry resolved by hand',
  )
})

t.test('the check fails when a header and its script disagree', async (t) => {
  const byName = (n: string) => scripts.find((s) => s.name === n)!
  const withEffects = (s: Script, line: string): Script => {
    const header = headerOf(readFileSync(join(LUA_DIR, s.file), 'utf8'))!
    return { ...s, effects: parseEffects(s.file, s.kind, header.replace(/Effects .*/, `Effects  ${line}`)) }
  }
  const review = byName('decideReview')
  t.same(disagreements(review, found(review)), [])
  t.same(disagreements(withEffects(review, 'reviews'), found(review)), ['writes tasks, and its Effects do not say so'])
  t.same(disagreements(withEffects(review, 'tasks, reviews, vars'), found(review)), [
    'its Effects say vars, and it never writes one',
  ])
  const post = byName('postEvent')
  t.same(disagreements(withEffects(post, 'reads'), found(post)), ['writes events, and its Effects do not say so'])
  const mint = byName('mintKey')
  t.same(disagreements(withEffects(mint, 'none'), found(mint)), ['writes keys, and its Effects say none'])
  const list = byName('listWebhooks')
  t.same(disagreements(withEffects(list, 'webhooks'), found(list)), ['writes no key, and its Effects say webhooks'])
  // A script of its own: a write the vocabulary has no word for, and a command nobody classified.
  const lua = (body: string) =>
    redisCalls(`local function roomKeys() return { tasks = KEYS[1] } end\nlocal k = roomKeys()\n${body}`, ROOM_KEYS)
  const room = { ...post, effects: { words: new Set<Effect>(['tasks']), content: true } }
  t.same(disagreements(room, found(room, lua("redis.call('HSET', k.tasks, 't1', 'x')"))), [])
  t.match(disagreements(room, found(room, lua("local c = 'HSET'\nredis.call(c, k.vars, 'a', 'b')"))), [
    /writes vars, and its Effects do not say so/,
    /its Effects say tasks, and it never writes one/,
  ])
  t.match(disagreements(room, found(room, lua("redis.call('SINTERSTORE', k.tasks, k.notes)"))), [
    /SINTERSTORE tasks: a command the effects test does not classify/,
    /its Effects say tasks/,
  ])
})

t.test('the analysis follows locals, parameters and helpers to the key a call writes', async (t) => {
  const calls = redisCalls(
    [
      'local function roomKeys() return {} end',
      'local function put(R, key, v) redis.call("HSET", key, "f", v) end',
      'local function viaTwo(R, which) put(R, which, 1) end',
      'local R = { k = roomKeys() }',
      'local target = R.k.vars',
      'if ARGV[1] == "1" then viaTwo(R, target) else viaTwo(R, R.k.locks) end',
      "redis.call('SET', KEYS[ROOM_KEY_COUNT + 2], 'x')",
      "for _, x in ipairs({}) do redis.call('ZADD', R.k.board, 0, x) end",
    ].join('\n'),
    ROOM_KEYS,
  )
  t.same(
    calls.map((c) => `${c.command} ${c.key}${c.field ? `@${c.field}` : ''} in ${c.via.join('>') || 'body'}`).sort(),
    ['HSET locks@f in viaTwo>put', 'HSET vars@f in viaTwo>put', 'SET KEYS[room+2]@x in body', 'ZADD board in body'],
  )
})

t.test('content words are the ones search indexes', async (t) => {
  t.same(
    (Object.keys(EFFECT_WORDS) as Effect[]).filter((w) => EFFECT_WORDS[w].content),
    ['room', 'tasks', 'context', 'events', 'deleted-events', 'gone'],
  )
  t.same(
    scripts
      .filter((s) => s.effects.content)
      .map((s) => s.name)
      .sort(),
    [
      'addDependency',
      'addTask',
      'createRoom',
      'decideReview',
      'deleteContext',
      'deleteEvent',
      'deleteRoom',
      'deleteTask',
      'leaveRoom',
      'postEvent',
      'requestReview',
      'setDependencies',
      'updateContext',
      'updateTask',
      'writeContext',
    ],
    'the scripts whose rooms the indexer marks',
  )
})
