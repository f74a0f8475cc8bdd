// A script call as one ioredis Command whose RESP frame we write ourselves. ioredis' own script
// commands (defineCommand) flatten the arguments, spread them twice, chain extra promises and
// encode every argument on each call; for a room script, 15 of its ~22 arguments are the room's
// keys, the same on every call. Here the frame's head (EVALSHA, the SHA, the key count) is built
// once per script and the keys once per key list, so a call encodes only its own arguments.
// Paired runs against ioredis' own script commands: post_event 1.10×, heartbeat 1.07× calls/s
// (BENCHMARKS.md). EVALSHA falls back to EVAL on NOSCRIPT, as
// ioredis' does: a restart or failover empties Redis' script cache. With REDIS_AUTO_PIPELINING
// on, the store sends scripts through ioredis' own commands (defineCommand) instead: only those
// join its pipelines, and that is the way back should this override ever break.
// Command#toWritable, overridden below, is not documented by ioredis: package.json pins ioredis
// to one exact version, and test/unit/evalsha.test.ts checks the pin and that our frames are
// byte for byte what that version writes. Before an upgrade, run that test and bench/ab.ts.
import { createHash } from 'node:crypto'
import { Command } from 'ioredis'
import type { Script } from './scripts.js'

export type Arg = string | number | Buffer

const bulk = (s: string) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`

/** A script with the fixed parts of its two frames (EVALSHA, and EVAL for a cold cache). */
export class LoadedScript {
  readonly sha: string
  private readonly shaHead: string
  private readonly evalHead: string
  private readonly numKeys: string
  /**
   * Encoded key lists, by list: room key lists are cached per room (Keys.room), so they repeat.
   * Each holds the frame's whole head (count, EVALSHA, SHA, key count, keys) by argument count.
   */
  private readonly heads = new WeakMap<readonly string[], { keys: string; byArgc: string[] }>()

  constructor(readonly script: Script) {
    this.sha = createHash('sha1').update(script.source).digest('hex')
    this.numKeys = String(script.numberOfKeys)
    this.shaHead = bulk('evalsha') + bulk(this.sha) + bulk(this.numKeys)
    this.evalHead = bulk('eval') + bulk(script.source) + bulk(this.numKeys)
  }

  /** The command for one call; `cold` sends the source (EVAL) instead of the SHA. */
  command(keys: readonly string[], argv: readonly Arg[], cold = false): ScriptCommand {
    let cached = this.heads.get(keys)
    if (cached === undefined) {
      let keyPart = ''
      for (const k of keys) keyPart += bulk(k)
      cached = { keys: keyPart, byArgc: [] }
      if (Object.isFrozen(keys)) this.heads.set(keys, cached)
    }
    const argc = argv.length
    let head: string
    if (cold) head = `*${3 + keys.length + argc}\r\n` + this.evalHead + cached.keys
    else {
      head = cached.byArgc[argc] ?? ''
      if (head === '') {
        head = `*${3 + keys.length + argc}\r\n` + this.shaHead + cached.keys
        cached.byArgc[argc] = head
      }
    }
    // The arguments as ioredis keeps them, built by index: spreading a frozen key list goes
    // through the iterator protocol, an object per element.
    const args: Arg[] = new Array<Arg>(2 + keys.length + argc)
    args[0] = cold ? this.script.source : this.sha
    args[1] = this.numKeys
    let at = 2
    for (let i = 0; i < keys.length; i++) args[at++] = keys[i]!
    let binary = false
    for (let i = 0; i < argc; i++) {
      const a = argv[i]!
      if (Buffer.isBuffer(a)) binary = true
      args[at++] = a
    }
    let frame: string | Buffer
    if (binary) {
      const parts: Buffer[] = [Buffer.from(head)]
      for (const a of argv) {
        const b = Buffer.isBuffer(a) ? a : Buffer.from(String(a))
        parts.push(Buffer.from(`$${b.length}\r\n`), b, CRLF)
      }
      frame = Buffer.concat(parts)
    } else {
      let s = head
      for (let i = 0; i < argc; i++) {
        const a = argv[i]!
        s += bulk(typeof a === 'string' ? a : String(a))
      }
      frame = s
    }
    return new ScriptCommand(cold ? 'eval' : 'evalsha', args, frame)
  }
}

const CRLF = Buffer.from('\r\n')

/**
 * An EVAL / EVALSHA whose frame is ready. `args` stays set as ioredis expects it (Cluster finds
 * the slot from the first key; errors and tracing report it); the reply comes back as Buffers.
 */
export class ScriptCommand extends Command {
  constructor(
    name: string,
    args: Arg[],
    private readonly frame: string | Buffer,
  ) {
    super(name, [], { replyEncoding: null })
    this.args = args
  }

  override toWritable(): string | Buffer {
    return this.frame
  }
}

/** The timers ioredis sets on a command (its deadline; a blocking command's own), by their undocumented names. */
interface Timed {
  _commandTimeoutTimer?: NodeJS.Timeout | undefined
  _blockingTimeoutTimer?: NodeJS.Timeout | undefined
}

/**
 * Clears a script command's timers when it is answered, as ioredis' own `_clearTimers` does, but
 * by setting the fields to undefined: ioredis deletes them, and a deleted property turns each
 * command object into a slower dictionary-mode object, allocated anew, on every call (every call
 * has a deadline timer under REDIS_COMMAND_TIMEOUT_MS). ioredis calls it by this name (undocumented;
 * test/unit/evalsha.test.ts checks it is still there).
 */
function clearTimers(this: Timed): void {
  const deadline = this._commandTimeoutTimer
  if (deadline) {
    clearTimeout(deadline)
    this._commandTimeoutTimer = undefined
  }
  const blocking = this._blockingTimeoutTimer
  if (blocking) {
    clearTimeout(blocking)
    this._blockingTimeoutTimer = undefined
  }
}
Object.defineProperty(ScriptCommand.prototype, '_clearTimers', {
  value: clearTimers,
  writable: true,
  configurable: true,
})
