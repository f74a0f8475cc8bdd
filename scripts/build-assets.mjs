// The second half of `npm run build`, after tsc: bundles the dashboard's stylesheet and script
// into dist/assets with their manifest (src/dashboard/bundle.ts, as tsc just compiled it), which
// the compiled node serves.
/* global console */
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { writeAssets } from '../dist/src/dashboard/bundle.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

const manifest = await writeAssets(root, join(root, 'dist', 'assets'))
console.log(`agentrooms: dashboard assets built: ${manifest.assets.map((a) => a.file).join(', ')}`)
