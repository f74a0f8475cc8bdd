--[[
  The caller's unread events, consuming nothing (the MCP resource of an agent's unread events):
  up to ARGV[7] events after its cursor, oldest first, without its own, as the next consuming read
  would return them; the cursor stays where it is.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom); ARGV[1] is the reader (required)
  ARGV[7]      most events to return

  Returns {events = [{id, type, agent_id, text, data?, reply_to?, created_at}]}; the unread count
  (finish) says how many there are in all.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/finish"

local R, early = openRoom('peekUnreadEvents')
if not R then return early end
local limit = tonumber(ARGV[7])
local cur = redis.call('HGET', R.k.cursors, R.agent)
-- The agent's own events after its cursor are at most the entries of its own list (unreadCount):
-- reading that many more entries than `limit` finds `limit` others' events when there are that many.
local own = redis.call('HGET', R.k.meta, 'o:' .. R.agent)
local extra = 0
if own then for _ in string.gmatch(own, '%d+') do extra = extra + 1 end end
local got = redis.call('XRANGE', R.k.events, cur and ('(' .. cur) or '-', '+', 'COUNT', limit + extra)
local events = {}
for _, e in ipairs(got) do
  if #events == limit then break end
  local ev = cmsgpack.unpack(e[2][2])
  if ev.agent_id ~= R.agent then
    ev.id = e[1]
    events[#events + 1] = ev
  end
end
return finish(R, { events = events })
