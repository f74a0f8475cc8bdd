--[[
  The nearest vectors of a room to a query, from its vector set (Redis 8 VSIM), each with its
  packed vector: the node scores them itself with the arithmetic it uses in process, so both
  ways give the same similarities (VSIM's own are float32), and drops a vector whose record's
  text changed since it was embedded (the text hash leads the packed vector). Answers
  mirrored = false, and nothing else, when the vector set does not hold exactly the room's
  vectors (Redis upgraded after they were written, or a write under way): the search then ranks
  in process instead (src/search/vectors/semantic.ts).

  KEYS[1]  vec, KEYS[2] order, KEYS[3] set (as in writeVectors-5.lua)
  ARGV[1]  the query: float32 blob
  ARGV[2]  how many (COUNT)
  ARGV[3]  filter expression over the attributes ('' : none), e.g. .k == "task"
  ARGV[4]  exploration factor (EF)

  Returns {gen, mirrored, keys = [doc key] in VSIM's order} and rows: the packed vector of each
  key, in that order (as in readVectorChanges-3.lua). Publishes nothing.
]]
local gen = redis.call('HGET', KEYS[1], '#gen') or ''
local count = redis.call('ZCARD', KEYS[2])
if count == 0 then return { cmsgpack.pack({ gen = gen, mirrored = true, keys = {} }) } end
if redis.call('EXISTS', KEYS[3]) == 0 or redis.call('VCARD', KEYS[3]) ~= count then
  return { cmsgpack.pack({ gen = gen, mirrored = false, keys = {} }) }
end
local args = { 'VSIM', KEYS[3], 'FP32', ARGV[1], 'COUNT', ARGV[2], 'EF', ARGV[4] }
if ARGV[3] ~= '' then
  args[#args + 1] = 'FILTER'
  args[#args + 1] = ARGV[3]
end
local keys, rows = {}, {}
for _, k in ipairs(redis.call(unpack(args))) do
  local row = redis.call('HGET', KEYS[1], k)
  if row then
    keys[#keys + 1] = k
    rows[#rows + 1] = row
  end
end
local out = { cmsgpack.pack({ gen = gen, mirrored = true, keys = keys }) }
for i = 1, #rows do out[i + 1] = rows[i] end
return out
