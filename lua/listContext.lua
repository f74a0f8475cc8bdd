--[[
  Lists context entries' metadata, all of them or those of one type. The caller sorts them.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      type ('' = every type)

  Returns {total} and rows [metadata, ...] (raw msgpack, with hist).
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/finish"

local R, early = openRoom('listContext')
if not R then return early end
local prefix = ARGV[7] ~= '' and (ARGV[7] .. '/') or ''
local flat = redis.call('HGETALL', R.k.ctx)
local rows = {}
for i = 1, #flat, 2 do
  if prefix == '' or string.sub(flat[i], 1, #prefix) == prefix then rows[#rows + 1] = flat[i + 1] end
end
return finishRows(R, { total = #rows }, rows)
