--[[
  Lists the room's live reservations (entries past their expiry are skipped, not pruned: a read
  writes nothing), with the version reserve_files decides against.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  KEYS[room+1] the room's reservations hash (store.keys.reservations)
  ARGV[1..6]   common room arguments (includes/openRoom)

  Returns {now, version} and rows [msgpack record, ...] (includes/reservations), unsorted.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/finish"

local R, early = openRoom('listReservations')
if not R then return early end
local rows = {}
for _, raw in ipairs(redis.call('HVALS', KEYS[ROOM_KEY_COUNT + 1])) do
  if cmsgpack.unpack(raw).expires_at > R.now then rows[#rows + 1] = raw end
end
return finishRows(R, { now = R.now, version = tonumber(redis.call('HGET', R.k.meta, 'rver') or '0') }, rows)
