--[[
  Reads two kept versions of a context entry in one call, for diff_context. Defaults: `to` is the
  current version, `from` the one before `to`. Version 0 is the empty text before the entry existed,
  so the diff of a first version shows all of it as added.

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      type
  ARGV[8]      key
  ARGV[9]      from version ('' = the one before `to`)
  ARGV[10]     to version ('' = current)

  Returns {from_version, to_version, current_version} and rows [from record, to record] (raw
  msgpack {body, by, at}; '' for version 0); not_found (the entry, or a version no longer kept,
  naming the kept versions).
  Effects  none
]]
--- @include "includes/openRoom"
--- @include "includes/context"
--- @include "includes/finish"

local R, early = openRoom('readContextVersions')
if not R then return early end
local ctype, key = ARGV[7], ARGV[8]
local field = ctxField(ctype, key)
local meta = loadEntry(R, field)
if not meta then return missingEntry(ctype, key) end
local to = meta.version
if ARGV[10] ~= '' then to = tonumber(ARGV[10]) end
local from = math.max(to - 1, 0)
if ARGV[9] ~= '' then from = tonumber(ARGV[9]) end
local toRec, missingTo = keptVersion(R, field, meta, to, 'to_version')
if not toRec then return missingTo end
local fromRec, missingFrom = keptVersion(R, field, meta, from, 'from_version')
if not fromRec then return missingFrom end
return finishRows(R, { from_version = from, to_version = to, current_version = meta.version }, { fromRec, toRec })
