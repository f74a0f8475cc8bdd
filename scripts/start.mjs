// `npm start`: the one command that starts the service from a fresh clone. Plain JavaScript with
// no dependencies, because it runs before they are installed: checks Node 20, installs the
// dependencies (npm ci) when node_modules is missing or older than package-lock.json (after a
// pull that changed them), compiles when a source file is newer than the last build, then runs
// dist/src/main.js in this very process, so SIGTERM and Ctrl-C reach the service itself and it
// drains (npm does not pass signals on to its scripts). Containers run `node dist/src/main.js`
// directly.
/* global process, console, setInterval */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const MAIN = join(root, 'dist', 'src', 'main.js')

function fail(message) {
  console.error(`agentrooms: ${message}`)
  process.exit(1)
}

function sh(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' })
  if (r.error) fail(`${cmd} ${args.join(' ')}: ${r.error.message}`)
  if (r.status !== 0) fail(`${cmd} ${args.join(' ')} failed (exit ${r.status})`)
}

/** Newest modification time (ms) of the files under `path`. */
function newest(path) {
  const st = statSync(path)
  if (!st.isDirectory()) return st.mtimeMs
  let max = 0
  for (const entry of readdirSync(path)) max = Math.max(max, newest(join(path, entry)))
  return max
}

const major = Number(process.versions.node.split('.')[0])
if (major !== 20) {
  fail(`Node 20 is needed (the uWebSockets.js build loads natively only on Node 20); this is Node ${process.versions.node}`)
}

// npm writes node_modules/.package-lock.json at every install: older than package-lock.json
// means the lock changed since (a pull, a switched branch), so the installed tree may not match.
const lock = join(root, 'package-lock.json')
const installed = join(root, 'node_modules', '.package-lock.json')
if (!existsSync(join(root, 'node_modules'))) {
  console.log('agentrooms: installing dependencies (npm ci)…')
  sh('npm', ['ci', '--no-audit', '--no-fund'])
} else if (!existsSync(installed) || statSync(lock).mtimeMs > statSync(installed).mtimeMs) {
  console.log('agentrooms: package-lock.json changed since the last install; reinstalling dependencies (npm ci)…')
  sh('npm', ['ci', '--no-audit', '--no-fund'])
}

const sources = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'].map((p) => join(root, p))
// tsc rewrites every output file, so dist/src/main.js is as old as the last build.
const built = existsSync(MAIN) ? statSync(MAIN).mtimeMs : 0
if (Math.max(...sources.map(newest)) > built) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
  if (!existsSync(tsc)) {
    fail('the sources need compiling, but TypeScript is not installed (node_modules/typescript is missing: were the dependencies installed with --omit=dev or NODE_ENV=production?); run `npm ci` to install the dev dependencies too')
  }
  console.log('agentrooms: compiling (tsc)…')
  sh(process.execPath, [tsc, '-p', 'tsconfig.build.json'])
}

// When the parent (npm) is killed without the service getting the signal, stop cleanly rather
// than run on as an orphan.
const parent = process.ppid
setInterval(() => {
  if (process.ppid !== parent) process.kill(process.pid, 'SIGTERM')
}, 1000).unref()

await import(pathToFileURL(MAIN).href)
