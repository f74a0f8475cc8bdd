// The dashboard's static assets, served by every node under fingerprinted names (the hash of the
// content is in the name, so they are cached for a year and a change is a new name). No CDN, no
// inline style or script: the pages' CSP allows only 'self'. The compiled node (dist/) serves what
// `npm run build` wrote to dist/assets and never runs esbuild; a node run from the TypeScript
// sources bundles them in memory when this module loads (bundle.ts).
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Asset, Manifest } from './bundle.js'

export type { Asset } from './bundle.js'

const fromSources = import.meta.url.endsWith('.ts')

async function load(): Promise<Asset[]> {
  if (fromSources) {
    const { bundleAssets } = await import('./bundle.js')
    return bundleAssets(fileURLToPath(new URL('../../', import.meta.url)))
  }
  const dir = fileURLToPath(new URL('../../assets/', import.meta.url))
  const file = `${dir}manifest.json`
  if (!existsSync(file)) {
    throw new Error(`the dashboard's assets are not built (${file} is missing): run \`npm run build\``)
  }
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest
  return manifest.assets.map((a) => ({ path: a.path, type: a.type, body: readFileSync(dir + a.file, 'utf8') }))
}

export const ASSETS: readonly Asset[] = await load()

function named(ext: string): Asset {
  const asset = ASSETS.find((a) => a.path.endsWith(`.${ext}`))
  if (!asset) throw new Error(`the dashboard's assets have no .${ext} file`)
  return asset
}

/** The one stylesheet of every page (css/app.css). */
export const STYLESHEET = named('css')
/**
 * The pages' one script: live updates of the room page, copy buttons, lock countdowns, forms that
 * say they are sending (client/live.ts).
 */
export const LIVE_SCRIPT = named('js')
/** The favicon (favicon.svg), linked from every page; `/favicon.ico` redirects to it (web.ts). */
export const FAVICON = named('svg')
