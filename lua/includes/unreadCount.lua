--- @include "includes/seqOf"
-- How many events the agent has not read: head seq - cursor seq - deleted events after the cursor
-- - its own events after the cursor. A cursor behind the trim point counts from the trim point
-- (the consuming read reports the loss).
--
-- Own events: an agent that posts while it has unread events cannot have its cursor moved past
-- them, so the seqs of its own events after its cursor are kept in meta 'o:<agent>' (comma-
-- separated, ascending) and never count as unread for it; consumeEvents skips them. The list is
-- pruned whenever the cursor moves (ownAfter), and loses a seq when its event is deleted.
--
-- unreadAt takes the head seq, trim point and last ms when the caller has already read them from
-- meta; it also returns the agent's cursor (false when it has none, as HGET gives it) and its own
-- list (false when none, or nothing was unread).

--[[
  A cursor's place in the feed as it is now (cursorAt). Within one history of the room a cursor
  is a position of the feed: its ms and seq are at most the head's, and the first entry after it
  (stream order) has a greater seq. When the history went back (the room was created again under
  the same id over a cursor that outlived it, or Redis came back from a copy without the last
  events but with a later cursor: docs/realtime.md) neither holds, and the cursor's seq means
  nothing in the new history. The events after it in stream order are then the new ones: the
  cursor stands just before the first of them, or at the head when none came yet.

  Returns pos (the seq up to which events count as read), rewound (true for a cursor of a
  history that went back) and, for a rewound cursor, the id of the first event after it, if any.
  Costs one XRANGE unless the cursor is at the head.
]]
local function cursorAt(R, cur, head, lastms)
  local seq = seqOf(cur)
  local ms = tonumber(string.match(cur, '^(%d+)'))
  if seq == head and ms == lastms then return seq, false end
  local nxt = redis.call('XRANGE', R.k.events, '(' .. cur, '+', 'COUNT', 1)[1]
  if seq < head and ms <= lastms and (not nxt or seqOf(nxt[1]) > seq) then return seq, false end
  if nxt then return seqOf(nxt[1]) - 1, true, nxt[1] end
  return head, true
end

-- The seq up to which a cursor has read, as get_event_reads and the dashboard's room page count
-- it: an event of the feed as it is now is read when its seq is at most this. Neither past the
-- cursor's own seq nor past its place in the feed (cursorAt).
local function readUpTo(R, cur, head, lastms)
  return math.min(seqOf(cur), (cursorAt(R, cur, head, lastms)))
end

local function unreadAt(R, agent, head, trim, lastms)
  local cur = redis.call('HGET', R.k.cursors, agent)
  local pos = cur and cursorAt(R, cur, head, lastms) or trim
  if pos < trim then pos = trim end
  if pos >= head then return 0, cur, false end
  local n = head - pos - redis.call('ZCOUNT', R.k.evdel, '(' .. pos, '+inf')
  local own = redis.call('HGET', R.k.meta, 'o:' .. agent)
  if own then
    for s in string.gmatch(own, '%d+') do
      if tonumber(s) > pos then n = n - 1 end
    end
  end
  return n, cur, own
end

local function unreadCount(R, agent)
  local m = redis.call('HMGET', R.k.meta, 'eseq', 'trim', 'lastms')
  return (unreadAt(R, agent, tonumber(m[1] or '0'), tonumber(m[2] or '0'), tonumber(m[3] or '0')))
end

-- Keeps only the agent's own seqs after `pos` (its cursor moved there), or drops the list.
-- `without`, when given, is a seq to drop too (its event was deleted).
local function ownAfter(R, agent, pos, without)
  local field = 'o:' .. agent
  local own = redis.call('HGET', R.k.meta, field)
  if not own then return end
  local keep = {}
  for s in string.gmatch(own, '%d+') do
    local n = tonumber(s)
    if n > pos and n ~= without then keep[#keep + 1] = s end
  end
  if #keep == 0 then
    redis.call('HDEL', R.k.meta, field)
  else
    redis.call('HSET', R.k.meta, field, table.concat(keep, ','))
  end
  -- meta existed before the call and keeps its TTL: nothing for finish() to refresh.
end
