// What .taprc and test/helpers/node-options.mjs promise every test process: tap's type-strip-only
// flags are gone from NODE_OPTIONS, here and in the processes a test starts (a Node 20 refuses
// --experimental-strip-types in NODE_OPTIONS; test/e2e/start.test.ts runs one), and TypeScript
// still loads (through tsx). And the layout rules of the suite: a fuzz test pins its seed, and
// tests that start service processes live in test/e2e.
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'

/** The test files under `dir`, with their text. */
function testFiles(dir: string): { path: string; text: string }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => ({ path: join(dir, f), text: readFileSync(join(dir, f), 'utf8') }))
}

const FLAGS = /--experimental-strip-types|--no-warnings/

t.test('no type-strip flags in NODE_OPTIONS, here or in a child', async (t) => {
  t.notMatch(process.env.NODE_OPTIONS ?? '', FLAGS, 'this process')
  const child = execFileSync(process.execPath, ['-p', 'process.env.NODE_OPTIONS ?? ""'], { encoding: 'utf8' })
  t.notMatch(child, FLAGS, 'a process this test starts')
})

t.test('type-strip-only is what .taprc sets, with the preload that cleans up after it', async (t) => {
  const rc = readFileSync('.taprc', 'utf8')
  t.match(rc, /^type-strip-only: true$/m)
  t.match(rc, /--import=\.\/test\/helpers\/node-options\.mjs/)
})

t.test('every fuzz test pins its seed (FUZZ_SEED in CI, printed otherwise: test/helpers/fuzz.ts)', async (t) => {
  const fuzz = ['test/unit', 'test/integration', 'test/e2e']
    .flatMap(testFiles)
    .filter((f) => /^import [^\n]*'fast-check'/m.test(f.text))
  t.ok(fuzz.length >= 3, `the scan finds the fuzz tests (${fuzz.map((f) => f.path).join(', ')})`)
  for (const f of fuzz) t.match(f.text, /^pinFuzzSeed\(t\)$/m, `${f.path} calls pinFuzzSeed(t)`)
})

t.test('tests that start the service as a process live in test/e2e', async (t) => {
  // Integration tests start Redis servers (test/helpers) and may run a one-line node -e; the
  // service itself (src/main.ts, the CLI, the launcher) runs as a process only in test/e2e.
  const service = /src\/main\.ts|src\/cli\/main|bin\/agentrooms|scripts\/start\.mjs|'tsx'|'npx'|'npm'/
  const starts = /\b(?:spawn|spawnSync|fork|exec|execSync|execFile|execFileSync)\(/
  for (const f of ['test/unit', 'test/integration'].flatMap(testFiles)) {
    const calls = f.text.split('\n').filter((line) => starts.test(line))
    t.same(
      calls.filter((line) => service.test(line)),
      [],
      `${f.path}: no process it starts is the service`,
    )
  }
  t.match(
    readFileSync('test/e2e/shutdown.test.ts', 'utf8'),
    /spawn\('npx', \['tsx', 'src\/main\.ts'\]/,
    'the scan would see how an e2e test starts one',
  )
})
