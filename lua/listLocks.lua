--[[
  Lists the room's live locks. Index entries past their expiry are skipped (acquireLock prunes
  them), so an expired lock never shows, even before it is pruned.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)

  Returns {now} and rows [name, msgpack {owner, token, acquired_at, expires_at}, ...], unsorted.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/finish"

local R, early = openRoom('listLocks')
if not R then return early end
local flat = redis.call('HGETALL', R.k.locks)
local rows = {}
for i = 1, #flat, 2 do
  if cmsgpack.unpack(flat[i + 1]).expires_at > R.now then
    rows[#rows + 1] = flat[i]
    rows[#rows + 1] = flat[i + 1]
  end
end
return finishRows(R, { now = R.now }, rows)
