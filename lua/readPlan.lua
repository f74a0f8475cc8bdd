--[[
  Reads the whole plan.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)

  Returns {count} and rows [task, notes, task, notes, ...] (raw msgpack task, notes text or '').
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/task"
--- @include "includes/finish"

local R, early = openRoom('readPlan')
if not R then return early end
local flat = redis.call('HGETALL', R.k.tasks)
local rows = {}
for i = 1, #flat, 2 do
  rows[#rows + 1] = flat[i + 1]
  rows[#rows + 1] = redis.call('HGET', R.k.notes, flat[i]) or ''
end
return finishRows(R, { count = #flat / 2 }, rows)
