#!/usr/bin/env node
// `npx agentrooms …` (package.json "bin"): runs the compiled CLI, src/cli/main.ts (docs/cli.md).
/* global process, console */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'src', 'cli', 'main.js')
if (!existsSync(cli)) {
  console.error('agentrooms: the CLI is not built yet; run `npm run build` (or `npm start`, which builds) first')
  process.exit(2)
}
await import(pathToFileURL(cli).href)
