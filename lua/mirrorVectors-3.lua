--[[
  Writes a room's vectors into its vector set again (Redis 8), a page at a time, when the set does
  not hold them all (Redis upgraded under rooms embedded before, a node that does not mirror
  wrote, the set lost): src/search/vectors/semantic.ts reads the vectors (readVectorChanges-3.lua)
  and sends them here with their float32 form. Only a vector that is still its record's current
  one goes in (the record may have been rewritten or removed since it was read: its writer kept
  the set up to date, or deleted it); the records themselves are not touched, so no version
  changes and nodes that hold the room's vectors fetch nothing.

  KEYS[1]  vec, KEYS[2] order, KEYS[3] set (as in writeVectors-5.lua)
  ARGV[1]  '1': first page, the set starts from nothing (whatever it held is dropped)
  ARGV[2]  msgpack [{k = doc key, a = attributes JSON}]
  ARGV[3..] binary, per record in order: the packed vector read, then its float32 values for VADD

  Returns {added = vectors written into the set, mirrored = vectors in the set, card = vectors
  the room has}. The set gets the TTL of vec. Publishes nothing.
  Effects  vectors
]]
local vec, order, set = KEYS[1], KEYS[2], KEYS[3]
if ARGV[1] == '1' then redis.call('DEL', set) end
local added = 0
for i, p in ipairs(cmsgpack.unpack(ARGV[2])) do
  local packed, values = ARGV[2 * i + 1], ARGV[2 * i + 2]
  if redis.call('HGET', vec, p.k) == packed then
    redis.call('VADD', set, 'FP32', values, p.k, 'SETATTR', p.a)
    added = added + 1
  end
end
local ttl = redis.call('PTTL', vec)
if ttl > 0 and redis.call('EXISTS', set) == 1 then redis.call('PEXPIRE', set, ttl) end
local mirrored = redis.call('EXISTS', set) == 1 and redis.call('VCARD', set) or 0
return cmsgpack.pack({ added = added, mirrored = mirrored, card = redis.call('ZCARD', order) })
