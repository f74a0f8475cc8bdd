import t from 'tap'
import { SETTINGS, defaultSettings, heldInMs, loadSettings } from '../../src/config.js'

t.test('defaults match docs/configuration.md', async (t) => {
  const s = defaultSettings()
  t.equal(s.roomTtlMs, 30 * 86_400_000)
  t.equal(s.contextBodyBytes, 64 * 1024)
  t.equal(s.eventTextBytes, 4096)
  t.equal(s.eventDataBytes, 8192)
  t.equal(s.varValueBytes, 1024)
  t.equal(s.tasksPerRoom, 2000)
  t.equal(s.contextPerRoom, 1000)
  t.equal(s.varsPerRoom, 256)
  t.equal(s.eventsRetained, 10_000)
  t.equal(s.contextHistory, 20)
  t.equal(s.presenceTtlMs, 60_000)
})

t.test('environment values are parsed and bad ones are all reported by name', async (t) => {
  t.equal(loadSettings({ ROOM_TTL_S: '5' }).roomTtlMs, 5000, 'seconds in the environment, milliseconds in code')
  t.throws(
    () => loadSettings({ ROOM_TTL_S: 'soon', LIMIT_TASKS_PER_ROOM: '0' }),
    /ROOM_TTL_S[\s\S]*LIMIT_TASKS_PER_ROOM/,
  )
  t.throws(
    () => loadSettings({ LOCK_TTL_DEFAULT_S: '100', LOCK_TTL_MAX_S: '10' }),
    /LOCK_TTL_DEFAULT_S must not exceed/,
  )
})

t.test('durations: seconds in the environment, milliseconds in code under a name ending in Ms', async (t) => {
  for (const [name, row] of Object.entries(SETTINGS)) {
    if (heldInMs(row))
      t.ok(name.endsWith('Ms') && row.env.endsWith('_S'), `${row.env} (${row.unit}) is held as ${name}`)
    else if (name.endsWith('Ms')) t.equal(row.unit, 'ms', `${name}: ${row.env} is in ms too`)
  }
  t.equal(loadSettings({ PRESENCE_TTL_S: '5' }).presenceTtlMs, 5000)
  t.same(
    loadSettings({ WEBHOOK_RETRY_SCHEDULE_S: '0.2,5' }).webhookRetryScheduleMs,
    [200, 5000],
    'a fraction of a second in the list',
  )
  t.throws(() => loadSettings({ PRESENCE_TTL_S: '0.5' }), /PRESENCE_TTL_S/, 'whole seconds in the environment')
  t.throws(() => loadSettings({ PRESENCE_TTL_S: '86401' }), /PRESENCE_TTL_S: .*86400/, 'bounds said in seconds')
  t.equal(defaultSettings({ presenceTtlMs: 300 }).presenceTtlMs, 300, 'a test may set less than a second')
})

t.test('every setting has a distinct environment name and a description', async (t) => {
  const envs = Object.values(SETTINGS).map((r) => r.env)
  t.equal(new Set(envs).size, envs.length)
  for (const r of Object.values(SETTINGS)) t.ok(r.doc.length > 10, r.env)
})

t.test(
  'semantic search settings: EMBEDDER_URL needs EMBEDDER_MODEL, not with MEILI_URL, text within the indexed bytes',
  async (t) => {
    t.equal(loadSettings({}).embedderUrl, undefined, 'off by default')
    const on = loadSettings({ EMBEDDER_URL: 'http://localhost:11434/v1', EMBEDDER_MODEL: 'nomic-embed-text' })
    t.match(on, {
      embedderModel: 'nomic-embed-text',
      embedderBatch: 64,
      embedderTimeoutMs: 10_000,
      searchVectorsPerRoom: 5000,
      searchVectorSets: 'off',
    })
    t.throws(
      () => loadSettings({ EMBEDDER_URL: 'http://localhost:11434/v1' }),
      /EMBEDDER_MODEL: required with EMBEDDER_URL/,
    )
    t.throws(
      () => loadSettings({ EMBEDDER_URL: 'http://x/v1', EMBEDDER_MODEL: 'm', MEILI_URL: 'http://m:7700' }),
      /EMBEDDER_URL: not used with MEILI_URL.*MEILI_EMBEDDER_SOURCE/,
    )
    t.throws(
      () => loadSettings({ EMBEDDER_URL: 'http://x/v1', EMBEDDER_MODEL: 'm', EMBEDDER_TEXT_CHARS: '8000' }),
      /EMBEDDER_TEXT_CHARS: at most a third of SEARCH_FIELD_BYTES \(5461\)/,
    )
    t.throws(() => loadSettings({ SEARCH_VECTOR_SETS: 'yes' }), /SEARCH_VECTOR_SETS/)
  },
)
