// src/store/evalsha.ts writes script frames itself and overrides ioredis' Command#toWritable,
// which ioredis does not document. So ioredis is pinned to one exact version, and this file
// checks what that override relies on: the frames are byte for byte what ioredis itself writes
// for the same arguments (if an ioredis upgrade changes its frames, this fails), and the method
// is still there. REDIS_AUTO_PIPELINING=true sends scripts through ioredis' own defineCommand
// instead (docs/configuration.md). Real Redis: test/integration/store-scripts.test.ts.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import t from 'tap'
import { Command } from 'ioredis'
import { LoadedScript, type Arg } from '../../src/store/evalsha.js'
import { loadScripts } from '../../src/store/scripts.js'

const asBuffer = (w: string | Buffer) => (typeof w === 'string' ? Buffer.from(w) : w)
/** What ioredis itself writes for a command with these arguments. */
const ioredisFrame = (name: string, args: Arg[]) =>
  asBuffer(new Command(name, args).toWritable(undefined as never) as string | Buffer)

t.test('frames are the RESP ioredis writes, for every kind of argument', async (t) => {
  const script = new LoadedScript(loadScripts().find((s) => s.name === 'postEvent')!)
  const n = script.script.numberOfKeys
  const keys = Object.freeze(Array.from({ length: n }, (_, i) => `ar:{r:tm/r1}:k${i}`))
  const cases: [string, Arg[]][] = [
    ['plain strings', ['alice', '', '86400000', '1', 'status', 'started t1']],
    ['numbers', ['alice', 10_000, 0, -3, 1.5]],
    ['multi-byte text (the length is in bytes)', ['zoë', 'naïve — 日本語 🌍', '']],
    ['a Buffer among strings (binary bytes kept)', ['alice', Buffer.from([0, 0xff, 0x0d, 0x0a, 0xc3]), 'x', 7]],
  ]
  for (const [label, argv] of cases) {
    const cmd = script.command(keys, argv)
    t.same(asBuffer(cmd.toWritable()), ioredisFrame('evalsha', [script.sha, n, ...keys, ...argv]), `EVALSHA: ${label}`)
    t.same(
      asBuffer(script.command(keys, argv, true).toWritable()),
      ioredisFrame('eval', [script.script.source, n, ...keys, ...argv]),
      `EVAL: ${label}`,
    )
    t.equal(cmd.args[2], keys[0], 'args carry the keys where ioredis looks for the slot')
  }
  // A second call on the same (cached) key list, and a call on another list of the same length.
  const again = script.command(keys, ['bob'])
  t.same(
    asBuffer(again.toWritable()),
    ioredisFrame('evalsha', [script.sha, n, ...keys, 'bob']),
    'the cached keys of a list serve the next call',
  )
  const other = keys.map((k) => k.replace('r1', 'r2'))
  t.same(
    asBuffer(script.command(other, ['bob']).toWritable()),
    ioredisFrame('evalsha', [script.sha, n, ...other, 'bob']),
    'another list gets its own keys',
  )
})

t.test('ioredis is pinned to the exact version installed, which still has toWritable', async (t) => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> }
  const pinned = pkg.dependencies.ioredis
  t.match(
    pinned,
    /^\d+\.\d+\.\d+$/,
    `package.json pins ioredis exactly (it is "${pinned}"): evalsha.ts overrides an undocumented method`,
  )
  const installed = (createRequire(import.meta.url)('ioredis/package.json') as { version: string }).version
  t.equal(installed, pinned, 'the installed ioredis is the pinned one')
  t.equal(typeof Command.prototype.toWritable, 'function', 'Command#toWritable, the method overridden, exists')
  const clear = (Command.prototype as unknown as Record<string, unknown>)._clearTimers
  t.equal(typeof clear, 'function', 'Command#_clearTimers, which script commands replace, exists')
})

t.test("an answered script command's deadline timer is cleared, the command kept as it was built", async (t) => {
  const script = new LoadedScript(loadScripts().find((s) => s.name === 'postEvent')!)
  const keys = Object.freeze(Array.from({ length: script.script.numberOfKeys }, (_, i) => `ar:{r:tm/r1}:k${i}`))
  const cmd = script.command(keys, ['alice'])
  const own = (c: object) => Object.keys(c).sort()
  cmd.setTimeout(30)
  const timer = (cmd as unknown as { _commandTimeoutTimer?: NodeJS.Timeout })._commandTimeoutTimer
  t.ok(timer, 'ioredis set the deadline timer where it clears it')
  const before = own(cmd)
  cmd.resolve(Buffer.from('ok'))
  t.same(await cmd.promise, Buffer.from('ok'), 'resolved with the reply')
  t.equal((cmd as unknown as { _commandTimeoutTimer?: unknown })._commandTimeoutTimer, undefined, 'timer cleared')
  t.same(own(cmd), before, 'no property deleted (the object keeps its shape)')
  // A command that times out still rejects, as ioredis' own does.
  const late = script.command(keys, ['bob'])
  late.setTimeout(10)
  await t.rejects(late.promise, /Command timed out/, 'an unanswered command fails at its deadline')
})
