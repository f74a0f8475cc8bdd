--[[
  Reads a room's record and counts.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      presence TTL (ms): agents seen within it count as online

  Returns {room = meta fields, counts = {tasks, context, events, vars, reviews, locks, online}}.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/finish"
--- @include "includes/roomRecord"

local R, early = openRoom('roomInfo')
if not R then return early end
local meta = roomRecord(R)
local live = 0
local locks = redis.call('HGETALL', R.k.locks)
for i = 2, #locks, 2 do
  if cmsgpack.unpack(locks[i]).expires_at > R.now then live = live + 1 end
end
return finish(R, {
  room = meta,
  counts = {
    tasks = redis.call('HLEN', R.k.tasks),
    context = redis.call('HLEN', R.k.ctx),
    events = redis.call('XLEN', R.k.events),
    vars = redis.call('HLEN', R.k.vars),
    reviews = redis.call('HLEN', R.k.reviews),
    locks = live,
    online = redis.call('ZCOUNT', R.k.presence, R.now - tonumber(ARGV[7]), '+inf'),
  },
})
