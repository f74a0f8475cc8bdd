// The dashboard's assets: the stylesheet is the .css files under src/dashboard/css bundled in
// app.css's order, the script is client/live.ts, each minified and named by the hash of its
// content, and the favicon as it is; `npm run build`'s writer puts exactly those bytes and a
// manifest in its folder; the node run from the sources serves the same bundle; no page carries
// CSS of its own.
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ASSETS, FAVICON, LIVE_SCRIPT, STYLESHEET } from '../../src/dashboard/assets.js'
import { bundleAssets, writeAssets, type Manifest } from '../../src/dashboard/bundle.js'

const root = process.cwd()
const cssDir = join(root, 'src', 'dashboard', 'css')

t.test('the stylesheet bundles every imported .css file, in order, minified', async (t) => {
  const imports = [...readFileSync(join(cssDir, 'app.css'), 'utf8').matchAll(/@import '\.\/([^']+)'/g)].map((m) => m[1])
  t.same(
    [...imports].sort(),
    readdirSync(cssDir)
      .filter((f) => f.endsWith('.css') && f !== 'app.css')
      .sort(),
    'app.css imports every other .css file of the folder',
  )
  const [css] = await bundleAssets(root)
  t.match(css!.path, /^\/assets\/app\.[0-9a-f]{12}\.css$/)
  t.equal(css!.type, 'text/css; charset=utf-8')
  t.notMatch(css!.body, '@import', 'the imports are inlined')
  t.notMatch(css!.body, /\n {2}/, 'and minified')
  // The first rule of each file, as esbuild writes it, appears in the bundle in app.css's order.
  let at = -1
  for (const file of imports) {
    const first = /^([^{/][^{]*)\{/m
      .exec(readFileSync(join(cssDir, file!), 'utf8').replace(/\/\*[\s\S]*?\*\//g, ''))![1]!
      .trim()
    const selector = first.split(/\s*,\s*/)[0]!.replace(/\s+/g, ' ')
    const found = css!.body.indexOf(selector, at + 1)
    t.ok(found > at, `${file}'s rules come after the files before it (${selector})`)
    at = found
  }
  t.equal(
    css!.path,
    `/assets/app.${createHash('sha256').update(css!.body).digest('hex').slice(0, 12)}.css`,
    'the name is the hash of the content',
  )
})

t.test('the build writes the bundled bytes and a manifest naming them', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ar-assets-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const manifest = await writeAssets(root, dir)
  t.same(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest, manifest)
  const built = await bundleAssets(root)
  t.same(
    manifest.assets.map((a) => ({ path: a.path, type: a.type, body: readFileSync(join(dir, a.file), 'utf8') })),
    built,
    'each file holds the asset its manifest entry serves',
  )
  t.same(readdirSync(dir).sort(), ['manifest.json', ...manifest.assets.map((a) => a.file)].sort(), 'and nothing else')
})

t.test('the node run from the sources serves the same bundle', async (t) => {
  t.same(ASSETS, await bundleAssets(root))
  t.match(STYLESHEET.path, /\.css$/)
  t.match(LIVE_SCRIPT.path, /\.js$/)
  t.match(FAVICON.path, /^\/assets\/favicon\.[0-9a-f]{12}\.svg$/)
  t.equal(FAVICON.type, 'image/svg+xml')
  t.equal(FAVICON.body, readFileSync(join(root, 'src', 'dashboard', 'favicon.svg'), 'utf8').trim(), 'the icon as it is')
  t.match(LIVE_SCRIPT.body, /^("use strict";)?\(\(\)=>\{[\s\S]*\}\)\(\);\n?$/, 'the script is one minified IIFE')
})

t.test('no page module carries CSS: no style attribute, no <style> element', async (t) => {
  const dir = join(root, 'src', 'dashboard')
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tsx?$/.test(f))
  t.ok(files.length > 10)
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8')
    t.notMatch(text, /\sstyle=\{|<style[\s>]|style="/, `${f} has no inline style`)
  }
})
