--[[
  Reads every review of the room; the core filters, sorts and pages them (bounded by the
  reviews-per-room limit).

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)

  Returns {} and rows [msgpack review, ...], unsorted.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/finish"

local R, early = openRoom('listReviews')
if not R then return early end
return finishRows(R, {}, redis.call('HVALS', R.k.reviews))
