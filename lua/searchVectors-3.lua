--[[
  The nearest vectors of a room to a query, from its vector set (Redis 8), by VSIM's exact mode
  (TRUTH: a linear scan of the set, not the approximate graph search), each with its packed
  vector: the node scores them itself with the arithmetic it uses in process, and proves from the
  last one that no vector left out could rank among those it takes, else asks again for more
  (src/search/vectors/exact.ts). Answers mirrored = false, and nothing else, when the vector set
  does not hold exactly the room's vectors (Redis upgraded after they were written, a node that
  does not mirror wrote since, or a write under way): the search then ranks in process instead
  (src/search/vectors/semantic.ts). The set never holds a vector that is not the room's current
  one for its record (writeVectors-5.lua, mirrorVectors-3.lua), so equal counts mean equal sets.

  KEYS[1]  vec, KEYS[2] order, KEYS[3] set (as in writeVectors-5.lua)
  ARGV[1]  the query: float32 blob
  ARGV[2]  how many (COUNT; also VSIM's EF, which sizes its queue)
  ARGV[3]  filter expression over the attributes ('' : none), e.g. .k == "task"

  Returns {gen, mirrored, card = vectors the room has, keys = [doc key] in VSIM's order, nearest
  first by its float32 distance} and rows: the packed vector of each key, in that order (as in
  readVectorChanges-3.lua). Publishes nothing.
  Effects  none
]]
local gen = redis.call('HGET', KEYS[1], '#gen') or ''
local card = redis.call('ZCARD', KEYS[2])
if card == 0 then return { cmsgpack.pack({ gen = gen, mirrored = true, card = 0, keys = {} }) } end
local function unmirrored() return { cmsgpack.pack({ gen = gen, mirrored = false, card = card, keys = {} }) } end
if redis.call('EXISTS', KEYS[3]) == 0 or redis.call('VCARD', KEYS[3]) ~= card then return unmirrored() end
local args = { 'VSIM', KEYS[3], 'FP32', ARGV[1], 'COUNT', ARGV[2], 'EF', ARGV[2], 'TRUTH' }
if ARGV[3] ~= '' then
  args[#args + 1] = 'FILTER'
  args[#args + 1] = ARGV[3]
end
local keys, rows = {}, {}
for i, k in ipairs(redis.call(unpack(args))) do
  local row = redis.call('HGET', KEYS[1], k)
  if not row then return unmirrored() end -- an element of no record: the set is not the room's
  keys[i] = k
  rows[i] = row
end
local out = { cmsgpack.pack({ gen = gen, mirrored = true, card = card, keys = keys }) }
for i = 1, #rows do out[i + 1] = rows[i] end
return out
