// The table of which room page parts a change changes (src/dashboard/live-parts.ts), checked
// against the notices the room scripts publish.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { eventParts, inPageOrder, NOTICE_PARTS, noticeParts, TICK_PARTS } from '../../src/dashboard/live-parts.js'
import { PARTS } from '../../src/dashboard/room.js'

const LUA = join(import.meta.dirname, '../../lua')

/** Every `k = '<kind>'` a script publishes, with the operations spelled out beside it. */
function published(): Map<string, Set<string>> {
  const kinds = new Map<string, Set<string>>()
  const files = readdirSync(LUA).map((f) => join(LUA, f))
  files.push(...readdirSync(join(LUA, 'includes')).map((f) => join(LUA, 'includes', f)))
  for (const f of files.filter((f) => f.endsWith('.lua'))) {
    for (const m of readFileSync(f, 'utf8').matchAll(/\{ k = '(\w+)', op = ([^,]+),/g)) {
      const ops = kinds.get(m[1]!) ?? new Set<string>()
      for (const op of m[2]!.matchAll(/'(\w+)'/g)) ops.add(op[1]!)
      kinds.set(m[1]!, ops)
    }
  }
  return kinds
}

t.test('every kind the scripts publish is in the table, the room record excepted', async (t) => {
  const kinds = published()
  t.ok(kinds.size >= 9, `found the scripts' notices (${[...kinds.keys()].join(', ')})`)
  for (const [kind, ops] of kinds) {
    if (kind === 'room') continue
    t.ok(Object.hasOwn(NOTICE_PARTS, kind), `${kind} is in the table`)
    const table = NOTICE_PARTS[kind] ?? {}
    for (const op of ops) t.ok(Object.hasOwn(table, op) || Object.hasOwn(table, '*'), `${kind} ${op} is in the table`)
  }
  for (const [kind, ops] of Object.entries(NOTICE_PARTS))
    for (const [op, parts] of Object.entries(ops)) {
      t.ok(kinds.has(kind), `the table's ${kind} is a kind the scripts publish`)
      for (const p of parts) t.ok((PARTS as readonly string[]).includes(p), `${kind} ${op}: ${p} is a part`)
    }
})

t.test('what each change changes', async (t) => {
  t.same(noticeParts({ k: 'event', op: 'posted' }), [], "a post's parts ride with its event frame")
  t.same(noticeParts({ k: 'event', op: 'read' }), [], 'a read rides in the frame as the position it moved to')
  t.same(noticeParts({ k: 'event', op: 'deleted' }), ['needs', 'events', 'head'].sort(byPage))
  t.same(noticeParts({ k: 'task', op: 'updated' }), ['needs', 'panel', 'plan', 'graph', 'activity', 'analytics'])
  t.same(noticeParts({ k: 'task', op: 'added' }), noticeParts({ k: 'task', op: 'deleted' }))
  t.same(noticeParts({ k: 'presence', op: 'online' }), ['head', 'needs', 'panel', 'agents', 'activity'])
  t.same(noticeParts({ k: 'lock', op: 'acquired' }), ['needs', 'locks'])
  t.same(noticeParts({ k: 'lock', op: 'released' }), ['needs', 'locks'])
  t.same(noticeParts({ k: 'var', op: 'set' }), ['vars'])
  t.same(noticeParts({ k: 'context', op: 'written' }), ['panel', 'context'])
  t.same(noticeParts({ k: 'review', op: 'requested' }), ['needs', 'reviews'])
  t.same(noticeParts({ k: 'review', op: 'approved' }), [
    'needs',
    'panel',
    'plan',
    'graph',
    'activity',
    'reviews',
    'analytics',
  ])
  t.same(noticeParts({ k: 'reservation', op: 'reserved' }), [], 'reservations are not on the page')
})

t.test('a change the table does not know changes every part', async (t) => {
  t.same(noticeParts({ k: 'room', op: 'created' }), [...PARTS])
  t.same(noticeParts({ k: 'something-new', op: 'x' }), [...PARTS])
  t.same(noticeParts({ k: 'task', op: 'renamed' }), noticeParts({ k: 'task', op: 'added' }), "a kind's * covers")
  t.same(noticeParts({ k: 'event', op: 'unknown' }), [...PARTS], 'an operation not listed under a kind without *')
  t.same(noticeParts({ k: 'toString', op: 'x' }), [...PARTS], 'not fooled by inherited names')
})

t.test('an event changes the feed and the head, and what needs the person when it may ask or answer', async (t) => {
  t.same(eventParts({ type: 'message' }), ['events', 'head'])
  t.same(eventParts({ type: 'status' }), ['events', 'head'])
  for (const type of ['question', 'blocker', 'answer'])
    t.same(eventParts({ type }).sort(byPage), ['head', 'needs', 'events'], type)
  t.same(eventParts({ type: 'message', reply_to: '1-1' }).sort(byPage), ['head', 'needs', 'events'], 'a reply')
})

t.test('the periodic re-read and the page order', async (t) => {
  t.same([...TICK_PARTS].sort(byPage), [...TICK_PARTS], 'in page order')
  t.ok(TICK_PARTS.includes('needs'), 'stale work shows without a notice')
  t.same(inPageOrder(['context', 'head', 'context', 'plan']), ['head', 'plan', 'context'])
})

function byPage(a: string, b: string): number {
  return PARTS.indexOf(a as (typeof PARTS)[number]) - PARTS.indexOf(b as (typeof PARTS)[number])
}
