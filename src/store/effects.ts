// What a script changes, declared once: each script's header has an `Effects` line naming what
// it may change, in the words below (or `none`). The loader reads it (src/store/scripts.ts) and
// every consumer follows it: the store tells its committed listeners the effects of each script
// that succeeded (Store.onCommitted), the search indexer marks the rooms of scripts that change
// content, webhooks hint the rooms of scripts that append events, and a room script's notices
// carry the room's content seq when the script changes content (includes/notify: the loader
// gives the script CHANGES_CONTENT). test/unit/script-effects.test.ts reads every script's Lua
// and fails when a script can write what its header does not declare, or declares what it never
// writes.
import type { ScriptKind } from './scripts.js'

/** One word of an Effects line. */
export interface EffectWord {
  /** The scripts that may use the word. */
  readonly kind: ScriptKind
  /** What search indexes: tasks, context entries, events. */
  readonly content: boolean
  /**
   * For room and account scripts, the writes it covers: a key of the set (ROOM_KEYS,
   * ACCOUNT_KEYS), `key:COMMAND` for one command on it, `key@field` for one literal field.
   */
  readonly writes: readonly string[]
  /** What it means, for docs/data-model.md#effects. */
  readonly means: string
}

const room = (content: boolean, writes: string[], means: string): EffectWord => ({
  kind: 'room',
  content,
  writes,
  means,
})
const account = (writes: string[], means: string): EffectWord => ({ kind: 'account', content: false, writes, means })
const keyed = (means: string): EffectWord => ({ kind: 'keyed', content: false, writes: [], means })

export const EFFECT_WORDS = {
  room: room(true, ['meta@created_at'], 'creates the room (a template may give it tasks and context)'),
  tasks: room(true, ['tasks', 'notes', 'board', 'deps'], 'adds, changes or deletes tasks, their notes or dependencies'),
  context: room(true, ['ctx', 'ctxv'], 'writes, updates or deletes context entries and their versions'),
  events: room(
    true,
    ['events:XADD', 'events:XTRIM', 'evdel:ZREMRANGEBYSCORE'],
    'appends an event to the feed (and trims the feed to its retention)',
  ),
  'deleted-events': room(true, ['events:XDEL', 'evdel:ZADD'], "deletes an event (its author's own)"),
  reads: room(false, ['cursors'], "moves agents' read positions (cursors)"),
  presence: room(false, ['presence'], 'changes who is present (heartbeats, leaving)'),
  locks: room(false, ['locks'], 'takes, extends or releases locks'),
  reservations: room(false, ['meta@rver'], 'reserves or releases files (a change bumps meta.rver)'),
  vars: room(false, ['vars'], 'sets or increments shared vars'),
  reviews: room(false, ['reviews'], 'requests, decides or deletes reviews'),
  state: room(false, ['meta@archived_at'], 'archives or restores the room (an archived room is read-only)'),
  gone: room(true, [], 'deletes the room: every key of it'),
  users: account(['users', 'emails', 'idents'], 'creates, changes or deletes people, their addresses and identities'),
  members: account(['members'], 'changes who is a member of which team'),
  tokens: account(['tokens', 'tokexp'], 'stores or consumes link tokens'),
  invites: account(['invites', 'tinvites', 'invexp'], 'creates, accepts, revokes or prunes member invites'),
  waitlist: account(['waitlist'], 'adds to or decides the waitlist'),
  sessions: account(['sessions', 'sessexp', 'usess'], 'opens, refreshes or ends browser sessions'),
  teams: keyed("creates, renames or deletes a team's records"),
  rooms: keyed("changes a team's room index"),
  keys: keyed('mints or revokes team keys and room invite keys'),
  webhooks: keyed('registers, changes or deletes webhooks'),
  deliveries: keyed('changes the webhook schedule, fan-out positions or the delivery queue'),
  search: keyed("changes the search indexer's marks, leases or manifests"),
  vectors: keyed('writes or drops the vectors of semantic search'),
  rate: keyed('counts calls in a rate window'),
  leases: keyed('renews leases'),
} as const satisfies Record<string, EffectWord>

export type Effect = keyof typeof EFFECT_WORDS

/** A script's effects, as its header declares them. */
export interface Effects {
  readonly words: ReadonlySet<Effect>
  /** One of its words is content (EffectWord.content): search follows the script's rooms. */
  readonly content: boolean
}

export const NO_EFFECTS: Effects = Object.freeze({ words: new Set<Effect>(), content: false })

const isEffect = (w: string): w is Effect => Object.hasOwn(EFFECT_WORDS, w)

/**
 * The effects a header declares on its `Effects` line: words of EFFECT_WORDS of the script's
 * kind, comma-separated, or `none`. Throws naming the file and the word when the line is
 * missing, repeated or says something else.
 */
export function parseEffects(file: string, kind: ScriptKind, header: string): Effects {
  const lines = [...header.matchAll(/^[ \t]*Effects[ \t]+(.+?)\.?[ \t]*$/gm)]
  if (lines.length !== 1)
    throw new Error(
      `lua/${file}: the header needs one Effects line (what the script may change, or none), found ${lines.length}`,
    )
  const text = lines[0]![1]!
  if (text === 'none') return NO_EFFECTS
  const named = new Set<Effect>()
  for (const w of text.split(/,\s*/)) {
    if (!isEffect(w))
      throw new Error(`lua/${file}: Effects: unknown word "${w}" (words: ${Object.keys(EFFECT_WORDS).join(', ')})`)
    if (EFFECT_WORDS[w].kind !== kind)
      throw new Error(`lua/${file}: Effects: "${w}" is a word of ${EFFECT_WORDS[w].kind} scripts, not ${kind} ones`)
    named.add(w)
  }
  // In the vocabulary's order, whatever the header's.
  const words = new Set((Object.keys(EFFECT_WORDS) as Effect[]).filter((w) => named.has(w)))
  return { words, content: [...words].some((w) => EFFECT_WORDS[w].content) }
}

/**
 * The words an archived room still allows (includes/openRoom refuses every other write there):
 * agents' read positions and presence, and archiving, restoring or deleting the room itself.
 */
export const ARCHIVED_ALLOWS: ReadonlySet<Effect> = new Set<Effect>(['reads', 'presence', 'state', 'gone'])

/** Whether a script with these effects is refused in an archived room. */
export const refusedWhenArchived = (effects: Effects): boolean =>
  [...effects.words].some((w) => !ARCHIVED_ALLOWS.has(w))

/** The Lua lines the loader puts before a room script's source: what includes/notify and includes/openRoom read. */
export function effectsPrelude(effects: Effects): string {
  return `local CHANGES_CONTENT = ${effects.content}\nlocal REFUSED_WHEN_ARCHIVED = ${refusedWhenArchived(effects)}\n`
}
