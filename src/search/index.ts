// Chooses the search engine from the settings: Meilisearch when MEILI_URL is set (its indexer runs
// on every node), else the Redis engine. Both implement SearchEngine (engine.ts).
import type { Settings } from '../config.js'
import type { Hub } from '../realtime/hub.js'
import type { Store } from '../store/store.js'
import type { SearchEngine } from './engine.js'
import type { IndexerOptions } from './meili/indexer.js'
import { MeiliSearchEngine } from './meili/engine.js'
import { RedisSearchEngine } from './redis/engine.js'

export function createSearchEngine(store: Store, hub: Hub, settings: Settings, log?: IndexerOptions['log']): SearchEngine {
  const redis = new RedisSearchEngine(store, hub, settings)
  if (!settings.meiliUrl) return redis
  return new MeiliSearchEngine(store, settings, redis, { log })
}

export type { SearchAnswer, SearchEngine, SearchHit, SearchInput, SearchKind } from './engine.js'
