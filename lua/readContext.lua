--[[
  Reads a context entry: its metadata and the record of one kept version (the current one by default).

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      type
  ARGV[8]      key
  ARGV[9]      version ('' = current)

  Returns {} and rows [metadata, version record {body, by, at}], both raw msgpack; not_found (the
  entry, or a version no longer kept, naming the kept versions).
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/context"
--- @include "includes/finish"

local R, early = openRoom('readContext')
if not R then return early end
local ctype, key = ARGV[7], ARGV[8]
local field = ctxField(ctype, key)
local raw = redis.call('HGET', R.k.ctx, field)
if not raw then return missingEntry(ctype, key) end
local meta = cmsgpack.unpack(raw)
local v = meta.version
if ARGV[9] ~= '' then v = tonumber(ARGV[9]) end
local rec, missing = keptVersion(R, field, meta, v, 'version')
if not rec then return missing end
return finishRows(R, {}, { raw, rec })
