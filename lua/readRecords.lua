--[[
  Reads given context entries' metadata, shared vars and reviews by name: the records of the
  page the dashboard shows after readSnapshot gave it their names. A name that no longer exists
  (deleted between the two reads) gives an empty row.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7..9]   how many names of each follow: context entries (type/key), vars, reviews (id)
  ARGV[10..]   the names, in that order

  Returns {} and rows: the raw records in the order of the names ('' for a missing one).
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/finish"
--- @include "includes/inSlices"

local R, early = openRoom('readRecords')
if not R then return early end
local rows, at = {}, 10
for i, key in ipairs({ R.k.ctx, R.k.vars, R.k.reviews }) do
  local n = tonumber(ARGV[6 + i])
  if n > 0 then
    local names = {}
    for j = at, at + n - 1 do names[#names + 1] = ARGV[j] end
    -- Every review, for the page's pending-only view: as many as the room may hold.
    for _, raw in ipairs(inSlices('HMGET', key, names)) do rows[#rows + 1] = raw or '' end
    at = at + n
  end
end
return finishRows(R, {}, rows)
