// The typed script map: every script of lua/ by name, with its keys, arguments and reply, so a
// call is checked at compile time and no caller casts a reply. Types only: nothing here runs.
// test/unit/script-map.test.ts reads these interfaces with the TypeScript compiler and fails
// when a script's header (its ARGV lines, its Returns clause, whether rows follow) and its entry
// disagree, or when a script has no entry.
//   room.ts      room scripts (Store.room): the room's keys (ROOM_KEYS) and 6 common arguments come first
//   accounts.ts  account scripts (Store.account): the accounts directory's keys (ACCOUNT_KEYS) come first
//   keyed.ts     every other script (Store.run), keys given by the caller
import type { AccountScripts, SessionArgs } from './accounts.js'
import type { KeyedScripts } from './keyed.js'
import type { RoomScripts } from './room.js'

export type { AccountScripts, KeyedScripts, RoomScripts, SessionArgs }

/** One script's entry. */
export interface ScriptEntry {
  args: readonly unknown[]
  keys?: readonly string[]
  reply: object
  rows?: true
}

/** A reply as the store hands it back: the entry's reply, and the raw records when the script returns rows. */
export type ReplyOf<E extends ScriptEntry> = E['reply'] & (E extends { rows: true } ? { rows: Buffer[] } : unknown)

/** A room script's reply: with the caller's unread count when an agent was given. */
export type RoomReply<S extends keyof RoomScripts> = ReplyOf<RoomScripts[S]> & { unread?: number }

/**
 * What Store.room takes after the room and the call options: the arguments, then the extra keys of
 * scripts that have them.
 */
export type RoomCall<S extends keyof RoomScripts> = RoomScripts[S] extends { keys: infer K }
  ? [args: RoomScripts[S]['args'], extraKeys: K]
  : RoomScripts[S]['args'] extends []
    ? [args?: []]
    : [args: RoomScripts[S]['args']]
