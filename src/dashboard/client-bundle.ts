// The dashboard's one script, bundled and minified by esbuild when the node starts (client/live.ts,
// or its compiled .js in dist/), and served as a fingerprinted asset like the stylesheet (assets.ts).
import { buildSync } from 'esbuild'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The minified bundle of the room page's script. */
export function liveScript(): string {
  const ts = fileURLToPath(new URL('./client/live.ts', import.meta.url))
  const entry = existsSync(ts) ? ts : ts.replace(/\.ts$/, '.js')
  const out = buildSync({ entryPoints: [entry], bundle: true, minify: true, format: 'iife', target: 'es2020', write: false, legalComments: 'none' })
  return out.outputFiles[0]!.text
}
