--[[
  Writes and removes vectors of a room's semantic search (src/search/vectors/sink.ts), keeps the
  room at its bound, and records every change with a version, so the nodes that hold a room's
  vectors in memory (src/search/vectors/follower.ts) fetch only what changed. With vector sets
  (Redis 8), the same vectors also go into the room's vector set, which searches use instead.
  A change without mirroring (a node not using vector sets) deletes the set: a set then only
  holds current vectors of the room (searchVectors-3.lua, mirrorVectors-3.lua).
  With nothing to change it only refreshes the TTLs (the sweep keeps the vectors as long as
  their room: src/search/indexer.ts).

  KEYS[1]  vec:   hash, doc key -> packed vector (16 hex chars of text hash, float32 range,
                  int8 values); counters "#ver" (+1 per call that changes something), "#floor",
                  "#gen" (the embedding model)
  KEYS[2]  order: sorted set, doc key -> keep priority; past the bound the lowest go
  KEYS[3]  log:   sorted set, doc key -> #ver of its last write
  KEYS[4]  dels:  sorted set, doc key -> #ver of its removal; at most ARGV[2] kept, the
                  oldest pruned, #floor = the last version pruned (a node that knew an older
                  version reads everything again)
  KEYS[5]  set:   vector set (written only when ARGV[3] is '1'; deleted by a change without)
  ARGV[1]  TTL (ms): every key gets it
  ARGV[2]  most vectors the room keeps (SEARCH_VECTORS_PER_ROOM)
  ARGV[3]  '1': mirror into the vector set (VADD/VREM)
  ARGV[4]  msgpack {put = [{k = doc key, p = priority (absent: keep the one it has),
           a = attributes JSON (mirror only)}], del = [doc key], gen = model}
  ARGV[5..] binary, per put in order (msgpack here has no binary type): its packed vector, then
           (mirror only) its float32 values for VADD

  Returns {ver, count = vectors kept, evicted = removed past the bound, mirrored = vectors in
  the vector set (-1 without mirroring)}. Publishes nothing: searches read the version.
  Effects  vectors
]]
local vec, order, log, dels, set = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local ttl, bound, mirror = ARGV[1], tonumber(ARGV[2]), ARGV[3] == '1'
local change = cmsgpack.unpack(ARGV[4])
local puts, gone = change.put or {}, change.del or {}

local ver = tonumber(redis.call('HGET', vec, '#ver') or '0')
local evicted = 0
if #puts > 0 or #gone > 0 then
  ver = redis.call('HINCRBY', vec, '#ver', 1)
  redis.call('HSET', vec, '#gen', change.gen or '')
  if not mirror then redis.call('DEL', set) end
  local function remove(k)
    if redis.call('HDEL', vec, k) == 0 then return 0 end
    redis.call('ZREM', order, k)
    redis.call('ZREM', log, k)
    redis.call('ZADD', dels, ver, k)
    if mirror then redis.call('VREM', set, k) end
    return 1
  end
  local per = mirror and 2 or 1
  for i, p in ipairs(puts) do
    local at = 4 + (i - 1) * per
    redis.call('HSET', vec, p.k, ARGV[at + 1])
    if p.p then redis.call('ZADD', order, p.p, p.k) else redis.call('ZADD', order, 'NX', 0, p.k) end
    redis.call('ZADD', log, ver, p.k)
    redis.call('ZREM', dels, p.k)
    if mirror then redis.call('VADD', set, 'FP32', ARGV[at + 2], p.k, 'SETATTR', p.a) end
  end
  for _, k in ipairs(gone) do remove(k) end
  local over = redis.call('ZCARD', order) - bound
  if over > 0 then
    for _, k in ipairs(redis.call('ZRANGE', order, 0, over - 1)) do evicted = evicted + remove(k) end
  end
  local tombs = redis.call('ZCARD', dels) - bound
  if tombs > 0 then
    local last = redis.call('ZRANGE', dels, tombs - 1, tombs - 1, 'WITHSCORES')
    redis.call('ZREMRANGEBYRANK', dels, 0, tombs - 1)
    redis.call('HSET', vec, '#floor', last[2])
  end
end
for _, k in ipairs(KEYS) do
  if redis.call('EXISTS', k) == 1 then redis.call('PEXPIRE', k, ttl) end
end
return cmsgpack.pack({
  ver = ver, count = redis.call('ZCARD', order), evicted = evicted,
  mirrored = mirror and redis.call('VCARD', set) or -1,
})
