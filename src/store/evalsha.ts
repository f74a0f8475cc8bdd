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
  /** Encoded key lists, by list: room key lists are cached per room (Keys.room), so they repeat. */
  private readonly keyParts = new WeakMap<readonly string[], string>()

  constructor(readonly script: Script) {
    this.sha = createHash('sha1').update(script.source).digest('hex')
    this.numKeys = String(script.numberOfKeys)
    this.shaHead = bulk('evalsha') + bulk(this.sha) + bulk(this.numKeys)
    this.evalHead = bulk('eval') + bulk(script.source) + bulk(this.numKeys)
  }

  /** The command for one call; `cold` sends the source (EVAL) instead of the SHA. */
  command(keys: readonly string[], argv: readonly Arg[], cold = false): ScriptCommand {
    let keyPart = this.keyParts.get(keys)
    if (keyPart === undefined) {
      keyPart = ''
      for (const k of keys) keyPart += bulk(k)
      if (Object.isFrozen(keys)) this.keyParts.set(keys, keyPart)
    }
    const count = `*${3 + keys.length + argv.length}\r\n`
    const head = count + (cold ? this.evalHead : this.shaHead) + keyPart
    let frame: string | Buffer
    if (argv.some((a) => Buffer.isBuffer(a))) {
      const parts: Buffer[] = [Buffer.from(head)]
      for (const a of argv) {
        const b = Buffer.isBuffer(a) ? a : Buffer.from(String(a))
        parts.push(Buffer.from(`$${b.length}\r\n`), b, CRLF)
      }
      frame = Buffer.concat(parts)
    } else {
      let s = head
      for (const a of argv) s += bulk(typeof a === 'string' ? a : String(a))
      frame = s
    }
    return new ScriptCommand(
      cold ? 'eval' : 'evalsha',
      [cold ? this.script.source : this.sha, this.numKeys, ...keys, ...argv],
      frame,
    )
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
