// What .taprc and test/helpers/node-options.mjs promise every test process: tap's type-strip-only
// flags are gone from NODE_OPTIONS, here and in the processes a test starts (a Node 20 refuses
// --experimental-strip-types in NODE_OPTIONS; test/e2e/start.test.ts runs one), and TypeScript
// still loads (through tsx).
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import t from 'tap'

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
