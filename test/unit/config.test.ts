import t from 'tap'
import { SETTINGS, defaultSettings, loadSettings } from '../../src/config.js'

t.test('defaults match DESIGN.md §3', async (t) => {
  const s = defaultSettings()
  t.equal(s.roomTtlS, 30 * 86400)
  t.equal(s.contextBodyBytes, 64 * 1024)
  t.equal(s.eventTextBytes, 4096)
  t.equal(s.eventDataBytes, 8192)
  t.equal(s.varValueBytes, 1024)
  t.equal(s.tasksPerRoom, 2000)
  t.equal(s.contextPerRoom, 1000)
  t.equal(s.varsPerRoom, 256)
  t.equal(s.eventsRetained, 10_000)
  t.equal(s.contextHistory, 20)
  t.equal(s.presenceTtlS, 60)
})

t.test('environment values are parsed and bad ones are all reported by name', async (t) => {
  t.equal(loadSettings({ ROOM_TTL_S: '5' }).roomTtlS, 5)
  t.throws(() => loadSettings({ ROOM_TTL_S: 'soon', LIMIT_TASKS_PER_ROOM: '0' }), /ROOM_TTL_S[\s\S]*LIMIT_TASKS_PER_ROOM/)
  t.throws(() => loadSettings({ LOCK_TTL_DEFAULT_S: '100', LOCK_TTL_MAX_S: '10' }), /LOCK_TTL_DEFAULT_S must not exceed/)
})

t.test('every setting has a distinct environment name and a description', async (t) => {
  const envs = Object.values(SETTINGS).map((r) => r.env)
  t.equal(new Set(envs).size, envs.length)
  for (const r of Object.values(SETTINGS)) t.ok(r.doc.length > 10, r.env)
})
