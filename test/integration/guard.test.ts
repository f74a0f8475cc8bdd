// The commit guard in a real git repository (Debian's git) against a real node on each backend:
// `guard install` writes the pre-commit hook, and `git commit` then runs it as git does. A commit
// that stages a file another agent holds exclusively is refused, naming the file, the holder and
// the expiry; the agent's own and shared reservations pass; the override variable commits anyway;
// a 1,000-file change is answered in one request; an unreachable service lets the commit through
// with a warning; a wrong key or room refuses with a message saying what to fix.
import t, { type Test } from 'tap'
import { execFile, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { newTeam, startNode, type TestNode } from '../helpers/node.js'
import { freePort } from '../helpers/redis.js'
import { BACKENDS, uid } from '../helpers/shared.js'

const sh = promisify(execFile)
const MAIN = resolve('src/cli/main.ts')
/** tsx as a file URL: the CLI runs in the test's repository, where a bare `tsx` does not resolve. */
const TSX = import.meta.resolve('tsx')

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs a process in `cwd` with only the given environment (and PATH), as a user's shell would. */
function exec(cmd: string, args: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(cmd, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')))
    child.on('close', (code) => done({ code, stdout, stderr }))
  })
}

const cli = (args: string[], cwd: string, env: Record<string, string> = {}) =>
  exec(process.execPath, ['--import', TSX, MAIN, ...args], cwd, env)

/** A fresh repository with one commit; removed when the test ends. */
async function repo(t: Test): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'ar-guard-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const git = (...a: string[]) => sh('git', a, { cwd: dir })
  await git('init', '-q', '-b', 'main')
  await git('config', 'user.email', 'agent@example.com')
  await git('config', 'user.name', 'agent')
  write(dir, 'README.md', 'hello\n')
  await git('add', '.')
  await git('commit', '-q', '-m', 'start')
  return dir
}

function write(dir: string, path: string, text: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true })
  writeFileSync(join(dir, path), text)
}

async function stage(dir: string, files: string[]): Promise<void> {
  for (const f of files) write(dir, f, `${f} ${Math.random()}\n`)
  await sh('git', ['add', '-A'], { cwd: dir })
}

const commit = (dir: string, env: Record<string, string>) => exec('git', ['commit', '-q', '-m', 'change'], dir, env)
const staged = async (dir: string) =>
  (await sh('git', ['diff', '--cached', '--name-only'], { cwd: dir })).stdout.trim().split('\n').filter(Boolean)

async function roomWithReservations(n: TestNode, key: string, teamId: string): Promise<string> {
  const roomId = uid('guard')
  const res = await n.call('/admin/rooms', { method: 'POST', key, json: { roomId } })
  if (res.status !== 201) throw new Error(`room: ${res.status} ${await res.text()}`)
  const rs = n.node.core.reservations
  const room = { teamId, roomId }
  await rs.reserve({ room, agent: 'backend' }, { patterns: ['src/api/**'], reason: 't7' })
  await rs.reserve({ room, agent: 'backend' }, { patterns: ['package-lock.json'], exclusive: false })
  await rs.reserve({ room, agent: 'frontend' }, { patterns: ['web/**'] })
  return roomId
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    const n = await startNode(t, backend)
    const { teamId, key } = await newTeam(n)
    const roomId = await roomWithReservations(n, key, teamId)
    const env = { AGENTROOMS_URL: n.base, AGENTROOMS_KEY: key, AGENTROOMS_AGENT: 'frontend' }

    t.test('install writes the hook; a commit over an exclusive reservation is refused', async (t) => {
      const dir = await repo(t)
      const inst = await cli(['guard', 'install', '--room', roomId], dir)
      t.equal(inst.code, 0, inst.stderr)
      const hook = join(dir, '.git/hooks/pre-commit')
      t.match(inst.stdout, /Installed the agentrooms commit guard: .*\.git\/hooks\/pre-commit/)
      t.ok(statSync(hook).mode & 0o100, 'the hook is executable')
      t.match(readFileSync(hook, 'utf8'), /^#!\/bin\/sh\n# agentrooms commit guard/)

      await stage(dir, ['src/api/users.ts', 'src/api/deep/model.ts', 'package-lock.json', 'web/app.tsx', 'x.txt'])
      const refused = await commit(dir, env)
      t.not(refused.code, 0, 'git refuses the commit')
      t.match(refused.stderr, /commit refused: 2 staged files are reserved by other agents in room guard/)
      t.match(refused.stderr, /src\/api\/users\.ts: reserved exclusively by backend \(pattern "src\/api\/\*\*"\) until/)
      t.match(refused.stderr, /src\/api\/deep\/model\.ts: reserved exclusively by backend/)
      t.match(refused.stderr, /\(30 min more, reason "t7"\)/, 'the expiry and the reason')
      t.notMatch(refused.stderr, /package-lock|web\/app|x\.txt/, 'shared and own reservations pass')
      t.match(refused.stderr, /AGENTROOMS_GUARD_OVERRIDE=1 git commit/, 'says how to override')
      t.equal((await staged(dir)).length, 5, 'nothing was committed')

      const over = await commit(dir, { ...env, AGENTROOMS_GUARD_OVERRIDE: '1' })
      t.equal(over.code, 0, over.stderr)
      t.match(over.stderr, /committing anyway, because AGENTROOMS_GUARD_OVERRIDE=1/)
      t.match(over.stderr, /src\/api\/users\.ts: reserved exclusively by backend/, 'the override still names them')
      t.same(await staged(dir), [], 'the override committed')

      await stage(dir, ['src/api/users.ts', 'web/app.tsx'])
      const own = await commit(dir, { ...env, AGENTROOMS_AGENT: 'backend' })
      t.not(own.code, 0, 'backend may not commit web/app.tsx, which frontend holds')
      t.match(own.stderr, /web\/app\.tsx: reserved exclusively by frontend/)
      t.notMatch(own.stderr, /src\/api/, "backend's own files pass")
      await sh('git', ['restore', '--staged', 'web/app.tsx'], { cwd: dir })
      const mine = await commit(dir, { ...env, AGENTROOMS_AGENT: 'backend' })
      t.equal(mine.code, 0, `the holder commits its files: ${mine.stderr}`)
      t.equal(mine.stderr, '', 'silently')
    })

    t.test('renames and deletions count on both sides; 1,000 files in one request', async (t) => {
      const dir = await repo(t)
      await stage(dir, ['src/api/old.ts'])
      await sh('git', ['commit', '-q', '--no-verify', '-m', 'old'], { cwd: dir })
      t.equal((await cli(['guard', 'install', '--room', roomId, '--agent', 'frontend'], dir)).code, 0)
      mkdirSync(join(dir, 'lib'))
      await sh('git', ['mv', 'src/api/old.ts', 'lib/new.ts'], { cwd: dir })
      const moved = await commit(dir, env)
      t.not(moved.code, 0, 'moving a held file out of its pattern is a change to it')
      t.match(moved.stderr, /src\/api\/old\.ts: reserved exclusively by backend/)
      await sh('git', ['reset', '-q', '--hard'], { cwd: dir })
      await sh('git', ['rm', '-q', 'src/api/old.ts'], { cwd: dir })
      t.match((await commit(dir, env)).stderr, /1 staged file is reserved/, 'a deletion is checked')
      await sh('git', ['reset', '-q', '--hard'], { cwd: dir })

      const files = Array.from({ length: 1000 }, (_, i) => `src/api/gen/${i % 10}/file-${i}.ts`)
      await stage(dir, [...files, 'lib/free.ts'])
      const big = await commit(dir, env)
      t.not(big.code, 0)
      t.match(big.stderr, /1000 staged files are reserved by other agents/)
      t.equal(big.stderr.split('\n').filter((l) => l.startsWith('  src/api/gen/')).length, 1000, 'each file named')
    })

    t.test('an unreachable service lets the commit through with a warning', async (t) => {
      const dir = await repo(t)
      t.equal((await cli(['guard', 'install', '--room', roomId], dir)).code, 0)
      await stage(dir, ['src/api/users.ts'])
      const down = await commit(dir, { ...env, AGENTROOMS_URL: `http://127.0.0.1:${await freePort()}` })
      t.equal(down.code, 0, 'committed')
      t.match(down.stderr, /cannot reach the service at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/)
      t.match(down.stderr, /the commit goes through unchecked/)
    })

    t.test('a wrong key, room or agent refuses, saying what to fix', async (t) => {
      const dir = await repo(t)
      t.equal((await cli(['guard', 'install'], dir)).code, 0, 'room and agent may come from the environment')
      t.match(readFileSync(join(dir, '.git/hooks/pre-commit'), 'utf8'), /guard'\n$/, 'none written')
      await stage(dir, ['notes.txt'])
      const noRoom = await commit(dir, env)
      t.not(noRoom.code, 0)
      t.match(noRoom.stderr, /guard: the room is missing; pass --room <roomId> or set AGENTROOMS_ROOM/)
      const withRoom = { ...env, AGENTROOMS_ROOM: roomId }
      const badKey = await commit(dir, { ...withRoom, AGENTROOMS_KEY: `${key.slice(0, -4)}zzzz` })
      t.not(badKey.code, 0)
      t.match(badKey.stderr, /the service refused the key in AGENTROOMS_KEY/)
      const noSuchRoom = await commit(dir, { ...withRoom, AGENTROOMS_ROOM: 'no-such-room' })
      t.not(noSuchRoom.code, 0)
      t.match(noSuchRoom.stderr, /404 not_found: room no-such-room not found/)

      const inv = await n.call(`/admin/rooms/${roomId}/invite`, { method: 'POST', key, json: {} })
      const invite = ((await inv.json()) as { key: string }).key
      const ok = await commit(dir, { ...withRoom, AGENTROOMS_KEY: invite })
      t.equal(ok.code, 0, `a room invite key is enough: ${ok.stderr}`)
    })

    t.test('install keeps a hook that is not the guard unless --force', async (t) => {
      const dir = await repo(t)
      write(dir, '.git/hooks/pre-commit', '#!/bin/sh\nexit 0\n')
      const kept = await cli(['guard', 'install', '--room', roomId], dir)
      t.equal(kept.code, 2)
      t.match(kept.stderr, /pre-commit exists and is not the agentrooms guard; pass --force/)
      t.equal(readFileSync(join(dir, '.git/hooks/pre-commit'), 'utf8'), '#!/bin/sh\nexit 0\n', 'unchanged')
      t.equal((await cli(['guard', 'install', '--room', roomId, '--force'], dir)).code, 0)
      t.equal((await cli(['guard', 'install', '--room', roomId], dir)).code, 0, 'its own hook is replaced')
      const outside = mkdtempSync(join(tmpdir(), 'ar-nogit-'))
      t.teardown(() => rmSync(outside, { recursive: true, force: true }))
      const none = await cli(['guard', 'install'], outside, { GIT_CEILING_DIRECTORIES: tmpdir() })
      t.equal(none.code, 2)
      t.match(none.stderr, /guard install: not inside a git repository/)
    })
  })
}
