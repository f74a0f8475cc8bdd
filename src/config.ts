// Settings, read once from the environment and validated with zod. Every setting has one row in
// SETTINGS (environment name, type, default, unit, description); docs/configuration.md is checked
// against this table by a test, so the two cannot drift apart.
//
// Durations are milliseconds in code, whatever unit their environment variable takes: a setting
// whose variable is in seconds (unit "s" or "s list", e.g. PRESENCE_TTL_S) is read and checked in
// seconds and held in milliseconds under a name ending in Ms (presenceTtlMs). Operators keep whole
// seconds; a test sets a TTL of a few hundred milliseconds through the code name
// (defaultSettings({ lockTtlDefaultMs: 300 })) and waits for the expiry instead of for seconds.
import { z } from 'zod'

type Row = { env: string; schema: z.ZodType; unit: string; doc: string }

const int = (min: number, max: number, dflt: number) => z.coerce.number().int().min(min).max(max).default(dflt)
/** Whole seconds in the environment (bounds and default in seconds), milliseconds in code. */
const seconds = (min: number, max: number, dflt: number) => int(min, max, dflt).transform((s) => s * 1000)

/** Whether a row's variable is in seconds while the code holds milliseconds (see the header). */
export const heldInMs = (row: { unit: string }): boolean => row.unit === 's' || row.unit === 's list'

/** The settings table. Keys are the names used in code; `env` is the environment variable. */
export const SETTINGS = {
  redisUrl: {
    env: 'REDIS_URL',
    schema: z.string().url().optional(),
    unit: 'URL',
    doc: 'Standalone Redis, e.g. redis://:password@host:6379/0. Unset (and no REDIS_CLUSTER_NODES): the Redis at LOCAL_REDIS.',
  },
  redisClusterNodes: {
    env: 'REDIS_CLUSTER_NODES',
    schema: z.string().optional(),
    unit: 'host:port list',
    doc: 'Comma-separated seed nodes of a Redis Cluster. When set, REDIS_URL is ignored and Cluster mode is used.',
  },
  redisPassword: {
    env: 'REDIS_PASSWORD',
    schema: z.string().optional(),
    unit: 'secret',
    doc: 'Password for Redis Cluster nodes (standalone takes it in REDIS_URL).',
  },
  redisAutoPipelining: {
    env: 'REDIS_AUTO_PIPELINING',
    schema: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
    unit: 'boolean',
    doc: 'Whether ioredis holds the commands of one event-loop turn and writes them together. Off by default: measured on loopback, holding them makes Redis wait while the node handles the whole turn, so the two take turns instead of working at once (post_event 11.8k -> 15.0k calls/s without it, same node CPU per call; BENCHMARKS.md). Worth trying on when Redis is across a network and packets cost more than latency. When on, scripts are sent through ioredis\' own script commands, which cost the node more per call than the ready frames used otherwise (src/store/evalsha.ts).',
  },
  localRedis: {
    env: 'LOCAL_REDIS',
    // An IPv6 address in brackets, as in a URL: "[::1]:6379" (src/ops/local-redis.ts strips them).
    schema: z.string().regex(/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}$/, 'must look like "127.0.0.1:6379" or "[::1]:6379"').default('127.0.0.1:6379'),
    unit: 'host:port',
    doc: 'Used only when REDIS_URL and REDIS_CLUSTER_NODES are unset: the node uses the Redis answering here, or, when none answers and this is a loopback address, starts redis-server itself on it (data in DATA_DIR) and stops it when the node stops.',
  },
  dataDir: {
    env: 'DATA_DIR',
    schema: z.string().min(1).default('data'),
    unit: 'path',
    doc: 'Folder (relative to the working directory) of the redis-server a node starts itself: append-only file, RDB snapshot, log.',
  },
  keyPrefix: {
    env: 'KEY_PREFIX',
    schema: z.string().regex(/^[a-z][a-z0-9_-]{0,15}$/).default('ar'),
    unit: 'string',
    doc: 'Prefix of every Redis key and channel, so several deployments can share one Redis.',
  },
  roomTtlMs: {
    env: 'ROOM_TTL_S',
    schema: seconds(2, 10 * 365 * 86400, 30 * 86400),
    unit: 's',
    doc: 'A room that receives no call for this long is removed by key expiry.',
  },
  presenceTtlMs: {
    env: 'PRESENCE_TTL_S',
    schema: seconds(1, 86400, 60),
    unit: 's',
    doc: 'An agent without a heartbeat for this long is no longer listed online.',
  },
  lockTtlDefaultMs: {
    env: 'LOCK_TTL_DEFAULT_S',
    schema: seconds(1, 86400, 120),
    unit: 's',
    doc: 'TTL of a lock when acquire_lock gives none.',
  },
  lockTtlMaxMs: {
    env: 'LOCK_TTL_MAX_S',
    schema: seconds(1, 7 * 86400, 3600),
    unit: 's',
    doc: 'Longest TTL a lock may ask for.',
  },
  idempotencyTtlMs: {
    env: 'IDEMPOTENCY_TTL_S',
    schema: seconds(1, 7 * 86400, 86400),
    unit: 's',
    doc: 'How long a mutation result is kept for replay under its idempotency_key.',
  },
  revokedKeyRetentionMs: {
    env: 'REVOKED_KEY_RETENTION_S',
    schema: seconds(0, 3650 * 86400, 30 * 86400),
    unit: 's',
    doc: 'How long a revoked team key or room invite stays in GET /admin/keys and the invite lists (as revoked) before it is deleted; 0 deletes it at once.',
  },
  eventsRetained: {
    env: 'EVENTS_RETAINED',
    schema: int(10, 1_000_000, 10_000),
    unit: 'events',
    doc: 'Most events kept per room; older ones are trimmed and a cursor behind them is reported. A feed over the limit is trimmed by a further 1% of it at once, so a full room keeps between 99% and 100% of this.',
  },
  contextHistory: {
    env: 'CONTEXT_HISTORY',
    schema: int(1, 100, 20),
    unit: 'versions',
    doc: 'Versions of a context entry kept for get_context_history and diff_context (current one included).',
  },
  contextBodyBytes: {
    env: 'LIMIT_CONTEXT_BODY_BYTES',
    schema: int(1, 16 * 1024 * 1024, 64 * 1024),
    unit: 'bytes',
    doc: 'Largest context body (UTF-8).',
  },
  eventTextBytes: {
    env: 'LIMIT_EVENT_TEXT_BYTES',
    schema: int(1, 1024 * 1024, 4096),
    unit: 'bytes',
    doc: 'Largest event text (UTF-8).',
  },
  eventDataBytes: {
    env: 'LIMIT_EVENT_DATA_BYTES',
    schema: int(2, 1024 * 1024, 8192),
    unit: 'bytes',
    doc: 'Largest event data, measured as compact JSON.',
  },
  taskNotesBytes: {
    env: 'LIMIT_TASK_NOTES_BYTES',
    schema: int(1, 1024 * 1024, 16 * 1024),
    unit: 'bytes',
    doc: 'Largest task notes (UTF-8).',
  },
  varValueBytes: {
    env: 'LIMIT_VAR_VALUE_BYTES',
    schema: int(1, 64 * 1024, 1024),
    unit: 'bytes',
    doc: 'Largest shared var value (UTF-8).',
  },
  tasksPerRoom: {
    env: 'LIMIT_TASKS_PER_ROOM',
    schema: int(1, 100_000, 2000),
    unit: 'tasks',
    doc: 'Tasks a room may hold.',
  },
  contextPerRoom: {
    env: 'LIMIT_CONTEXT_PER_ROOM',
    schema: int(1, 100_000, 1000),
    unit: 'entries',
    doc: 'Context entries a room may hold.',
  },
  varsPerRoom: {
    env: 'LIMIT_VARS_PER_ROOM',
    schema: int(1, 100_000, 256),
    unit: 'vars',
    doc: 'Shared vars a room may hold.',
  },
  locksPerRoom: {
    env: 'LIMIT_LOCKS_PER_ROOM',
    schema: int(1, 100_000, 256),
    unit: 'locks',
    doc: 'Locks held at once in a room.',
  },
  reviewsPerRoom: {
    env: 'LIMIT_REVIEWS_PER_ROOM',
    schema: int(1, 100_000, 2000),
    unit: 'reviews',
    doc: 'Reviews a room may hold.',
  },
  dependenciesPerTask: {
    env: 'LIMIT_DEPENDENCIES_PER_TASK',
    schema: int(1, 1000, 50),
    unit: 'tasks',
    doc: 'Dependencies one task may have.',
  },
  httpBodyBytes: {
    env: 'LIMIT_HTTP_BODY_BYTES',
    schema: int(1024, 64 * 1024 * 1024, 256 * 1024),
    unit: 'bytes',
    doc: 'Largest HTTP request body; larger ones get 413.',
  },
  httpHeaderBytes: {
    env: 'LIMIT_HTTP_HEADER_BYTES',
    schema: int(4096, 1024 * 1024, 16 * 1024),
    unit: 'bytes',
    doc: 'Largest request line and headers together; larger requests get 431 from the HTTP server itself (uWebSockets.js, before the service: a short HTML answer, not the JSON error body). The server reads it once per process, when the first node starts.',
  },
  rateLimitPerMin: {
    env: 'RATE_LIMIT_PER_MIN',
    schema: int(1, 10_000_000, 1200),
    unit: 'calls/min',
    doc: 'Calls a team may make per rolling minute (all its keys together, HTTP and MCP).',
  },
  rateLimitOverrides: {
    env: 'RATE_LIMIT_OVERRIDES',
    schema: z
      .string()
      .regex(/^([A-Za-z0-9][A-Za-z0-9_-]{0,63}=[0-9]{1,8})?(,[A-Za-z0-9][A-Za-z0-9_-]{0,63}=[0-9]{1,8})*$/, 'must look like "team-a=5000,team-b=300"')
      .default('')
      .transform((v) => new Map(v === '' ? [] : v.split(',').map((p) => { const [t, n] = p.split('='); return [t!, Number(n)] as const }))),
    unit: 'team=calls/min list',
    doc: 'Per-team rate limits that replace RATE_LIMIT_PER_MIN, e.g. "default=5000,tm-abc=300".',
  },
  port: {
    env: 'PORT',
    schema: int(0, 65535, 8080),
    unit: 'port',
    doc: 'HTTP port the node listens on (0: any free port).',
  },
  host: {
    env: 'HOST',
    schema: z.string().min(1).default('0.0.0.0'),
    unit: 'address',
    doc: 'Address the node listens on.',
  },
  logLevel: {
    env: 'LOG_LEVEL',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    unit: 'level',
    doc: 'pino log level.',
  },
  shutdownGraceMs: {
    env: 'SHUTDOWN_GRACE_S',
    schema: seconds(1, 600, 10),
    unit: 's',
    doc: 'On SIGTERM the node stops accepting, ends streams and long-polls, and exits within this time.',
  },
  sseKeepaliveMs: {
    env: 'SSE_KEEPALIVE_S',
    schema: seconds(1, 300, 15),
    unit: 's',
    doc: 'Interval of the keep-alive comment on SSE streams (and long MCP replies).',
  },
  sseBufferBytes: {
    env: 'SSE_BUFFER_BYTES',
    schema: int(1024, 256 * 1024 * 1024, 1024 * 1024),
    unit: 'bytes',
    doc: 'Unsent bytes a slow SSE consumer may hold on the node before its stream is closed.',
  },
  mcpAllowedOrigins: {
    env: 'MCP_ALLOWED_ORIGINS',
    schema: z
      .string()
      .default('')
      .transform((v) => v.split(',').map((o) => o.trim()).filter(Boolean)),
    unit: 'origin list',
    doc: 'Browser origins allowed to call /mcp besides the node\'s own host (cross-origin check; keys are what stop DNS rebinding); "*" allows any. Requests without an Origin header are not affected.',
  },
  roomsPerTeam: {
    env: 'LIMIT_ROOMS_PER_TEAM',
    schema: int(1, 1_000_000, 1000),
    unit: 'rooms',
    doc: 'Rooms a team may own at once.',
  },
  searchFieldBytes: {
    env: 'SEARCH_FIELD_BYTES',
    schema: int(256, 1024 * 1024, 16 * 1024),
    unit: 'bytes',
    doc: 'Redis search engine: the leading bytes of each task notes and context body that are indexed (titles, keys and event texts are indexed whole). Bounds a room\'s index; Meilisearch indexes everything.',
  },
  searchCacheMb: {
    env: 'SEARCH_CACHE_MB',
    schema: int(1, 64 * 1024, 256),
    unit: 'MiB',
    doc: 'Redis search engine: memory the room indexes of a node may take, counted as two bytes per indexed character (close to the heap measured, BENCHMARKS.md); the rooms searched least recently are dropped first.',
  },
  searchCacheIdleMs: {
    env: 'SEARCH_CACHE_IDLE_S',
    schema: seconds(1, 86_400, 600),
    unit: 's',
    doc: 'Redis search engine: a room\'s index not searched for this long is dropped from the node.',
  },
  meiliUrl: {
    env: 'MEILI_URL',
    schema: z.string().url().optional(),
    unit: 'URL',
    doc: 'Meilisearch server, e.g. http://meilisearch:7700. When set, search uses Meilisearch (and the node runs its indexer); unset, the Redis search engine.',
  },
  meiliApiKey: {
    env: 'MEILI_API_KEY',
    schema: z.string().min(1).optional(),
    unit: 'secret',
    doc: 'Meilisearch API key allowed to manage the index (settings, documents, search), e.g. the master key.',
  },
  meiliIndex: {
    env: 'MEILI_INDEX',
    schema: z.string().regex(/^[A-Za-z0-9_-]{1,400}$/, 'must be letters, digits, "_" or "-"').optional(),
    unit: 'index uid',
    doc: 'The one Meilisearch index of this deployment. Unset: "<KEY_PREFIX>-records".',
  },
  meiliEmbedderSource: {
    env: 'MEILI_EMBEDDER_SOURCE',
    schema: z.enum(['openAi', 'ollama', 'huggingFace']).optional(),
    unit: 'name',
    doc: 'Meilisearch embedder for semantic search (search with semantic: true): openAi, ollama or huggingFace. Unset: semantic search is disabled. openAi also serves OpenAI-compatible endpoints (MEILI_EMBEDDER_URL).',
  },
  meiliEmbedderUrl: {
    env: 'MEILI_EMBEDDER_URL',
    schema: z.string().url().optional(),
    unit: 'URL',
    doc: 'Embedding endpoint, e.g. http://ollama:11434/api/embed or an OpenAI-compatible https://…/v1/embeddings. Unset: the source\'s default.',
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
    doc: 'Meilisearch indexer: how often one node compares every room with its indexed position and deletes the documents of rooms that expired (the backstop for a change whose mark was lost in a crash).',
  },
  embedderUrl: {
    env: 'EMBEDDER_URL',
    schema: z.string().url().optional(),
    unit: 'URL',
    doc: 'Redis search engine: an OpenAI-compatible embeddings API (its base, e.g. http://localhost:11434/v1 for Ollama or https://api.openai.com/v1, or the full …/embeddings URL). Set with EMBEDDER_MODEL, it turns on semantic search (search with semantic: true); unset, semantic search is off. Not with MEILI_URL (Meilisearch has MEILI_EMBEDDER_*).',
  },
  embedderModel: {
    env: 'EMBEDDER_MODEL',
    schema: z.string().min(1).max(200).optional(),
    unit: 'name',
    doc: 'The embedding model, e.g. nomic-embed-text (Ollama), text-embedding-3-small (OpenAI). Vectors of another model are made again when it changes.',
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
    doc: 'Vector size asked of the model (OpenAI text-embedding-3 models take a smaller one) and checked on every answer. Unset: the model\'s own.',
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
    doc: 'Further attempts of a request that failed in a way that may pass (unreachable, timed out, 408, 429, 5xx), with exponential backoff from 250 ms and Retry-After honoured. A search\'s own query makes one further attempt at most.',
  },
  embedderTextChars: {
    env: 'EMBEDDER_TEXT_CHARS',
    schema: int(100, 20_000, 2000),
    unit: 'characters',
    doc: 'Leading characters of a record that are embedded: task title and notes, context type, key and body, event text. Keep it within the model\'s input (about 500 tokens by default); at most a third of SEARCH_FIELD_BYTES.',
  },
  searchVectorsPerRoom: {
    env: 'SEARCH_VECTORS_PER_ROOM',
    schema: int(1, 100_000, 5000),
    unit: 'vectors',
    doc: 'Records of one room with a vector: tasks and context entries first (most recently changed first), then the newest events; the rest are found by words only.',
  },
  searchVectorSets: {
    env: 'SEARCH_VECTOR_SETS',
    schema: z.enum(['auto', 'off']).default('off'),
    unit: 'auto | off',
    doc: 'off: nodes rank a room\'s vectors in process. auto: when every Redis master has vector sets (Redis 8 VADD/VSIM, checked at start with COMMAND INFO), vectors are also kept in one per room and searched there with VSIM\'s exact mode (TRUTH), else in process. The same answers either way; auto costs Redis\'s main thread about ten times the CPU per semantic query (a scan of the room) and per vector written (docs/search.md).',
  },
  webhooksPerTeam: {
    env: 'LIMIT_WEBHOOKS_PER_TEAM',
    schema: int(1, 1000, 20),
    unit: 'webhooks',
    doc: 'Webhooks a team may register.',
  },
  webhooksEnabled: {
    env: 'WEBHOOKS_ENABLED',
    schema: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
    unit: 'boolean',
    doc: 'Whether this node delivers webhooks. Any number of nodes may; "false" makes a node serve the API only.',
  },
  webhookRetryScheduleMs: {
    env: 'WEBHOOK_RETRY_SCHEDULE_S',
    schema: z
      .string()
      .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'must be a comma-separated list of seconds, e.g. "5,300,1800"')
      .default('5,300,1800,7200,18000,36000,36000')
      .transform((v) => v.split(',').map((s) => Math.round(Number(s) * 1000))),
    unit: 's list',
    doc: 'Delays between the attempts of a delivery (the first attempt is immediate); after the last, the delivery is failed. Each delay gets WEBHOOK_RETRY_JITTER.',
  },
  webhookRetryJitter: {
    env: 'WEBHOOK_RETRY_JITTER',
    schema: z.coerce.number().min(0).max(1).default(0.2),
    unit: 'fraction',
    doc: 'Each retry delay is scaled by a random factor within 1 ± this.',
  },
  webhookTimeoutMs: {
    env: 'WEBHOOK_TIMEOUT_MS',
    schema: int(100, 120_000, 10_000),
    unit: 'ms',
    doc: 'A delivery attempt (DNS, connection, TLS, request and response) that takes longer fails and is retried.',
  },
  webhookLeaseMs: {
    env: 'WEBHOOK_LEASE_MS',
    schema: int(500, 600_000, 30_000),
    unit: 'ms',
    doc: 'A node holds each delivery it claimed under a lease it renews while the attempt runs; a delivery whose lease ran out (its node died) is taken over by another node.',
  },
  webhookPollMs: {
    env: 'WEBHOOK_POLL_MS',
    schema: int(10, 60_000, 1000),
    unit: 'ms',
    doc: 'How often an idle node looks for due webhook work (a node that posts an event looks at once).',
  },
  webhookSweepMs: {
    env: 'WEBHOOK_SWEEP_S',
    schema: seconds(1, 86_400, 30),
    unit: 's',
    doc: 'How often every room of a team with webhooks is checked for events not yet fanned out (the backstop for a node that died right after storing an event).',
  },
  webhookConcurrency: {
    env: 'WEBHOOK_CONCURRENCY',
    schema: int(1, 10_000, 32),
    unit: 'requests',
    doc: 'Delivery attempts one node runs at once.',
  },
  webhookPendingMax: {
    env: 'WEBHOOK_PENDING_MAX',
    schema: int(1, 10_000_000, 10_000),
    unit: 'deliveries',
    doc: 'Deliveries a webhook may have waiting; events past it are dropped for that webhook and counted in its health.',
  },
  publicUrl: {
    env: 'PUBLIC_URL',
    schema: z
      .string()
      .url()
      .refine((v) => /^https:\/\//.test(v) || /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?\/?$/.test(v), 'must be an https URL (plain http only for localhost)')
      .optional(),
    unit: 'URL',
    doc: 'The address people reach the service at, e.g. https://rooms.example.com: links in mails and OAuth callbacks point here, and browser requests must come from its origin. https everywhere but localhost (session cookies are then __Host- and Secure). Unset: http://localhost:PORT (development).',
  },
  adminEmails: {
    env: 'ADMIN_EMAILS',
    schema: z
      .string()
      .optional()
      .transform((v) => (v ?? '').split(',').map((e) => e.trim().toLowerCase()).filter(Boolean))
      .refine((list) => list.every((e) => /^[^\s@]+@[^\s@]+$/.test(e)), 'must be comma-separated e-mail addresses'),
    unit: 'address list',
    doc: 'Operators: may always sign in, open the waitlist page, and approve or decline entries. The first is the default team\'s owner, who gets the one-time sign-in link at first start (unset: owner@localhost).',
  },
  smtpUrl: {
    env: 'SMTP_URL',
    schema: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
    unit: 'URL',
    doc: 'Where sign-in and invite mails are sent (nodemailer), e.g. smtps://user:pass@smtp.example.com:465. Unset: in development (PUBLIC_URL on localhost) mails are written to the log instead, and a start-up line says so; elsewhere a node refuses to start.',
  },
  mailFrom: {
    env: 'MAIL_FROM',
    schema: z.string().min(3).default('agentrooms <no-reply@localhost>'),
    unit: 'address',
    doc: 'The From of sign-in and invite mails.',
  },
  sessionIdleMs: {
    env: 'SESSION_IDLE_S',
    schema: seconds(60, 90 * 86400, 7 * 86400),
    unit: 's',
    doc: 'A dashboard session not used for this long ends.',
  },
  sessionMaxMs: {
    env: 'SESSION_MAX_S',
    schema: seconds(60, 365 * 86400, 30 * 86400),
    unit: 's',
    doc: 'A dashboard session ends this long after sign-in, however much it is used.',
  },
  signInLinkTtlMs: {
    env: 'SIGNIN_LINK_TTL_S',
    schema: seconds(60, 86400, 900),
    unit: 's',
    doc: 'How long a sign-in link (e-mail, waitlist approval, first start) stays valid. Single use.',
  },
  inviteTtlMs: {
    env: 'INVITE_TTL_S',
    schema: seconds(300, 30 * 86400, 7 * 86400),
    unit: 's',
    doc: 'How long a member invite link stays valid. Single use.',
  },
  signInRatePerAddress: {
    env: 'SIGNIN_RATE_PER_ADDRESS',
    schema: int(1, 1000, 5),
    unit: 'requests/hour',
    doc: 'Sign-in and waitlist requests one e-mail address may cause per hour; more are refused (429).',
  },
  signInRatePerIp: {
    env: 'SIGNIN_RATE_PER_IP',
    schema: int(1, 100_000, 30),
    unit: 'requests/hour',
    doc: 'Sign-in, waitlist and link requests one client IP address may send per hour; more are refused (429).',
  },
  limitPendingInvites: {
    env: 'LIMIT_PENDING_INVITES',
    schema: int(1, 10_000, 50),
    unit: 'invites',
    doc: 'Pending member invites a team may have.',
  },
  limitWaitlist: {
    env: 'LIMIT_WAITLIST',
    schema: int(1, 10_000_000, 100_000),
    unit: 'entries',
    doc: 'Entries the waitlist may hold; past it, new requests are refused (the page says the waitlist is full).',
  },
  oidcIssuer: {
    env: 'OIDC_ISSUER',
    schema: z.string().url().optional(),
    unit: 'URL',
    doc: 'An OpenID Connect provider (Google https://accounts.google.com, Okta, Keycloak, …) people may sign in with; found by discovery, with PKCE, state and nonce. Callback: PUBLIC_URL/auth/oidc/callback. Needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET.',
  },
  oidcClientId: { env: 'OIDC_CLIENT_ID', schema: z.string().min(1).optional(), unit: 'string', doc: 'The client id registered at OIDC_ISSUER.' },
  oidcClientSecret: { env: 'OIDC_CLIENT_SECRET', schema: z.string().min(1).optional(), unit: 'secret', doc: 'The client secret registered at OIDC_ISSUER.' },
  oidcName: { env: 'OIDC_NAME', schema: z.string().min(1).max(40).default('single sign-on'), unit: 'string', doc: 'How the sign-in page names the OIDC provider ("Sign in with …").' },
  githubClientId: {
    env: 'GITHUB_CLIENT_ID',
    schema: z.string().min(1).optional(),
    unit: 'string',
    doc: 'A GitHub OAuth app people may sign in with (scope user:email). Callback: PUBLIC_URL/auth/github/callback. Needs GITHUB_CLIENT_SECRET.',
  },
  githubClientSecret: { env: 'GITHUB_CLIENT_SECRET', schema: z.string().min(1).optional(), unit: 'secret', doc: 'The GitHub OAuth app\'s client secret.' },
  githubUrl: { env: 'GITHUB_URL', schema: z.string().url().default('https://github.com'), unit: 'URL', doc: 'GitHub\'s web address (GitHub Enterprise Server: your server).' },
  githubApiUrl: { env: 'GITHUB_API_URL', schema: z.string().url().default('https://api.github.com'), unit: 'URL', doc: 'GitHub\'s API address (GitHub Enterprise Server: https://HOST/api/v3).' },
  webhookTestLoopbackCa: {
    env: 'WEBHOOK_TEST_LOOPBACK_CA',
    schema: z.string().min(1).optional(),
    unit: 'path',
    doc: 'TESTS ONLY: a PEM CA file. When set, webhooks may target loopback addresses, and receivers with certificates from this CA are trusted. Never set in production.',
  },
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
    else problems.push(`${row.env}: ${parsed.error.issues.map((i) => i.message).join('; ')} (got ${JSON.stringify(raw)})`)
  }
  if (problems.length > 0) throw new Error(`invalid settings:\n  ${problems.join('\n  ')}`)
  const s = out as Settings
  if (s.lockTtlDefaultMs > s.lockTtlMaxMs) throw new Error('invalid settings:\n  LOCK_TTL_DEFAULT_S must not exceed LOCK_TTL_MAX_S')
  if (s.oidcIssuer && (!s.oidcClientId || !s.oidcClientSecret)) throw new Error('invalid settings:\n  OIDC_ISSUER needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET')
  if (s.githubClientId && !s.githubClientSecret) throw new Error('invalid settings:\n  GITHUB_CLIENT_ID needs GITHUB_CLIENT_SECRET')
  const embedder = embedderProblem(s)
  if (embedder) throw new Error(`invalid settings:\n  ${embedder}`)
  return s
}

/** What is wrong with the semantic search settings of the Redis engine, if anything. */
export function embedderProblem(s: Settings): string | undefined {
  if (!s.embedderUrl) return undefined
  if (!s.embedderModel) return 'EMBEDDER_MODEL: required with EMBEDDER_URL (the embedding model, e.g. nomic-embed-text)'
  if (s.meiliUrl) return 'EMBEDDER_URL: not used with MEILI_URL; Meilisearch embeds by itself (set MEILI_EMBEDDER_SOURCE instead)'
  if (s.embedderTextChars * 3 > s.searchFieldBytes) return `EMBEDDER_TEXT_CHARS: at most a third of SEARCH_FIELD_BYTES (${Math.floor(s.searchFieldBytes / 3)}), so the text embedded is the text indexed`
  return undefined
}

/** Settings with every default, for tests and tools; `overrides` use code names. */
export function defaultSettings(overrides: Partial<Settings> = {}): Settings {
  return { ...loadSettings({}), ...overrides }
}
