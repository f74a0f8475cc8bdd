--[[
  Records what the Meilisearch indexer has written for a room (src/search/meili/indexer.ts), after
  Meilisearch applied it: the room's search manifest gets the given fields set and removed, and
  the room's TTL, so it goes when the room goes. Written after every applied batch, so a sync cut
  short by a crash resumes from what was already written.

  KEYS[1]  the room's search manifest (hash, under the room's hash tag)
  ARGV[1]  TTL (ms): the room TTL; or, from the sweep (with an empty change), what is left of
           the room's own TTL, when the manifest would expire before its room
  ARGV[2]  msgpack {fresh = bool (start from an empty manifest), set = {field = value},
           del = [field]}

  Returns {fields = number of fields now held}.
  Effects  search
]]
local ttl = tonumber(ARGV[1])
local change = cmsgpack.unpack(ARGV[2])
if change.fresh then redis.call('DEL', KEYS[1]) end
local flat = {}
for field, value in pairs(change.set or {}) do
  flat[#flat + 1] = field
  flat[#flat + 1] = value
  if #flat >= 1000 then
    redis.call('HSET', KEYS[1], unpack(flat))
    flat = {}
  end
end
if #flat > 0 then redis.call('HSET', KEYS[1], unpack(flat)) end
local del = change.del or {}
for i = 1, #del, 500 do
  redis.call('HDEL', KEYS[1], unpack(del, i, math.min(i + 499, #del)))
end
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ttl) end
return cmsgpack.pack({ fields = redis.call('HLEN', KEYS[1]) })
