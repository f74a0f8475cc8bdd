// Chooses the search engine from the settings: Meilisearch when MEILI_URL is set (its indexer runs
// on every node), else the Redis engine, with semantic search when EMBEDDER_URL is set (its vector
// indexer then runs on every node). Both implement SearchEngine (engine.ts).
import type { SearchSettings } from './settings.js'
import type { Hub } from '../realtime/hub.js'
import type { Store } from '../store/store.js'
import { createEmbedder } from './embed/index.js'
import type { SearchEngine } from './engine.js'
import type { IndexerOptions } from './indexer.js'
import { MeiliSearchEngine } from './meili/engine.js'
import { RedisSearchEngine } from './redis/engine.js'

export function createSearchEngine(
  store: Store,
  hub: Hub,
  settings: SearchSettings,
  log?: IndexerOptions['log'],
): SearchEngine {
  if (!settings.meiliUrl) {
    const embedder = createEmbedder(settings)
    return new RedisSearchEngine(store, hub, settings, embedder ? { embedder, indexer: { log } } : {})
  }
  return new MeiliSearchEngine(store, settings, new RedisSearchEngine(store, hub, settings), { log })
}

export type { SearchAnswer, SearchEngine, SearchHit, SearchInput, SearchKind, SearchStatus } from './engine.js'
