// `npm start`: the one command that starts the service from a fresh clone. Plain JavaScript with
// no dependencies, because it runs before they are installed, on whatever Node the machine has:
// installs the dependencies (npm ci) when node_modules is missing or older than
// package-lock.json (after a pull that changed them), makes sure it runs on Node 22 (the pinned
// Node of the dependencies when the machine has another), builds (as `npm run build`: tsc, then
// the dashboard's assets) when a source file is newer than the last build, then runs
// dist/src/main.js in this very process, so SIGTERM and Ctrl-C reach the service itself and it
// drains (npm does not pass signals on to its scripts).
// Containers run `node dist/src/main.js` directly.
/* global process, console, setInterval */
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { fail, installDependencies, serviceNode, root, sh } from './deps.mjs'

const MAIN = join(root, 'dist', 'src', 'main.js')
const ASSETS = join(root, 'dist', 'assets', 'manifest.json')

/** Newest modification time (ms) of the files under `path` (0 when there is none). */
function newest(path) {
  if (!existsSync(path)) return 0
  const st = statSync(path)
  if (!st.isDirectory()) return st.mtimeMs
  let max = 0
  for (const entry of readdirSync(path)) max = Math.max(max, newest(join(path, entry)))
  return max
}

installDependencies()
await ensureServiceNode()

const sources = ['src', 'types', 'tsconfig.json', 'tsconfig.build.json', 'package.json'].map((p) => join(root, p))
// tsc rewrites every output file, so dist/src/main.js is as old as the last build.
const built = existsSync(MAIN) && existsSync(ASSETS) ? statSync(MAIN).mtimeMs : 0
if (Math.max(...sources.map(newest)) > built) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
  if (!existsSync(tsc)) {
    fail(
      'the sources need compiling, but TypeScript is not installed (node_modules/typescript is missing: were ' +
        'the dependencies installed with --omit=dev or NODE_ENV=production?); run `npm ci` to install the dev ' +
        'dependencies too',
    )
  }
  console.log('agentrooms: compiling (tsc)…')
  sh(process.execPath, [tsc, '-p', 'tsconfig.build.json'])
  sh(process.execPath, [join(root, 'scripts', 'build-assets.mjs')])
}

/**
 * Returns when this process runs on the service's Node (22); otherwise runs this script again on
 * the pinned one, passing signals on, and exits with it.
 */
function ensureServiceNode() {
  const node = serviceNode()
  if (!node.pinned) return
  console.log(
    `agentrooms: this is Node ${process.versions.node}; running on the pinned Node ${node.version} ` +
      `(node_modules/.bin/node)`,
  )
  const child = spawn(node.path, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' })
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
  // Everything else happens in the child; this process only waits for it.
  return new Promise(() => undefined)
}

// When the parent (npm) is killed without the service getting the signal, stop cleanly rather
// than run on as an orphan.
const parent = process.ppid
setInterval(() => {
  if (process.ppid !== parent) process.kill(process.pid, 'SIGTERM')
}, 1000).unref()

await import(pathToFileURL(MAIN).href)
