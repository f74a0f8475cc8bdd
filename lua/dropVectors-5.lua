--[[
  Removes every vector of a room (its room is gone or was created again, or the embedding model
  changed), and starts a new epoch: a node holding the room's vectors in memory sees the epoch
  change and reads them all again (src/search/vectors/follower.ts).

  KEYS[1..5]  vec, order, log, dels, set (as in writeVectors-5.lua)
  ARGV[1]     TTL (ms) of the new, empty vec hash
  ARGV[2]     the new epoch (a unique string)

  Returns {epoch}. Publishes nothing.
]]
for _, k in ipairs(KEYS) do redis.call('DEL', k) end
redis.call('HSET', KEYS[1], '#epoch', ARGV[2], '#ver', 0)
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return cmsgpack.pack({ epoch = ARGV[2] })
