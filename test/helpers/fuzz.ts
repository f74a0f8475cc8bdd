// One seed for every fast-check property of a test file: FUZZ_SEED when set (.ci/run pins one,
// so CI runs the same cases every time), else a fresh one. The seed goes to the test output
// first, so a failure found by a fresh seed can be run again:
//   FUZZ_SEED=<seed> npx tap test/integration/mcp-fuzz.test.ts
// (fast-check's own failure message also names the seed and the path of the failing case).
import fc from 'fast-check'
import type { Test } from 'tap'

/** Sets fast-check's global seed for this process and prints it on `t`; returns it. */
export function pinFuzzSeed(t: Test, env: NodeJS.ProcessEnv = process.env): number {
  const given = env.FUZZ_SEED
  let seed: number
  if (given !== undefined && given !== '') {
    seed = Number(given)
    if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got "${given}"`)
  } else {
    seed = (Date.now() ^ (Math.random() * 0x100000000)) | 0
  }
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed })
  t.comment(
    `fuzz seed ${seed}${given ? ' (FUZZ_SEED)' : ''}: FUZZ_SEED=${seed} npx tap ${process.argv[1] ?? ''} ` +
      `runs these cases again`,
  )
  return seed
}
