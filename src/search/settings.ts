// The settings search reads: the room limits that bound what it indexes, the Redis engine's
// index and cache, Meilisearch, and the embedder of semantic search (durations in milliseconds).
// The composition root's Settings (src/config.ts, documented in docs/configuration.md) has every
// one of them under the same name; search declares only what it uses, so it never imports the root.

export interface SearchSettings {
  keyPrefix: string
  roomTtlMs: number
  eventsRetained: number
  contextBodyBytes: number
  eventTextBytes: number
  eventDataBytes: number
  taskNotesBytes: number
  searchFieldBytes: number
  searchCacheMb: number
  searchCacheIdleMs: number
  searchSemanticRatio: number
  searchSweepMs: number
  searchVectorsPerRoom: number
  searchVectorSets: 'auto' | 'off'
  meiliUrl?: string | undefined
  meiliApiKey?: string | undefined
  meiliIndex?: string | undefined
  meiliEmbedderSource?: 'openAi' | 'ollama' | 'huggingFace' | undefined
  meiliEmbedderUrl?: string | undefined
  meiliEmbedderModel?: string | undefined
  meiliEmbedderApiKey?: string | undefined
  meiliEmbedderDimensions?: number | undefined
  embedderUrl?: string | undefined
  embedderModel?: string | undefined
  embedderApiKey?: string | undefined
  embedderDimensions?: number | undefined
  embedderTimeoutMs: number
  embedderBatch: number
  embedderRetries: number
  embedderTextChars: number
}
