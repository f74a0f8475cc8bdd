--[[
  Adds an integer to a shared var atomically (a counter). An absent var starts at 0. Values stay
  decimal strings; the counter's range is that of exact doubles (|n| <= 2^53 - 1), the integers
  every JSON reader handles exactly.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      var name
  ARGV[8]      integer to add (decimal; may be negative)
  ARGV[9]      vars-per-room limit

  Returns {var = {value, version, updated_by?, updated_at}};
  conflict (the value is not an integer, or the sum leaves the range; details value),
  limit_reached (a new name).
  Publishes {k = 'var', op = 'incremented', name}.
  Effects  vars
]]
--- @include "includes/openRoom"
--- @include "includes/var"
--- @include "includes/finish"

local MAX_SAFE = 9007199254740991

local R, early = openRoom('incrementVar')
if not R then return early end
local name, by, limit = ARGV[7], tonumber(ARGV[8]), tonumber(ARGV[9])

local cur = loadVar(R, name)
local n = 0
if cur then
  n = string.match(cur.value, '^%-?%d+$') and tonumber(cur.value)
  if not n or math.abs(n) > MAX_SAFE then
    local shown = string.len(cur.value) > 40 and string.sub(cur.value, 1, 40) .. '...' or cur.value
    return fail('conflict', 'name: shared var "' .. name .. '" holds "' .. shown ..
      '", not an integer within +-' .. MAX_SAFE .. '; set it to an integer first', { field = 'name', value = shown })
  end
else
  local err = varLimit(R, limit)
  if err then return err end
end
local sum = n + by
if math.abs(sum) > MAX_SAFE then
  return fail('conflict', 'by: shared var "' .. name .. '" is ' .. string.format('%d', n) .. '; adding ' ..
    string.format('%d', by) .. ' leaves the integer range +-' .. MAX_SAFE,
    { field = 'by', value = cur and cur.value or '0' })
end
local var = saveVar(R, name, string.format('%d', sum), cur and cur.version or 0)
notify(R, { k = 'var', op = 'incremented', name = name })
return finish(R, { var = var })
