--[[
  Lists the shared vars whose name starts with a prefix (all of them for '').

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      name prefix ('' = all)

  Returns {} and rows [name, msgpack var, ...], unsorted.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/finish"

local R, early = openRoom('listVars')
if not R then return early end
local prefix = ARGV[7]
local flat = redis.call('HGETALL', R.k.vars)
local rows = {}
for i = 1, #flat, 2 do
  if string.sub(flat[i], 1, #prefix) == prefix then
    rows[#rows + 1] = flat[i]
    rows[#rows + 1] = flat[i + 1]
  end
end
return finishRows(R, {}, rows)
