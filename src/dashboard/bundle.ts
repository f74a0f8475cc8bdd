// Builds the dashboard's static assets: the stylesheet (css/app.css and what it imports) and the
// one script (client/live.ts), each bundled and minified by esbuild, and the favicon (favicon.svg,
// as it is), each named by the hash of its content. `npm run build` writes them with a manifest
// to dist/assets (scripts/build-assets.mjs), which the compiled node serves; a node run from the
// TypeScript sources (tsx: `npm run dev`, the tests) builds the same in memory when it starts
// (assets.ts), so an edited .css file shows on the next start without a build step.
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'esbuild'

/** One built asset: its served path (/assets/<name>.<hash>.<ext>), content type and body. */
export interface Asset {
  path: string
  type: string
  body: string
}

/** What dist/assets/manifest.json holds: the assets by their served paths, and their files. */
export interface Manifest {
  assets: { path: string; type: string; file: string }[]
}

const ENTRIES = [
  { name: 'app', ext: 'css', type: 'text/css; charset=utf-8', source: 'src/dashboard/css/app.css' },
  { name: 'live', ext: 'js', type: 'text/javascript; charset=utf-8', source: 'src/dashboard/client/live.ts' },
  { name: 'favicon', ext: 'svg', type: 'image/svg+xml', source: 'src/dashboard/favicon.svg' },
] as const

/** Bundles every asset from the sources under `root` (the repository's top folder). */
export async function bundleAssets(root: string): Promise<Asset[]> {
  return Promise.all(
    ENTRIES.map(async (e) => {
      if (e.ext === 'svg') return named(e, readFileSync(join(root, e.source), 'utf8').trim())
      const out = await build({
        entryPoints: [join(root, e.source)],
        bundle: true,
        minify: true,
        format: e.ext === 'js' ? 'iife' : undefined,
        target: 'es2020',
        write: false,
        legalComments: 'none',
        logLevel: 'silent',
      })
      return named(e, out.outputFiles[0]!.text)
    }),
  )
}

function named(e: (typeof ENTRIES)[number], body: string): Asset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12)
  return { path: `/assets/${e.name}.${hash}.${e.ext}`, type: e.type, body }
}

/** Replaces `dir` with the bundled assets and their manifest.json; returns the manifest. */
export async function writeAssets(root: string, dir: string): Promise<Manifest> {
  const assets = await bundleAssets(root)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const manifest: Manifest = { assets: [] }
  for (const a of assets) {
    const file = a.path.slice('/assets/'.length)
    writeFileSync(join(dir, file), a.body)
    manifest.assets.push({ path: a.path, type: a.type, file })
  }
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n')
  return manifest
}
