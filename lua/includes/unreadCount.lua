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
-- unreadAt takes the head seq and trim point when the caller has already read them from meta;
-- it also returns the agent's cursor (false when it has none, as HGET gives it) and its own list
-- (false when none, or nothing was unread).
local function unreadAt(R, agent, head, trim)
  local cur = redis.call('HGET', R.k.cursors, agent)
  local pos = cur and seqOf(cur) or trim
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
  local m = redis.call('HMGET', R.k.meta, 'eseq', 'trim')
  return (unreadAt(R, agent, tonumber(m[1] or '0'), tonumber(m[2] or '0')))
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
