// `agentrooms guard`: the git pre-commit hook that keeps an agent from committing over files
// another agent reserved exclusively (reserve_files). It asks the service once for all staged
// paths (POST /rooms/:roomId/reservations/check, in slices of at most CHECK_BODY_BYTES) and
// refuses the commit when any is held by someone else, naming each path, the holder and the expiry.
// AGENTROOMS_GUARD_OVERRIDE=1 lets such a commit through, saying so. A service that cannot be
// reached (or answers unavailable) lets the commit through with a warning: the guard protects the
// work, it must not stop it. `agentrooms guard install` writes the hook.
import { execFile } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { promisify } from 'node:util'
import { CliError, ServiceError, Unreachable, type Service } from './service.js'

const run = promisify(execFile)

export const ENV_ROOM = 'AGENTROOMS_ROOM'
export const ENV_AGENT = 'AGENTROOMS_AGENT'
export const ENV_OVERRIDE = 'AGENTROOMS_GUARD_OVERRIDE'
/** How long the guard waits for the service before it lets the commit through unchecked. */
export const GUARD_TIMEOUT_MS = 5_000
/** The most bytes of paths one check request carries (the service's body limit is 256 KiB). */
const CHECK_BODY_BYTES = 192 * 1024
/** The most paths one check request carries (the service's limit). */
const CHECK_PATHS = 10_000
/** The line that marks a pre-commit hook as this guard's (install replaces only such a hook). */
export const HOOK_MARK = '# agentrooms commit guard'

type Out = (s: string) => void

export interface PathConflict {
  path: string
  holder: string
  pattern: string
  reason?: string
  expires_at: string
  expires_in_s: number
}

export interface GuardTarget {
  room: string
  agent: string
}

/** The room and agent from the flags, else from AGENTROOMS_ROOM and AGENTROOMS_AGENT. */
export function guardTarget(
  flags: { room?: string | undefined; agent?: string | undefined },
  env: Record<string, string | undefined>,
  command: string,
): GuardTarget {
  const room = flags.room?.trim() || env[ENV_ROOM]?.trim()
  const agent = flags.agent?.trim() || env[ENV_AGENT]?.trim()
  if (!room) throw new CliError(`${command}: the room is missing; pass --room <roomId> or set ${ENV_ROOM}`, 2)
  if (!agent) throw new CliError(`${command}: the agent is missing; pass --agent <agentId> or set ${ENV_AGENT}`, 2)
  return { room, agent }
}

/**
 * The paths the commit changes, relative to the repository root as git prints them: added,
 * changed and deleted files, and both sides of a rename (--no-renames), NUL-separated so no
 * name is quoted.
 */
export async function stagedPaths(cwd: string): Promise<string[]> {
  const { stdout } = await run('git', ['diff', '--cached', '--name-only', '--no-renames', '-z'], {
    cwd,
    maxBuffer: 256 * 1024 * 1024,
  })
  return stdout.split('\0').filter((p) => p !== '')
}

/** Splits the paths into request bodies that stay under the service's body and count limits. */
export function slices(paths: string[]): string[][] {
  const out: string[][] = []
  let cur: string[] = []
  let bytes = 0
  for (const p of paths) {
    const size = Buffer.byteLength(JSON.stringify(p)) + 1
    if (cur.length > 0 && (bytes + size > CHECK_BODY_BYTES || cur.length >= CHECK_PATHS)) {
      out.push(cur)
      cur = []
      bytes = 0
    }
    cur.push(p)
    bytes += size
  }
  if (cur.length > 0) out.push(cur)
  return out
}

/** Asks the service which of the paths another agent holds exclusively. */
export async function checkPaths(service: Service, target: GuardTarget, paths: string[]): Promise<PathConflict[]> {
  const conflicts: PathConflict[] = []
  const route = `/rooms/${encodeURIComponent(target.room)}/reservations/check`
  for (const slice of slices(paths)) {
    const r = await service.request<{ conflicts: PathConflict[] }>('POST', route, {
      agent_id: target.agent,
      paths: slice,
    })
    conflicts.push(...r.conflicts)
  }
  return conflicts
}

function minutes(s: number): string {
  if (s < 90) return `${s} s`
  if (s < 5400) return `${Math.round(s / 60)} min`
  return `${(s / 3600).toFixed(1)} h`
}

/** One line per conflicting path: the path, the holder, its pattern and expiry, the reason. */
export function describe(conflicts: PathConflict[]): string {
  return conflicts
    .map((c) => {
      const why = c.reason === undefined ? '' : `, reason ${JSON.stringify(c.reason)}`
      return (
        `  ${c.path}: reserved exclusively by ${c.holder} (pattern ${JSON.stringify(c.pattern)}) until ` +
        `${c.expires_at} (${minutes(c.expires_in_s)} more${why})`
      )
    })
    .join('\n')
}

/**
 * The pre-commit check. Resolves with the exit code git acts on: 0 lets the commit through, 1
 * refuses it. Only a refusal or a warning is printed (to stderr, where git shows hook output).
 */
export async function guard(
  service: Service,
  target: GuardTarget,
  env: Record<string, string | undefined>,
  cwd: string,
  err: Out,
): Promise<number> {
  const paths = await stagedPaths(cwd).catch((e: unknown) => {
    const why = (e as { stderr?: string }).stderr?.trim() || String(e)
    throw new CliError(`guard: cannot list the staged files with git (${why}); run it inside a repository`, 2)
  })
  if (paths.length === 0) return 0
  let conflicts: PathConflict[]
  try {
    conflicts = await checkPaths(service, target, paths)
  } catch (e) {
    const down = e instanceof Unreachable || (e instanceof ServiceError && e.code === 'unavailable')
    if (!down) throw e
    err(
      `agentrooms guard: ${e.message}\nagentrooms guard: the reservations were not checked; the commit goes ` +
        `through unchecked.\n`,
    )
    return 0
  }
  if (conflicts.length === 0) return 0
  const n = conflicts.length
  const list = describe(conflicts)
  const files = `${n} staged file${n === 1 ? ' is' : 's are'}`
  if (env[ENV_OVERRIDE] === '1') {
    err(
      `agentrooms guard: ${files} reserved by other agents in room ${target.room}:\n${list}\n` +
        `agentrooms guard: committing anyway, because ${ENV_OVERRIDE}=1.\n`,
    )
    return 0
  }
  err(
    `agentrooms guard: commit refused: ${files} reserved by other agents in room ${target.room} ` +
      `(you are ${target.agent}):\n${list}\n` +
      'Unstage them (git restore --staged <path>), wait for the reservation to be released or to expire, or ' +
      `ask its holder in the room.\nTo commit over the reservation on purpose: ${ENV_OVERRIDE}=1 git commit …\n`,
  )
  return 1
}

/** A word as one shell word in single quotes. */
function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`
}

/**
 * The command that runs this CLI again from any directory: this Node with its loader flags (a
 * bare `--import tsx` made absolute, so it resolves outside this clone) and this entry file.
 */
export function selfCommand(): string[] {
  const argv = [process.execPath]
  const flags = process.execArgv
  for (let i = 0; i < flags.length; i++) {
    const f = flags[i]!
    argv.push(f)
    const next = flags[i + 1]
    if ((f === '--import' || f === '--loader' || f === '--experimental-loader') && next !== undefined) {
      argv.push(/^[./]|^file:/.test(next) ? next : import.meta.resolve(next))
      i++
    }
  }
  argv.push(resolve(process.argv[1]!))
  return argv
}

/** The pre-commit hook's text. Room and agent are written only when given (else the hook reads the environment). */
export function hookScript(command: string[], target: Partial<GuardTarget>): string {
  const args = ['guard']
  if (target.room) args.push('--room', target.room)
  if (target.agent) args.push('--agent', target.agent)
  return [
    '#!/bin/sh',
    `${HOOK_MARK}: refuses a commit that stages files another agent reserved exclusively.`,
    '# Written by `agentrooms guard install` (docs/agents.md). It reads AGENTROOMS_URL and AGENTROOMS_KEY',
    `# (and ${ENV_ROOM} / ${ENV_AGENT} when not written below). Commit over a reservation once:`,
    `# ${ENV_OVERRIDE}=1 git commit …`,
    `exec ${[...command, ...args].map(shellQuote).join(' ')}`,
    '',
  ].join('\n')
}

/** Writes the hook into the repository at `cwd` (its hooks folder, core.hooksPath honoured). */
export async function installGuard(
  cwd: string,
  target: Partial<GuardTarget>,
  force: boolean,
  command: string[] = selfCommand(),
): Promise<string> {
  let hooks: string
  try {
    hooks = (await run('git', ['rev-parse', '--git-path', 'hooks'], { cwd })).stdout.trim()
  } catch (e) {
    const why = (e as { stderr?: string }).stderr?.trim() || String(e)
    throw new CliError(`guard install: not inside a git repository (${why})`, 2)
  }
  const dir = resolve(cwd, hooks)
  const file = resolve(dir, 'pre-commit')
  if (existsSync(file) && !readFileSync(file, 'utf8').includes(HOOK_MARK) && !force)
    throw new CliError(
      `guard install: ${file} exists and is not the agentrooms guard; pass --force to replace it, or add ` +
        `this line to it: ${[...command, 'guard'].map(shellQuote).join(' ')} || exit 1`,
      2,
    )
  mkdirSync(dir, { recursive: true })
  writeFileSync(file, hookScript(command, target))
  chmodSync(file, 0o755)
  return file
}
