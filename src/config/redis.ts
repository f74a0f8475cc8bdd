// Redis: where it is, how the node talks to it, and the prefix of every key. Rows of the settings
// table (src/config.ts); read by the store (src/store/store.ts StoreSettings) and the operator
// tools (src/ops/local-redis.ts).
import { z } from 'zod'
import { int, type Row } from './row.js'

export const REDIS_SETTINGS = {
  redisUrl: {
    env: 'REDIS_URL',
    schema: z.string().url().optional(),
    unit: 'URL',
    doc:
      'Standalone Redis, e.g. redis://:password@host:6379/0. Unset (and no REDIS_CLUSTER_NODES): the Redis at ' +
      'LOCAL_REDIS.',
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
    schema: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
    unit: 'boolean',
    doc:
      'Whether ioredis holds the commands of one event-loop turn and writes them together. Off by default: ' +
      'measured on loopback, holding them makes Redis wait while the node handles the whole turn, so the two ' +
      'take turns instead of working at once (post_event 11.8k -> 15.0k calls/s without it, same node CPU per ' +
      'call; BENCHMARKS.md). Worth trying on when Redis is across a network and packets cost more than ' +
      "latency. When on, scripts are sent through ioredis' own script commands, which cost the node more per " +
      'call than the ready frames used otherwise (src/store/evalsha.ts).',
  },
  redisCommandTimeoutMs: {
    env: 'REDIS_COMMAND_TIMEOUT_MS',
    schema: int(100, 60_000, 2000),
    unit: 'ms',
    doc:
      'A Redis command without an answer after this long fails, and its call answers 503 unavailable ' +
      '(Retry-After: 1): a Redis that stalls (stopped, swapping, a long script) holds no call longer; once the ' +
      'checks find it unreachable (about 1 s) calls fail at once. A write past the deadline may still happen ' +
      'when Redis answers again (it is never sent twice); calls that carry an idempotency key are safe to ' +
      "repeat. Keep it well above the node's own pauses (the deadline also runs out when the node itself " +
      'cannot run for that long) and above the longest command: room scripts take milliseconds; the widest ' +
      "reads are the search sweep's list of indexed rooms and the operator tools' team lists (about 100 ms per " +
      'million entries).',
  },
  localRedis: {
    env: 'LOCAL_REDIS',
    // An IPv6 address in brackets, as in a URL: "[::1]:6379" (src/ops/local-redis.ts strips them).
    schema: z
      .string()
      .regex(/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}$/, 'must look like "127.0.0.1:6379" or "[::1]:6379"')
      .default('127.0.0.1:6379'),
    unit: 'host:port',
    doc:
      'Used only when REDIS_URL and REDIS_CLUSTER_NODES are unset: the node uses the Redis answering here, or, ' +
      'when none answers and this is a loopback address, starts redis-server itself on it (data in DATA_DIR) ' +
      'and stops it when the node stops.',
  },
  dataDir: {
    env: 'DATA_DIR',
    schema: z.string().min(1).default('data'),
    unit: 'path',
    doc:
      'Folder (relative to the working directory) of the redis-server a node starts itself: append-only file, ' +
      'RDB snapshot, log.',
  },
  keyPrefix: {
    env: 'KEY_PREFIX',
    schema: z
      .string()
      .regex(/^[a-z][a-z0-9_-]{0,15}$/)
      .default('ar'),
    unit: 'string',
    doc: 'Prefix of every Redis key and channel, so several deployments can share one Redis.',
  },
} as const satisfies Record<string, Row>
