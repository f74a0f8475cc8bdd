--[[
  Removes every vector of a room: its room is gone (expired), was created again, or the embedding
  model changed. While the room exists, a new epoch starts: a node holding the room's vectors in
  memory sees the epoch change and reads them all again (src/search/vectors/follower.ts). A room
  that is gone keeps nothing.

  KEYS[1..5]  vec, order, log, dels, set (as in writeVectors-5.lua)
  KEYS[6]     the room's meta hash (whether the room exists)
  ARGV[1]     TTL (ms) of the new, empty vec hash
  ARGV[2]     the new epoch (a unique string)

  Returns {epoch = the new epoch, or '' when the room is gone}. Publishes nothing.
  Effects  vectors
]]
for i = 1, 5 do redis.call('DEL', KEYS[i]) end
if redis.call('EXISTS', KEYS[6]) == 0 then return cmsgpack.pack({ epoch = '' }) end
redis.call('HSET', KEYS[1], '#epoch', ARGV[2], '#ver', 0)
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return cmsgpack.pack({ epoch = ARGV[2] })
