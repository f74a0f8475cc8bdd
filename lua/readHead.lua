--[[
  The room page's head in one small read (the live stream renders it once per change for every
  open page, src/dashboard/live.ts): the record fields the head shows, the events the feed holds
  and the agents online, as readSnapshot counts them. Does not count as room activity when the
  caller passes touch = '0'.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      presence TTL (ms): agents seen within it count as online

  Returns {room = {id, name, template, created_at, touched?, created_by?, eseq?}, events_kept, online_count}.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/finish"

local R, early = openRoom('readHead')
if not R then return early end
local fields = { 'id', 'name', 'template', 'created_at', 'touched', 'created_by', 'eseq' }
local values = redis.call('HMGET', R.k.meta, 'id', 'name', 'template', 'created_at', 'touched', 'created_by', 'eseq')
local room = {}
for i, f in ipairs(fields) do
  if values[i] then room[f] = values[i] end
end
return finish(R, {
  room = room,
  events_kept = redis.call('XLEN', R.k.events),
  online_count = redis.call('ZCOUNT', R.k.presence, R.now - tonumber(ARGV[7]), '+inf'),
})
