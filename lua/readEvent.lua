--[[
  The stored record of one retained event of a room, as the room's stream holds it (replaying a
  webhook delivery rebuilds the delivery from it). Reads only; not room activity (touch = 0).

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom); no agent
  ARGV[7]      event id
  ARGV[8]      the field to name in not_found

  Returns {} and one row: the stored record (msgpack, as in the stream); not_found when the room
  or the event is gone (trimmed, or the room expired).
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/events"
--- @include "includes/finish"

local R, early = openRoom('readEvent')
if not R then return early end
local got = redis.call('XRANGE', R.k.events, ARGV[7], ARGV[7], 'COUNT', 1)
if #got == 0 then
  return fail('not_found', ARGV[8] .. ': event ' .. ARGV[7] .. ' is no longer retained by its room (trimmed)',
    { field = ARGV[8] })
end
return finishRows(R, {}, { got[1][2][2] })
