// The room model: how long rooms, presence, locks and idempotent results last, and the limits of
// what a room or team may hold. Rows of the settings table (src/config.ts); read by the core
// (src/core/settings.ts CoreSettings).
import { int, seconds, type Row } from './row.js'

export const ROOM_SETTINGS = {
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
  reservationTtlDefaultMs: {
    env: 'RESERVATION_TTL_DEFAULT_S',
    schema: seconds(1, 7 * 86400, 1800),
    unit: 's',
    doc: 'TTL of a file reservation when reserve_files gives none.',
  },
  reservationTtlMaxMs: {
    env: 'RESERVATION_TTL_MAX_S',
    schema: seconds(1, 7 * 86400, 8 * 3600),
    unit: 's',
    doc: 'Longest TTL a file reservation may ask for.',
  },
  idempotencyTtlMs: {
    env: 'IDEMPOTENCY_TTL_S',
    schema: seconds(1, 7 * 86400, 86400),
    unit: 's',
    doc: 'How long a mutation result is kept for replay under its idempotency_key.',
  },
  eventsRetained: {
    env: 'EVENTS_RETAINED',
    schema: int(10, 1_000_000, 10_000),
    unit: 'events',
    doc:
      'Most events kept per room; older ones are trimmed and a cursor behind them is reported. A feed over the ' +
      'limit is trimmed by a further 1% of it at once, so a full room keeps between 99% and 100% of this.',
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
  reservationsPerRoom: {
    env: 'LIMIT_RESERVATIONS_PER_ROOM',
    schema: int(1, 10_000, 256),
    unit: 'patterns',
    doc: 'File reservations (patterns) held at once in a room, by all agents together.',
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
  roomsPerTeam: {
    env: 'LIMIT_ROOMS_PER_TEAM',
    schema: int(1, 1_000_000, 1000),
    unit: 'rooms',
    doc: 'Rooms a team may own at once.',
  },
} as const satisfies Record<string, Row>
