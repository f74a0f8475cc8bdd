// Settings, read once from the environment and validated with zod. Every setting has one row in
// SETTINGS (environment name, type, default, unit, description); docs/configuration.md is checked
// against this table by a test, so the two cannot drift apart.
//
// Durations are milliseconds in code, whatever unit their environment variable takes: a setting
// whose variable is in seconds (unit "s" or "s list", e.g. PRESENCE_TTL_S) is read and checked in
// seconds and held in milliseconds under a name ending in Ms (presenceTtlMs). Operators keep whole
// seconds; a test sets a TTL of a few hundred milliseconds through the code name
// (defaultSettings({ lockTtlDefaultMs: 300 })) and waits for the expiry instead of for seconds.
import type { z } from 'zod'
import { ACCOUNT_SETTINGS } from './config/accounts.js'
import { SERVING_SETTINGS } from './config/serving.js'
import { REDIS_SETTINGS } from './config/redis.js'
import { ROOM_SETTINGS } from './config/rooms.js'
import { heldInMs, type Row } from './config/row.js'
import { SEARCH_SETTINGS } from './config/search.js'
import { WEBHOOK_SETTINGS } from './config/webhooks.js'

export { heldInMs }

/**
 * The settings table, one row per setting, in the order docs/configuration.md lists them. Keys
 * are the names used in code; `env` is the environment variable. The rows live in src/config/,
 * one file per part of the service that reads them.
 */
export const SETTINGS = {
  ...REDIS_SETTINGS,
  ...ROOM_SETTINGS,
  ...SERVING_SETTINGS,
  ...SEARCH_SETTINGS,
  ...WEBHOOK_SETTINGS,
  ...ACCOUNT_SETTINGS,
} as const satisfies Record<string, Row>

type SettingsShape = typeof SETTINGS
export type Settings = { [K in keyof SettingsShape]: z.output<SettingsShape[K]['schema']> }

/**
 * Reads settings from `env` (default: process.env). Throws one error that lists every bad
 * variable with what it expects, so an operator fixes them all at once.
 */
export function loadSettings(env: Record<string, string | undefined> = process.env): Settings {
  const out: Record<string, unknown> = {}
  const problems: string[] = []
  for (const [name, row] of Object.entries(SETTINGS) as [string, Row][]) {
    const raw = env[row.env]
    const parsed = row.schema.safeParse(raw === '' ? undefined : raw)
    if (parsed.success) out[name] = parsed.data
    else
      problems.push(`${row.env}: ${parsed.error.issues.map((i) => i.message).join('; ')} (got ${JSON.stringify(raw)})`)
  }
  if (problems.length > 0) throw new Error(`invalid settings:\n  ${problems.join('\n  ')}`)
  const s = out as Settings
  if (s.lockTtlDefaultMs > s.lockTtlMaxMs)
    throw new Error('invalid settings:\n  LOCK_TTL_DEFAULT_S must not exceed LOCK_TTL_MAX_S')
  if (s.oidcIssuer && (!s.oidcClientId || !s.oidcClientSecret))
    throw new Error('invalid settings:\n  OIDC_ISSUER needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET')
  if (s.githubClientId && !s.githubClientSecret)
    throw new Error('invalid settings:\n  GITHUB_CLIENT_ID needs GITHUB_CLIENT_SECRET')
  const embedder = embedderProblem(s)
  if (embedder) throw new Error(`invalid settings:\n  ${embedder}`)
  return s
}

/** What is wrong with the semantic search settings of the Redis engine, if anything. */
export function embedderProblem(s: Settings): string | undefined {
  if (!s.embedderUrl) return undefined
  if (!s.embedderModel) return 'EMBEDDER_MODEL: required with EMBEDDER_URL (the embedding model, e.g. nomic-embed-text)'
  if (s.meiliUrl)
    return 'EMBEDDER_URL: not used with MEILI_URL; Meilisearch embeds by itself (set MEILI_EMBEDDER_SOURCE instead)'
  if (s.embedderTextChars * 3 > s.searchFieldBytes)
    return (
      `EMBEDDER_TEXT_CHARS: at most a third of SEARCH_FIELD_BYTES (${Math.floor(s.searchFieldBytes / 3)}), so ` +
      `the text embedded is the text indexed`
    )
  return undefined
}

/** Settings with every default, for tests and tools; `overrides` use code names. */
export function defaultSettings(overrides: Partial<Settings> = {}): Settings {
  return { ...loadSettings({}), ...overrides }
}
