// The commit guard's cost: `agentrooms guard` (compiled, as `npx agentrooms` runs it) as the
// pre-commit hook `guard install` writes, in a real git repository with --files staged files, in a
// room where other agents hold reservations (exclusive and shared globs, none over the staged files
// unless --conflicts is given). Two paired measures, alternating, --runs each:
//   hook:   the hook file run as git runs it (cwd the work tree, the hook's environment), against
//           `git diff --cached --name-only` alone (the least a hook that looks at the change does),
//           and an empty Node process (`node -e ''`: what any hook written in Node starts from);
//   commit: `git commit` (hook included) against `git commit --no-verify`, each undone with
//           `git reset --soft HEAD~1` so the same change is staged for the next.
// Reported: median and p90 wall time of each side and their difference; goal well under a second.
//   npx tsx bench/guard.ts [--files 1000] [--runs 15] [--conflicts 0]
import { execFile, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parseArgs, promisify } from 'node:util'
import { compiled, defaultKey, fmt, percentile, startChild, startRedis } from './lib.js'

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '15' },
    conflicts: { type: 'string', default: '0' },
  },
})
const files = Number(values.files)
const runs = Number(values.runs)
const conflicts = Number(values.conflicts)
if (!Number.isInteger(files) || files < 1) throw new Error(`--files: a positive integer, got ${values.files}`)
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs: a positive integer, got ${values.runs}`)
if (!Number.isInteger(conflicts) || conflicts < 0 || conflicts > files)
  throw new Error(`--conflicts: 0 to --files, got ${values.conflicts}`)
const sh = promisify(execFile)
const ROOM = 'guard'
const AGENT = 'committer'
/** Other agents' reservations: an exclusive tree each, and shared globs that match staged files. */
const HOLDERS = 10

interface Run {
  code: number | null
  ms: number
  stderr: string
}

/** Runs `cmd` in `cwd` with `env` (and PATH, HOME); resolves with its exit code and wall time. */
function timed(cmd: string, args: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  return new Promise((done) => {
    const t0 = performance.now()
    const child = spawn(cmd, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env } })
    let stderr = ''
    child.stdout.resume()
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')))
    child.on('close', (code) => done({ code, ms: performance.now() - t0, stderr }))
  })
}

const redis = await startRedis()
const node = await startChild('src/main.ts', { REDIS_URL: `redis://127.0.0.1:${redis.port}` })
const dir = mkdtempSync(join(tmpdir(), 'ar-guard-bench-'))
try {
  const key = await defaultKey(node)
  const base = `http://127.0.0.1:${node.port}`
  const headers = {
    Authorization: `Bearer ${key}`,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
  }
  const created = await fetch(`${base}/admin/rooms`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ roomId: ROOM }),
  })
  if (created.status !== 201) throw new Error(`room creation: ${created.status} ${await created.text()}`)
  const reserve = async (agent: string, patterns: string[], exclusive: boolean) => {
    const args = { room_id: ROOM, agent_id: agent, patterns, exclusive, ttl_s: 3600, reason: 'bench' }
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'reserve_files', arguments: args },
    })
    const text = await (await fetch(`${base}/mcp`, { method: 'POST', headers, body })).text()
    if (text.includes('"isError":true') || !text.includes('"result"')) throw new Error(`reserve_files: ${text}`)
  }
  for (let h = 0; h < HOLDERS; h++) {
    await reserve(`holder-${h}`, [`pkg${h}/**`, `tools/h${h}/*.[jt]s`], true)
    await reserve(`holder-${h}`, ['docs/*.md', 'src/**/index.ts'], false)
  }

  // The repository: one commit, then the change: --files files under src/ (every tenth an index.ts,
  // which shared reservations cover), the last --conflicts of them under pkg3/ (held exclusively).
  const git = (...a: string[]) => sh('git', a, { cwd: dir, maxBuffer: 64 * 1024 * 1024 })
  await git('init', '-q', '-b', 'main')
  await git('config', 'user.email', 'agent@example.com')
  await git('config', 'user.name', 'agent')
  writeFileSync(join(dir, 'README.md'), 'bench\n')
  await git('add', '.')
  await git('commit', '-q', '-m', 'start')
  for (let i = 0; i < files; i++) {
    const path =
      i >= files - conflicts
        ? `pkg3/lib/file${i}.ts`
        : `src/module${i % 40}/${i % 10 === 0 ? `part${i}/index.ts` : `file${i}.ts`}`
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), `export const v${i} = ${i}\n`)
  }
  await git('add', '-A')
  const staged = (await git('diff', '--cached', '--name-only')).stdout.trim().split('\n').length

  // The hook, written by the compiled CLI's own `guard install` (so it runs the compiled CLI).
  const cli = await compiled('src/cli/main.ts')
  const env = { AGENTROOMS_URL: base, AGENTROOMS_KEY: key }
  const install = await timed(process.execPath, [cli, 'guard', 'install', '--room', ROOM, '--agent', AGENT], dir, env)
  if (install.code !== 0) throw new Error(`guard install: ${install.stderr}`)
  const hook = (await git('rev-parse', '--git-path', 'hooks/pre-commit')).stdout.trim()
  const expected = conflicts > 0 ? 1 : 0
  const check = await timed(join(dir, hook), [], dir, env)
  if (check.code !== expected) throw new Error(`the hook exited ${check.code}, not ${expected}: ${check.stderr}`)
  if (conflicts > 0 && !check.stderr.includes('holder-3'))
    throw new Error(`the refusal names no holder: ${check.stderr}`)

  console.log(
    `# ${new Date().toISOString()} node ${process.version}; ${staged} staged files; ${HOLDERS} other agents with ` +
      `${HOLDERS * 4} reservations; ${conflicts} staged files held by another (hook exits ${expected}); ${runs} ` +
      `paired runs`,
  )
  const pairs: Record<string, { work: number[]; base: number[] }> = {
    hook: { work: [], base: [] },
    node: { work: [], base: [] },
    commit: { work: [], base: [] },
  }
  const expect = (r: Run, code: number, what: string) => {
    if (r.code !== code) throw new Error(`${what} exited ${r.code}: ${r.stderr}`)
    return r.ms
  }
  for (let i = 0; i < runs; i++) {
    // Alternate which side goes first, so a drift of the box's load falls on both.
    const sides = [
      async () => pairs.hook!.work.push(expect(await timed(join(dir, hook), [], dir, env), expected, 'hook')),
      async () =>
        pairs.hook!.base.push(expect(await timed('git', ['diff', '--cached', '--name-only'], dir, env), 0, 'git diff')),
      async () => pairs.node!.base.push(expect(await timed(process.execPath, ['-e', ''], dir, env), 0, 'node -e')),
    ]
    for (const side of i % 2 === 0 ? sides : sides.reverse()) await side()
    if (conflicts > 0) continue // a refused commit leaves nothing to undo, and nothing to compare with
    const commits = [
      async () => {
        pairs.commit!.work.push(expect(await timed('git', ['commit', '-q', '-m', 'change'], dir, env), 0, 'commit'))
        await git('reset', '-q', '--soft', 'HEAD~1')
      },
      async () => {
        const r = await timed('git', ['commit', '-q', '--no-verify', '-m', 'change'], dir, env)
        pairs.commit!.base.push(expect(r, 0, 'commit --no-verify'))
        await git('reset', '-q', '--soft', 'HEAD~1')
      },
    ]
    for (const side of i % 2 === 0 ? commits : commits.reverse()) await side()
  }
  pairs.node!.work = pairs.hook!.work
  const names = {
    hook: ['guard hook', 'git diff --cached --name-only'],
    node: ['guard hook', "node -e ''"],
    commit: ['git commit', 'git commit --no-verify'],
  }
  for (const [what, p] of Object.entries(pairs)) {
    if (p.work.length === 0) continue
    const [w, b] = [p.work, p.base].map((xs) => [...xs].sort((x, y) => x - y))
    const [wn, bn] = names[what as keyof typeof names]
    const label = `guard files=${staged} conflicts=${conflicts} ${what}`
    console.log(`${label} ${wn}: p50 ${fmt(percentile(w!, 50), 1)} ms, p90 ${fmt(percentile(w!, 90), 1)} ms`)
    console.log(`${label} ${bn}: p50 ${fmt(percentile(b!, 50), 1)} ms, p90 ${fmt(percentile(b!, 90), 1)} ms`)
    const diffs = p.work.map((x, i) => x - p.base[i]!).sort((x, y) => x - y)
    console.log(
      `${label} added by the guard: p50 ${fmt(percentile(diffs, 50), 1)} ms per run (paired), ` +
        `${fmt(percentile(w!, 50) / percentile(b!, 50), 1)}x the baseline's p50`,
    )
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
  await node.stop()
  await redis.stop()
}
