// Counts one conformance suite's scenarios from the CLI's result folders (one
// `<scenario>-<time>/checks.json` per scenario run) against the suite's expected-failures file,
// with the CLI's own rules: a FAILURE or WARNING check fails its scenario unless the whole
// scenario or that check is listed; a listed scenario or check that passed is a stale entry and
// fails too. Prints one line per suite and adds the counts to the totals file.
//
//   tsx test/conformance/summarize.ts NAME RESULTS_DIR EXPECTED_FILE CLI_EXIT TOTALS_FILE
//
// Expected-failures files use the CLI's YAML subset: a `server:` key and `  - scenario` or
// `  - scenario:check-id` items; `#` starts a comment.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

interface Check {
  id: string
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO'
  errorMessage?: string
}

function readExpected(file: string): { scenarios: Set<string>; checks: Map<string, Set<string>> } {
  const scenarios = new Set<string>()
  const checks = new Map<string, Set<string>>()
  if (!existsSync(file)) return { scenarios, checks }
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^\s+-\s+['"]?([^'"#\s]+)['"]?\s*(#.*)?$/.exec(line)
    if (!m) continue
    const [scenario, check] = m[1]!.split(':') as [string, string | undefined]
    if (check === undefined) scenarios.add(scenario)
    else checks.set(scenario, (checks.get(scenario) ?? new Set()).add(check))
  }
  return { scenarios, checks }
}

/** The checks of every scenario in `dir`, by scenario (the folder name minus `server-` and the time). */
function readResults(dir: string): Map<string, Check[]> {
  const out = new Map<string, Check[]>()
  if (!existsSync(dir)) return out
  for (const entry of readdirSync(dir).sort()) {
    const file = join(dir, entry, 'checks.json')
    if (!existsSync(file)) continue
    const scenario = entry.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '')
    out.set(scenario, [...(out.get(scenario) ?? []), ...(JSON.parse(readFileSync(file, 'utf8')) as Check[])])
  }
  return out
}

type Verdict = { kind: 'passed' } | { kind: 'expected'; checks: string[] } | { kind: 'failed'; why: string[] }

function judge(scenario: string, checks: Check[], expected: ReturnType<typeof readExpected>): Verdict {
  const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
  if (expected.scenarios.has(scenario)) {
    return bad.length > 0
      ? { kind: 'expected', checks: bad.map((c) => c.id) }
      : { kind: 'failed', why: ['stale expected-failure entry: the whole scenario passes now'] }
  }
  const listed = expected.checks.get(scenario) ?? new Set<string>()
  const why = bad.filter((c) => !listed.has(c.id)).map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ''}`.trim())
  for (const id of listed) {
    if (checks.some((c) => c.id === id && c.status === 'SUCCESS'))
      why.push(`stale expected-failure entry ${scenario}:${id}: it passes now`)
  }
  if (why.length > 0) return { kind: 'failed', why }
  return bad.length > 0 ? { kind: 'expected', checks: bad.map((c) => c.id) } : { kind: 'passed' }
}

function main(): void {
  const [name, dir, expectedFile, cliExit, totalsFile] = process.argv.slice(2)
  if (!name || !dir || !expectedFile || cliExit === undefined || !totalsFile) {
    throw new Error('usage: summarize.ts NAME RESULTS_DIR EXPECTED_FILE CLI_EXIT TOTALS_FILE')
  }
  const expected = readExpected(expectedFile)
  const results = readResults(dir)
  const count = { passed: 0, failed: 0, expected: 0 }
  for (const [scenario, checks] of results) {
    const v = judge(scenario, checks, expected)
    count[v.kind]++
    if (v.kind === 'failed') for (const w of v.why) console.log(`  ✗ ${scenario}: ${w}`)
  }
  // The CLI is the authority: a failure it saw (a crash, a scenario without results) counts.
  if (cliExit !== '0' && count.failed === 0) {
    console.log(`  ✗ the conformance CLI exited ${cliExit} (see its output above)`)
    count.failed = 1
  }
  if (results.size === 0) count.failed = Math.max(count.failed, 1)
  console.log(
    `conformance ${name}: ${count.passed} passed, ${count.failed} failed, ${count.expected} expected ` +
      `failures (${expectedFile.replace(/^.*test\/conformance\//, 'test/conformance/')})`,
  )
  const totals = existsSync(totalsFile)
    ? (JSON.parse(readFileSync(totalsFile, 'utf8')) as typeof count)
    : { passed: 0, failed: 0, expected: 0 }
  writeFileSync(
    totalsFile,
    JSON.stringify({
      passed: totals.passed + count.passed,
      failed: totals.failed + count.failed,
      expected: totals.expected + count.expected,
    }),
  )
}

main()
