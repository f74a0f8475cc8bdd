--- @include "includes/seqOf"
-- How many events the agent has not read: head seq - cursor seq - deleted events after the cursor.
-- A cursor behind the trim point counts from the trim point (the consuming read reports the loss).
-- unreadAt takes the head seq and trim point when the caller has already read them from meta;
-- it also returns the agent's cursor (false when it has none, as HGET gives it).
local function unreadAt(R, agent, head, trim)
  local cur = redis.call('HGET', R.k.cursors, agent)
  local pos = cur and seqOf(cur) or trim
  if pos < trim then pos = trim end
  if pos >= head then return 0, cur end
  return head - pos - redis.call('ZCOUNT', R.k.evdel, '(' .. pos, '+inf'), cur
end

local function unreadCount(R, agent)
  local m = redis.call('HMGET', R.k.meta, 'eseq', 'trim')
  return (unreadAt(R, agent, tonumber(m[1] or '0'), tonumber(m[2] or '0')))
end
