// The OpenAI-compatible HTTP embedder against a real HTTP server started here (test/helpers/
// embedder.ts): batching, order, retries with backoff on failures that may pass, Retry-After,
// timeouts, and errors that name the setting to fix.
import t from 'tap'
import type { Test } from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { EmbedderError } from '../../src/search/embed/embedder.js'
import { HttpEmbedder, type HttpEmbedderOptions } from '../../src/search/embed/openai.js'
import { TEST_DIMS, TEST_MODEL, startTestEmbedder, trigramVector } from '../helpers/embedder.js'

const base = (url: string, more: Partial<HttpEmbedderOptions> = {}): HttpEmbedderOptions => ({
  url,
  model: TEST_MODEL,
  timeoutMs: 2000,
  batch: 4,
  retries: 3,
  backoffMs: 5,
  ...more,
})

async function failure(t: Test, p: Promise<unknown>): Promise<EmbedderError> {
  try {
    await p
  } catch (err) {
    t.ok(err instanceof EmbedderError, 'an EmbedderError')
    return err as EmbedderError
  }
  t.fail('expected a failure')
  throw new Error('unreachable')
}

t.test('vectors in input order, in batches of EMBEDDER_BATCH, with the dimension learnt', async (t) => {
  const server = await startTestEmbedder()
  t.teardown(() => server.close())
  const e = new HttpEmbedder(base(server.url))
  t.equal(e.dimensions, undefined)
  const texts = ['alpha', 'beta gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda']
  const out = await e.embed(texts)
  t.equal(out.length, 10)
  t.equal(server.stats.requests, 3, '10 texts in batches of 4: 3 requests')
  t.same(
    [...out[1]!].map((x) => Math.round(x * 1e5)),
    trigramVector('beta gamma').map((x) => Math.round(x * 1e5)),
    'each text gets its own vector',
  )
  t.equal(e.dimensions, TEST_DIMS)
  t.equal(
    new HttpEmbedder(base(`${server.url}/embeddings`)).endpoint,
    `${server.url}/embeddings`,
    'a full …/embeddings URL is taken as it is',
  )
})

t.test('failures that may pass are retried with backoff, honouring Retry-After', async (t) => {
  const server = await startTestEmbedder()
  t.teardown(() => server.close())
  server.failNext(2, 503)
  const out = await new HttpEmbedder(base(server.url)).embed(['a'])
  t.equal(out.length, 1, 'answered after two 503s')
  t.equal(server.stats.refused, 2)
  server.failNext(1, 429, 1)
  const started = Date.now()
  await new HttpEmbedder(base(server.url)).embed(['b'])
  t.ok(Date.now() - started >= 900, 'waited for Retry-After: 1')
  server.failNext(10, 500)
  const e = await failure(t, new HttpEmbedder(base(server.url, { retries: 2 })).embed(['c']))
  t.equal(e.retryable, true)
  t.equal(e.status, 500)
  t.equal(server.stats.refused, 2 + 1 + 3, 'one attempt and two retries, then the failure')
})

t.test('misconfigurations fail at once, naming the setting', async (t) => {
  const server = await startTestEmbedder({ apiKey: 'sk-right' })
  t.teardown(() => server.close())
  const key = await failure(t, new HttpEmbedder(base(server.url, { apiKey: 'sk-wrong' })).embed(['a']))
  t.equal(key.setting, 'EMBEDDER_API_KEY')
  t.equal(key.retryable, false)
  t.match(key.message, /401.*EMBEDDER_API_KEY/)
  const model = await failure(
    t,
    new HttpEmbedder(base(server.url, { apiKey: 'sk-right', model: 'no-such-model' })).embed(['a']),
  )
  t.equal(model.setting, 'EMBEDDER_MODEL')
  t.match(model.message, /no-such-model/)
  const url = await failure(
    t,
    new HttpEmbedder(base(server.url.replace('/v1', '/v2'), { apiKey: 'sk-right' })).embed(['a']),
  )
  t.equal(url.setting, 'EMBEDDER_URL')
  t.match(url.message, /API base/)
  t.equal(
    (await new HttpEmbedder(base(server.url, { apiKey: 'sk-right', dimensions: 64 })).embed(['a']))[0]!.length,
    64,
    'EMBEDDER_DIMENSIONS is asked for',
  )
  t.equal(server.stats.refused, 0, 'none of these was retried')
  const fixed = await startTestEmbedder({ ignoreDimensions: true })
  t.teardown(() => fixed.close())
  const dims = await failure(t, new HttpEmbedder(base(fixed.url, { dimensions: 64 })).embed(['a']))
  t.equal(dims.setting, 'EMBEDDER_DIMENSIONS', 'a model that gives another size than the one set is caught')
  t.match(dims.message, /256 dimensions; EMBEDDER_DIMENSIONS is 64/)
})

t.test('an embedder that is down or hangs fails clearly, after its retries', async (t) => {
  const server = await startTestEmbedder()
  await server.close()
  const down = await failure(t, new HttpEmbedder(base(server.url, { retries: 1 })).embed(['a']))
  t.equal(down.setting, 'EMBEDDER_URL')
  t.equal(down.retryable, true)
  t.match(down.message, /unreachable.*ECONNREFUSED/)
  const hang = createServer(() => undefined)
  await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r))
  t.teardown(() => {
    hang.closeAllConnections()
    hang.close()
  })
  const url = `http://127.0.0.1:${(hang.address() as AddressInfo).port}/v1`
  const slow = await failure(t, new HttpEmbedder(base(url, { timeoutMs: 150, retries: 0 })).embed(['a']))
  t.equal(slow.setting, 'EMBEDDER_TIMEOUT_MS')
  t.match(slow.message, /did not answer within 150 ms/)
})

t.test('an answer that is not an embeddings answer is refused', async (t) => {
  const odd = createServer((req, res) => {
    req.resume()
    req.on('end', () =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [{ embedding: 'nope' }] })),
    )
  })
  await new Promise<void>((r) => odd.listen(0, '127.0.0.1', r))
  t.teardown(() => odd.close())
  const e = await failure(
    t,
    new HttpEmbedder(base(`http://127.0.0.1:${(odd.address() as AddressInfo).port}/v1`)).embed(['a']),
  )
  t.match(e.message, /not an array of numbers/)
  t.equal(e.retryable, false)
})
