--[[
  The nearest vectors of a room to a query, from its vector set (Redis 8 VSIM), with the text hash
  of each (so a search drops a vector whose record's text changed since it was embedded). Answers
  mirrored = false, and nothing else, when the vector set does not hold exactly the room's
  vectors (Redis upgraded after they were written, or a write under way): the search then ranks
  in process instead (src/search/vectors/semantic.ts).

  KEYS[1]  vec, KEYS[2] order, KEYS[3] set (as in writeVectors-5.lua)
  ARGV[1]  the query: float32 blob
  ARGV[2]  how many (COUNT)
  ARGV[3]  filter expression over the attributes ('' : none), e.g. .k == "task"
  ARGV[4]  exploration factor (EF)

  Returns {gen, mirrored, keys? = [doc key], scores? = [similarity 0-1, as VSIM gives it],
  hashes? = [text hash]}, best first (the three absent when not mirrored). Publishes nothing.
]]
local gen = redis.call('HGET', KEYS[1], '#gen') or ''
local count = redis.call('ZCARD', KEYS[2])
if count == 0 then return cmsgpack.pack({ gen = gen, mirrored = true, keys = {}, scores = {}, hashes = {} }) end
if redis.call('EXISTS', KEYS[3]) == 0 or redis.call('VCARD', KEYS[3]) ~= count then
  return cmsgpack.pack({ gen = gen, mirrored = false })
end
local args = { 'VSIM', KEYS[3], 'FP32', ARGV[1], 'WITHSCORES', 'COUNT', ARGV[2], 'EF', ARGV[4] }
if ARGV[3] ~= '' then
  args[#args + 1] = 'FILTER'
  args[#args + 1] = ARGV[3]
end
local res = redis.call(unpack(args))
local keys, scores, hashes = {}, {}, {}
for i = 1, #res, 2 do
  keys[#keys + 1] = res[i]
  scores[#scores + 1] = tonumber(res[i + 1])
  hashes[#hashes + 1] = string.sub(redis.call('HGET', KEYS[1], res[i]) or '', 1, 16)
end
return cmsgpack.pack({ gen = gen, mirrored = true, keys = keys, scores = scores, hashes = hashes })
