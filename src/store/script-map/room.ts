// The room scripts (Store.room): each one's arguments after the six common ones (ARGV[7..]), the
// keys after the room's own (KEYS[room+1..] in its header), and its reply; `rows: true` when raw records
// follow the reply. Checked against each script's header by test/unit/script-map.test.ts.
import type {
  LuaMap,
  PresenceRow,
  StoredEvent,
  StoredLock,
  StoredReservation,
  StoredRecord,
  StoredTask,
  StoredTaskStatus,
} from '../records.js'

/** The room's meta hash as a script returns it (HGETALL: every value a string). */
type Meta = Record<string, string>
/** '1' or '0'. */
type Flag = '0' | '1'
/**
 * A cursor moved back to the oldest retained event: how many events were lost, and where reading
 * resumed; or (rewound) a cursor of a history that went back, reading from the new history's
 * first event after it.
 */
type CursorReset = { lost: number; reset_to?: string; rewound?: boolean }

/** A room's keys beside its fixed ones, in order: reservations, search manifest, the six vector keys. */
type RoomStoreKeys = [
  reservations: string,
  search: string,
  vman: string,
  vec: string,
  vord: string,
  vlog: string,
  vdel: string,
  vset: string,
]

export interface RoomScripts {
  acquireLock: {
    args: [name: string, ttlMs: number, limit: number]
    keys: [lock: string]
    reply: { lock: StoredLock; extended: boolean; now: number }
  }
  addDependency: {
    args: [taskId: string, dependsOn: string, limit: number]
    reply: { task: StoredTask; blocked_by: string[]; added: boolean }
  }
  addTask: {
    args: [task: Buffer, notes: string, limit: number, force: Flag, via: string]
    reply: { task: StoredTask; notes?: string }
  }
  archiveRoom: {
    args: [what: 'archive' | 'restore', by: string]
    keys: RoomStoreKeys
    reply: { room: Meta }
  }
  createRoom: { args: [room: Buffer, starter: Buffer]; reply: { room: Meta } }
  decideReview: {
    args: [decision: 'approved' | 'rejected', reviewId: string, note: string, override: '' | '1']
    reply: { review: StoredRecord; task_status?: StoredTaskStatus }
  }
  deleteContext: {
    args: [type: string, key: string]
    reply: { deleted: { type: string; key: string; version: number }; reviews_removed: string[] }
  }
  deleteRoom: {
    args: []
    keys: RoomStoreKeys
    reply: { deleted: { tasks: number; events: number; context: number; keys: number } }
  }
  deleteEvent: { args: [eventId: string]; reply: { deleted: string } }
  deleteTask: { args: [taskId: string]; reply: { deleted: string; dependents: string[]; reviews_removed: string[] } }
  getEventReads: { args: [eventId: string]; reply: { event_id: string; author: string; read_by: string[] } }
  getTask: { args: [taskId: string]; reply: { task: StoredTask; notes?: string; blocked_by: string[] } }
  getVar: { args: [name: string]; reply: { var: StoredRecord } }
  incrementVar: { args: [name: string, by: string, limit: number]; reply: { var: StoredRecord } }
  leaveRoom: {
    args: [retained: number, presenceTtlMs: number, via: string]
    keys: [reservations: string]
    reply: { left: true; event: StoredEvent; was_present: boolean; was_online: boolean; released: string[] }
  }
  listContext: { args: [type: string]; reply: { total: number }; rows: true }
  listLocks: { args: []; reply: { now: number }; rows: true }
  listPresence: {
    args: [presenceTtlMs: number, forgetMs: number, includeOffline: Flag, max: number]
    reply: { online: PresenceRow[]; online_count: number; offline?: PresenceRow[]; offline_count?: number }
  }
  listReservations: {
    args: []
    keys: [reservations: string]
    reply: { now: number; version: number }
    rows: true
  }
  listReviews: { args: []; reply: Record<string, never>; rows: true }
  listTasks: {
    args: [mode: 'unblocked' | 'mine', limit: number, agent: string, includeDone: Flag]
    reply: { total: number }
    rows: true
  }
  listVars: { args: [prefix: string]; reply: Record<string, never>; rows: true }
  markRead: { args: [eventId: string]; reply: { moved: boolean; cursor: string } }
  peekUnread: { args: []; reply: { unread: number } }
  peekUnreadEvents: { args: [limit: number]; reply: { events: StoredEvent[] } }
  postEvent: {
    args: [type: string, text: string, data: string, replyTo: string, retained: number, via: string]
    reply: { event: StoredEvent }
  }
  readContext: { args: [type: string, key: string, version: number | '']; reply: Record<string, never>; rows: true }
  readContextHistory: { args: [type: string, key: string]; reply: Record<string, never>; rows: true }
  readContextVersions: {
    args: [type: string, key: string, from: number | '', to: number | '']
    reply: { from_version: number; to_version: number; current_version: number }
    rows: true
  }
  readEvent: { args: [eventId: string, field: string]; reply: Record<string, never>; rows: true }
  readFeed: {
    args: [before: string, limit: number, type: string, agent: string, open: Flag, scanLimit: number]
    reply: { count: number; next?: string; exhausted: boolean }
    rows: true
  }
  readEvents: {
    args: [mode: 'latest' | 'after' | 'before', boundary: string, limit: number, type: string, scanLimit: number]
    reply: { count: number; prev?: string; next?: string }
    rows: true
  }
  readOutbox: {
    args: [position: string, floorMs: number, count: number]
    reply: { head?: string; lost?: number; lost_before?: number }
    rows: true
  }
  readPlan: { args: []; reply: { count: number }; rows: true }
  readSearchDocs: {
    args: [fieldBytes: number, pick: Buffer, pageBytes: number]
    keys: [manifest: string]
    reply: {
      cseq: number
      created_at: number
      trim: number
      ipos: string
      iroom: string
      sections: { tasks: number; context: number }
      done: { t: number; c: number }
    }
    rows: true
  }
  readSnapshot: {
    args: [
      presenceTtlMs: number,
      forgetMs: number,
      events: number,
      presenceMax: number,
      before?: string,
      days?: number,
      namesOnly?: Flag | '',
      cards?: number,
      ids?: number,
      ...from: [todo?: number, inProgress?: number, inReview?: number, done?: number, cancelled?: number],
    ]
    reply: {
      room: Meta
      sections: Record<'tasks' | 'context' | 'events' | 'vars' | 'reviews' | 'locks', number>
      older: boolean
      /** Events the feed holds (posted, not deleted, not trimmed away). */
      events_kept: number
      online: [agent: string, ms: number][]
      offline: [agent: string, ms: number][]
      online_count: number
      offline_count: number
      /** agent, event id, agent, event id, ... */
      cursors: string[]
      /** One a cursor, in order: the seq up to which it has read (lua/includes/unreadCount.lua readUpTo). */
      read_seqs: number[]
      events_by_day: LuaMap<number>
      today: number
      now: number
      /** With cards a column: each column's page (the tasks of the rows) and each card's links. */
      board?: {
        columns: Record<StoredTaskStatus, { from: number; total: number }>
        cards: { blocked_by?: string[]; blocks?: string[]; blocks_total: number }[]
        done_by_day: LuaMap<number>
      }
    }
    rows: true
  }
  readGraph: {
    args: [most: number, spanMs: number, done: number]
    reply: {
      open: number
      tasks: number
      done: number
      /** Ids of open tasks left out that a returned task depends on. */
      outside: string[] | LuaMap<never>
      now: number
    }
    rows: true
  }
  readHead: {
    args: [presenceTtlMs: number]
    reply: { room: Meta; events_kept: number; online_count: number }
  }
  readNeeds: {
    args: [presenceTtlMs: number, events: number, reviews: number, tasks: number, most: number, spanMs: number]
    reply: {
      sections: Record<'events' | 'reviews' | 'tasks' | 'locks', number>
      totals: Record<'events' | 'reviews' | 'tasks' | 'locks', number>
      /** The last-seen time (ms) of each offline agent the rows name that was ever seen. */
      seen: LuaMap<number>
      /** Agents seen within the presence TTL, most recent first. */
      online: string[] | LuaMap<never>
      /** With a span: agent, ms, agent, ms, ...: one pair an event looked at posted within it, newest first. */
      posts?: (string | number)[] | LuaMap<never>
      now: number
    }
    rows: true
  }
  readRecords: {
    args: [contexts: number, vars: number, reviews: number, ...names: string[]]
    reply: Record<string, never>
    rows: true
  }
  readSummary: {
    args: [eventLimit: number, taskLimit: number, presenceTtlMs: number]
    reply: {
      events: StoredEvent[]
      remaining: number
      cursor_reset?: CursorReset
      last_event_ms?: number
      my_tasks: StoredTask[]
      my_tasks_total: number
      reviews_for_me: StoredRecord[]
      unblocked: number
      online: number
    }
  }
  readUnread: {
    args: [limit: number]
    reply: {
      events: StoredEvent[]
      remaining: number
      cursor_reset?: CursorReset
      cursor?: string
      last_event_ms?: number
    }
  }
  recordHeartbeat: {
    args: [presenceTtlMs: number, forgetMs: number]
    reply: { online: number; last_seen_at: number; was_online: boolean }
  }
  releaseFiles: {
    args: [mode: 'all' | 'some', ...patterns: string[]]
    keys: [reservations: string]
    reply: { released: string[]; not_held: string[] }
  }
  releaseLock: {
    args: [name: string, token: number | '', override?: '' | '1']
    keys: [lock: string]
    reply: { released: true; lock: StoredLock } | { released: false; reason: string }
  }
  reserveFiles: {
    args: [version: string, ttlMs: number, limit: number, exclusive: Flag, reason: string, ...patterns: string[]]
    keys: [reservations: string]
    reply: { retry: true } | { reservations: StoredReservation[]; now: number; version: number }
  }
  requestReview: {
    args: [review: Buffer, limit: number]
    reply: { review: StoredRecord; task_status?: StoredTaskStatus }
  }
  roomAnalytics: {
    args: [presenceTtlMs: number, days: number]
    reply: {
      status: LuaMap<number>
      done_by_day: LuaMap<number>
      events_by_day: LuaMap<number>
      online: string[]
      today: number
      counts: { context: number; events: number; events_total: number; vars: number; reviews: number }
    }
  }
  roomInfo: {
    args: [presenceTtlMs: number]
    reply: {
      room: Meta
      counts: Record<'tasks' | 'context' | 'events' | 'vars' | 'reviews' | 'locks' | 'online', number>
    }
  }
  setDependencies: {
    args: [taskId: string, dependsOn: Buffer, limit: number, via: string]
    reply: { task: StoredTask; notes?: string; blocked_by: string[]; added: string[]; removed: string[] }
  }
  setVar: {
    args: [name: string, value: string, expectedVersion: number | '', limit: number]
    reply: { var: StoredRecord }
  }
  updateContext: {
    args: [
      type: string,
      key: string,
      mode: 'append' | 'edits' | 'body',
      payload: string | Buffer,
      expectedVersion: string,
      bodyBytes: number,
      keep: number,
      via: string,
    ]
    reply: { entry: StoredRecord; changed: boolean }
  }
  updateTask: {
    args: [taskId: string, patch: Buffer, force: Flag, retained: number, via: string]
    reply: {
      /** Absent only without a task id, when nothing is claimable. */
      task?: StoredTask
      notes?: string
      changed: string[]
      unblocked: string[]
      overrode?: string
      /** Without a task id: the tasks not done or cancelled. */
      open?: number
    }
  }
  writeContext: {
    args: [type: string, key: string, body: string, expectedVersion: string, limit: number, keep: number, via: string]
    reply: { entry: StoredRecord; changed: boolean; created: boolean }
  }
}
