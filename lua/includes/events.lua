--- @include "includes/openRoom"
--- @include "includes/seqOf"
--- @include "includes/unreadCount"
-- The event feed of a room: the `events` stream, its counters in `meta` (eseq = last seq given,
-- lastms = ms part of the last id, trim = seq of the last event trimmed away), `evdel` (seqs of
-- events deleted by their author) and the per-agent read positions in `cursors`.
--
-- Invariants the helpers keep:
--   * an event id is "<ms>-<seq>"; seq = eseq after HINCRBY, ms = max(now, lastms), so ids and
--     seqs grow together and "<lastms>-<eseq>" is always the id of the newest event appended;
--   * a cursor is an event id (or that position); it only moves forward;
--   * unread = eseq - cursor seq - deleted after the cursor (includes/unreadCount);
--   * a cursor left from a history that went back (includes/unreadCount cursorAt) stands just
--     before the first event after it in stream order: the new history counts as unread.

local DAY_MS = 86400000
local DAYS_KEPT = 30 -- per-day event counts kept for analytics, besides today
local TRIM_PER_CALL = 1000 -- bound on the entries one append trims (a lowered setting converges)
local TRIM_SLACK = 100 -- a feed over the limit loses a further retained / TRIM_SLACK (trimEvents)

-- The newest id the feed ever gave, or nil for an empty feed.
local function headEventId(R)
  local m = redis.call('HMGET', R.k.meta, 'eseq', 'lastms')
  local seq = tonumber(m[1] or '0')
  if seq == 0 then return nil end
  return string.format('%d-%d', tonumber(m[2] or '0'), seq)
end

-- The stored record of a retained event (nil when unknown, deleted or trimmed).
local function loadEvent(R, id)
  local got = redis.call('XRANGE', R.k.events, id, id, 'COUNT', 1)
  if #got == 0 then return nil end
  return cmsgpack.unpack(got[1][2][2])
end

-- The record of a retained event, or nil and a not_found reply naming `field`.
local function requireEvent(R, id, field)
  local ev = loadEvent(R, id)
  if not ev then
    return nil, fail('not_found', field .. ': event ' .. id .. ' does not exist (deleted, trimmed or never posted)',
      { field = field })
  end
  return ev
end

-- Counts the event under its UTC day in meta 'd:<day>'; on a day's first event, forgets days
-- older than DAYS_KEPT (meta is small, so HKEYS is cheap).
local function countEventDay(R)
  local day = math.floor(R.now / DAY_MS)
  if redis.call('HINCRBY', R.k.meta, string.format('d:%d', day), '1') ~= 1 then return end
  local old = {}
  for _, f in ipairs(redis.call('HKEYS', R.k.meta)) do
    local n = tonumber(string.match(f, '^d:(%d+)$'))
    if n and n < day - DAYS_KEPT then old[#old + 1] = f end
  end
  if #old > 0 then redis.call('HDEL', R.k.meta, unpack(old)) end
end

-- Keeps at most `retained` of the stream's `len` entries: removes the oldest, records the seq of
-- the last removed in meta 'trim' (never lower than `trim`, the one before) and forgets deletion
-- marks at or below it. A feed over the limit loses a further 1% of it (TRIM_SLACK), so the next
-- appends need no trim: a room at the limit would otherwise pay one on every event.
-- XTRIM drops whole stream nodes; the seq of the last live event it removed is the one below the
-- oldest kept, skipping seqs whose events their authors deleted (marked in evdel, not in the
-- stream). Reading the removed entries (XRANGE) and deleting them one by one (XDEL) instead cost
-- ~37k Redis instructions per entry (bench/script-cost.ts --callgrind).
local function trimEvents(R, len, retained, trim)
  if len <= retained then return end
  redis.call('XTRIM', R.k.events, 'MAXLEN', math.max(retained - math.floor(retained / TRIM_SLACK), len - TRIM_PER_CALL))
  local last = seqOf(redis.call('XRANGE', R.k.events, '-', '+', 'COUNT', 1)[1][1]) - 1
  repeat
    local marks = redis.call('ZREVRANGEBYSCORE', R.k.evdel, last, '(' .. trim, 'LIMIT', 0, 64)
    local i = 1
    while marks[i] and tonumber(marks[i]) == last do
      last = last - 1
      i = i + 1
    end
  until i <= #marks or #marks < 64
  if last <= trim then return end
  redis.call('HSET', R.k.meta, 'trim', last)
  if redis.call('ZREMRANGEBYSCORE', R.k.evdel, '-inf', last) > 0 then dirty(R, R.k.evdel) end
end

--[[
  Appends an event to the feed and returns its id.
  ev: {type, agent_id, text, data? (JSON text), reply_to?}; created_at is set here, and via (the
  credential that made it, JSON text) from R.via when the calling script set it. The stored
  record does not carry the id (the stream id is the event id); after the append ev.id is set,
  so the caller can reply with ev as it is.
  Also: counts the event for its day, trims the feed to `retained` entries, and, its own event
  being no news to the poster (ev.agent_id): when it had nothing unread just before, moves its
  cursor to the new event; otherwise records the event's seq in its own list (meta 'o:<agent>',
  includes/unreadCount), so it never counts as unread for it. Does not notify: the calling script
  sends its one notice.
]]
local function appendEvent(R, ev, retained)
  if R.via and R.via ~= '' then ev.via = R.via end
  local m = redis.call('HMGET', R.k.meta, 'eseq', 'trim', 'lastms')
  local head, trim, lastms = tonumber(m[1] or '0'), tonumber(m[2] or '0'), tonumber(m[3] or '0')
  local unread, cursor, own = unreadAt(R, ev.agent_id, head, trim, lastms)
  local seq = head + 1
  local ms = math.max(R.now, lastms)
  -- Numbers made strings with %d: given to redis.call or joined as they are, Lua would print
  -- each with %.14g, several times the instructions (bench/script-cost.ts --callgrind).
  local seqStr, msStr = string.format('%d', seq), string.format('%d', ms)
  redis.call('HSET', R.k.meta, 'eseq', seqStr, 'lastms', msStr)
  local id = msStr .. '-' .. seqStr
  ev.created_at = R.now
  redis.call('XADD', R.k.events, id, 'd', cmsgpack.pack(ev))
  ev.id = id
  countEventDay(R)
  local len = redis.call('XLEN', R.k.events)
  trimEvents(R, len, retained, trim)
  if unread == 0 then
    redis.call('HSET', R.k.cursors, ev.agent_id, id)
    -- A cursor read above means the hash was there already.
    dirty(R, R.k.cursors, cursor ~= false)
    if own then redis.call('HDEL', R.k.meta, 'o:' .. ev.agent_id) end
    -- The author's cursor is now the head: finish() need not count its unread events again.
    if ev.agent_id == R.agent then R.unread = 0 end
  else
    redis.call('HSET', R.k.meta, 'o:' .. ev.agent_id, own and (own .. ',' .. seqStr) or seqStr)
    if ev.agent_id == R.agent then R.unread = unread end
  end
  -- An empty stream stays a key, so more than one entry now means it existed before this append.
  dirty(R, R.k.events, len > 1)
  dirty(R, R.k.meta)
  return id
end

--[[
  Reads up to `limit` (a number, or its string) events after the agent's cursor (all retained
  events when it has none), skipping the agent's own events, and advances the cursor to the last
  one returned (past the own events read over). Atomic with the script, so two concurrent calls
  of one agent never return the same event.

  Returns events, info:
    events  the events read, oldest first, decoded with their id set (they travel inside the
            reply, so an idempotent retry replays exactly what was consumed)
    info  {remaining = unread after this read, moved = true when the cursor moved,
           cursor_reset = {lost, reset_to} or nil, last_event_ms = time of the newest event
           the feed ever got, only when nothing was read and the feed has had one}
  cursor_reset reports a cursor that fell behind the trim point: `lost` events (counted by seq;
  an event its author deleted before it was trimmed counts too) were trimmed away unread, and
  reading resumed at `reset_to`, the oldest retained event. An agent without a cursor has never
  read anything, so nothing is reported lost for it. A cursor of a history that went back
  (cursorAt) is reported as {lost = 0, rewound = true, reset_to = the first event of the new
  history after it, when there is one}: the events after it in stream order are read, whatever
  their seqs; with none yet, the cursor moves to the head, so the rewind is reported once.
  Does not notify: the calling script decides.
]]
local function consumeEvents(R, agent, limit)
  limit = tonumber(limit)
  local cur = redis.call('HGET', R.k.cursors, agent)
  local from = cur and ('(' .. cur) or '-'
  local m = redis.call('HMGET', R.k.meta, 'eseq', 'trim', 'lastms')
  local trim = tonumber(m[2] or '0')
  local rewound = cur and select(2, cursorAt(R, cur, tonumber(m[1] or '0'), tonumber(m[3] or '0')))
  -- The agent's own events after its cursor are at most the entries of its own list: reading that
  -- many more entries than `limit` finds `limit` others' events when there are that many.
  local own = redis.call('HGET', R.k.meta, 'o:' .. agent)
  local extra = 0
  if own then for _ in string.gmatch(own, '%d+') do extra = extra + 1 end end
  local got = redis.call('XRANGE', R.k.events, from, '+', 'COUNT', limit + extra)
  local events = {}
  local last
  for _, e in ipairs(got) do
    if #events == limit then break end
    local ev = cmsgpack.unpack(e[2][2])
    last = e[1]
    if ev.agent_id ~= agent then
      ev.id = e[1]
      events[#events + 1] = ev
    end
  end
  local info = {}
  local newCur = last
  if rewound then
    info.cursor_reset = { lost = 0, rewound = true, reset_to = got[1] and got[1][1] or nil }
    -- Nothing after it yet: move to the head so the rewind is reported once (an empty feed: no
    -- cursor, as for an agent that never read).
    if not newCur then newCur = headEventId(R) end
    if not newCur then
      redis.call('HDEL', R.k.cursors, agent)
      dirty(R, R.k.cursors, true)
    end
  elseif cur and seqOf(cur) < trim then
    info.cursor_reset = { lost = trim - seqOf(cur), reset_to = got[1] and got[1][1] or nil }
    -- Nothing retained after it: jump to the head so the loss is reported once.
    if not newCur then newCur = headEventId(R) end
  end
  if newCur and newCur ~= cur then
    redis.call('HSET', R.k.cursors, agent, newCur)
    dirty(R, R.k.cursors, cur ~= false)
    if own then ownAfter(R, agent, seqOf(newCur)) end
    info.moved = true
  end
  info.remaining = unreadCount(R, agent)
  if #events == 0 then
    -- Nothing new: say when the feed last moved, so the agent need not look back to find out.
    local m = redis.call('HMGET', R.k.meta, 'eseq', 'lastms')
    if tonumber(m[1] or '0') > 0 then info.last_event_ms = tonumber(m[2]) end
  end
  return events, info
end
