--[[
  Ends the Meilisearch indexer's hold on a room, if the caller still holds it (its lease token,
  claimSearchRooms). After a sync that succeeded the room's mark is cleared, unless it was marked
  again since the claim (then it stays, for the next sync). After a failure the room stays marked
  and may not be claimed again for `retry` ms. A caller whose lease ran out and went to another
  node changes nothing: that node's lease and the mark stay until it acks.

  KEYS[1]  dirty rooms (sorted set: room -> mark counter)
  KEYS[2]  leases (sorted set: room -> until when it is held or must wait, ms)
  ARGV[1]  "<teamId>/<roomId>"
  ARGV[2]  the mark counter seen when claimed
  ARGV[3]  retry (ms): 0 after a success
  ARGV[4]  the lease token held

  Returns {cleared = bool, held = bool}: whether the room is no longer marked, and whether the
  caller still held it.
]]
local room, seen, retry, token = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local lease = redis.call('ZSCORE', KEYS[2], room)
if not lease or tonumber(lease) ~= token then
  return cmsgpack.pack({ cleared = redis.call('ZSCORE', KEYS[1], room) == false, held = false })
end
if retry > 0 then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('ZADD', KEYS[2], now + retry, room)
  return cmsgpack.pack({ cleared = false, held = true })
end
redis.call('ZREM', KEYS[2], room)
local mark = redis.call('ZSCORE', KEYS[1], room)
if mark and tonumber(mark) <= seen then
  redis.call('ZREM', KEYS[1], room)
  mark = nil
end
return cmsgpack.pack({ cleared = mark == nil, held = true })
