--[[
  Extends the Meilisearch indexer's lease on a room it is syncing (src/search/meili/indexer.ts),
  if it still holds it: a sync longer than the lease (a big room, an embedder) is not claimed by
  another node meanwhile. The lease's end is its token (claimSearchRooms): the new end is the new
  token.

  KEYS[1]  leases (sorted set: "<teamId>/<roomId>" -> until when it is held, ms)
  ARGV[1]  "<teamId>/<roomId>"
  ARGV[2]  the token held (the lease's current end, ms)
  ARGV[3]  lease (ms)

  Returns {lease = the new token} while held, or {lost = true} when the lease is another's or
  gone (it ran out and was claimed, or was cleared).
]]
local room, token, lease = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local held = redis.call('ZSCORE', KEYS[1], room)
if not held or tonumber(held) ~= token then return cmsgpack.pack({ lost = true }) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local renewed = math.max(now + lease, token + 1)
redis.call('ZADD', KEYS[1], renewed, room)
return cmsgpack.pack({ lease = renewed })
