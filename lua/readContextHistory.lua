--[[
  Reads a context entry's metadata, whose hist lists the kept versions (oldest first).

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      type
  ARGV[8]      key

  Returns {} and rows [metadata] (raw msgpack, with hist); not_found.
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/context"
--- @include "includes/finish"

local R, early = openRoom('readContextHistory')
if not R then return early end
local ctype, key = ARGV[7], ARGV[8]
local raw = redis.call('HGET', R.k.ctx, ctxField(ctype, key))
if not raw then return missingEntry(ctype, key) end
return finishRows(R, {}, { raw })
