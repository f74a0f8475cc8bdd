--[[
  Sets a shared var to a string value; its version grows by one with every write. With an
  expected version the write happens only when the var is at that version (0 = must not exist
  yet), so two agents cannot overwrite each other unknowingly.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      var name
  ARGV[8]      value
  ARGV[9]      expected version ('' = any)
  ARGV[10]     vars-per-room limit

  Returns {var = {value, version, updated_by?, updated_at}};
  conflict (version mismatch; details version), limit_reached (a new name).
  Publishes {k = 'var', op = 'set', name}.
  Effects  vars
]]
--- @include "includes/openRoom"
--- @include "includes/var"
--- @include "includes/finish"

local R, early = openRoom('setVar')
if not R then return early end
local name, value, expected, limit = ARGV[7], ARGV[8], ARGV[9], tonumber(ARGV[10])

local cur = loadVar(R, name)
local version = cur and cur.version or 0
if expected ~= '' and tonumber(expected) ~= version then
  return fail('conflict', 'expected_version: shared var "' .. name .. '" is at version ' .. version .. ', not ' ..
    expected .. '; read it again, then decide', { field = 'expected_version', version = version })
end
if not cur then
  local err = varLimit(R, limit)
  if err then return err end
end
local var = saveVar(R, name, value, version)
notify(R, { k = 'var', op = 'set', name = name })
return finish(R, { var = var })
