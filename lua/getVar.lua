--[[
  Reads one shared var.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      var name

  Returns {var = {value, version, updated_by?, updated_at}}; not_found.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/var"
--- @include "includes/finish"

local R, early = openRoom('getVar')
if not R then return early end
local var = loadVar(R, ARGV[7])
if not var then
  return fail('not_found', 'name: shared var "' .. ARGV[7] .. '" does not exist', { field = 'name' })
end
return finish(R, { var = var })
