// The dashboard's one script, bundled and minified by esbuild when the node starts (client/live.ts,
// or its compiled .js in dist/), and served as a fingerprinted asset like the stylesheet (assets.ts).
// esbuild's native binary is an optional dependency, and the container image installs without
// optional ones: there the script is served as tsc compiled it (it imports nothing, so the
// compiled file is the whole script), just not minified.
import { buildSync } from 'esbuild'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The minified bundle of the room page's script. */
export function liveScript(): string {
  const ts = fileURLToPath(new URL('./client/live.ts', import.meta.url))
  const js = ts.replace(/\.ts$/, '.js')
  const entry = existsSync(ts) ? ts : js
  try {
    const out = buildSync({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      format: 'iife',
      target: 'es2020',
      write: false,
      legalComments: 'none',
    })
    return out.outputFiles[0]!.text
  } catch (err) {
    if (entry === js) return readFileSync(js, 'utf8')
    throw err
  }
}
