--[[
  Deletes a context entry and every kept version of it, and its pending reviews (in this script,
  so no review outlives its entry).

  KEYS[room]   the room's fixed keys (ROOM_KEYS, includes/roomKeys)
  ARGV[1..6]   common room arguments (includes/openRoom)
  ARGV[7]      type
  ARGV[8]      key

  Returns {deleted = {type, key, version} (version: the last one), reviews_removed = [id]};
  not_found.
  Publishes {k = 'context', op = 'deleted', type, key, version}.
  Effects  context, reviews
]]
--- @include "includes/openRoom"
--- @include "includes/context"
--- @include "includes/reviewsOf"
--- @include "includes/finish"

local R, early = openRoom('deleteContext')
if not R then return early end
local ctype, key = ARGV[7], ARGV[8]
local field = ctxField(ctype, key)
local meta = loadEntry(R, field)
if not meta then return missingEntry(ctype, key) end
local fields = { field .. '#' .. meta.version }
for _, h in ipairs(meta.hist or {}) do
  if h.v ~= meta.version then fields[#fields + 1] = field .. '#' .. h.v end
end
redis.call('HDEL', R.k.ctxv, unpack(fields))
redis.call('HDEL', R.k.ctx, field)
dirty(R, R.k.ctx)
dirty(R, R.k.ctxv)
notify(R, { k = 'context', op = 'deleted', type = ctype, key = key, version = meta.version })
local removed = dropPendingReviews(R, 'context', ctype, key)
return finish(R, { deleted = { type = ctype, key = key, version = meta.version }, reviews_removed = removed })
