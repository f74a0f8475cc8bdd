--[[
  A dashboard's view of a room in one read: the room record, the whole plan, context metadata,
  the latest events (or those before a given one), each agent's read position, presence, live
  locks, vars and reviews, and the daily event counts. Does not count as room activity when the
  caller passes touch = '0' (a dashboard left open must not keep a room alive). Records travel
  raw: the node decodes, sorts and pages them (src/core/room-page.ts), so a room at the limits costs
  Redis copies, not decoding.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      presence TTL (ms)
  ARGV[8]      how long offline agents stay listed (ms)
  ARGV[9]      how many events
  ARGV[10]     most presence entries per group
  ARGV[11]     the events before this id ('' or absent: the latest)
  ARGV[12]     days of daily event counts, including today (absent: none)
  ARGV[13]     '1': context, vars and reviews as their names only (the caller reads the records
               it shows with readRecords); otherwise (name, raw) pairs
  ARGV[14]     cards a column ('' or absent: the whole plan instead of the board's pages)
  ARGV[15]     most ids in a card's blocked_by and blocks
  ARGV[16..20] where each column's page starts: todo, in_progress, in_review, done, cancelled

  Returns {room = meta fields, sections = {tasks, context, events, vars, reviews, locks},
  older = true when events precede those returned, events_kept = events the feed holds (posted,
  not deleted, not trimmed: what paging back through it can show), online = list of {agent, ms}, offline = the
  same, online_count, offline_count, cursors = {agent, event id, agent, event id, ...} (the last
  event each agent has read, as stored), read_seqs = {seq, ...} (one a cursor, in order: the seq
  up to which it has read, as get_event_reads counts it: includes/unreadCount readUpTo),
  events_by_day = {day = n}, today = day, now, board? = {columns = {status = {from, total}}, cards =
  [{blocked_by?, blocks?, blocks_total}], done_by_day = {day = n}}} and rows in section order: tasks
  (raw), context (type/key, raw metadata) pairs, events (id, raw) pairs oldest first, vars (name,
  raw) pairs, reviews (id, raw) pairs, locks (name, raw) pairs of live locks; with names only,
  context, vars and reviews are names (type/key, name, id), one row each. With cards a column
  (board), the tasks are those of each column's page, column after column, in the column's order
  (includes/board), each with its card in board.cards: blocked_by (a task to do: its dependencies
  not done or cancelled), blocks and blocks_total (the tasks that depend on it, the first by
  creation); the tasks are counted and ordered by the plan's indexes, not read.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/task"
--- @include "includes/boardPages"
--- @include "includes/finish"

local R, early = openRoom('readSnapshot')
if not R then return early end
local ttl, forget, eventCount, max = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local before, days, namesOnly = ARGV[11] or '', tonumber(ARGV[12] or '0'), ARGV[13] == '1'
-- A hash's entries as rows: (name, raw) pairs, or names only.
local function entries(key)
  if namesOnly then return redis.call('HKEYS', key), 1 end
  return redis.call('HGETALL', key), 2
end

local flat = redis.call('HGETALL', R.k.meta)
local meta, dayCounts = {}, {}
for i = 1, #flat, 2 do
  -- d:<day> event counts and o:<agent> own-event lists are bookkeeping, not the room record.
  local tag = string.sub(flat[i], 1, 2)
  if tag == 'd:' then
    dayCounts[string.sub(flat[i], 3)] = tonumber(flat[i + 1])
  elseif tag ~= 'o:' then
    meta[flat[i]] = flat[i + 1]
  end
end
local today = math.floor(R.now / 86400000)
local eventsByDay = {}
for d = today - days + 1, today do eventsByDay[tostring(d)] = dayCounts[tostring(d)] end

local rows, sections = {}, {}
local function add(list)
  for _, v in ipairs(list) do rows[#rows + 1] = v end
  return #list
end
local board
local size = tonumber(ARGV[14] or '')
if size then
  -- The board's pages (includes/board): ids of the cards, then their records and what links them.
  local ids = tonumber(ARGV[15])
  planIndexes(R)
  local at = bandStarts(R)
  local columns, cardIds, bands = boardColumns(R, at, size, { tonumber(ARGV[16]), tonumber(ARGV[17]),
    tonumber(ARGV[18]), tonumber(ARGV[19]), tonumber(ARGV[20]) })
  local cards = {}
  if #cardIds > 0 then
    local raws = redis.call('HMGET', R.k.tasks, unpack(cardIds))
    for i, raw in ipairs(raws) do
      local card = { blocks_total = 0 }
      if bands[i] == 0 then
        -- A card of the todo column: its open dependencies.
        local open = openOf(R, cmsgpack.unpack(raw).depends_on or {})
        if #open > 0 then card.blocked_by = { unpack(open, 1, math.min(ids, #open)) } end
      end
      -- The first dependents, and how many there are (counted only when there may be more).
      local lo, hi = dependentsRange(cardIds[i])
      local edges = redis.call('ZRANGEBYLEX', R.k.deps, lo, hi, 'LIMIT', 0, ids)
      if #edges > 0 then
        card.blocks = {}
        for j, e in ipairs(edges) do card.blocks[j] = idOfSlot(string.sub(e, 12)) end
      end
      card.blocks_total = #edges < ids and #edges or redis.call('ZLEXCOUNT', R.k.deps, lo, hi)
      cards[i] = card
      rows[#rows + 1] = raw
    end
  end
  sections.tasks = #cardIds
  board = { columns = columns, cards = cards, done_by_day = doneByDay(R, today - days + 1, today) }
else
  sections.tasks = add(redis.call('HVALS', R.k.tasks))
end
local list, per = entries(R.k.ctx)
sections.context = add(list) / per
local latest = redis.call('XREVRANGE', R.k.events, before == '' and '+' or ('(' .. before), '-', 'COUNT',
  eventCount + 1)
local older = #latest > eventCount
for i = math.min(#latest, eventCount), 1, -1 do
  rows[#rows + 1] = latest[i][1]
  rows[#rows + 1] = latest[i][2][2]
end
sections.events = math.min(#latest, eventCount)
list, per = entries(R.k.vars)
sections.vars = add(list) / per
list, per = entries(R.k.reviews)
sections.reviews = add(list) / per
local locks = redis.call('HGETALL', R.k.locks)
local live = 0
for i = 1, #locks, 2 do
  if cmsgpack.unpack(locks[i + 1]).expires_at > R.now then
    rows[#rows + 1] = locks[i]
    rows[#rows + 1] = locks[i + 1]
    live = live + 1
  end
end
sections.locks = live

local function group(hi, lo)
  local z = redis.call('ZREVRANGEBYSCORE', R.k.presence, hi, lo, 'WITHSCORES', 'LIMIT', 0, max)
  local out = {}
  for i = 1, #z, 2 do out[#out + 1] = { z[i], tonumber(z[i + 1]) } end
  return out
end
local since = R.now - ttl
-- Each cursor's read position by the tools' rule (includes/unreadCount readUpTo), not the stored
-- id's place in stream order: after the history went back the two differ (docs/realtime.md).
local cursors = redis.call('HGETALL', R.k.cursors)
local readSeqs, head, lastms = {}, tonumber(meta.eseq or '0'), tonumber(meta.lastms or '0')
for i = 2, #cursors, 2 do readSeqs[#readSeqs + 1] = readUpTo(R, cursors[i], head, lastms) end
return finishRows(R, {
  room = meta, sections = sections, older = older, events_kept = redis.call('XLEN', R.k.events), now = R.now,
    today = today, events_by_day = eventsByDay,
  online = group('+inf', since), offline = group('(' .. since, R.now - forget),
  online_count = redis.call('ZCOUNT', R.k.presence, since, '+inf'),
  offline_count = redis.call('ZCOUNT', R.k.presence, R.now - forget, '(' .. since),
  cursors = cursors, read_seqs = readSeqs, board = board,
}, rows)
