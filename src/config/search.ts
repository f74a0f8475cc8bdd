// Search: the Redis engine's index and cache, Meilisearch, and the embedder of semantic search.
// Rows of the settings table (src/config.ts); read by src/search (src/search/settings.ts
// SearchSettings).
import { z } from 'zod'
import { int, seconds, type Row } from './row.js'

export const SEARCH_SETTINGS = {
  searchFieldBytes: {
    env: 'SEARCH_FIELD_BYTES',
    schema: int(256, 1024 * 1024, 16 * 1024),
    unit: 'bytes',
    doc:
      'Redis search engine: the leading bytes of each task notes and context body that are indexed (titles, ' +
      "keys and event texts are indexed whole). Bounds a room's index; Meilisearch indexes everything.",
  },
  searchCacheMb: {
    env: 'SEARCH_CACHE_MB',
    schema: int(1, 64 * 1024, 256),
    unit: 'MiB',
    doc:
      'Redis search engine: memory the room indexes of a node may take, counted as two bytes per indexed ' +
      'character (close to the heap measured, BENCHMARKS.md); the rooms searched least recently are dropped ' +
      'first.',
  },
  searchCacheIdleMs: {
    env: 'SEARCH_CACHE_IDLE_S',
    schema: seconds(1, 86_400, 600),
    unit: 's',
    doc: "Redis search engine: a room's index not searched for this long is dropped from the node.",
  },
  meiliUrl: {
    env: 'MEILI_URL',
    schema: z.string().url().optional(),
    unit: 'URL',
    doc:
      'Meilisearch server, e.g. http://meilisearch:7700. When set, search uses Meilisearch (and the node runs ' +
      'its indexer); unset, the Redis search engine.',
  },
  meiliApiKey: {
    env: 'MEILI_API_KEY',
    schema: z.string().min(1).optional(),
    unit: 'secret',
    doc: 'Meilisearch API key allowed to manage the index (settings, documents, search), e.g. the master key.',
  },
  meiliIndex: {
    env: 'MEILI_INDEX',
    schema: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,400}$/, 'must be letters, digits, "_" or "-"')
      .optional(),
    unit: 'index uid',
    doc: 'The one Meilisearch index of this deployment. Unset: "<KEY_PREFIX>-records".',
  },
  meiliEmbedderSource: {
    env: 'MEILI_EMBEDDER_SOURCE',
    schema: z.enum(['openAi', 'ollama', 'huggingFace']).optional(),
    unit: 'name',
    doc:
      'Meilisearch embedder for semantic search (search with semantic: true): openAi, ollama or huggingFace. ' +
      'Unset: semantic search is disabled. openAi also serves OpenAI-compatible endpoints (MEILI_EMBEDDER_URL).',
  },
  meiliEmbedderUrl: {
    env: 'MEILI_EMBEDDER_URL',
    schema: z.string().url().optional(),
    unit: 'URL',
    doc:
      'Embedding endpoint, e.g. http://ollama:11434/api/embed or an OpenAI-compatible https://…/v1/embeddings. ' +
      "Unset: the source's default.",
  },
  meiliEmbedderModel: {
    env: 'MEILI_EMBEDDER_MODEL',
    schema: z.string().min(1).optional(),
    unit: 'name',
    doc: 'Embedding model, e.g. text-embedding-3-small, nomic-embed-text, BAAI/bge-base-en-v1.5.',
  },
  meiliEmbedderApiKey: {
    env: 'MEILI_EMBEDDER_API_KEY',
    schema: z.string().min(1).optional(),
    unit: 'secret',
    doc: 'API key Meilisearch sends to the embedding endpoint.',
  },
  meiliEmbedderDimensions: {
    env: 'MEILI_EMBEDDER_DIMENSIONS',
    schema: z.coerce.number().int().min(1).max(65_536).optional(),
    unit: 'dimensions',
    doc: 'Embedding size, when the model needs it said (OpenAI text-embedding-3 models accept a smaller one).',
  },
  searchSemanticRatio: {
    env: 'SEARCH_SEMANTIC_RATIO',
    schema: z.coerce.number().min(0).max(1).default(0.5),
    unit: 'fraction',
    doc: 'Share of meaning over wording in semantic (hybrid) search: 0 is lexical only, 1 semantic only.',
  },
  searchSweepMs: {
    env: 'SEARCH_SWEEP_S',
    schema: seconds(1, 86_400, 60),
    unit: 's',
    doc:
      'Meilisearch indexer: how often one node compares every room with its indexed position and deletes the ' +
      'documents of rooms that expired (the backstop for a change whose mark was lost in a crash).',
  },
  embedderUrl: {
    env: 'EMBEDDER_URL',
    schema: z.string().url().optional(),
    unit: 'URL',
    doc:
      'Redis search engine: an OpenAI-compatible embeddings API (its base, e.g. http://localhost:11434/v1 for ' +
      'Ollama or https://api.openai.com/v1, or the full …/embeddings URL). Set with EMBEDDER_MODEL, it turns ' +
      'on semantic search (search with semantic: true); unset, semantic search is off. Not with MEILI_URL ' +
      '(Meilisearch has MEILI_EMBEDDER_*).',
  },
  embedderModel: {
    env: 'EMBEDDER_MODEL',
    schema: z.string().min(1).max(200).optional(),
    unit: 'name',
    doc:
      'The embedding model, e.g. nomic-embed-text (Ollama), text-embedding-3-small (OpenAI). Vectors of ' +
      'another model are made again when it changes.',
  },
  embedderApiKey: {
    env: 'EMBEDDER_API_KEY',
    schema: z.string().min(1).optional(),
    unit: 'secret',
    doc: 'Sent as "Authorization: Bearer <key>" to EMBEDDER_URL (OpenAI needs one; Ollama does not).',
  },
  embedderDimensions: {
    env: 'EMBEDDER_DIMENSIONS',
    schema: z.coerce.number().int().min(1).max(8192).optional(),
    unit: 'dimensions',
    doc:
      'Vector size asked of the model (OpenAI text-embedding-3 models take a smaller one) and checked on every ' +
      "answer. Unset: the model's own.",
  },
  embedderTimeoutMs: {
    env: 'EMBEDDER_TIMEOUT_MS',
    schema: int(100, 300_000, 10_000),
    unit: 'ms',
    doc: 'One embeddings request that takes longer fails (and is retried, see EMBEDDER_RETRIES).',
  },
  embedderBatch: {
    env: 'EMBEDDER_BATCH',
    schema: int(1, 2048, 64),
    unit: 'texts',
    doc: 'Texts sent in one embeddings request.',
  },
  embedderRetries: {
    env: 'EMBEDDER_RETRIES',
    schema: int(0, 10, 3),
    unit: 'attempts',
    doc:
      'Further attempts of a request that failed in a way that may pass (unreachable, timed out, 408, 429, ' +
      "5xx), with exponential backoff from 250 ms and Retry-After honoured. A search's own query makes one " +
      'further attempt at most.',
  },
  embedderTextChars: {
    env: 'EMBEDDER_TEXT_CHARS',
    schema: int(100, 20_000, 2000),
    unit: 'characters',
    doc:
      'Leading characters of a record that are embedded: task title and notes, context type, key and body, ' +
      "event text. Keep it within the model's input (about 500 tokens by default); at most a third of " +
      'SEARCH_FIELD_BYTES.',
  },
  searchVectorsPerRoom: {
    env: 'SEARCH_VECTORS_PER_ROOM',
    schema: int(1, 100_000, 5000),
    unit: 'vectors',
    doc:
      'Records of one room with a vector: tasks and context entries first (most recently changed first), then ' +
      'the newest events; the rest are found by words only.',
  },
  searchVectorSets: {
    env: 'SEARCH_VECTOR_SETS',
    schema: z.enum(['auto', 'off']).default('off'),
    unit: 'auto | off',
    doc:
      "off: nodes rank a room's vectors in process. auto: when every Redis master has vector sets (Redis 8 " +
      'VADD/VSIM, checked at start with COMMAND INFO), vectors are also kept in one per room and searched ' +
      "there with VSIM's exact mode (TRUTH), else in process. The same answers either way; auto costs Redis's " +
      'main thread about ten times the CPU per semantic query (a scan of the room) and per vector written ' +
      '(docs/search.md).',
  },
} as const satisfies Record<string, Row>
