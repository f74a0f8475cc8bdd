#!/usr/bin/env node
// The agentrooms command-line helper (docs/cli.md). `npx agentrooms …` runs the built file through
// bin/agentrooms.mjs (npm start builds it); `npx tsx src/cli/main.ts …` runs the source.
import { readStdin } from './hook.js'
import { runCli } from './run.js'

process.exitCode = await runCli(
  process.argv.slice(2),
  process.env,
  (s) => process.stdout.write(s),
  (s) => process.stderr.write(s),
  process.cwd(),
  () => readStdin(process.stdin),
)
