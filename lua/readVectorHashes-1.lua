--[[
  The text hashes of the vectors of the named records (the first 16 characters of each packed
  vector), so the vector indexer embeds again only records whose text changed.

  KEYS[1]  vec: the room's vector hash (writeVectors-5.lua)
  ARGV[1]  msgpack [doc key]

  Returns {hashes = [hash or '' when the record has no vector], in the order asked}.
  Effects  none
]]
local keys = cmsgpack.unpack(ARGV[1])
local out = {}
for i, k in ipairs(keys) do
  local v = redis.call('HGET', KEYS[1], k)
  out[i] = v and string.sub(v, 1, 16) or ''
end
return cmsgpack.pack({ hashes = out })
